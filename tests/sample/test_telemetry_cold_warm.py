"""cold-warm's cold request (repeat 0: a fresh `cache_salt`, or after `--flush-url`) is the one
that must miss the cache, so its hit is no evidence for `--expect cache-reuse`: it is evidence
that the salt or the flush did not take, and fails the side (`not-exercised`, as triage's `the
cold request was not cold`). Before telem67 every cold-warm sample's hit counted, the cold
one's too: a server that ignored `cache_salt` passed, and so did one whose only hits were its
cold requests'.

Runs are real `k3diff sample` runs against loopback fault servers; the expected counts are
recounted from the samples log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_k3diff, run_telemetry

from .support import read_samples, sample, write_prompts

REPEATS = 4
COLD_NOTE = (
    "the server ignored cache_salt or kept the prompt (use --flush-url), so its hits prove "
    "nothing of the warm requests"
)


def _cold_warm(fault_server: Any, tmp_path: Path, patch_fault: dict[str, Any], *flags: str) -> Path:
    """cold-warm of one prompt, with its default control; the base's prefix cache honours the
    salt, the patch's server is told `patch_fault`."""
    base, patch = fault_server(*flags), fault_server(*flags)
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "cold-warm",
        "--base-param", f"fault={json.dumps({'cache': 'prefix'})}",
        "--patch-param", f"fault={json.dumps(patch_fault)}",
        "--repeats", str(REPEATS), "--out", out,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr  # 1: sample's own coverage findings
    return out


def _hits(lines: list[dict[str, Any]], side: str, cold: bool) -> int:
    return sum(
        1
        for line in lines
        if line["side"] == side
        and line["mode"] == "cold-warm"
        and (line["repeat"] == 0) == cold
        and line["usage"]["prompt_tokens_details"]["cached_tokens"] > 0
    )


def test_a_cold_request_that_hit_the_cache_fails_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    """The patch's server ignores `cache_salt`: its cold request hits the prompt the control
    sent before it, and so do its warm ones."""
    out = _cold_warm(fault_server, tmp_path, {"cache": "prefix", "ignore_salt": True})
    _, lines = read_samples(out)
    assert (_hits(lines, "base", cold=True), _hits(lines, "base", cold=False)) == (0, REPEATS - 1)
    assert (_hits(lines, "patch", cold=True), _hits(lines, "patch", cold=False)) == (1, REPEATS - 1)
    control = sum(
        1
        for line in lines
        if line["side"] == "patch"
        and line["mode"] == "control"
        and line["usage"]["prompt_tokens_details"]["cached_tokens"] > 0
    )

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        (
            "patch",
            "the cold request was not cold: 1 cold-warm cold request hit the "
            f"cache, not counted: {COLD_NOTE}; the control's {control} samples with cached "
            "prompt tokens are not counted (the first prompt at temperature 1 before the "
            "modes, not the requests under test)",
        )
    ]
    rows = {(m["side"], m["mode"]): m for m in doc["modes"]}
    assert rows[("patch", "cold-warm")]["cold_hits"] == 1
    assert rows[("patch", "cold-warm")]["cache_hits"] == REPEATS
    assert "cold_hits" not in rows[("base", "cold-warm")]  # written only when there is one
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): not exercised (coverage debt): cache-reuse on the patch side"
    )
    # Without --expect the run is summarised, and the text still says it.
    code, _, text = run_telemetry(out / "samples.jsonl")
    assert code == 0
    assert (
        "cold-warm, patch: the cold request was not cold: 1 cold request hit the "
        f"cache: {COLD_NOTE}"
    ) in text

    # The bundle recounts it: a document edited to drop the finding is refused.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b0" / "REPORT.md").read_text()
    assert "1 cold-warm cold requests hit the cache, not counted as reuse" in report
    doc["not_exercised"] = []
    doc["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "t.json").write_text(json.dumps(doc))
    edited = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b1")
    assert edited.exit_code == 2
    assert (
        "the patch side has 1 cold requests that hit the cache but cache-reuse is not listed"
    ) in edited.stderr


def test_hits_of_the_cold_requests_alone_are_no_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    """A log whose patch side hit the cache only on its cold request (its warm requests
    missed): the patch showed no reuse, and its cold request was not cold."""
    out = _cold_warm(fault_server, tmp_path, {"cache": "prefix", "ignore_salt": True})
    log = out / "samples.jsonl"
    edited = []
    for text in log.read_text().splitlines():
        line = json.loads(text)
        if line.get("side") == "patch" and line.get("mode") == "cold-warm" and line["repeat"]:
            line["usage"]["prompt_tokens_details"]["cached_tokens"] = 0
        edited.append(json.dumps(line))
    log.write_text("\n".join(edited) + "\n")
    _, lines = read_samples(out)
    assert (_hits(lines, "patch", cold=True), _hits(lines, "patch", cold=False)) == (1, 0)

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"].startswith(
        f"0 cached prompt tokens in {REPEATS - 1} samples that report the count; the cold "
        "request was not cold: 1 cold-warm cold request hit the cache"
    )


def test_a_cold_request_that_reused_kv_blocks_fails_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    """TensorRT-LLM: the patch reports no cached-token count, and every request reused KV
    blocks, its cold ones too. `sample` drains `/perf_metrics` after the cold request on its
    own, so its record is told apart from the warm ones'."""
    record = engine_schemas.aggregated_record(kv=(3, 1))
    out = _cold_warm(fault_server, tmp_path, {"perf_record": record}, "--perf-metrics")
    drains = [json.loads(line) for line in (out / "perf_metrics.jsonl").read_text().splitlines()]
    cold = [d for d in drains if d["side"] == "patch" and d.get("mode") == "cold-warm"]
    assert [(d["repeat"], len(d["metrics"])) for d in cold] == [(0, 1), (REPEATS - 1, REPEATS - 1)]

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}
    assert (kv["patch"]["hits"], kv["patch"]["cold_hits"]) == (REPEATS, 1)
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"].startswith(
        "the cold request was not cold: 1 cold-warm cold request hit the cache"
    )


def test_a_cold_request_whose_usage_is_not_valid_holds_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    """left67: the patch's server ignores `cache_salt`, and its cold request's usage came back
    no counts (`usage_invalid`): whether it missed cannot be read, so the warm requests' hits
    do not pass the side, as a cold request's invalid KV counts do not (telem67). Before, the
    cold request hid behind its invalid usage and the side passed."""
    out = _cold_warm(fault_server, tmp_path, {"cache": "prefix", "ignore_salt": True})
    log = out / "samples.jsonl"
    why = "usage.prompt_tokens_details.cached_tokens is '7', not a non-negative integer count"
    edited = []
    for text in log.read_text().splitlines():
        line = json.loads(text)
        if line.get("side") == "patch" and line.get("mode") == "cold-warm" and not line["repeat"]:
            line["usage"], line["usage_invalid"] = None, why
        edited.append(json.dumps(line))
    log.write_text("\n".join(edited) + "\n")
    _, lines = read_samples(out)
    assert (_hits(lines, "base", cold=False), _hits(lines, "patch", cold=False)) == (
        REPEATS - 1, REPEATS - 1,
    )  # fmt: skip

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"].startswith(
        "whether the cold request was cold cannot be read: 1 cold-warm cold request failed or "
        "reported usage that is not valid; the control's"
    )
    rows = {(m["side"], m["mode"]): m for m in doc["modes"]}
    assert rows[("patch", "cold-warm")]["cold_unread"] == 1
    assert "cold_unread" not in rows[("base", "cold-warm")]
    # Without --expect the run is summarised, and the text still says it.
    code, _, text = run_telemetry(log)
    assert code == 0
    assert (
        "cold-warm, patch: whether the cold request was cold cannot be read: 1 cold-warm cold "
        "request failed or reported usage that is not valid"
    ) in text
    # The bundle says it and recounts it: the finding removed, the document is refused.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b0" / "REPORT.md").read_text()
    assert "1 cold-warm cold requests failed or usage not valid (may have hit)" in report
    doc["not_exercised"] = []
    doc["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "t.json").write_text(json.dumps(doc))
    edited_doc = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b1")
    assert edited_doc.exit_code == 2
    assert (
        "1 cold requests that failed or whose usage, KV-cache counts or /perf_metrics drain "
        "cannot be read" in edited_doc.stderr
    )


def test_a_cold_request_that_failed_holds_cache_reuse(fault_server: Any, tmp_path: Path) -> None:
    """left67c: the patch's server ignores `cache_salt`, and its cold request failed (an error
    sample): whether it would have missed cannot be read, so the warm requests' hits do not
    pass the side, as a cold request whose usage is not valid does not (left67). Before, the
    failed request was dropped and the side passed on the warm requests' hits."""
    out = _cold_warm(fault_server, tmp_path, {"cache": "prefix", "ignore_salt": True})
    log = out / "samples.jsonl"
    edited = []
    for text in log.read_text().splitlines():
        line = json.loads(text)
        if line.get("side") == "patch" and line.get("mode") == "cold-warm" and not line["repeat"]:
            line.update(error="HTTP 500: engine restarted", usage=None, text=None)
            line.update(text_xxh3=None, finish_reason=None)
        edited.append(json.dumps(line))
    log.write_text("\n".join(edited) + "\n")

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"].startswith(
        "whether the cold request was cold cannot be read: 1 cold-warm cold request failed"
    )
    rows = {(m["side"], m["mode"]): m for m in doc["modes"]}
    assert rows[("patch", "cold-warm")]["cold_unread"] == 1
    assert rows[("patch", "cold-warm")]["cache_hits"] == REPEATS - 1  # the warm ones hit
    assert "cold_unread" not in rows[("base", "cold-warm")]
    # The bundle reads the document and says it (exit 1: the finding stands).
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    assert (
        "1 cold-warm cold requests failed or usage not valid (may have hit)"
        in (tmp_path / "b0" / "REPORT.md").read_text()
    )


def test_a_resumed_runs_first_request_of_a_record_is_cold(
    fault_server: Any, tmp_path: Path
) -> None:
    """left67: `sample --resume` sends a record's repeats still to do under a fresh salt (or
    after a flush), so the first of them is a cold request: logged `cold`, and held to what a
    cold request is held to. The patch's server ignores `cache_salt`: that first request hit
    the cache as repeat 0 did, and both are said. Before, it was counted a warm hit."""
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    args = (
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "cold-warm",
        "--base-param", f"fault={json.dumps({'cache': 'prefix'})}",
        "--patch-param", f"fault={json.dumps({'cache': 'prefix', 'ignore_salt': True})}",
        "--repeats", str(REPEATS), "--out", out,
    )  # fmt: skip
    assert sample(*args).exit_code in (0, 1)
    log = out / "samples.jsonl"
    kept = [  # as a run stopped after each side's repeat 0 leaves its log
        text
        for text in log.read_text().splitlines()
        if json.loads(text).get("mode") != "cold-warm" or json.loads(text)["repeat"] == 0
    ]
    log.write_text("\n".join(kept) + "\n")
    assert sample(*args, "--resume").exit_code in (0, 1)
    _, lines = read_samples(out)
    cold_warm = sorted(
        (line["side"], line["repeat"], line.get("cold"))
        for line in lines
        if line["mode"] == "cold-warm"
    )
    assert cold_warm == [
        (side, repeat, True if repeat == 1 else None)
        for side in ("base", "patch")
        for repeat in range(REPEATS)
    ]

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    rows = {(m["side"], m["mode"]): m for m in doc["modes"]}
    # base: both cold requests missed, the 2 warm after the resume hit; patch: all 4 hit.
    assert (
        rows[("base", "cold-warm")]["cache_hits"],
        rows[("base", "cold-warm")].get("cold_hits"),
    ) == (REPEATS - 2, None)
    assert (
        rows[("patch", "cold-warm")]["cache_hits"],
        rows[("patch", "cold-warm")]["cold_hits"],
    ) == (REPEATS, 2)
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"].startswith(
        "the cold request was not cold: 2 cold-warm cold requests hit the cache"
    )


def _edit(log: Path, change: Any) -> None:
    """Each of the log's lines replaced by `change(line)` (a dict; None: the line dropped)."""
    lines = [change(json.loads(text)) for text in log.read_text().splitlines()]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines if line is not None))


def test_cold_on_a_warm_request_is_refused_not_taken_on_its_word(
    fault_server: Any, tmp_path: Path
) -> None:
    """`cold` says where a request was cold, and only a record's first repeat a resumed run
    sent is (left67). Written on a warm request of a run that never resumed, it was taken on
    its word: that warm hit was counted a cold request's, and the side said 'the cold request
    was not cold' (a warm miss so labelled left uncounted). Now the line is refused, exit 2."""
    log = _cold_warm(fault_server, tmp_path, {"cache": "prefix"}) / "samples.jsonl"
    assert run_telemetry(log, "--expect", "cache-reuse")[0] == 0

    def labelled(line: dict[str, Any]) -> dict[str, Any]:
        if line.get("mode") == "cold-warm" and line["side"] == "patch" and line["repeat"] == 2:
            line["cold"] = True
        return line

    _edit(log, labelled)
    refused = run_k3diff("telemetry", log, "--expect", "cache-reuse")
    assert refused.exit_code == 2, refused.stdout
    (message,) = refused.stderr.strip().splitlines()
    assert str(log) in message and "'cold' on repeat 2 of patch 'a'" in message


def test_a_resumed_runs_first_request_is_cold_without_its_label(
    fault_server: Any, tmp_path: Path
) -> None:
    """Where a resumed run's first request of a record stands says it was cold (a fresh salt
    or a flush): a log without its `cold` (written before left67, or the label removed) holds
    it to what a cold request is held to, not counted as a warm hit."""
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    args = (
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "cold-warm",
        "--base-param", f"fault={json.dumps({'cache': 'prefix'})}",
        "--patch-param", f"fault={json.dumps({'cache': 'prefix', 'ignore_salt': True})}",
        "--repeats", str(REPEATS), "--out", out,
    )  # fmt: skip
    assert sample(*args).exit_code in (0, 1)
    log = out / "samples.jsonl"
    _edit(log, lambda line: None if line.get("mode") == "cold-warm" and line["repeat"] else line)
    assert sample(*args, "--resume").exit_code in (0, 1)
    labelled = run_telemetry(log)[1]
    _edit(log, lambda line: {name: value for name, value in line.items() if name != "cold"})
    code, doc, _ = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1
    assert doc["modes"] == labelled["modes"]
    rows = {(m["side"], m["mode"]): m for m in doc["modes"]}
    assert rows[("patch", "cold-warm")]["cold_hits"] == 2  # repeat 0 and the resumed repeat 1


def test_a_perf_drains_cold_label_is_the_samples_logs(fault_server: Any, tmp_path: Path) -> None:
    """TensorRT-LLM: whether a `/perf_metrics` drain's first record is a cold request's is what
    the samples log says of that repeat, not the drain's own `cold`: labelled on the drain after
    the warm requests, a warm request's reused KV blocks were counted a cold request's."""
    record = engine_schemas.aggregated_record(kv=(3, 1))
    out = _cold_warm(fault_server, tmp_path, {"perf_record": record}, "--perf-metrics")
    before = run_telemetry(out / "samples.jsonl")[1]["kv_reuse"]

    def labelled(line: dict[str, Any]) -> dict[str, Any]:
        if line.get("mode") == "cold-warm" and line["repeat"] == REPEATS - 1:
            line["cold"] = True
        return line

    _edit(out / "perf_metrics.jsonl", labelled)
    kv = run_telemetry(out / "samples.jsonl")[1]["kv_reuse"]
    assert kv == before
    assert {k["side"]: k["cold_hits"] for k in kv}["patch"] == 1  # repeat 0's drain alone
