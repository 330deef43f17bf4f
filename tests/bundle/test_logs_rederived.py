"""`k3diff report` runs `k3diff logs` again on a logs document's two log files when they are given
beside it, tied by the SHA-256 each side records (stop 62): an error finding deleted, with the
counts and verdict edited to pass, agrees with itself but not with the logs. Read without its
logs, the document is judged alone, as before."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

BASE = "INFO engine started\nINFO request 1 done\n"
PATCH = "INFO engine started\nCUDA error: an illegal memory access was encountered\n"


def _logs(tmp_path: Path, *options: str) -> dict[str, Any]:
    (tmp_path / "base.log").write_text(BASE)
    (tmp_path / "patch.log").write_text(PATCH)
    result = run_k3diff(
        "logs", "base.log", "patch.log", *options, "--format", "json", "-o", "l.json", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads((tmp_path / "l.json").read_text())
    return document


def _forged(document: dict[str, Any]) -> dict[str, Any]:
    """The patch's new error finding deleted, its counts and the verdict edited to a pass."""
    forged: dict[str, Any] = json.loads(json.dumps(document))
    forged["findings"] = [f for f in forged["findings"] if f["side"] != "patch"]
    forged["patch"].update(error_lines=0, distinct=0)
    for rule in forged["rules"]:
        rule["patch"] = rule["new_on_patch"] = 0 if rule["name"] == "cuda-error" else rule["patch"]
    forged["summary"].update(new_on_patch=0, new_errors_on_patch=0)
    forged["verdict"].update(ok=True, exit_code=0, failures=[])
    return forged


def _label(tmp_path: Path, out: str) -> str:
    summary = json.loads((tmp_path / out / "summary.json").read_text())
    row = {r["evidence"]: r for r in summary["matrix"]}["runtime logs"]
    label: str = row["documents"][0]["label"]
    return label


def test_a_forged_logs_document_passes_alone_and_is_refused_with_its_logs(tmp_path: Path) -> None:
    (tmp_path / "f.json").write_text(json.dumps(_forged(_logs(tmp_path))))
    alone = run_k3diff("report", "f.json", "--out", "a", cwd=tmp_path)
    assert alone.exit_code == 0, alone.stderr  # all the document shows
    assert _label(tmp_path, "a") == "f.json (judged alone: self-consistent)"
    # The bottom line counts it, as report's own line does (polish62b: it read "(1 document)").
    bottom = "Nothing in this evidence fails its policy (1 document, 1 judged alone)"
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["bottom_line"][0] == bottom
    assert f"**{bottom}**" in (tmp_path / "a" / "REPORT.md").read_text()
    assert bottom in (tmp_path / "a" / "report.html").read_text()
    assert "; 1 document judged alone: read " in alone.stderr
    result = run_k3diff("report", "f.json", "base.log", "patch.log", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (
        "f.json: does not follow from the logs given with it (logs run again on " in result.stderr
    )
    assert not (tmp_path / "b").exists()


def test_the_genuine_document_with_its_logs_is_cross_checked(tmp_path: Path) -> None:
    document = _logs(tmp_path)
    assert document["base"]["sha256"] and document["patch"]["size"] == len(PATCH)
    assert document["rerun"]["strict"] is False
    (tmp_path / "sub").mkdir()
    for name in ("base.log", "patch.log"):  # given from elsewhere: tied by digest, not path
        (tmp_path / "sub" / name).write_bytes((tmp_path / name).read_bytes())
    result = run_k3diff(
        "report", "l.json", "sub/patch.log", "sub/base.log", "--out", "b", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr  # the patch's CUDA error fails the row
    assert _label(tmp_path, "b") == "l.json (cross-checked; logs run again)"
    inputs = json.loads((tmp_path / "b" / "summary.json").read_text())["inputs"]
    logs = [i for i in inputs if i["schema"] == "server log (k3diff logs run again on it)"]
    assert sorted(i["name"] for i in logs) == ["sub/base.log", "sub/patch.log"]
    assert {i["sha256"] for i in logs} == {document["base"]["sha256"], document["patch"]["sha256"]}


def test_a_strict_document_is_run_again_strict(tmp_path: Path) -> None:
    document = _logs(tmp_path, "--strict", "--warn-rule", "req=request \\d+ done")
    assert document["rerun"]["strict"] is True
    assert document["rerun"]["rules"] == [
        {"name": "req", "severity": "warning", "pattern": "request \\d+ done"}
    ]
    ok = run_k3diff("report", "l.json", "base.log", "patch.log", "--out", "b", cwd=tmp_path)
    assert ok.exit_code == 1, ok.stderr
    assert _label(tmp_path, "b") == "l.json (cross-checked; logs run again)"
    # The same findings claimed from a run without --strict: its failures differ.
    loosened = json.loads(json.dumps(document))
    loosened["rerun"]["strict"] = False
    (tmp_path / "m.json").write_text(json.dumps(loosened))
    result = run_k3diff("report", "m.json", "base.log", "patch.log", "--out", "c", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert "verdict.failures: 2 items, run again 1" in result.stderr


def test_a_gz_log_is_tied_by_the_file_given(tmp_path: Path) -> None:
    (tmp_path / "base.log.gz").write_bytes(gzip.compress(BASE.encode()))
    (tmp_path / "patch.log").write_text(PATCH)
    made = run_k3diff(
        "logs", "base.log.gz", "patch.log", "--format", "json", "-o", "l.json", cwd=tmp_path
    )
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "l.json").read_text())
    assert document["base"]["size"] == (tmp_path / "base.log.gz").stat().st_size
    result = run_k3diff("report", "l.json", "base.log.gz", "patch.log", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert _label(tmp_path, "b") == "l.json (cross-checked; logs run again)"


def test_one_log_alone_and_an_older_document_are_refused(tmp_path: Path) -> None:
    document = _logs(tmp_path)
    half = run_k3diff("report", "l.json", "patch.log", "--out", "b", cwd=tmp_path)
    assert half.exit_code == 2, half.stderr
    digest = document["base"]["sha256"][:16]
    assert half.stderr.startswith(
        f"k3diff: error: base.log: missing (l.json records it as the base log, SHA-256 {digest}…;"
        " no file given holds those bytes or has that name); give report the logs l.json was "
        "made from (or l.json alone), or run `k3diff logs base.log patch.log"
    ), half.stderr
    older = json.loads(json.dumps(document))
    del older["rerun"], older["base"]["sha256"], older["base"]["size"]
    del older["patch"]["sha256"], older["patch"]["size"]
    (tmp_path / "o.json").write_text(json.dumps(older))
    alone = run_k3diff("report", "o.json", "--out", "c", cwd=tmp_path)
    assert alone.exit_code == 1, alone.stderr
    assert _label(tmp_path, "c") == "o.json (judged alone: self-consistent)"
    given = run_k3diff("report", "o.json", "base.log", "patch.log", "--out", "d", cwd=tmp_path)
    assert given.exit_code == 2, given.stderr
    assert "o.json: records no SHA-256 of its logs" in given.stderr


def test_recorded_settings_that_logs_would_refuse_are_refused(tmp_path: Path) -> None:
    document = _logs(tmp_path)
    document["rerun"]["rules"] = [{"name": "bad", "severity": "error", "pattern": "("}]
    listed = {"name": "bad", "severity": "error", "builtin": False, "pattern": "("}
    # Listed among its rules too (review75f: else refused as disagreeing with itself)
    document["rules"].insert(0, listed | {"base": 0, "patch": 0, "new_on_patch": 0})
    (tmp_path / "r.json").write_text(json.dumps(document))
    result = run_k3diff("report", "r.json", "base.log", "patch.log", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "r.json: rerun.rules[0]: rule bad: invalid regular expression" in result.stderr
    document["rerun"].update(rules=[], max_seconds=0)
    del document["rules"][0]
    (tmp_path / "s.json").write_text(json.dumps(document))
    result = run_k3diff("report", "s.json", "base.log", "patch.log", "--out", "c", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    # Refused as the document is read, as every range its schema states (readers72).
    assert "s.json: field 'rerun.max_seconds' must be a number above 0 or null, not 0" in (
        result.stderr
    )


def test_a_log_edited_in_place_is_named_as_not_matching_what_the_document_records(
    tmp_path: Path,
) -> None:
    """Logs are matched by SHA-256: base.log edited after `logs` ran read "patch.log: the patch
    log of l.json, given without its base" (polish62b), as if base.log had not been given; it
    is named as changed since, with the SHA-256 recorded and now (report67)."""
    document = _logs(tmp_path)
    (tmp_path / "base.log").write_text(BASE + "INFO request 2 done\n")
    result = run_k3diff("report", "l.json", "base.log", "patch.log", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    digest = document["base"]["sha256"]
    assert "given without" not in result.stderr
    now = hashlib.sha256((tmp_path / "base.log").read_bytes()).hexdigest()
    assert result.stderr.startswith(
        "k3diff: error: base.log: changed since l.json recorded it as the base log (SHA-256 "
        f"{digest[:16]}… recorded, {now[:16]}… now)"
    ), result.stderr
    assert not (tmp_path / "b").exists()


def _logs_of_directories(tmp_path: Path) -> dict[str, Any]:
    """`logs` on two directories (a rotated base log, the patch's live one): every file read
    is recorded by its name in the directory, SHA-256 and size (rerun63)."""
    for side, files in (
        ("b", {"server.log.1": "INFO engine started\n", "server.log": BASE}),
        ("p", {"server.log": PATCH}),
    ):
        (tmp_path / side).mkdir()
        for name, text in files.items():
            (tmp_path / side / name).write_text(text)
    result = run_k3diff("logs", "b", "p", "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads((tmp_path / "d.json").read_text())
    return document


def test_a_side_given_as_a_directory_records_every_file_read(tmp_path: Path) -> None:
    document = _logs_of_directories(tmp_path)
    assert "sha256" not in document["base"]  # one file's tie: a side given as one file only
    assert [(e["name"], e["size"]) for e in document["base"]["read"]] == [
        ("server.log.1", 20),  # the older piece first, as logs reads them
        ("server.log", len(BASE)),
    ]
    assert [e["name"] for e in document["patch"]["read"]] == ["server.log"]
    assert "read" not in _logs(tmp_path)["base"]  # a side given as one file: as before


def test_a_forged_logs_document_over_directories_is_refused_with_them(tmp_path: Path) -> None:
    """Before rerun63 a logs document made from directories could only be judged alone: the
    forgery passed, and the directories given with it were refused as no wheels' source."""
    (tmp_path / "f.json").write_text(json.dumps(_forged(_logs_of_directories(tmp_path))))
    alone = run_k3diff("report", "f.json", "--out", "a", cwd=tmp_path)
    assert alone.exit_code == 0, alone.stderr
    assert _label(tmp_path, "a") == "f.json (judged alone: self-consistent)"
    result = run_k3diff("report", "f.json", "b", "p", "--out", "b2", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (
        "f.json: does not follow from the logs given with it (logs run again on b and p: "
        "findings: 0 items, run again 1)" in result.stderr
    ), result.stderr


def test_the_genuine_document_with_its_directories_is_cross_checked(tmp_path: Path) -> None:
    document = _logs_of_directories(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    for side in ("b", "p"):  # tied by what they hold, not by their paths
        (tmp_path / side).rename(tmp_path / "elsewhere" / f"{side}-copy")
    result = run_k3diff(
        "report", "elsewhere/p-copy", "d.json", "elsewhere/b-copy", "--out", "o", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr  # the patch's CUDA error fails the row
    assert _label(tmp_path, "o") == "d.json (cross-checked; logs run again)"
    inputs = json.loads((tmp_path / "o" / "summary.json").read_text())["inputs"]
    logs = [i for i in inputs if i["schema"] == "server log (k3diff logs run again on it)"]
    assert [i["name"] for i in logs] == [
        "elsewhere/b-copy/server.log.1",
        "elsewhere/b-copy/server.log",
        "elsewhere/p-copy/server.log",
    ]
    recorded = [e["sha256"] for side in ("base", "patch") for e in document[side]["read"]]
    assert [i["sha256"] for i in logs] == recorded


def test_a_file_added_to_missing_from_or_changed_in_a_directory_is_named(tmp_path: Path) -> None:
    document = _logs_of_directories(tmp_path)
    (tmp_path / "b" / "server.log.1").unlink()
    (tmp_path / "b" / "server.log").write_text(BASE + "INFO request 2 done\n")
    (tmp_path / "b" / "extra.log").write_text("INFO hello\n")
    result = run_k3diff("report", "d.json", "b", "p", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    # Each file on a line of its own (report67), in the order the document records them; the
    # first line says what each is (left67: it said "3 inputs changed").
    head, *lines = result.stderr.splitlines()
    assert head == (
        "k3diff: error: 1 input changed, 1 missing and 1 added since the documents that record "
        "them were written, each named with the command that brings its document up to date:"
    ), result.stderr
    assert [line.split(";")[0] for line in lines] == [
        "  (1) b/server.log.1: missing (d.json records it as a base log, SHA-256 "
        f"{document['base']['read'][0]['sha256'][:16]}…",
        "  (2) b/server.log: changed since d.json recorded it as a base log (SHA-256 "
        f"{document['base']['read'][1]['sha256'][:16]}… recorded, "
        f"{hashlib.sha256((tmp_path / 'b' / 'server.log').read_bytes()).hexdigest()[:16]}… now)",
        "  (3) b/extra.log: added since d.json was written (SHA-256 "
        f"{hashlib.sha256((tmp_path / 'b' / 'extra.log').read_bytes()).hexdigest()[:16]}…",
    ], result.stderr
    assert all(
        line.endswith("`k3diff logs b p --format json -o d.json` again to bring d.json up to date")
        for line in lines
    ), lines
    assert not (tmp_path / "o").exists()


def test_one_directory_without_the_other_is_refused(tmp_path: Path) -> None:
    _logs_of_directories(tmp_path)
    result = run_k3diff("report", "d.json", "p", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert (
        "d.json: no directory given holds the base logs it records (b, 2 files: "
        "server.log.1…); give report both sides' logs" in result.stderr
    ), result.stderr


def test_a_failing_logs_row_names_the_rules_that_fail_it(tmp_path: Path) -> None:
    """newuser63: `logs` says `Verdict: FAIL (exit 1): 1 error finding new on the patch
    (cuda-error)`, but the bundle's row and bottom line said only "1 error finding new on the
    patch": a reviewer of the bundle could not tell what failed without running logs again."""
    _logs(tmp_path)
    result = run_k3diff("report", "l.json", "base.log", "patch.log", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    row = {r["evidence"]: r for r in summary["matrix"]}["runtime logs"]
    assert row["status"] == "FAIL"
    assert row["finding"].endswith("; new on the patch: cuda-error"), row["finding"]
    assert "; new on the patch: cuda-error" in (tmp_path / "b" / "REPORT.md").read_text()
