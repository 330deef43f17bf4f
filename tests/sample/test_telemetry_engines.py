"""`k3diff telemetry` reads each engine's own accounting: TensorRT-LLM's aggregated and
disaggregated `/perf_metrics` records (speculation and `kv_cache_metrics`), vLLM's
speculative-decoding counters read by `sample` from `/metrics` around each window of requests,
SGLang's `meta_info`; per draft position, base vs patch.

Servers are real processes on loopback (`fault_server.py`) answering with records built from
the engines' published schemas (`engine_schemas.py`); every count is recounted here, and the
statistics are checked against closed forms (Clopper-Pearson from the beta distribution,
Fisher's exact p from the hypergeometric, Holm's step-down written out), not against the
function the tool calls.
"""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Any

import engine_schemas
import jsonschema
import numpy
import pytest
from cli_support import run_k3diff, run_telemetry
from scipy.stats import beta, hypergeom
from telemetry.gate_support import holm

from k3diff.documents.catalog import load_schema
from k3diff.sample import spec as vllm_spec
from k3diff.sample.specmeta import SPEC_META_COUNTS, SPEC_META_HISTOGRAM
from k3diff.telemetry import engines

from .support import read_samples, sample_fault_pair

REPEATS = 4


def _run(
    fault_server: Any,
    tmp_path: Path,
    faults: tuple[dict[str, Any], dict[str, Any]],
    *flags: str,
    mode: str = "serial",
) -> Path:
    return sample_fault_pair(fault_server, tmp_path, faults, REPEATS, *flags, mode=mode)


def _telemetry(*args: str | Path) -> tuple[int, dict[str, Any], str]:
    code, doc, text = run_telemetry(*args)
    # The sample lines (server_spec, spec_meta) against the log's schema; the header is left
    # out: its schema types `params` values too narrowly for a JSON object param (`fault`).
    line_schema = {**load_schema("samples"), "$ref": "#/$defs/sample_line"}
    line_schema.pop("oneOf", None)
    for line in Path(args[0]).read_text().splitlines()[1:]:
        jsonschema.validate(json.loads(line), line_schema, cls=jsonschema.Draft202012Validator)
    return code, doc, text


def _clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    low = 0.0 if k == 0 else beta.ppf(alpha / 2, k, n - k + 1)
    high = 1.0 if k == n else beta.ppf(1 - alpha / 2, k + 1, n - k)
    return float(low), float(high)


def _fisher_two_sided(a: int, b: int, c: int, d: int) -> float:
    total, first_row, first_col = a + b + c + d, a + b, a + c
    dist = hypergeom(total, first_col, first_row)
    observed = dist.pmf(a)
    low, high = max(0, first_row + first_col - total), min(first_row, first_col)
    return float(
        sum(p for x in range(low, high + 1) if (p := dist.pmf(x)) <= observed * (1 + 1e-7))
    )


def test_the_field_names_read_are_the_engines_own() -> None:
    types = engine_schemas.TRTLLM_TYPES
    assert engines.TRTLLM_PERF in types["WorkerPerfMetrics"]
    assert {engines.TRTLLM_CTX, engines.TRTLLM_GEN} <= types["DisaggPerfMetricsRecord"]
    assert {engines.TRTLLM_SPEC, engines.TRTLLM_KV} <= types["PerfMetrics"]
    assert {engines.TRTLLM_ACCEPTED, engines.TRTLLM_DRAFTED} <= types["SpeculativeDecodingMetrics"]
    assert {engines.TRTLLM_REUSED, engines.TRTLLM_MISSED} <= types["KvCacheMetrics"]
    used = {vllm_spec.DRAFTS, vllm_spec.DRAFT_TOKENS, vllm_spec.ACCEPTED_TOKENS}
    assert used | {vllm_spec.ACCEPTED_PER_POS} == engine_schemas.VLLM_COUNTERS
    assert vllm_spec.POSITION_LABEL == engine_schemas.VLLM_POSITION_LABEL
    sglang = {engines.SGLANG_VERIFY, engines.SGLANG_ACCEPTED, engines.SGLANG_DRAFTED}
    assert sglang | {engines.SGLANG_HISTOGRAM} <= engine_schemas.SGLANG_META_INFO
    assert set(SPEC_META_COUNTS) == sglang and SPEC_META_HISTOGRAM == engines.SGLANG_HISTOGRAM


def test_disaggregated_records_give_the_patch_its_speculation_once_per_request(
    fault_server: Any, tmp_path: Path
) -> None:
    """The seed's false 'not-exercised: speculation, patch side': a disaggregated patch
    carries its counts under gen_perf_metrics; each record is one request, counted once."""
    base = {"perf_record": engine_schemas.aggregated_record(spec=(30, 40), kv=(0, 4))}
    patch = {"perf_record": engine_schemas.disaggregated_record(gen_spec=(25, 40), ctx_kv=(3, 1))}
    out = _run(fault_server, tmp_path, (base, patch), "--perf-metrics")
    code, doc, text = _telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 0, text
    spec = {s["side"]: s for s in doc["speculation"]}
    assert (spec["patch"]["accepted"], spec["patch"]["drafted"]) == (25 * REPEATS, 40 * REPEATS)
    assert spec["patch"]["requests"] == REPEATS
    assert spec["patch"]["source"] == "TensorRT-LLM /perf_metrics"
    assert (spec["base"]["accepted"], spec["base"]["drafted"]) == (30 * REPEATS, 40 * REPEATS)
    low, high = _clopper_pearson(25 * REPEATS, 40 * REPEATS)
    assert numpy.allclose(spec["patch"]["ci"], [low, high])
    modes = {m["side"]: m for m in doc["modes"]}
    assert (modes["patch"]["spec_accepted"], modes["patch"]["spec_drafted"]) == (100, 160)
    # The TensorRT-LLM records carry no positions: per-position acceptance is not reported.
    assert doc["positions"] == []


def test_reused_kv_blocks_prove_cache_reuse_and_none_is_coverage_debt(
    fault_server: Any, tmp_path: Path
) -> None:
    """usage has no cached-token count; kv_cache_metrics decides: the patch (disaggregated,
    its context server reused 3 blocks a request) exercised cache reuse, the base did not."""
    base = {"perf_record": engine_schemas.aggregated_record(kv=(0, 4))}
    patch = {"perf_record": engine_schemas.disaggregated_record(None, ctx_kv=(3, 1))}
    out = _run(fault_server, tmp_path, (base, patch), "--perf-metrics")
    code, doc, text = _telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1
    kv = {k["side"]: k for k in doc["kv_reuse"]}
    assert kv["patch"] == {
        "side": "patch", "requests": REPEATS, "reused_blocks": 3 * REPEATS,
        "missed_blocks": REPEATS, "hits": REPEATS,
    }  # fmt: skip
    assert (kv["base"]["hits"], kv["base"]["reused_blocks"]) == (0, 0)
    assert [(n["side"], n["expectation"]) for n in doc["not_exercised"]] == [
        ("base", "cache-reuse")
    ]
    assert "no request reused a KV block" in doc["not_exercised"][0]["detail"]
    assert "KV-cache reuse, patch: 4 of 4 requests reused a block" in text
    # The bundle cross-checks the document (the patch's hits are its KV blocks) and states
    # the debt per side.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "bundle")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "coverage debt: base: no request reused a KV block" in report
    assert "patch: 4 of 4 requests reused a KV block" in report
    # Without the KV blocks the patch's claim is refused as inconsistent.
    doc["kv_reuse"] = [k for k in doc["kv_reuse"] if k["side"] == "base"]
    (tmp_path / "t.json").write_text(json.dumps(doc))
    edited = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "bundle2")
    assert edited.exit_code == 2 and "the patch side has 0 cache hits" in edited.stderr


BASE_POS = [9, 8, 6, 4, 3]
PATCH_POS = [9, 8, 5, 2, 0]


def _vllm(per_pos: list[int]) -> dict[str, Any]:
    return {
        "vllm_spec": {
            "drafts": 10,
            "draft_tokens": 50,
            "accepted_tokens": sum(per_pos),
            "per_pos": per_pos,
        }
    }


def test_vllm_counters_are_read_per_window_and_compared_by_position(
    fault_server: Any, tmp_path: Path
) -> None:
    out = _run(
        fault_server, tmp_path, (_vllm(BASE_POS), _vllm(PATCH_POS)), "--metrics", "vllm-spec"
    )
    _, lines = read_samples(out)
    for line in lines:  # serial: every request is a window of its own
        expected = BASE_POS if line["side"] == "base" else PATCH_POS
        assert line["server_spec"] == {
            "drafts": 10, "draft_tokens": 50, "accepted_tokens": sum(expected),
            "accepted_per_position": expected, "samples": 1,
        }  # fmt: skip
    code, doc, text = _telemetry(out / "samples.jsonl", "--expect", "draft-lengths=1-5")
    # The patch never had a 5th draft token accepted: named, exit 1.
    assert code == 1
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        ("patch", f"draft length 5 never accepted in {10 * REPEATS} drafts")
    ]
    assert "draft-lengths=1-5 on the patch side" in text.splitlines()[-1]
    rates = {(r["side"], r["position"]): r for r in doc["positions"]}
    n = 10 * REPEATS
    for side, per_pos in (("base", BASE_POS), ("patch", PATCH_POS)):
        for index, count in enumerate(per_pos):
            row = rates[(side, index + 1)]
            assert (row["accepted"], row["drafts"]) == (count * REPEATS, n)
            assert numpy.allclose(row["ci"], _clopper_pearson(count * REPEATS, n))
    pvalues = [
        _fisher_two_sided(b * REPEATS, n - b * REPEATS, p * REPEATS, n - p * REPEATS)
        for b, p in zip(BASE_POS, PATCH_POS, strict=True)
    ]
    tests = doc["position_tests"]
    assert [t["position"] for t in tests] == [1, 2, 3, 4, 5]
    assert numpy.allclose([t["p"] for t in tests], pvalues, rtol=1e-6)
    assert numpy.allclose([t["p_adjusted"] for t in tests], holm(pvalues), rtol=1e-6)
    # Speculation per side, from vLLM's token counters.
    spec = {s["side"]: s for s in doc["speculation"]}
    assert spec["patch"]["accepted"] == sum(PATCH_POS) * REPEATS
    assert spec["patch"]["drafted"] == 50 * REPEATS and spec["patch"]["source"] == "vLLM /metrics"
    assert "acceptance by draft position" in text
    # A document edited to hide the missing length is refused by the bundle.
    doc["not_exercised"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    (tmp_path / "t.json").write_text(json.dumps(doc))
    edited = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "bundle")
    assert edited.exit_code == 2
    assert "the patch side shows no draft length 5" in edited.stderr
    # Lengths 1-4 are seen on both sides.
    assert _telemetry(out / "samples.jsonl", "--expect", "draft-lengths=1-4")[0] == 0


def test_a_concurrent_batch_is_one_window_counted_once(fault_server: Any, tmp_path: Path) -> None:
    out = _run(
        fault_server,
        tmp_path,
        (_vllm(BASE_POS), _vllm(PATCH_POS)),
        "--metrics",
        "vllm-spec",
        mode="concurrent",
    )
    _, lines = read_samples(out)
    windows = [line for line in lines if "server_spec" in line]
    batches = {line["batch"] for line in lines}
    assert len(windows) == len(batches)
    for side, per_pos in (("base", BASE_POS), ("patch", PATCH_POS)):
        mine = [w["server_spec"] for w in windows if w["side"] == side]
        assert sum(w["samples"] for w in mine) == REPEATS
        assert sum(w["drafts"] for w in mine) == 10 * REPEATS
        summed = numpy.sum([w["accepted_per_position"] for w in mine], axis=0)
        assert list(summed) == [c * REPEATS for c in per_pos]
    _, doc, _ = _telemetry(out / "samples.jsonl")
    spec = {s["side"]: s for s in doc["speculation"]}
    assert spec["base"]["requests"] == spec["patch"]["requests"] == REPEATS
    modes = {(m["side"], m["mode"]): m for m in doc["modes"]}
    assert modes[("patch", "concurrent")]["spec_accepted"] == sum(PATCH_POS) * REPEATS


def test_sglang_meta_info_is_kept_and_read_by_position(fault_server: Any, tmp_path: Path) -> None:
    base_meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    patch_meta = engine_schemas.sglang_meta_info([5, 4, 1, 0], draft_per_step=3)
    out = _run(fault_server, tmp_path, ({"meta_info": base_meta}, {"meta_info": patch_meta}))
    _, lines = read_samples(out)
    for line in lines:
        meta = base_meta if line["side"] == "base" else patch_meta
        assert line["spec_meta"] == {k: meta[k] for k in (*SPEC_META_COUNTS, SPEC_META_HISTOGRAM)}
    code, doc, _ = _telemetry(out / "samples.jsonl", "--expect", "draft-lengths=1-3")
    assert code == 1
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        ("patch", f"draft length 3 never accepted in {10 * REPEATS} drafts")
    ]
    rates = {(r["side"], r["position"]): (r["accepted"], r["drafts"]) for r in doc["positions"]}
    # Steps that accepted at least L tokens: sum of histogram[L:].
    assert [rates[("base", L)] for L in (1, 2, 3)] == [(7 * 4, 40), (5 * 4, 40), (1 * 4, 40)]
    assert [rates[("patch", L)] for L in (1, 2, 3)] == [(5 * 4, 40), (1 * 4, 40), (0, 40)]
    spec = {s["side"]: s for s in doc["speculation"]}
    assert (spec["base"]["accepted"], spec["base"]["drafted"]) == (
        base_meta["spec_accept_token_num"] * REPEATS,
        base_meta["spec_draft_token_num"] * REPEATS,
    )


def test_sglang_meta_info_on_a_streamed_chunk_is_the_last_chunks(
    fault_server: Any, tmp_path: Path
) -> None:
    # review66: a stream's chunk-level meta_info was dropped (only a choice's was read), so a
    # streamed run of the same server logged no speculation at all.
    base_meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    patch_meta = engine_schemas.sglang_meta_info([5, 4, 1, 0], draft_per_step=3)
    faults = ({"meta_info": base_meta, "pieces": 3}, {"meta_info": patch_meta, "pieces": 3})
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS, sample_flags=("--stream",))
    _, lines = read_samples(out)
    assert len(lines) == 2 * REPEATS and all(line["error"] is None for line in lines)
    for line in lines:
        meta = base_meta if line["side"] == "base" else patch_meta
        assert line["spec_meta"] == {k: meta[k] for k in (*SPEC_META_COUNTS, SPEC_META_HISTOGRAM)}
    _, doc, _ = _telemetry(out / "samples.jsonl")
    spec = {s["side"]: s for s in doc["speculation"]}
    for side, meta in (("base", base_meta), ("patch", patch_meta)):
        assert (spec[side]["accepted"], spec[side]["drafted"]) == (
            meta["spec_accept_token_num"] * REPEATS,
            meta["spec_draft_token_num"] * REPEATS,
        )


def test_fields_not_sent_are_not_reported_never_zero(fault_server: Any, tmp_path: Path) -> None:
    out = _run(fault_server, tmp_path, ({}, {}), "--perf-metrics", "--metrics", "vllm")
    _, lines = read_samples(out)
    assert all("server_spec" not in line and "spec_meta" not in line for line in lines)
    code, doc, text = _telemetry(
        out / "samples.jsonl", "--expect", "speculation", "--expect", "draft-lengths=1-2"
    )
    assert code == 1
    assert doc["speculation"] == [] and doc["positions"] == [] and doc["kv_reuse"] == []
    details = {(n["side"], n["expectation"]): n["detail"] for n in doc["not_exercised"]}
    assert details[("patch", "draft-lengths")] == (
        "draft lengths 1-2 not reported: no per-position acceptance"
    )
    assert details[("base", "speculation")].startswith("no speculation counts reported")
    assert "speculation: not reported" in text


def test_bad_expect_values_are_usage_errors(tmp_path: Path) -> None:
    for value in (
        "draft-lengths=2-5",
        "draft-lengths=1-x",
        "draft-lengths",
        "bogus",
        "speculation=1",
    ):
        result = run_k3diff("telemetry", tmp_path / "s.jsonl", "--expect", value)
        assert result.exit_code == 2, value
        assert "--expect" in result.stderr and "Traceback" not in result.stderr


def test_a_side_without_draft_counts_is_said_not_reported(
    fault_server: Any, tmp_path: Path
) -> None:
    # The base's engine reports speculation, the patch's nothing (its /metrics was an HTML error
    # page, say): the text names the patch as not reported instead of leaving its line out.
    base_meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    out = _run(fault_server, tmp_path, ({"meta_info": base_meta}, {}))
    code, doc, text = _telemetry(out / "samples.jsonl")
    assert code == 0 and [s["side"] for s in doc["speculation"]] == ["base"]
    assert "speculation, base: " in text
    (line,) = [x for x in text.splitlines() if x.startswith("speculation, patch: ")]
    # Why: the log's header recorded what the patch's /metrics gave when it was probed.
    assert line.startswith("speculation, patch: not reported (no engine sent draft counts; ")
    assert line.endswith("/metrics: HTTP 404)"), line
    markdown = run_k3diff("telemetry", out / "samples.jsonl", "--format", "markdown").stdout
    assert "speculation, patch: not reported (no engine sent draft counts; " in markdown


def test_a_vllm_window_accepting_more_tokens_than_it_drafted_is_not_a_count_pair(
    fault_server: Any, tmp_path: Path
) -> None:
    # review65: the patch's counters rose by more accepted tokens than draft tokens in every
    # window (a hostile server, or counters read while a step was half counted). Before, scipy
    # was handed k > n: "internal error (a bug in k3diff ...)", exit 2. Such a window's counts
    # are lost (telemetry66: its positions too, and it is named as a lost window);
    # `--expect speculation` then names the side.
    patch = {
        "vllm_spec": {"drafts": 10, "draft_tokens": 20, "accepted_tokens": 30, "per_pos": [9, 8]}
    }
    out = _run(fault_server, tmp_path, (_vllm(BASE_POS), patch), "--metrics", "vllm-spec")
    _, lines = read_samples(out)
    assert {
        line["server_spec"]["accepted_tokens"] for line in lines if line["side"] == "patch"
    } == {30}
    code, doc, text = _telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 1, text
    assert [n["side"] for n in doc["not_exercised"]] == ["patch"]
    spec = {s["side"]: s for s in doc["speculation"]}
    assert spec["base"]["drafted"] == 50 * REPEATS and "patch" not in spec
    assert doc["not_exercised"][0]["detail"].endswith(
        f"; {REPEATS} vLLM windows lost (counter-reset)"
    )
    assert [(r["side"], r["metric"], r["reason"]) for r in doc["counter_resets"]] == [
        ("patch", "counts not valid", "accepted tokens 30 above draft tokens 20")
    ] * REPEATS
    assert (
        run_k3diff("telemetry", out / "samples.jsonl", "--fail-on", "acceptance-drop").exit_code
        == 1
    )


def test_sglang_positions_no_verify_step_reached_are_gated_as_zero(
    fault_server: Any, tmp_path: Path
) -> None:
    # review65: SGLang's histogram grows only to the most tokens one verify step accepted, so
    # a patch whose drafter never gets a 3rd token accepted sends histograms of length 3. The
    # gate compared only the positions both lists reach (pooled, 1, 2), where this patch is no
    # worse, and passed (exit 0) while the base reached position 3 in 4 of 10 drafts a request.
    base_meta = engine_schemas.sglang_meta_info([1, 2, 3, 4], draft_per_step=3)
    patch_meta = engine_schemas.sglang_meta_info([0, 0, 10], draft_per_step=3)
    assert base_meta["spec_accept_token_num"] == patch_meta["spec_accept_token_num"] == 20
    repeats = 6
    out = sample_fault_pair(
        fault_server, tmp_path, ({"meta_info": base_meta}, {"meta_info": patch_meta}), repeats
    )
    code, doc, text = _telemetry(out / "samples.jsonl", "--fail-on", "acceptance-drop")
    gate = doc["acceptance_gate"]
    assert [t["position"] for t in gate["tests"]] == [None, 1, 2, 3]
    third = gate["tests"][3]
    assert (third["base"], third["patch"]) == ([4 * repeats, 10 * repeats], [0, 10 * repeats])
    # Every split of 6 + 6 identical units: only the observed one is as extreme.
    assert third["p"] == pytest.approx(1 / comb(2 * repeats, repeats))
    assert third["p_adjusted"] == pytest.approx(4 / comb(2 * repeats, repeats))
    assert [(f["name"], f["position"]) for f in gate["findings"]] == [("acceptance-drop", 3)]
    assert code == 1, text
    # `--expect draft-lengths=1-3` says what happened there: never accepted, not unreported.
    _, doc, _ = _telemetry(out / "samples.jsonl", "--expect", "draft-lengths=1-3")
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        ("patch", f"draft length 3 never accepted in {10 * repeats} drafts")
    ]
