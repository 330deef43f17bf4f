"""A samples log edited after it was written does not pass (samples71).

Logs are written by real `k3diff sample` runs against the loopback fault server, then edited as
a user would: the header's `run.keys` deleted (`jq`), one repeat line dropped with a filter, one
pooled log's lines of a record dropped where the other log holds them. Before, each passed
(exit 0): the log read as one written before `keys`, or its record was judged on the lines left.
The header states its format (`run.log_format`): one stating it without `keys` is refused
(exit 2); one without it (written before) holds its records; and each log's lines are counted
against what its own header says its run owed (its repeats), held `unlogged` where short.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff

from .helpers import compare_texts

PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
LOG = "run/samples.jsonl"


def _sample(tmp_path: Path, urls: list[str], *extra: str, out: str = "run") -> CliResult:
    return run_k3diff(
        "sample", "--base", urls[0], "--patch", urls[1], "--prompts", "p.jsonl",
        "--retries", "0", "--out", out, *extra, cwd=tmp_path,
    )  # fmt: skip


def _servers(tmp_path: Path, fault_server: Any, *faults: dict[str, Any]) -> list[str]:
    """A comparison whose captures of a and b match, the prompts, and two servers (each with
    the faults given, else none); their URLs."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    given = list(faults) or [{}, {}]
    return [fault_server("--faults", json.dumps(f)).url for f in given]


def _edit(path: Path, keep: Any = lambda line: True, header: Any = lambda run: None) -> None:
    """The log with `header(run)` applied to its header's run object and only the sample lines
    `keep(line)` keeps (markers kept), written compactly as `jq -c` does."""
    values = [json.loads(line) for line in path.read_text().splitlines()]
    header(values[0]["run"])
    kept = [values[0], *(v for v in values[1:] if "schema" in v or keep(v))]
    path.write_text("".join(json.dumps(v, separators=(",", ":")) + "\n" for v in kept))


def _triage(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff(
        "triage", "cmp.json", *args, "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads((tmp_path / "t.json").read_text())


def _record(document: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in document["records"] if r["key"] == key)
    return found


def test_a_header_whose_keys_were_deleted_is_refused(tmp_path: Path, fault_server: Any) -> None:
    """Failed on base71 (exit 0): `keys` deleted from the header (and b's lines) read as a log
    written before the header listed its records, b judged by its captures alone. The header
    states its format, which lists the records asked: it was edited; refused, exit 2, one line
    naming the file's header line, by triage, telemetry and report alike."""
    urls = _servers(tmp_path, fault_server)
    assert _sample(tmp_path, urls, "--repeats", "3").exit_code == 0
    _edit(tmp_path / LOG, lambda line: line["key"] != "b", lambda run: run.pop("keys"))
    for command in (("triage", "cmp.json", LOG), ("telemetry", LOG), ("report", LOG, "--out", "r")):
        result = run_k3diff(*command, cwd=tmp_path)
        assert result.exit_code == 2, (command, result.stdout)
        (line,) = result.stderr.splitlines()
        assert f"{LOG}:1: header 'run.keys' missing: " in line and "Traceback" not in line
    assert json.loads((tmp_path / LOG).read_text().splitlines()[0])["run"]["log_format"] == 3


def test_a_log_without_a_format_holds_its_records(tmp_path: Path, fault_server: Any) -> None:
    """Failed on base71 (exit 0): a header with neither `keys` nor `log_format` (as a log
    written before them, or both deleted) whose b lines were removed: b read from its captures
    and passed. Such a log cannot show that every record its run asked was logged: every record
    is held `unlogged` (exit 1), its reason naming the log, and the text, the bundle and a
    report of the document say so."""
    urls = _servers(tmp_path, fault_server)
    assert _sample(tmp_path, urls, "--repeats", "3").exit_code == 0
    _edit(
        tmp_path / LOG,
        lambda line: line["key"] != "b",
        lambda run: [run.pop("keys"), run.pop("log_format", None)],
    )
    result, document = _triage(tmp_path, LOG)
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    assert document["runs"][0]["asked"] is None
    for key in "ab":
        record = _record(document, key)
        assert record["category"] == "inconclusive" and "unlogged" in record["flags"]
        assert record["reason"].startswith(
            f"unlogged: {LOG} cannot show every record its run asked was logged (no "
            "run.log_format: a log written before k3diff stated what its run owed); re-sample "
            "with this version"
        )
    assert document["summary"]["held"] == 2
    assert [r["more_samples"] for r in document["records"]] == [None, None]  # none clear it
    text = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert text.exit_code == 1
    assert f"unchecked: {LOG} does not state what its run owed" in text.stdout
    bundle = run_k3diff("report", "t.json", "--out", "b1", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr
    said = (tmp_path / "b1" / "REPORT.md").read_text()
    assert "does not state what its run owed" in said and "(unlogged:" in said


def test_a_dropped_repeat_line_holds_the_record_until_resumed(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base71 (exit 0): one patch line of b (repeat 2 of 3) dropped with a filter;
    the two left match, so b passed on them. The header says the run owed 3: held `unlogged`,
    '2 of 3 patch lines in serial'; `sample --resume` takes the line again and the run passes."""
    urls = _servers(tmp_path, fault_server)
    assert _sample(tmp_path, urls, "--repeats", "3").exit_code == 0
    written, _ = _triage(tmp_path, LOG)
    assert written.exit_code == 0, written.stdout  # the log as written passes

    _edit(
        tmp_path / LOG,
        lambda line: (line["side"], line["key"], line["repeat"]) != ("patch", "b", 2),
    )
    result, document = _triage(tmp_path, LOG)
    assert result.exit_code == 1, result.stdout
    record = _record(document, "b")
    assert record["category"] == "inconclusive" and "unlogged" in record["flags"]
    assert record["reason"].startswith(
        f"unlogged: {LOG} holds 2 of 3 patch lines in serial of this record, which its run owed "
        "(lines removed from it: give the log as sample wrote it; or the run killed before them: "
        "its sample command with --resume takes them)"
    )
    assert (document["summary"]["held"], _record(document, "a")["category"]) == (1, "match")
    bundle = run_k3diff("report", "cmp.json", LOG, "t.json", "--out", "b1", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr  # triage run again on the log: the same
    assert "(unlogged:" in (tmp_path / "b1" / "REPORT.md").read_text()
    text = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert text.exit_code == 1 and "(unlogged)" in text.stdout
    telemetry = run_k3diff("telemetry", LOG, cwd=tmp_path)
    assert telemetry.exit_code == 0, telemetry.stderr  # it summarises; --expect fails
    assert (
        "unlogged: 1 of 2 records the run asked lacks patch lines in its log (b in serial (2 of "
        "3 lines)), not counted above" in telemetry.stdout
    )

    assert _sample(tmp_path, urls, "--repeats", "3", "--resume").exit_code == 0
    again, _ = _triage(tmp_path, LOG)
    assert again.exit_code == 0, again.stdout


def test_a_failed_line_accounts_for_its_repeat_and_dropping_it_holds(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base71 (exit 0 both ways): the patch's first request for b is reset; the log
    as written holds its failed line, so b is not short (errors-present, not unlogged). Dropped
    as `jq 'select(.error == null)'` drops it, b is held `unlogged`."""
    urls = _servers(tmp_path, fault_server, {}, {"b": {"reset": 1}})
    assert _sample(tmp_path, urls, "--repeats", "3").exit_code == 1  # a request failed
    _, written = _triage(tmp_path, LOG)
    assert "unlogged" not in _record(written, "b")["flags"]

    _edit(tmp_path / LOG, lambda line: line.get("error") is None)
    result, document = _triage(tmp_path, LOG)
    assert result.exit_code == 1
    record = _record(document, "b")
    assert "unlogged" in record["flags"]
    assert f"{LOG} holds 2 of 3 patch lines in serial of this record" in record["reason"]


def test_grown_repeats_are_owed_from_the_resume_marker(tmp_path: Path, fault_server: Any) -> None:
    """A resume that grows --repeats from 2 to 3 owes the third repeat (its marker says so):
    the log it completes passes, and with b's third base line dropped it is held."""
    urls = _servers(tmp_path, fault_server)
    assert _sample(tmp_path, urls, "--repeats", "2").exit_code == 0
    assert _sample(tmp_path, urls, "--repeats", "3", "--resume").exit_code == 0
    whole, _ = _triage(tmp_path, LOG)
    assert whole.exit_code == 0, whole.stdout

    _edit(
        tmp_path / LOG, lambda line: (line["side"], line["key"], line["repeat"]) != ("base", "b", 2)
    )
    result, document = _triage(tmp_path, LOG)
    assert result.exit_code == 1
    assert f"{LOG} holds 2 of 3 base lines in serial" in _record(document, "b")["reason"]


def test_one_pooled_logs_gap_is_not_hidden_by_the_others_lines(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base71 (exit 0): two runs pooled (--pool-runs); every patch line of b removed
    from the first, the second's kept. `unanswered` reads the logs pooled, so the second's
    lines hid the gap. Each log owes its own header's lines: held, naming the first log."""
    urls = _servers(tmp_path, fault_server)
    for out in ("run", "run2"):
        assert _sample(tmp_path, urls, "--repeats", "3", out=out).exit_code == 0
    _edit(tmp_path / LOG, lambda line: (line["side"], line["key"]) != ("patch", "b"))
    result, document = _triage(tmp_path, LOG, "run2/samples.jsonl", "--pool-runs")
    assert result.exit_code == 1, result.stdout
    record = _record(document, "b")
    assert "unlogged" in record["flags"] and "unanswered" not in record["flags"]
    assert f"{LOG} holds 0 of 3 patch lines in serial of this record" in record["reason"]
    assert "run2/samples.jsonl holds" not in record["reason"]
    assert _record(document, "a")["category"] == "match"


def test_an_adaptive_stop_is_no_gap_but_a_line_dropped_below_it_is(
    tmp_path: Path, fault_server: Any
) -> None:
    """--adaptive stops sampling b once its base gave two outputs (2 of 6 repeats): the log
    holds fewer lines than --repeats by design, and b is not held for it. A patch line dropped
    below where the run stopped is no stop of the rule: held."""
    urls = _servers(tmp_path, fault_server, {"b": {"output": "rand"}}, {})
    assert _sample(tmp_path, urls, "--repeats", "6", "--adaptive").exit_code == 0
    lines = (tmp_path / LOG).read_text().splitlines()[1:]
    assert sum(json.loads(line)["key"] == "b" for line in lines) < 12  # stopped early
    _, written = _triage(tmp_path, LOG)
    assert "unlogged" not in _record(written, "b")["flags"]
    assert "unlogged" not in _record(written, "a")["flags"]

    _edit(
        tmp_path / LOG,
        lambda line: (line["side"], line["key"], line["repeat"]) != ("patch", "b", 0),
    )
    result, document = _triage(tmp_path, LOG)
    assert result.exit_code == 1
    assert "unlogged" in _record(document, "b")["flags"]


def test_an_adaptive_batch_cut_short_is_no_stop(tmp_path: Path, fault_server: Any) -> None:
    """Concurrent under --adaptive stops between batches: b's first batch of 4 gives the base
    4 outputs and decides it (4 of 8 repeats logged: no gap). Its last 2 repeats deleted on
    both sides, the 2 left still decide it, but no batch ends there: held."""
    urls = _servers(tmp_path, fault_server, {"b": {"output": "rand"}}, {})
    extra = ("--mode", "concurrent", "--concurrency", "4", "--adaptive")
    assert _sample(tmp_path, urls, "--repeats", "8", *extra).exit_code == 0
    lines = [json.loads(line) for line in (tmp_path / LOG).read_text().splitlines()[1:]]
    assert sorted(x["repeat"] for x in lines if (x["side"], x["key"]) == ("base", "b")) == [
        0,
        1,
        2,
        3,
    ]
    _, written = _triage(tmp_path, LOG)
    assert "unlogged" not in _record(written, "b")["flags"]

    _edit(tmp_path / LOG, lambda line: (line["key"], line["repeat"] > 1) != ("b", True))
    _, document = _triage(tmp_path, LOG)
    record = _record(document, "b")
    assert "unlogged" in record["flags"]
    assert f"{LOG} holds 2 of 8 base lines in concurrent and 2 of 8 patch lines" in record["reason"]
