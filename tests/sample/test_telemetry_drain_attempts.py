"""telem68b: `sample` writes a line for every `/perf_metrics` drain attempt (a failed one with
its error) and each run's start-up drain, so `telemetry` can tell a cold request's drain that
also holds what a failed drain left on the server (unreadable: it holds `--expect
cache-reuse`), and a resumed run that started from a drained server (its first cold request
read) from one that may not have. A cold request drained twice under its label is not read.

Runs are real `k3diff sample` runs against loopback fault servers answering with records built
from TensorRT-LLM's published schema (`engine_schemas.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_k3diff, run_telemetry

from .support import sample, write_prompts

HIT = engine_schemas.aggregated_record(kv=(3, 1))
MISS = engine_schemas.aggregated_record(kv=(0, 4))
PREFIX = f"fault={json.dumps({'cache': 'prefix'})}"
"""The base's prefix cache honours the salt, and says so in its usage."""


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _patch_cold_warm(line: dict[str, Any]) -> bool:
    return line.get("side") == "patch" and line.get("mode") == "cold-warm"


def _cold_warm(  # type: ignore[no-untyped-def]
    fault_server: Any, tmp_path: Path, patch_fault: dict[str, Any], *prompts: str, cap: int = 0
):
    base, patch = fault_server(), fault_server("--perf-metrics", "--perf-cap", str(cap))
    records = [{"key": p, "prompt": p} for p in prompts]
    return (
        "--base", base.url, "--patch", patch.url, "--mode", "cold-warm", "--repeats", "2",
        "--prompts", write_prompts(tmp_path / "p.jsonl", records), "--out", tmp_path / "out",
        "--base-param", PREFIX, "--patch-param", f"fault={json.dumps(patch_fault)}",
        "--control", "off",
    )  # fmt: skip


def test_a_cold_drain_after_a_failed_drain_holds_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    """The drain after prompt a's warm request fails: the server keeps that request's record
    (a miss), and the next drain, prompt b's cold request's, returns it first. Before, that
    miss was read as b's cold request's, which hit: the patch passed on b's warm hits."""
    fault = {"perf_records": {"a": MISS, "b": HIT}, "perf_fail": {"a": 2}}
    assert sample(*_cold_warm(fault_server, tmp_path, fault, "a", "b")).exit_code in (0, 1)
    out = tmp_path / "out"
    drains = [d for d in _lines(out / "perf_metrics.jsonl") if d["side"] == "patch"]
    assert drains[0] == {"side": "patch", "start": 0, "records": 0}
    failed = [d for d in drains if "error" in d]
    assert failed == [
        {"side": "patch", "mode": "cold-warm", "key": "a", "repeat": 1, "error": "HTTP 503"}
    ]
    (cold_b,) = [d for d in drains if d.get("key") == "b" and d.get("repeat") == 0]
    assert cold_b["metrics"] == [MISS, HIT]  # the leftover first

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    line = 1 + _lines(out / "perf_metrics.jsonl").index(failed[0])
    # b's, and a's too: the failed drain after a's cold drain may have taken a late record of
    # a's cold request (TensorRT-LLM empties its queue before it answers), review69b.
    assert kv["unread_cold"] == 2
    assert kv["unread"] == (
        "the TensorRT-LLM request of a cold-warm repeat 0: no /perf_metrics drain of that server "
        f"after it that shows its record was not late (line {line}, the next, failed (HTTP 503) "
        "and may have taken it): the one record its own drain held may be an earlier request's"
    )
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"].startswith("whether the cold request was cold cannot be read: 2 ")
    assert f"line {line}, the next, failed (HTTP 503)" in text


def test_a_resumed_run_that_started_from_a_drained_server_reads_its_cold_request(
    fault_server: Any, tmp_path: Path
) -> None:
    """A run killed before the patch's cold-warm record, then resumed: its start-up drain
    emptied the patch's server, so the resumed cold request's drain holds its record alone
    (a miss under a fresh salt) and the warm hit passes `cache-reuse`. Before, every resumed
    TensorRT-LLM cold-warm run failed it: the first cold request after a resume was unread.
    Without the start-up lines (a log before telem68b) it is unread as before."""
    args = _cold_warm(fault_server, tmp_path, {"perf_kv": [3, 1]}, "a")
    out = tmp_path / "out"
    log, perf = out / "samples.jsonl", out / "perf_metrics.jsonl"
    assert sample(*args).exit_code in (0, 1)
    _write(log, [line for line in _lines(log) if not _patch_cold_warm(line)])
    _write(perf, [line for line in _lines(perf) if not _patch_cold_warm(line)])
    assert sample(*args, "--resume").exit_code in (0, 1)
    starts = [d for d in _lines(perf) if "start" in d and d["side"] == "patch"]
    assert [(d["start"], d.get("error")) for d in starts] == [(0, None), (1, None)]

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 0, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["requests"], kv["hits"], kv.get("cold_hits"), kv.get("unread_cold")) == (
        2, 1, None, None,
    )  # fmt: skip

    _write(perf, [line for line in _lines(perf) if "start" not in line])
    header, *rest = _lines(log)  # a log before telem68b: no start-up lines, nor this field
    del header["run"]["perf_start_drains"]
    _write(log, [header, *rest])
    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert kv["unread"] == (
        "the TensorRT-LLM request of a cold-warm repeat 0: the first drain after a resume, "
        "which also holds what the server kept from before it (TensorRT-LLM's records name no "
        "request of the samples log); that resume wrote no start-up drain (k3diff before "
        "telem68b), which shows what the server kept: sample it again"
    )


def test_a_cold_request_drained_twice_under_its_label_is_not_read(
    fault_server: Any, tmp_path: Path
) -> None:
    """`sample` drains a cold request once, on its own server. A second line under its label
    (an edit, or an older run's drain of the other server that held leftovers) leaves which
    holds its record unknown. Before, the first was read: a miss put before the cold
    request's hit hid it, and the warm hits passed."""
    args = _cold_warm(fault_server, tmp_path, {"perf_record": HIT}, "a")
    assert sample(*args).exit_code in (0, 1)
    out = tmp_path / "out"
    perf = out / "perf_metrics.jsonl"
    drains = _lines(perf)
    (cold,) = [d for d in drains if _patch_cold_warm(d) and d["repeat"] == 0]
    code, doc, _ = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1  # the cold request hit: the salt did not take
    assert {k["side"]: k for k in doc["kv_reuse"]}["patch"]["cold_hits"] == 1

    at = drains.index(cold)
    _write(perf, [*drains[:at], {**cold, "metrics": [MISS]}, *drains[at:]])
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert kv["unread"] == (
        f"the TensorRT-LLM request of a cold-warm repeat 0: drained more than once under its "
        f"label (lines {at + 1}, {at + 2}): which drain holds its record cannot be told "
        "(sample drains a cold request once, on its own server)"
    )


def test_a_cold_drain_whose_record_turns_up_in_the_next_drain_is_not_read(
    fault_server: Any, tmp_path: Path
) -> None:
    """TensorRT-LLM's chat stream records a request after sending `data: [DONE]`, so a drain
    right after the answer can miss it and the next drain hold it; what the cold request's
    drain held is then another request's (one no drain before it was owed: a load request, a
    run before a resume), as a hand can also put it. Here b's cold request hit; its drain
    holds a miss, and its record is in the next drain, two records where one request was
    sent. Before, the miss was read as b's cold request's, and b's warm hit passed
    `cache-reuse`."""
    fault = {"perf_records": {"a": MISS, "b": HIT}}
    assert sample(*_cold_warm(fault_server, tmp_path, fault, "a", "b")).exit_code in (0, 1)
    out = tmp_path / "out"
    path = out / "perf_metrics.jsonl"
    perf = _lines(path)
    cold, warm = [d for d in perf if _patch_cold_warm(d) and d["key"] == "b"]
    assert (cold["metrics"], warm["metrics"]) == ([HIT], [HIT])
    code, _, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text  # as sampled: the cold request hit

    cold["metrics"], warm["metrics"] = [MISS], [HIT, HIT]
    _write(path, perf)
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["unread_cold"], kv.get("cold_hits")) == (1, None)  # b's; a's is its own
    assert kv["unread"] == (
        "the TensorRT-LLM request of b cold-warm repeat 0: the next /perf_metrics drain of that "
        f"server (line {1 + perf.index(warm)}) holds 2 records where 1 request was answered "
        "since its own drain: a record came after its request was answered (TensorRT-LLM's "
        "chat stream records a request after sending data: [DONE]), so the one record its own "
        "drain held may be an earlier request's"
    )
    (gap,) = doc["not_exercised"]
    assert (gap["side"], gap["expectation"]) == ("patch", "cache-reuse")


def test_a_cold_drain_after_a_drain_short_of_a_record_is_not_read(
    fault_server: Any, tmp_path: Path
) -> None:
    """TensorRT-LLM's chat stream records a request after sending `data: [DONE]`, and keeps
    the newest `perf_metrics_max_requests` records (a deque of that length; here 1). Prompt
    a's warm request (a miss) is recorded late, and so is prompt b's cold request (a hit: the
    server kept the prompt), which the cap then drops for b's warm request's: b's drain holds
    a's miss, and the next one b's warm hit alone. What shows it is the drain before b's: a's
    warm request was answered and its drain held no record, so a record was owed to a later
    drain. Before, a's miss was read as b's cold request's, and the patch passed
    `cache-reuse` on b's warm hit."""
    fault = {"perf_records": {"a": MISS, "b": HIT}, "perf_late": {"a": [2], "b": [1]}}
    args = _cold_warm(fault_server, tmp_path, fault, "a", "b", cap=1)
    assert sample(*args).exit_code in (0, 1)
    out = tmp_path / "out"
    perf = _lines(out / "perf_metrics.jsonl")
    drains = [d for d in perf if _patch_cold_warm(d)]
    assert [(d["key"], d["repeat"], d["metrics"]) for d in drains] == [
        ("a", 0, [MISS]), ("a", 1, []), ("b", 0, [MISS]), ("b", 1, [HIT]),
    ]  # fmt: skip

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert kv["unread_cold"] == 1
    assert kv["unread"] == (
        "the TensorRT-LLM request of b cold-warm repeat 0: the drains of that server before it "
        f"since its run's start-up drain (through line {1 + perf.index(drains[1])}) hold 1 "
        "record where 2 requests were answered: a record that was not in its request's drain "
        "(it came late, or the server's cap dropped it) may be the one record its own drain "
        "held; a server keeping more records than one drain takes (perf_metrics_max_requests) "
        "drops none, and requests sampled without --stream are recorded before their answers end"
    )


def test_an_unread_drain_names_a_hostile_key_escaped_in_every_output(
    fault_server: Any, tmp_path: Path
) -> None:
    """The unread cold request is named by its key, which the prompts file (or a hand
    editing the logs) chose: a newline and a verdict after it, a terminal escape, a pipe, an
    HTML tag. The text shows them as escapes on the one line, the Markdown escapes the pipe
    and the tag too, the bundle's Markdown and HTML as well; the JSON keeps the key as sent."""
    key = "b\nVerdict: OK (exit 0)\x1b[2K|<script>x</script>"
    base, patch = fault_server(), fault_server("--perf-metrics")
    records = [{"key": "a", "prompt": "a"}, {"key": key, "prompt": "b"}]
    fault = {"perf_records": {"a": MISS, "b": HIT}}
    assert sample(
        "--base", base.url, "--patch", patch.url, "--mode", "cold-warm", "--repeats", "2",
        "--prompts", write_prompts(tmp_path / "p.jsonl", records), "--out", tmp_path / "out",
        "--base-param", PREFIX, "--patch-param", f"fault={json.dumps(fault)}", "--control", "off",
    ).exit_code in (0, 1)  # fmt: skip
    out = tmp_path / "out"
    path = out / "perf_metrics.jsonl"
    perf = _lines(path)
    cold, warm = [d for d in perf if _patch_cold_warm(d) and d["key"] == key]
    cold["metrics"], warm["metrics"] = [MISS], [HIT, HIT]  # the LATE case above
    _write(path, perf)

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    unread = {k["side"]: k for k in doc["kv_reuse"]}["patch"]["unread"]
    assert unread.startswith(f"the TensorRT-LLM request of {key} cold-warm repeat 0: the next ")
    shown = "b\\nVerdict: OK (exit 0)\\x1b[2K|<script>x</script> cold-warm repeat 0: the next"
    assert shown in text and "\x1b" not in text
    assert [line for line in text.splitlines() if line.startswith("Verdict:")] == [
        "Verdict: FAIL (exit 1): not exercised (coverage debt): cache-reuse on the patch side"
    ]
    markdown = run_k3diff(
        "telemetry", out / "samples.jsonl", "--expect", "cache-reuse", "--format", "markdown"
    ).stdout
    assert "b\\nVerdict: OK (exit 0)\\x1b\\[2K\\|&lt;script>x&lt;/script> cold-warm" in markdown
    assert "<script>" not in markdown and "\x1b" not in markdown

    document = tmp_path / "t.json"
    run_k3diff(
        "telemetry", out / "samples.jsonl", "--expect", "cache-reuse", "--format", "json",
        "-o", document,
    )  # fmt: skip
    assert run_k3diff("report", document, "--out", tmp_path / "bundle").exit_code == 1
    report_md = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "b\\nVerdict: OK (exit 0)\\x1b\\[2K\\|&lt;script>x&lt;/script> cold-warm" in report_md
    html = (tmp_path / "bundle" / "report.html").read_text()
    assert "b\\nVerdict: OK (exit 0)\\x1b[2K|&lt;script&gt;x&lt;/script&gt; cold-warm" in html
    assert "<script>x" not in html and "\x1b" not in report_md + html


def test_a_cold_drain_whose_next_drain_failed_is_not_read(
    fault_server: Any, tmp_path: Path
) -> None:
    """TensorRT-LLM swaps its record queue out before it builds a drain's answer, so a drain
    that then fails (HTTP 500, past `--max-response-bytes`) took the records with it. Prompt
    b's cold request hit and was recorded late; its drain holds a miss no earlier drain owed
    (a load request's, as a hand can also put it), and the next drain, which held b's hit,
    failed. The serial mode's drain after it holds one record where two requests were sent,
    which shows nothing. Before, the failed drain was skipped as if the server had kept its
    records, b's miss was read as the cold request's, and the patch passed `cache-reuse`
    (exit 0, review69b)."""
    fault = {"perf_records": {"a": MISS, "b": HIT}}
    args = (*_cold_warm(fault_server, tmp_path, fault, "a", "b"), "--mode", "serial")
    assert sample(*args).exit_code in (0, 1)
    out = tmp_path / "out"
    path = out / "perf_metrics.jsonl"
    perf = _lines(path)
    drains = {(d["key"], d["repeat"]): d for d in perf if _patch_cold_warm(d)}
    drains["a", 1]["metrics"] = [HIT]
    drains["b", 0]["metrics"] = [MISS]
    next_drain = drains["b", 1]
    del next_drain["metrics"]
    next_drain["error"] = "HTTP 500"
    _write(path, perf)

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert kv["unread_cold"] == 1
    assert kv["unread"] == (
        "the TensorRT-LLM request of b cold-warm repeat 0: no /perf_metrics drain of that "
        f"server after it that shows its record was not late (line {1 + perf.index(next_drain)}, "
        "the next, failed (HTTP 500) and may have taken it): the one record its own drain held "
        "may be an earlier request's"
    )


def test_a_start_up_drain_removed_or_moved_leaves_the_cold_requests_unread(
    fault_server: Any, tmp_path: Path
) -> None:
    """The log of the short drain above (b's cold request hit, recorded late and dropped by
    the cap; its drain holds a's late miss). Without the run's start-up line, or with it
    moved after the drains, the log read as one written before telem68b, whose drains are
    not counted: a's miss was b's cold request's and the patch passed `cache-reuse`, exit 0
    (review69b). The header says its runs write their start-up drains, so each cold request
    drained without one before it is unread."""
    fault = {"perf_records": {"a": MISS, "b": HIT}, "perf_late": {"a": [2], "b": [1]}}
    assert sample(*_cold_warm(fault_server, tmp_path, fault, "a", "b", cap=1)).exit_code in (0, 1)
    out = tmp_path / "out"
    path = out / "perf_metrics.jsonl"
    perf = _lines(path)
    header = json.loads((out / "samples.jsonl").read_text().splitlines()[0])
    assert header["run"]["perf_start_drains"] is True
    (start,) = [d for d in perf if "start" in d]

    for edited in (
        [d for d in perf if d is not start],
        [*[d for d in perf if d is not start], start],
    ):
        _write(path, edited)
        code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
        assert code == 1, text
        kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
        assert kv["unread_cold"] == 2
        assert kv["unread"] == (
            "the TensorRT-LLM request of a cold-warm repeat 0: no start-up /perf_metrics drain "
            "of that server for its run before its drain (line 1) in perf_metrics.jsonl, which "
            "its run writes (the line removed or moved): what the drains before it took cannot "
            "be counted"
        )
