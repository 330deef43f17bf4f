"""telem70: a cold-warm cold request's `/perf_metrics` record is read only where the log proves
which record is its own. TensorRT-LLM's records name no request of the samples log, and the
server keeps the newest `perf_metrics_max_requests` of them; `telemetry` counts what each
drain of a server holds against the requests `sample` sent it since the drain before.

Runs are real `k3diff sample` runs against loopback fault servers (started and stopped by pid
by the `fault_server` fixture) answering with records built from TensorRT-LLM's published
schema (`engine_schemas.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_telemetry

from .support import sample, write_prompts

HIT = engine_schemas.aggregated_record(kv=(3, 1))
MISS = engine_schemas.aggregated_record(kv=(0, 4))
PREFIX = f"fault={json.dumps({'cache': 'prefix'})}"
"""The base's prefix cache honours the salt, and says so in its usage."""


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines()]


def _loaded_then_cold_warm(fault_server: Any, tmp_path: Path, *modes: str) -> Path:
    """Prompts b and a, `modes` in that order at concurrency 2, against a patch server keeping
    one record (a cap below one loaded round: its target and the background requests). Prompt
    b's requests without a salt (the loaded mode's, its background ones too) record a miss;
    its cold request hits (the server kept the prompt whatever the salt) and is recorded late
    (after its answer, as TensorRT-LLM's chat stream is), its warm one hits. Prompt a's cold
    request misses and its warm one hits.

    The patch holds b's third request, the loaded mode's first background request of b (b's
    first two are its targets, and the background requests skip the prompt of the target),
    until cold-warm's first request under a salt, b's cold one: a background request still
    running when the mode ended, recorded after its last drain. Prompt a takes 0.5 s on the
    patch, so the background worker, done with its request of a (at most 0.5 s), has sent
    that request of b before the loaded mode's two targets of a (1 s) end (review70d: before,
    b took 0.3 s and the test relied on a background request being in flight at the mode's
    end)."""
    faults = {
        "a": {"delay": 0.5},
        "b": {
            "perf_record": MISS,
            "perf_salted": {"cold": HIT, "warm": HIT, "cold_late": True},
            "perf_hold": {"b": [3]},
        },
    }
    base = fault_server()
    patch = fault_server("--perf-metrics", "--perf-cap", "1", "--faults", json.dumps(faults))
    prompts = [{"key": "b", "prompt": "b"}, {"key": "a", "prompt": "a"}]
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, *[f"--mode={m}" for m in modes],
        "--concurrency", "2", "--repeats", "2",
        "--prompts", write_prompts(tmp_path / "p.jsonl", prompts), "--out", out,
        "--base-param", PREFIX, "--patch-param", f"fault={json.dumps({'perf_kv': [3, 1]})}",
        "--control", "off",
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return out


def test_a_cold_request_after_the_loaded_mode_is_not_read_from_a_background_record(
    fault_server: Any, tmp_path: Path
) -> None:
    """The loaded mode's background request of b on the patch (a miss) was in flight when
    the mode ended; it is recorded after the mode's last drain. b's cold request
    hit, and its record came late: its drain holds the background request's miss alone, and
    the cap then drops the cold request's hit for its warm request's. Every count agrees (one
    record where one request was sent), since the background requests' records, which no
    sample names, filled the count of the loaded drains. Before, the miss was read as b's
    cold request's, and the patch passed `cache-reuse` on the warm hits (exit 0)."""
    out = _loaded_then_cold_warm(fault_server, tmp_path, "loaded", "cold-warm")
    perf = _lines(out / "perf_metrics.jsonl")
    cold = [d for d in perf if d.get("mode") == "cold-warm" and d.get("key") == "b"]
    assert [(d["side"], d["repeat"], d["metrics"]) for d in cold] == [
        ("patch", 0, [MISS]), ("patch", 1, [HIT]),
    ]  # fmt: skip
    first_loaded = 1 + next(i for i, d in enumerate(perf) if d.get("mode") == "loaded")

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["unread_cold"], kv.get("cold_hits")) == (2, None)
    assert kv["unread"] == (
        "the TensorRT-LLM request of b cold-warm repeat 0: the drains of that server before "
        f"it since its run's start-up drain hold the loaded mode's records (from line "
        f"{first_loaded}), its background requests' among them, which no sample names: a "
        "record missing from them (late, or dropped past the server's cap) cannot be counted, "
        "so the one record its own drain held may be a background request's; sample "
        "cold-warm before loaded (--mode cold-warm --mode loaded) or in a run of its own"
    )
    (gap,) = doc["not_exercised"]
    assert (gap["side"], gap["expectation"]) == ("patch", "cache-reuse")


def _cold_warm(
    fault_server: Any, tmp_path: Path, patch_fault: dict[str, Any], *flags: str, repeats: int = 2
) -> tuple[Any, ...]:
    """cold-warm of prompts a and b; the patch's server numbers its records' request_id as
    TensorRT-LLM's executor does (`flags`: more of its flags)."""
    base, patch = fault_server(), fault_server("--perf-metrics", "--perf-request-ids", *flags)
    prompts = [{"key": p, "prompt": p} for p in ("a", "b")]
    return (
        "--base", base.url, "--patch", patch.url, "--mode", "cold-warm", "--repeats",
        str(repeats), "--prompts", write_prompts(tmp_path / "p.jsonl", prompts),
        "--out", tmp_path / "out", "--base-param", PREFIX,
        "--patch-param", f"fault={json.dumps(patch_fault)}", "--control", "off",
    )  # fmt: skip


LATE_COLD = {"perf_salted": {"cold": MISS, "warm": HIT, "cold_late": True}}
"""Every cold request misses and is recorded late (after its answer, as TensorRT-LLM's chat
stream is); every warm one hits."""


def test_a_cold_request_recorded_late_is_read_from_the_next_drain(
    fault_server: Any, tmp_path: Path
) -> None:
    """Each cold request's drain holds no record: it came late, and the next drain (after
    its warm request) holds it with the warm request's, two records where one request was
    answered since, nothing owed before. The one more is the cold request's, the one of
    least request_id (the warm one was sent after it). Before, every such cold request was
    unread (`holds 0 records where one request was sent`), and the patch failed
    `cache-reuse` (exit 1) though its cold requests missed and its warm ones hit."""
    assert sample(*_cold_warm(fault_server, tmp_path, LATE_COLD)).exit_code in (0, 1)
    out = tmp_path / "out"
    perf = _lines(out / "perf_metrics.jsonl")
    drains = [d for d in perf if d.get("mode") == "cold-warm" and d["side"] == "patch"]
    assert [(d["key"], d["repeat"], len(d["metrics"])) for d in drains] == [
        ("a", 0, 0), ("a", 1, 2), ("b", 0, 0), ("b", 1, 2),
    ]  # fmt: skip

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 0, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["requests"], kv["hits"], kv.get("cold_hits"), kv.get("unread_cold")) == (
        4, 2, None, None,
    )  # fmt: skip


def test_a_late_cold_hit_read_from_the_next_drain_fails_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    """The same, the cold requests hitting (the server ignored the salt): read from the next
    drain by its request_id, each is a cold hit, whatever order the records came in."""
    fault = {"perf_salted": {"cold": HIT, "warm": HIT, "cold_late": True}}
    assert sample(*_cold_warm(fault_server, tmp_path, fault)).exit_code in (0, 1)
    out = tmp_path / "out"
    path = out / "perf_metrics.jsonl"
    perf = _lines(path)
    for drain in perf:  # the warm record first: the request_id still names the cold one
        if drain.get("mode") == "cold-warm" and drain.get("repeat") == 1:
            drain["metrics"].reverse()
    path.write_text("".join(json.dumps(line) + "\n" for line in perf))

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["hits"], kv["cold_hits"], kv.get("unread_cold")) == (4, 2, None)


def test_a_late_cold_request_whose_records_name_no_request_id_is_unread(
    fault_server: Any, tmp_path: Path
) -> None:
    """Records that name no distinct request_id (every record here is 7) leave which of the
    next drain's two is the cold request's unknown: unread, and the finding says why."""
    assert sample(*_cold_warm(fault_server, tmp_path, LATE_COLD)).exit_code in (0, 1)
    out = tmp_path / "out"
    path = out / "perf_metrics.jsonl"
    perf = _lines(path)
    for drain in perf:
        for record in drain.get("metrics") or []:
            record["request_id"] = 7
    path.write_text("".join(json.dumps(line) + "\n" for line in perf))
    at = {
        (d.get("key"), d.get("repeat")): n
        for n, d in enumerate(perf, 1)
        if d.get("side") == "patch"
    }

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert kv["unread_cold"] == 2
    assert kv["unread"] == (
        f"the TensorRT-LLM request of a cold-warm repeat 0: its /perf_metrics drain (line "
        f"{at['a', 0]}) holds no record, and the next (line {at['a', 1]}) holds its own among "
        "its requests' whose records name no distinct request_id (TensorRT-LLM's executor "
        "numbers requests as they are submitted; its is the least): which is its own cannot be "
        "told"
    )


def test_the_last_cold_request_of_a_run_is_read_against_its_closing_drain(
    fault_server: Any, tmp_path: Path
) -> None:
    """cold-warm of one repeat: each cold request is its record's last request, and b's the
    side's last. `sample` drains each server once more when the run finishes (`end`), whose
    count (no record where none was sent since) shows b's record was not late, so b's cold
    request is read. Before, no drain followed b's, and it was unread (`none drained after
    it`), a run of one repeat never reading its last cold request."""
    fault = {"perf_kv": [3, 1]}
    assert sample(*_cold_warm(fault_server, tmp_path, fault, repeats=1)).exit_code in (0, 1)
    out = tmp_path / "out"
    perf = _lines(out / "perf_metrics.jsonl")
    assert [d for d in perf if "end" in d] == [{"side": "patch", "end": 0, "records": 0}]

    code, doc, text = run_telemetry(out / "samples.jsonl")

    assert code == 0, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["requests"], kv.get("unread_cold")) == (2, None)


def test_a_run_stopped_right_after_a_cold_drain_says_to_resume_it(
    fault_server: Any, tmp_path: Path
) -> None:
    """A run stopped (Ctrl-C) right after b's cold request's drain on the patch: no drain of
    that server shows whether its record came late, so it is unread, and the finding says
    what gives that count: `--resume`, whose start-up drain counts what the server held.
    Resumed, it is read (none held), and so is the resumed run's own cold request of b.
    Before, the finding said only `none drained after it`."""
    args = _cold_warm(fault_server, tmp_path, {"perf_kv": [3, 1]}, repeats=3)
    assert sample(*args).exit_code in (0, 1)
    out = tmp_path / "out"
    log, perf = out / "samples.jsonl", out / "perf_metrics.jsonl"
    header, *lines = _lines(log)
    cut = 1 + next(
        i for i, x in enumerate(lines) if (x["side"], x["key"], x["repeat"]) == ("patch", "b", 0)
    )
    stop = {
        "schema": "k3diff.samples/1", "stopped": "2026-12-06T15:00:00Z",
        "reason": "interrupted", "resumable": True, "message": "aborted (Ctrl-C)",
    }  # fmt: skip
    log.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines[:cut], stop]))
    drains = _lines(perf)
    kept = 1 + next(
        i
        for i, d in enumerate(drains)
        if (d["side"], d.get("key"), d.get("repeat")) == ("patch", "b", 0)
    )
    perf.write_text("".join(json.dumps(d) + "\n" for d in drains[:kept]))

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["unread_cold"], kv["unread"]) == (
        1,
        "the TensorRT-LLM request of b cold-warm repeat 0: no /perf_metrics drain of that "
        "server after it that shows its record was not late (none drained after it): the one "
        "record its own drain held may be an earlier request's; the run stopped after it: "
        "--resume it, and the resumed run's start-up drain shows that count",
    )

    assert sample(*args, "--resume").exit_code in (0, 1)
    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 0, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv.get("unread_cold"), kv.get("cold_hits")) == (None, None)


def test_a_late_cold_record_in_a_batch_drain_is_read(fault_server: Any, tmp_path: Path) -> None:
    """A run killed before the patch's repeat 1 of b, resumed: that repeat is the resumed
    run's cold request of b (a fresh salt), its record's last, so the next drain of the patch
    is the concurrent mode's first batch's. Its record came late (b's 5th request on that
    server): its own drain holds none, and the batch's drain holds it with the batch's two,
    three records where two requests were answered since: all of the batch counted (its drain
    follows all of it, on its own server), the one more is the cold request's, the one of
    least request_id. Before, it was unread (`holds 0 records`), and the patch failed
    `cache-reuse` (exit 1) though its cold requests missed and its warm one hit."""
    fault = {
        "perf_salted": {"cold": MISS, "warm": HIT},
        "perf_late": {"b": [5]},
    }
    base, patch = fault_server(), fault_server("--perf-metrics", "--perf-request-ids")
    prompts = [{"key": p, "prompt": p} for p in ("a", "b")]
    args = (
        "--base", base.url, "--patch", patch.url, "--mode", "cold-warm", "--mode",
        "concurrent", "--concurrency", "2", "--repeats", "2",
        "--prompts", write_prompts(tmp_path / "p.jsonl", prompts), "--out", tmp_path / "out",
        "--base-param", PREFIX, "--patch-param", f"fault={json.dumps(fault)}",
        "--control", "off",
    )  # fmt: skip
    assert sample(*args).exit_code in (0, 1)
    out = tmp_path / "out"
    log, perf = out / "samples.jsonl", out / "perf_metrics.jsonl"
    header, *lines = _lines(log)
    cut = next(
        i for i, x in enumerate(lines) if (x["side"], x["key"], x["repeat"]) == ("patch", "b", 1)
    )
    log.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines[:cut]]))
    drains = _lines(perf)
    kept = next(
        i
        for i, d in enumerate(drains)
        if (d["side"], d.get("key"), d.get("repeat")) == ("patch", "b", 1)
    )
    perf.write_text("".join(json.dumps(d) + "\n" for d in drains[:kept]))

    assert sample(*args, "--resume").exit_code in (0, 1)
    drains = _lines(perf)[kept:]
    patch_drains = [d for d in drains if d["side"] == "patch" and "metrics" in d]
    assert [(d["mode"], d["key"], len(d["metrics"])) for d in patch_drains[:2]] == [
        ("cold-warm", "b", 0), ("concurrent", "a", 3),
    ]  # fmt: skip

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")

    assert code == 0, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv.get("unread_cold"), kv.get("cold_hits")) == (None, None)


def test_a_sweep_is_drained_after_each_batch(fault_server: Any, tmp_path: Path) -> None:
    """sweep mode on a TensorRT-LLM server: each batch's records are drained after it, on its
    own server, labelled with a request of it, so they count as the sweep's. Before, a sweep
    drained nothing: a run of sweep alone left every record on the server, and the side's
    speculation was `not reported` (`--expect speculation` failed, exit 1)."""
    base, patch = fault_server("--perf-metrics", "--spec", "3,5"), fault_server()
    out = tmp_path / "out"
    assert sample(
        "--base", base.url, "--patch", patch.url, "--mode", "sweep", "--levels", "1,2",
        "--repeats", "2", "--prompts",
        write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}]),
        "--out", out, "--control", "off",
    ).exit_code in (0, 1)  # fmt: skip
    drains = [d for d in _lines(out / "perf_metrics.jsonl") if "metrics" in d]
    assert [(d["mode"], d["repeat"], len(d["metrics"])) for d in drains] == [
        ("sweep", 0, 1), ("sweep", 1, 1), ("sweep", 2, 2),
    ]  # fmt: skip

    code, doc, text = run_telemetry(out / "samples.jsonl")

    assert code == 0, text
    (spec,) = [s for s in doc["speculation"] if s["side"] == "base"]
    assert (spec["accepted"], spec["drafted"], spec["requests"]) == (12, 20, 4)


def test_a_cap_below_one_batch_leaves_later_cold_requests_unread_saying_why(
    fault_server: Any, tmp_path: Path
) -> None:
    """A server keeping 2 records under concurrent batches of 4: each batch's drain holds 2,
    the other 2 dropped or still to come, which no count tells apart, so every later cold
    request of the run is unread, and the finding says what reads it: a cap above one
    drain's requests, and requests sent whole (recorded before their answers end). Before,
    it said only that a record may have come late or been dropped."""
    base = fault_server()
    patch = fault_server("--perf-metrics", "--perf-cap", "2")
    out = tmp_path / "out"
    assert sample(
        "--base", base.url, "--patch", patch.url, "--mode", "concurrent", "--mode", "cold-warm",
        "--concurrency", "4", "--repeats", "4",
        "--prompts", write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}]),
        "--out", out, "--base-param", PREFIX,
        "--patch-param", f"fault={json.dumps({'perf_kv': [3, 1]})}", "--control", "off",
    ).exit_code in (0, 1)  # fmt: skip
    perf = _lines(out / "perf_metrics.jsonl")
    (batch,) = [d for d in perf if d.get("mode") == "concurrent" and d["side"] == "patch"]
    assert len(batch["metrics"]) == 2

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert kv["unread"] == (
        "the TensorRT-LLM request of a cold-warm repeat 0: the drains of that server before it "
        f"since its run's start-up drain (through line {1 + perf.index(batch)}) hold 2 records "
        "where 4 requests were answered: a record that was not in its request's drain (it came "
        "late, or the server's cap dropped it) may be the one record its own drain held; a "
        "server keeping more records than one drain takes (perf_metrics_max_requests) drops "
        "none, and requests sampled without --stream are recorded before their answers end"
    )
