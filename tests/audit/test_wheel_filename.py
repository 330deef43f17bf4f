"""A `.whl` whose file name is no wheel filename (fewer than four dashes: a renamed copy) is
finding A126 in `audit`, and fails it: pip, twine and PyPI refuse such a file, and its name,
version and tags cannot be checked. `wheels` still compares renamed copies."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheelkit import make_wheel

from audit.helpers import all_findings, audit_json, codes

FILES = {"demo/__init__.py": b"VALUE = 1\n"}


@pytest.mark.parametrize(
    "name", ["copy.whl", "demo-1.0.whl", "demo-1.0-py3-none.whl", "Copy.WHL", "a-b-c-d.whl"]
)
def test_a_renamed_wheel_is_a_failing_finding(tmp_path: Path, name: str) -> None:
    built = make_wheel(tmp_path / "built", "demo", "1.0", FILES)
    renamed = shutil.copy(built, tmp_path / name)
    code, report = audit_json(renamed)
    assert code == 1
    assert codes(report) == {"A126": 1}
    [finding] = all_findings(report)
    assert finding["path"] == ""
    assert finding["detail"] == (
        f"{name!r} does not read as NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl: pip, "
        "twine and PyPI refuse it, and its name, version and tags cannot be checked"
    )
    assert report["verdict"]["ok"] is False
    text = run_k3diff("audit", renamed)
    assert text.exit_code == 1 and "A126" in text.stdout


def test_a_wheel_filename_is_no_a126_and_renamed_copies_still_compare(tmp_path: Path) -> None:
    built = make_wheel(tmp_path, "demo", "1.0", FILES)
    code, report = audit_json(built)
    assert (code, all_findings(report)) == (0, [])
    base = shutil.copy(built, tmp_path / "base.whl")
    patch = shutil.copy(built, tmp_path / "patch.whl")
    compared = run_k3diff("wheels", base, patch)
    assert compared.exit_code == 0, compared.stdout + compared.stderr


@pytest.mark.parametrize("name", ["copy.whl", "demo-1.0-cp311-cp311-linux_x86_64.whl"])
def test_a_truncated_wheel_is_a001_and_a126_when_misnamed_too(tmp_path: Path, name: str) -> None:
    """A file cut in half is A001; a misnamed one is A126 as well (each finding whenever it
    applies: a reader of the report fixes both, not one and then the other)."""
    built = make_wheel(tmp_path / "built", "demo", "1.0", FILES).read_bytes()
    cut = tmp_path / name
    cut.write_bytes(built[: len(built) // 2])
    code, report = audit_json(cut)
    assert code == 1
    expected = {"A001": 1, "A126": 1} if name == "copy.whl" else {"A001": 1}
    assert codes(report) == expected
