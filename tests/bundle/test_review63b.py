"""Adversarial review of stop 63's merges (review63b): each hole found, failing first, through
the CLI (see each test's docstring)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from cli_support import run_k3diff

from bundle.test_wheelset_files import _files_set, _report, _split, _wheels

CLEAN = "INFO engine started\nINFO request 1 done\n"
CRASHED = CLEAN + "ERROR engine core died: CUDA error: an illegal memory access\n"
CUDA = "CUDA error: an illegal memory access was encountered\n"


def _directories(tmp_path: Path) -> None:
    """b/ and p/ holding a clean server.log each; p/sub a link to a directory of a CUDA error."""
    for side in ("b", "p", "elsewhere"):
        (tmp_path / side).mkdir()
    (tmp_path / "b" / "server.log").write_text(CLEAN)
    (tmp_path / "p" / "server.log").write_text(CLEAN)
    (tmp_path / "elsewhere" / "server.log").write_text(CUDA)
    (tmp_path / "p" / "sub").symlink_to(tmp_path / "elsewhere", target_is_directory=True)


def test_a_link_to_a_directory_is_listed_as_skipped_and_named_by_the_bundle(
    tmp_path: Path,
) -> None:
    _directories(tmp_path)
    # The link is not followed (docs/logs.md), and since logs64 an entry not read fails.
    made = run_k3diff("logs", "b", "p", "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "d.json").read_text())
    link = f"p/sub (a link to {tmp_path / 'elsewhere'}, outside the directory: not followed)"
    assert document["patch"]["skipped"] == [link]  # listed, as docs/logs.md promises
    text = run_k3diff("logs", "b", "p", cwd=tmp_path).stdout
    assert "1 entry not read" in text and f"  not read: {link}" in text
    result = run_k3diff("report", "d.json", "b", "p", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    said = "d.json: 1 entry on the patch side not read as logs, so not judged: "
    assert [q for q in summary["qualifications"] if q.startswith(said)] == [said + link]
    assert (
        "d.json: 1 entry on the patch side not read as logs"
        in (tmp_path / "o" / "REPORT.md").read_text()
    )


def test_a_split_pair_renamed_in_the_set_is_refused(tmp_path: Path) -> None:
    """A release set made with --base/--patch, its failing cp312 pair split into two wheels on
    one side only and the patch wheel's name (row and `inputs`) edited to a cp313 tag, so the
    names it records no longer pair: paired again from those names it agreed with itself, and
    the bundle read "paired again from the wheels given", exit 0. The wheel given under the
    row's SHA-256 is named cp312: the names are checked against the wheels given."""
    document = _files_set(tmp_path, "--allow-unpaired")
    forged = _split(document)
    row = forged["only_patch"][-1]
    old, new = row["path"], row["path"].replace("cp312-cp312", "cp313-cp313")
    row.update(path=new, tags=[tag.replace("cp312", "cp313") for tag in row["tags"]])
    forged["patch"]["inputs"] = sorted(new if p == old else p for p in forged["patch"]["inputs"])
    for key in ("only_base", "only_patch"):
        forged[key].sort(key=lambda w: Path(w["path"]).name)
    result = _report(tmp_path, forged, *_wheels(tmp_path))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (
        "set.json: only_patch names engine-1.1-cp313-cp313-manylinux_2_17_x86_64.whl, but the "
        "wheel given with its SHA-256 is patch/engine-1.1-cp312-cp312-manylinux_2_17_x86_64.whl"
        in result.stderr
    ), result.stderr
    assert not (tmp_path / "bundle").exists()


def test_a_logs_verdict_failing_on_a_binary_patch_file_fails_the_row(tmp_path: Path) -> None:
    """`logs` fails a patch side holding a file it skipped as binary (not read, it could hide
    anything), as it fails one past the distinct-message cap; the bundle's row counted only new
    error findings, so it read "pass" and the bottom line "Nothing in this evidence fails its
    policy" above "(exit 1)"."""
    for side in ("b", "p"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "server.log").write_text(CLEAN)
    (tmp_path / "p" / "core").write_bytes(b"\x7fELF\x00\x00core\n")
    made = run_k3diff("logs", "b", "p", "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    for out, inputs in (("alone", ()), ("again", ("b", "p"))):
        result = run_k3diff("report", "d.json", *inputs, "--out", out, cwd=tmp_path)
        assert result.exit_code == 1, result.stderr
        summary = json.loads((tmp_path / out / "summary.json").read_text())
        assert summary["bottom_line"][0] == "FAIL: runtime logs (d.json) fails its policy"
        (row,) = [r for r in summary["matrix"] if r["evidence"] == "runtime logs"]
        assert row["status"] == "FAIL"
        assert row["finding"].endswith(
            "; its verdict fails: 1 patch entry not read: p/core (binary)"
        ), row["finding"]


def test_a_failing_verdict_no_row_fails_gets_a_row_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The net under every row (review63b): a document whose verdict fails and none of whose
    rows does gets a FAIL row, so the bottom line never reads pass above "(exit 1)"."""
    from k3diff.bundle.facts import unsaid_failures
    from k3diff.bundle.logsfacts import logs_stage
    from k3diff.bundle.model import Evidence, Status
    from k3diff.documents.read import read_document

    for side in ("b", "p"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "server.log").write_text(CLEAN)
    (tmp_path / "p" / "core").write_bytes(b"\x7fELF\x00\x00core\n")
    run_k3diff("logs", "b", "p", "--format", "json", "-o", "d.json", cwd=tmp_path)
    document = read_document(tmp_path / "d.json")
    (row,) = unsaid_failures([document], [])
    assert (row.evidence, row.status) == (Evidence.RUNTIME_LOGS, Status.FAIL)
    assert row.headline.endswith("its verdict fails (exit 1), and no row here says why: read it")
    assert unsaid_failures([document], [logs_stage(document)]) == []
    # End to end, with the logs row's own rule made blind to the verdict again (as before):
    blind = dataclasses.replace(logs_stage(document), status=Status.PASS)
    monkeypatch.setattr("k3diff.bundle.facts.logs_stage", lambda doc: blind)
    result = run_k3diff("report", "d.json", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["bottom_line"][0] == "FAIL: runtime logs (d.json) fails its policy"
    assert (
        "**FAIL: runtime logs (d.json) fails its policy** (exit 1)"
        in (tmp_path / "o" / "REPORT.md").read_text()
    )


def test_directories_alike_in_names_and_sizes_are_told_apart_by_content(tmp_path: Path) -> None:
    """Two log directories moved elsewhere whose files have the same names and sizes: the tie
    took the first given for the base, so giving the patch's first was refused as "does not
    hold the files logs read" (a false refusal of the right directories)."""
    for side, text in (("base", "INFO a ok\n"), ("patch", "INFO b ok\n")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "server.log").write_text(text)
    made = run_k3diff("logs", "base", "patch", "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    (tmp_path / "x").mkdir()
    (tmp_path / "base").rename(tmp_path / "x" / "one")
    (tmp_path / "patch").rename(tmp_path / "x" / "two")
    for out, order in (("o1", ("x/one", "x/two")), ("o2", ("x/two", "x/one"))):
        result = run_k3diff("report", "d.json", *order, "--out", out, cwd=tmp_path)
        assert result.exit_code == 0, result.stderr
        inputs = json.loads((tmp_path / out / "summary.json").read_text())["inputs"]
        assert [i["name"] for i in inputs[1:]] == ["x/one/server.log", "x/two/server.log"]


def test_one_directory_read_as_both_sides_is_refused(tmp_path: Path) -> None:
    """`logs d d` (a directory against itself) excuses every error of the patch by itself
    (review64: a crashed server's log given as both sides passed, and report's runtime-logs row
    with it): logs refuses it, as it does a file given twice, one inside a directory given on
    the other side, or a hard link to it; report, given a document made so (review63b: it
    was tied to one side only and refused as missing its patch logs), runs logs again and is
    refused the same way."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "server.log").write_text(CRASHED)
    os.link(tmp_path / "d" / "server.log", tmp_path / "linked.log")
    for base, patch in (("d", "d"), ("d/server.log", "d/server.log"), ("d", "d/server.log"),
                        ("linked.log", "d/server.log")):  # fmt: skip
        made = run_k3diff("logs", base, patch, cwd=tmp_path)
        assert made.exit_code == 2, (base, patch, made.stdout)
        assert made.stderr.startswith(f"k3diff: error: {patch}: given as the patch's logs and, ")
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "server.log").write_text(CRASHED)
    made = run_k3diff("logs", "e", "d", "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr  # a copy is another server's log, as given
    document = json.loads((tmp_path / "d.json").read_text())
    document["base"] = {**document["patch"], "paths": ["d"]}  # as logs d d wrote it
    for entry in document["files"]:
        entry["path"] = entry["path"].replace("e/", "d/")
    (tmp_path / "d.json").write_text(json.dumps(document))
    result = run_k3diff("report", "d.json", "d", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    # refused as logs refuses it, or first by the document's own tally of where its findings
    # stand (records76: this hand-made copy places the base's finding in a file its side lists
    # under the other side)
    assert (
        "given as the patch's logs and" in result.stderr
        or "the document disagrees with itself" in result.stderr
    ), result.stderr


def test_a_directory_that_cannot_be_read_is_listed_as_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`os.walk` ignores a directory it cannot list (permissions; a directory removed while
    walked), so `logs` read past p/locked silently and the bundle passed: the logs under it were
    neither read nor named. (Run as root a mode-000 directory is readable: its listing is
    refused here by hand.)"""
    import os

    _directories(tmp_path)
    (tmp_path / "p" / "sub").unlink()
    (tmp_path / "p" / "locked").mkdir()
    (tmp_path / "p" / "locked" / "server.log").write_text(CUDA)
    real = os.scandir

    def scandir(path: str | os.PathLike[str] = ".") -> object:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    made = run_k3diff("logs", "b", "p", "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr  # logs64: not read, so it fails
    locked = "p/locked (a directory that cannot be listed: Permission denied)"
    document = json.loads((tmp_path / "d.json").read_text())
    assert document["patch"]["skipped"] == [locked]
    result = run_k3diff("report", "d.json", "b", "p", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert (
        f"d.json: 1 entry on the patch side not read as logs, so not judged: {locked}"
        in summary["qualifications"]
    )
