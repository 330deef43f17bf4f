"""An audit speaks for the patch only where it audited the patch (`k3diff.bundle.auditfacts`).

Found by the new-user trial: a `wheels` comparison bundled with an audit of an unrelated wheel
read "Nothing in this evidence fails its policy" (exit 0), the audit row "pass ... a.json
(cross-checked)". Each audit document is now tied to the wheels compared beside it by SHA-256
(by file name and size only, and said so, where the comparison ran with `--no-file-hash`).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_k3diff

from .helpers import wheels_json


def _audit(tmp_path: Path, name: str, *wheels: str) -> str:
    result = run_k3diff("audit", *wheels, "--format", "json", "-o", name, cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    return name


def _bundle(tmp_path: Path, *inputs: str) -> tuple[int, dict[str, Any], str]:
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    row = next(r for r in summary["matrix"] if r["evidence"] == "audit")
    return result.exit_code, row, (tmp_path / "bundle/REPORT.md").read_text()


def _unrelated(tmp_path: Path) -> str:
    files = {"other/__init__.py": b"X = 1\n"}
    wheelkit.make_wheel(tmp_path / "elsewhere", "other", "2.0", files, method=zipfile.ZIP_STORED)
    return "elsewhere/other-2.0-py3-none-any.whl"


WHEEL = "pkg-1.0-py3-none-any.whl"


def test_an_audit_of_an_unrelated_wheel_does_not_pass_the_patch(tmp_path: Path) -> None:
    wheels = wheels_json(tmp_path)
    audit = _audit(tmp_path, "a.json", _unrelated(tmp_path))
    code, row, report = _bundle(tmp_path, wheels, audit)
    assert code == 1 and row["status"] == "FAIL"
    assert "no audit covers the patch" in row["finding"]
    assert "a.json audits none of the wheels compared" in row["finding"]
    labels = [d["label"] for d in row["documents"]]
    assert labels == ["a.json (not cross-checked: audits none of the wheels compared)"]
    assert "a.json (cross-checked)" not in report
    assert not row["documents"][0]["cross_checked"]


def test_an_audit_of_the_base_only_does_not_cover_the_patch(tmp_path: Path) -> None:
    wheels = wheels_json(tmp_path)
    code, row, _ = _bundle(tmp_path, wheels, _audit(tmp_path, "a.json", f"base/{WHEEL}"))
    assert code == 1 and row["status"] == "FAIL"
    assert "audits the base wheel compared (by SHA-256)" in row["finding"]
    # Found by the new-user trial: one audited wheel read "audit: 1 artifacts, 0 findings".
    assert row["finding"].startswith("audit: 1 artifact, 0 findings;"), row["finding"]


def test_an_audit_of_the_patch_passes_and_an_extra_unrelated_one_is_only_recorded(
    tmp_path: Path,
) -> None:
    wheels = wheels_json(tmp_path)
    audit = _audit(tmp_path, "a.json", f"base/{WHEEL}", f"patch/{WHEEL}")
    code, row, _ = _bundle(tmp_path, wheels, audit)
    assert code == 0 and row["status"] == "pass"
    assert "audits the patch and base wheels compared (by SHA-256)" in row["finding"]
    # Tied by SHA-256 but not run again: judged alone (review62); with both wheels, run again.
    assert [d["label"] for d in row["documents"]] == ["a.json (judged alone: self-consistent)"]
    code, row, _ = _bundle(tmp_path, wheels, audit, f"base/{WHEEL}", f"patch/{WHEEL}")
    assert code == 0 and row["status"] == "pass"
    assert [d["label"] for d in row["documents"]] == ["a.json (cross-checked; audit run again)"]
    other = _audit(tmp_path, "other.json", _unrelated(tmp_path))
    code, row, _ = _bundle(tmp_path, wheels, audit, other)
    assert code == 0 and row["status"] == "pass"
    assert "other.json audits none of the wheels compared" in row["finding"]


def test_without_file_hashes_the_tie_is_by_name_and_size_and_says_so(tmp_path: Path) -> None:
    wheels_json(tmp_path)
    result = run_k3diff(
        "wheels", f"base/{WHEEL}", f"patch/{WHEEL}", "--no-file-hash", "--format", "json",
        "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    assert json.loads((tmp_path / "w.json").read_text())["patch"]["sha256"] is None
    code, row, report = _bundle(tmp_path, "w.json", _audit(tmp_path, "a.json", f"patch/{WHEEL}"))
    assert code == 0
    assert "by file name and size only" in row["finding"]
    (label,) = [d["label"] for d in row["documents"]]
    assert "not cross-checked by SHA-256" in label and "--no-file-hash" in label
    assert "a.json (cross-checked)" not in report
    assert "the audited bytes are not proven to be the wheels compared" in report
    code, row, _ = _bundle(tmp_path, "w.json", _audit(tmp_path, "u.json", _unrelated(tmp_path)))
    assert code == 1 and "no audit covers the patch" in row["finding"]


def test_one_file_matching_both_wheels_by_name_and_size_covers_neither(tmp_path: Path) -> None:
    # Found by the new-user trial: base and patch of one name and size (x = 1, x = 2) compared
    # with --no-file-hash, and an audit of a third file of that name and size (x = 3): the row
    # read "audits the patch and base wheels compared", pass. A name-and-size tie that fits
    # both sides proves neither.
    for side, value in (("base", b"1"), ("patch", b"2"), ("third", b"3")):
        files = {"pkg/__init__.py": b"X = " + value + b"\n"}
        wheelkit.make_wheel(tmp_path / side, "pkg", "1.0", files, method=zipfile.ZIP_STORED)
    sizes = {(tmp_path / side / WHEEL).stat().st_size for side in ("base", "patch", "third")}
    assert len(sizes) == 1
    result = run_k3diff(
        "wheels", f"base/{WHEEL}", f"patch/{WHEEL}", "--no-file-hash", "--format", "json",
        "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    for audited in ("third", "patch"):
        code, row, _ = _bundle(tmp_path, "w.json", _audit(tmp_path, "a.json", f"{audited}/{WHEEL}"))
        assert code == 1 and row["status"] == "FAIL", row
        assert "no audit covers the patch" in row["finding"]
        assert "compare with file hashes" in row["finding"]
        (tmp_path / "a.json").unlink()
        for leftover in (tmp_path / "bundle").iterdir():
            leftover.unlink()
        (tmp_path / "bundle").rmdir()
