"""A wheels document whose native change was hidden in its entries, not only in its findings,
is refused (exit 2): a `.so` entry relabelled `other` (its name makes it native whatever its
bytes) or a changed entry relabelled `identical` while its sizes and CRC-32s still differ, each
with its W101 deleted and the verdict made to pass. Both read as a cross-checked pass."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bundle.helpers import wheels_json
from cli_support import run_k3diff

Edit = Callable[[dict[str, Any]], None]


def _native(document: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = next(e for e in document["entries"] if e["kind"] == "native")
    return entry


def _as_other(document: dict[str, Any]) -> None:
    _native(document)["kind"] = "other"
    summary = document["summary"]
    summary["native"].update(total=0, changed=0)
    summary["other"].update(total=1, changed=1)


def _as_identical(document: dict[str, Any]) -> None:
    _native(document).update(status="identical", how="raw-bytes")
    document["summary"]["native"].update(changed=0, identical=1)


def _as_identical_same_size(document: dict[str, Any]) -> None:
    _as_identical(document)
    entry = _native(document)
    entry["patch_size"] = entry["base_size"]


EDITS: dict[str, tuple[Edit, str]] = {
    "a native entry relabelled other": (
        _as_other,
        "entries[4] pkg/_native.so is 'other' but its name makes it native",
    ),
    "a changed native entry relabelled identical": (
        _as_identical,
        "entries[4] pkg/_native.so is identical but its sizes differ (456 and 464 bytes)",
    ),
    "its sizes made equal too": (
        _as_identical_same_size,
        "entries[4] pkg/_native.so is identical but its CRC-32s differ (016eb57a and 664581a3)",
    ),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_native_change_hidden_in_the_entries_is_refused(tmp_path: Path, case: str) -> None:
    edit, message = EDITS[case]
    name = wheels_json(tmp_path, native_changed=True)
    document = json.loads((tmp_path / name).read_text())
    edit(document)
    document["findings"] = [f for f in document["findings"] if f["code"] != "W101"]
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("k3diff: error: forged.json: "), line
    assert message in line, line
