"""No exit 0 with part of a side unread (logs64). A patch directory whose crash log is a link to
a file outside it, or a FIFO, was listed as skipped and passed: the evidence was never read. Now
every entry of a side that is not read fails the verdict, naming the entry and why, and the
bundle's logs row fails with it; a link to a file or directory under the same directory, read
anyway, is named and read once, failing nothing. No link is followed out of a side's directory
and no FIFO is opened."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .logs_support import clean, run_json, write

CUDA = "ERROR 05-12 10:07:05 [core.py:42] RuntimeError: CUDA error: an illegal memory access\n"


def _sides(tmp_path: Path) -> None:
    """b/ and p/ each holding a clean server.log; elsewhere/crash.log outside both."""
    write(tmp_path / "b" / "server.log", clean())
    write(tmp_path / "p" / "server.log", clean(pid=9))
    write(tmp_path / "elsewhere" / "crash.log", clean(pid=7) + CUDA)


def _row(tmp_path: Path, out: str) -> dict[str, Any]:
    summary = json.loads((tmp_path / out / "summary.json").read_text())
    row: dict[str, Any] = {r["evidence"]: r for r in summary["matrix"]}["runtime logs"]
    return row


def test_a_link_out_of_the_patch_directory_fails_and_is_not_followed(tmp_path: Path) -> None:
    _sides(tmp_path)
    (tmp_path / "p" / "crash.log").symlink_to(tmp_path / "elsewhere" / "crash.log")
    result = run_k3diff("logs", "b", "p", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    link = (
        f"p/crash.log (a link to {tmp_path / 'elsewhere' / 'crash.log'}, outside the directory: "
        "not followed)"
    )
    assert (
        result.stdout.splitlines()[-1] == f"Verdict: FAIL (exit 1): 1 patch entry not read: {link}"
    )
    assert "Patch: p: 1 file, 6 lines, 1 entry not read" in result.stdout
    assert f"  not read: {link}" in result.stdout
    code, doc = run_json("b", "p", cwd=tmp_path)
    assert code == 1 and doc["patch"]["skipped"] == [link]
    assert doc["verdict"]["failures"] == [f"1 patch entry not read: {link}"]
    assert not any(f["rule"] == "cuda-error" for f in doc["findings"])  # never followed
    # report agrees: its logs row fails, alone and with the directories run again.
    (tmp_path / "d.json").write_text(json.dumps(doc))
    for out, inputs in (("alone", ()), ("again", ("b", "p"))):
        made = run_k3diff("report", "d.json", *inputs, "--out", out, cwd=tmp_path)
        assert made.exit_code == 1, made.stderr
        row = _row(tmp_path, out)
        assert row["status"] == "FAIL"
        assert row["finding"].endswith(f"; its verdict fails: 1 patch entry not read: {link}")


def test_a_fifo_on_either_side_fails_and_is_never_opened(tmp_path: Path) -> None:
    """A FIFO no process writes to: opened for reading it would hang the run."""
    _sides(tmp_path)
    os.mkfifo(tmp_path / "p" / "worker.log")
    result = run_k3diff("logs", "b", "p", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): 1 patch entry not read: p/worker.log (a FIFO: never opened)"
    )
    (tmp_path / "p" / "worker.log").unlink()
    os.mkfifo(tmp_path / "b" / "worker.log")
    result = run_k3diff("logs", "b", "p", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): 1 base entry not read: b/worker.log (a FIFO: never opened)"
    )


def test_a_link_to_what_the_directory_holds_is_read_once_and_passes(tmp_path: Path) -> None:
    """`current.log -> server.log` and `latest -> run2/`, as log directories have them: read
    anyway, so named and read once (the CUDA error both sides log counted once a side)."""
    write(tmp_path / "b" / "server.log", clean() + CUDA)
    write(tmp_path / "p" / "server.log", clean(pid=9) + CUDA)
    write(tmp_path / "p" / "run2" / "engine.log", clean(pid=3))
    (tmp_path / "p" / "current.log").symlink_to("server.log")
    (tmp_path / "p" / "latest").symlink_to("run2", target_is_directory=True)
    result = run_k3diff("logs", "b", "p", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "Patch: p: 2 files, 13 lines, 2 links to what it reads" in result.stdout
    assert "  link (read once, as its target): current.log → server.log" in result.stdout
    assert "  link (read once, as its target): latest → run2" in result.stdout
    code, doc = run_json("b", "p", cwd=tmp_path)
    assert code == 0 and doc["patch"]["skipped"] == []
    assert doc["patch"]["links"] == [
        {"name": "current.log", "target": "server.log"},
        {"name": "latest", "target": "run2"},
    ]
    assert [e["name"] for e in doc["patch"]["read"]] == ["server.log", "run2/engine.log"]
    rules = {r["name"]: (r["base"], r["patch"]) for r in doc["rules"]}
    assert rules["cuda-error"] == (1, 1)
    assert "links" not in doc["base"]  # written only where there is one


def test_a_broken_link_or_a_link_to_a_fifo_inside_fails(tmp_path: Path) -> None:
    _sides(tmp_path)
    (tmp_path / "p" / "gone.log").symlink_to("rotated-away.log")
    os.mkfifo(tmp_path / "p" / "pipe")
    (tmp_path / "p" / "to-pipe.log").symlink_to("pipe")
    code, doc = run_json("b", "p", cwd=tmp_path)
    assert code == 1
    assert doc["patch"]["skipped"] == [
        "p/pipe (a FIFO: never opened)",
        "p/gone.log (a broken link to rotated-away.log)",
        "p/to-pipe.log (a link to pipe, which is not read)",
    ]
    assert doc["verdict"]["failures"] == [
        "3 patch entries not read: " + ", ".join(doc["patch"]["skipped"])
    ]


def test_a_document_claiming_a_pass_with_entries_unread_fails_the_row(tmp_path: Path) -> None:
    """A document written before logs64 (or edited) whose verdict passes while a side was read
    in part: the row fails, whatever the verdict says."""
    _sides(tmp_path)
    (tmp_path / "p" / "crash.log").symlink_to(tmp_path / "elsewhere" / "crash.log")
    _code, doc = run_json("b", "p", cwd=tmp_path)
    doc["verdict"].update(ok=True, exit_code=0, failures=[])
    (tmp_path / "d.json").write_text(json.dumps(doc))
    result = run_k3diff("report", "d.json", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    row = _row(tmp_path, "o")
    assert row["status"] == "FAIL"
    assert row["finding"].endswith("; 1 entry not read as logs (named below)"), row["finding"]


def test_the_directories_moved_elsewhere_are_run_again_as_recorded(tmp_path: Path) -> None:
    """report runs logs again on the two directories wherever they are: the entries not read,
    and the failure naming them, are named as the document names them (the failure named the
    path given, so a copy elsewhere was refused as not matching its document)."""
    _sides(tmp_path)
    os.mkfifo(tmp_path / "p" / "worker.log")
    made = run_k3diff("logs", "b", "p", "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    (tmp_path / "x").mkdir()
    for side in ("b", "p"):
        (tmp_path / side).rename(tmp_path / "x" / f"{side}-copy")
    result = run_k3diff("report", "d.json", "x/b-copy", "x/p-copy", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    row = _row(tmp_path, "o")
    assert row["documents"][0]["label"] == "d.json (cross-checked; logs run again)"
    assert row["finding"].endswith(
        "; its verdict fails: 1 patch entry not read: p/worker.log (a FIFO: never opened)"
    )


def test_ci_formats_fail_on_an_entry_not_read_beside_a_new_finding(tmp_path: Path) -> None:
    """JUnit (and SARIF, GitHub annotations: one finding model) name the entry not read as a
    failure of its side, beside the side's new error findings."""
    _sides(tmp_path)
    (tmp_path / "p" / "server.log").write_text(clean(pid=9) + CUDA)
    os.mkfifo(tmp_path / "p" / "worker.log")
    result = run_k3diff("logs", "b", "p", "--format", "junit", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert 'message="2 failing: 1 × cuda-error, 1 × verdict"' in result.stdout
    assert (
        "verdict: the run fails its policy: 1 patch entry not read: p/worker.log (a FIFO: never "
        "opened)" in result.stdout
    )
