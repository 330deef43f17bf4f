"""A record the run asked whose lines the log lacks is no pass (triage70).

`k3diff sample` lists the records it asks in the log's header (`run.keys`). Both servers fail
every request of record b (HTTP 500) and the log is filtered as `jq -c 'select(.error ==
null)'` does (the header has no `error`, so it is kept): no line of b is left. Before, triage
read b from its captures alone ("no samples; the captured outputs are equal") and passed,
exit 0, where the log as written held it `unanswered` (exit 1). A record the header lists that a
side it sampled has no line of is held `unanswered` (exit 1) and worded as lines the log lacks
(removed, or a run killed before them: `--resume` takes them). A log written before the header
stated its format (`run.log_format`, samples71) holds its records `unlogged` and says it cannot
be checked (tests/triage/test_lines_owed.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff

from .helpers import compare_texts

PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
FAIL_500 = {"status": 500, "times": -1}
LOG = "run/samples.jsonl"


def _sample(tmp_path: Path, urls: list[str], *extra: str) -> CliResult:
    return run_k3diff(
        "sample", "--base", urls[0], "--patch", urls[1], "--prompts", "p.jsonl",
        "--repeats", "3", "--retries", "0", "--out", "run", *extra, cwd=tmp_path,
    )  # fmt: skip


def _run(tmp_path: Path, fault_server: Any, faults: dict[str, Any]) -> list[str]:
    """Sample a and b three times a side, both servers failing as `faults` says; the URLs."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    urls = [fault_server("--faults", json.dumps(faults)).url for _ in range(2)]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    sampled = _sample(tmp_path, urls)
    assert sampled.exit_code == (1 if faults else 0), sampled.stderr
    return urls


def _jq_successes(tmp_path: Path) -> None:
    """The log as `jq -c 'select(.error == null)'` leaves it: every line whose `error` is null
    or absent (the header, resume markers, successful samples), written compactly."""
    path = tmp_path / LOG
    values = [json.loads(line) for line in path.read_text().splitlines()]
    kept = [v for v in values if v.get("error") is None]
    path.write_text("".join(json.dumps(v, separators=(",", ":")) + "\n" for v in kept))


def _rewrite(tmp_path: Path, keep: Any) -> None:
    """The log with only the sample lines `keep(line)` keeps (header and markers kept)."""
    path = tmp_path / LOG
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "".join(ln for ln in lines[1:] if keep(json.loads(ln))))


def _triage(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff(
        "triage", "cmp.json", LOG, "--format", "json", "-o", "t.json", *args, cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads((tmp_path / "t.json").read_text())


def _record(document: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in document["records"] if r["key"] == key)
    return found


def test_a_record_whose_failed_lines_were_all_filtered_out_fails(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base70: b read as a match from its captures, exit 0."""
    _run(tmp_path, fault_server, {"b": FAIL_500})
    written, _ = _triage(tmp_path)
    assert written.exit_code == 1  # the log as written: every request of b failed

    _jq_successes(tmp_path)
    assert '"key":"b"' not in (tmp_path / LOG).read_text()
    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    record = _record(document, "b")
    assert record["category"] == "inconclusive" and "unanswered" in record["flags"]
    assert record["reason"].startswith(
        "unanswered: the logs hold no base or patch line for this record, which the run "
        "asked (its lines removed from the log: give the log as sample wrote it, whose lines "
        "say why; or the run killed before them: its sample command with --resume takes "
        "them), so the base and patch proved nothing"
    )  # newuser70: what to do for a filtered log was not said
    assert (document["summary"]["unanswered"], document["summary"]["held"]) == (1, 1)
    assert _record(document, "a")["category"] == "match"
    header = json.loads((tmp_path / LOG).read_text().splitlines()[0])
    assert header["run"]["keys"] == ["a", "b"] and document["runs"][0]["asked"] == 2

    text = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert text.exit_code == 1
    assert "no base or patch line in the logs on b (unanswered)" in text.stdout
    assert "no samples; the captured outputs are equal" not in text.stdout

    bundle = run_k3diff("report", "t.json", "--out", "b1", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr
    said = (tmp_path / "b1" / "REPORT.md").read_text()
    assert "a side answered none of the requests (b)" in said
    assert "none is in the logs: removed, or a killed run's, which --resume takes" in said
    again = run_k3diff("report", "cmp.json", LOG, "t.json", "--out", "b2", cwd=tmp_path)
    assert again.exit_code == 1, again.stderr  # run again on the log: the same document

    record["flags"] = [f for f in record["flags"] if f != "unanswered"]
    document["summary"]["held"] = document["summary"]["unanswered"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "forged.json", "--out", "b3", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    (line,) = refused.stderr.splitlines()
    assert "forged.json" in line and "unanswered" in line


def test_a_run_killed_before_a_record_is_held_until_resumed(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base70 (exit 0): the log as a run killed before b leaves it (no line of b on
    either side). Held; `sample --resume` takes b, and the run then passes."""
    urls = _run(tmp_path, fault_server, {})
    _rewrite(tmp_path, lambda line: line["key"] != "b")
    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    assert "unanswered" in _record(document, "b")["flags"]

    resumed = _sample(tmp_path, urls, "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    result, document = _triage(tmp_path)
    assert result.exit_code == 0, result.stdout
    assert [r["category"] for r in document["records"]] == ["match", "match"]


def test_a_mode_whose_lines_were_removed_on_both_sides_is_held(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base70 (exit 0): the run asked serial and concurrent, and b's concurrent lines
    were removed on both sides (its serial ones kept): b was judged on its serial samples
    alone, as if the run had never asked it concurrently. The header says it did: held in
    concurrent."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    delay = json.dumps({"a": {"delay": 0.3}, "b": {"delay": 0.3}})  # in flight together
    urls = [fault_server("--metrics", "vllm", "--faults", delay).url for _ in range(2)]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    sampled = _sample(tmp_path, urls, "--mode", "serial", "--mode", "concurrent")
    assert sampled.exit_code == 0, sampled.stderr
    kept, _ = _triage(tmp_path)
    assert kept.exit_code == 0, kept.stdout  # the log as written passes

    _rewrite(tmp_path, lambda line: (line["key"], line["mode"]) != ("b", "concurrent"))
    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    record = _record(document, "b")
    assert "unanswered" in record["flags"]
    assert record["reason"].startswith(
        "unanswered: the logs hold no base or patch line for this record in concurrent, which "
        "the run asked"
    )
    assert "so the base and patch proved nothing in concurrent" in record["reason"]
    modes = {m["mode"]: (m["base"]["n"], m["patch"]["n"]) for m in record["modes"]}
    assert modes == {"serial": (3, 3), "concurrent": (0, 0)}
    assert _record(document, "a")["category"] == "match"


def _as_before_samples71(tmp_path: Path) -> Path:
    """The log as k3diff wrote it before its header stated its format (no `keys`, no
    `log_format`), b's lines removed."""
    path = tmp_path / LOG
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["run"].pop("keys", None)
    header["run"].pop("log_format", None)
    kept = [ln for ln in lines[1:] if json.loads(ln)["key"] != "b"]
    path.write_text(json.dumps(header, separators=(",", ":")) + "\n" + "".join(kept))
    return path


def test_a_log_written_before_the_header_listed_its_records_says_it_is_unchecked(
    tmp_path: Path, fault_server: Any
) -> None:
    """A header with neither `keys` nor `log_format` (k3diff before them) cannot show that
    every record its run asked was logged: b, of which the log holds no line, was judged by its
    captures and passed (exit 0, triage70's documented reading); each record is now held
    `unlogged` (exit 1, samples71), and triage and report say the log could not be checked.
    `--resume` continues such a log and keeps its header, so it stays held: re-sample."""
    urls = _run(tmp_path, fault_server, {})
    path = _as_before_samples71(tmp_path)

    result, document = _triage(tmp_path)
    assert result.exit_code == 1, result.stdout
    assert "unlogged" in _record(document, "b")["flags"]
    assert "asked" in document["runs"][0] and document["runs"][0]["asked"] is None
    text = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    unchecked = (
        f"unchecked: {LOG} does not state what its run owed (no run.log_format: a log written "
        "before k3diff stated it): it cannot show every asked record was logged, so no record "
        "it holds is cleared; re-sample with this version"
    )
    assert unchecked in text.stdout
    bundle = run_k3diff("report", "cmp.json", LOG, "t.json", "--out", "b1", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr
    assert "does not state what its run owed" in (tmp_path / "b1" / "REPORT.md").read_text()

    resumed = _sample(tmp_path, urls, "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    run = json.loads(path.read_text().splitlines()[0])["run"]
    assert "keys" not in run and "log_format" not in run
    assert '"key":"b"' in path.read_text()  # the missing record sampled
    again, _ = _triage(tmp_path)
    assert again.exit_code == 1  # still a log that cannot show it


def test_resume_with_another_prompts_file_is_refused_and_keeps_the_keys(
    tmp_path: Path, fault_server: Any
) -> None:
    """The keys asked come from the prompts file, which the header pins (`prompts_sha256`): a
    resume with a prompts file that lost b is refused (exit 2) and the log's header, its keys
    with it, is left as it was."""
    urls = _run(tmp_path, fault_server, {})
    before = (tmp_path / LOG).read_text()
    (tmp_path / "p.jsonl").write_text(json.dumps(PROMPTS[0]) + "\n")
    refused = _sample(tmp_path, urls, "--resume")
    assert refused.exit_code == 2, refused.stdout
    (line,) = refused.stderr.splitlines()
    assert "cannot resume" in line and "prompts_sha256" in line
    assert (tmp_path / LOG).read_text() == before


def test_telemetry_says_a_log_that_does_not_state_what_its_run_owed(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 75ea4965: telemetry said nothing of a log with no `run.log_format`
    (b's lines removed), where triage holds its records. It says so (text and JSON
    `unlisted`, exit 0 as before without --expect), and report runs it again alike."""
    _run(tmp_path, fault_server, {})
    _as_before_samples71(tmp_path)
    text = run_k3diff("telemetry", LOG, cwd=tmp_path)
    assert text.exit_code == 0, text.stderr
    assert (
        f"unlogged: {LOG} does not state what its run owed (no run.log_format: a log written "
        "before k3diff stated it): lines removed from it cannot be told from lines never owed, "
        "so the rows above may lack some, and triage clears none of its records; re-sample with "
        "this version"
    ) in text.stdout
    written = run_k3diff("telemetry", LOG, "--format", "json", "-o", "tel.json", cwd=tmp_path)
    assert written.exit_code == 0, written.stderr
    assert json.loads((tmp_path / "tel.json").read_text())["unlisted"] == [LOG]
    bundle = run_k3diff("report", LOG, "tel.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code in (0, 1), bundle.stderr
    assert "tel.json" not in bundle.stderr
