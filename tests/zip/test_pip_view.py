"""k3diff reads an archive as pip does: three wheels that once passed both commands while pip
installed an attacker's `demo/__init__.py` now fail both, each with the code that names how.

Every case is held against the real thing: `pip install --no-deps --no-compile --target` puts
the attacker's file on disk, and that is exactly what must never pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import run_k3diff

from zip import crafted

CASES: dict[str, tuple[Callable[[Path], Path], set[str]]] = {
    "count-short-of-the-directory": (crafted.one_record_past_the_count, {"W613", "W608"}),
    "zip64-record-disagrees": (crafted.zip64_disagrees, {"W613"}),
    "name-with-nul": (crafted.name_with_nul, {"W614", "W608"}),
}


def _failing_codes(findings: list[dict[str, str]]) -> set[str]:
    return {f["code"] for f in findings if f["severity"] == "error"}


@pytest.mark.parametrize("case", CASES)
def test_wheels_fails_what_pip_installs_differently(tmp_path: Path, case: str) -> None:
    craft, expected = CASES[case]
    base = crafted.base_wheel(tmp_path / "base")
    patch = craft(tmp_path / "patch")
    assert crafted.installed(base, tmp_path / "base-site") == crafted.BENIGN
    assert crafted.installed(patch, tmp_path / "patch-site") == crafted.EVIL
    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert (result.exit_code, result.stderr) == (1, "")
    report = json.loads(result.stdout)
    assert expected <= _failing_codes(report["findings"])
    # The comparison sees the file pip installs, not the one the old reader saw.
    (entry,) = (e for e in report["entries"] if e["path"] == crafted.TARGET)
    assert entry["status"] == "changed"


@pytest.mark.parametrize("case", CASES)
def test_audit_fails_each_crafted_wheel(tmp_path: Path, case: str) -> None:
    craft, expected = CASES[case]
    result = run_k3diff("audit", craft(tmp_path), "--format", "json")
    assert (result.exit_code, result.stderr) == (1, "")
    (artifact,) = json.loads(result.stdout)["artifacts"]
    assert expected <= _failing_codes(artifact["findings"])


def test_the_honest_wheel_passes_both(tmp_path: Path) -> None:
    base = crafted.base_wheel(tmp_path / "base")
    copy = crafted.base_wheel(tmp_path / "copy")
    assert run_k3diff("wheels", base, copy).exit_code == 0
    assert run_k3diff("audit", base).exit_code == 0
