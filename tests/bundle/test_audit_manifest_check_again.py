"""An audit given to `report` with the manifest it checked (by the bytes it records) but not its
wheels is judged alone, yet its manifest check must follow from that manifest and the SHA-256s
the document records of its artifacts: the check is run again on them (hunt72: a mismatch
moved to `matched`, or a missing name deleted, each with its finding and the verdict edited to
pass, made a bundle exit 0 beside the very manifest that contradicts it)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff


def _moved_to_matched(document: dict[str, Any]) -> None:
    manifest = document["manifest"]
    manifest["matched"] = [m["name"] for m in manifest.pop("mismatched")]
    manifest["mismatched"] = []


def _missing_deleted(document: dict[str, Any]) -> None:
    document["manifest"]["missing"] = []


def _audited(tmp_path: Path, pinned: str) -> str:
    """A wheel audited against a manifest that pins it as `pinned` (its own SHA-256 where
    empty, and then a wheel never audited too: `a.json`, exit 1); the wheel's path as given."""
    wheel = wheelkit.make_wheel(tmp_path / "dist", "demo", "1.0", {"demo/__init__.py": b""})
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    gone = "" if pinned else f"{digest}  gone-1.0-py3-none-any.whl\n"
    (tmp_path / "SHA256SUMS").write_text(f"{pinned or digest}  {wheel.name}\n{gone}")
    name = str(wheel.relative_to(tmp_path))
    made = run_k3diff(
        "audit", name, "--manifest", "SHA256SUMS", "--format", "json", "-o", "a.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    return name


@pytest.mark.parametrize(
    ("pinned", "edit", "field"),
    [
        ("0" * 64, _moved_to_matched, "manifest.matched: 1 items, run again 0"),
        ("", _missing_deleted, "manifest.missing: 0 items, run again 1"),
    ],
    ids=["mismatch-matched", "missing-deleted"],
)
def test_a_manifest_check_edited_to_pass_is_refused_beside_its_manifest(
    tmp_path: Path, pinned: str, edit: Callable[[dict[str, Any]], None], field: str
) -> None:
    name = _audited(tmp_path, pinned)
    document = json.loads((tmp_path / "a.json").read_text())
    edit(document)
    document["findings"] = []  # the A201 or A202 the edit leaves no cause for
    document["verdict"] = {"ok": True, "exit_code": 0, "errors": 0, "warnings": 0}
    (tmp_path / "a.json").write_text(json.dumps(document))
    alone = run_k3diff("report", "a.json", "--out", "alone", cwd=tmp_path)
    assert alone.exit_code == 0, alone.stderr  # alone, a document is its own word
    result = run_k3diff("report", "a.json", "SHA256SUMS", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(
        "k3diff: error: a.json: does not follow from the manifest given with it (its manifest "
        f"check run again on SHA256SUMS and the SHA-256s it records: {field}); give the "
        "document the wheels it audited, or run `"
    )
    assert f"audit {name} --manifest SHA256SUMS --format json -o a.json` again" in result.stderr
    assert not (tmp_path / "b").exists()


def test_an_audit_as_written_still_reads_beside_its_manifest(tmp_path: Path) -> None:
    _audited(tmp_path, "0" * 64)
    failing = run_k3diff("report", "a.json", "SHA256SUMS", "--out", "b", cwd=tmp_path)
    assert failing.exit_code == 1, failing.stderr
    wheel = wheelkit.make_wheel(tmp_path / "ok", "demo", "1.0", {"demo/__init__.py": b""})
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (tmp_path / "ok" / "SUMS").write_text(f"{digest}  {wheel.name}\n")
    made = run_k3diff(
        "audit", "ok", "--manifest", "ok/SUMS", "--format", "json", "-o", "ok.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    passing = run_k3diff("report", "ok.json", "ok/SUMS", "--out", "c", cwd=tmp_path)
    assert passing.exit_code == 0, passing.stderr


@pytest.mark.parametrize("with_wheel", [False, True], ids=["manifest-alone", "with-its-wheel"])
def test_an_artifact_named_past_what_a_file_name_can_be_is_no_internal_error(
    tmp_path: Path, with_wheel: bool
) -> None:
    """An audit whose artifact's path is edited to a 300-byte file name: looking the name up
    beside the document (`changedinputs.where_recorded`) raised ENAMETOOLONG, an internal error
    (review72b); it is a name no file given has, so the manifest check does not follow from the
    manifest (exit 2), and the wheel given, under another name, is not run again as it: it is
    given for nothing, said with the refusal."""
    name = _audited(tmp_path, "0" * 64)  # its manifest pins another hash: exit 1
    document = json.loads((tmp_path / "a.json").read_text())
    # still a wheel filename: a name that is none is refused first, for its A126 (review73a)
    document["artifacts"][0]["path"] = "dist/" + "e" * 300 + "-1.0-py3-none-any.whl"
    (tmp_path / "a.json").write_text(json.dumps(document))
    given = ("a.json", "SHA256SUMS", *([name] if with_wheel else []))
    result = run_k3diff("report", *given, "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "a.json: does not follow from the manifest given with it" in result.stderr
    assert "internal error" not in result.stderr, result.stderr
    assert ("dist/demo-1.0-py3-none-any.whl: no wheels document" in result.stderr) is with_wheel
