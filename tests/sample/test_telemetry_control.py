"""`--expect` counts the evidence of the requests it claims: the run's modes, never the control
(`--control`, on by default with cold-warm: the first prompt K times at temperature 1 before
the modes). The control's identical prompt hits a prefix cache whatever the modes do, so before
telemetry66 its hits passed `--expect cache-reuse` for a side whose requests under test never
reused the cache (exit 0); a TensorRT-LLM server's control records were drained with the first
mode's and counted as its reused KV blocks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_k3diff, run_telemetry

from k3diff.sample.specmeta import SPEC_META_COUNTS, SPEC_META_HISTOGRAM

from .support import read_samples, sample, write_prompts


def _cold_warm(fault_server: Any, tmp_path: Path, patch_fault: dict[str, Any]) -> Path:
    """cold-warm, with its default control (seeds), of one prompt: the base's prefix cache
    works; the patch's is told `patch_fault`."""
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "cold-warm",
        "--base-param", f"fault={json.dumps({'cache': 'prefix'})}",
        "--patch-param", f"fault={json.dumps(patch_fault)}",
        "--repeats", "4", "--out", out,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr  # 1: sample's own coverage findings
    return out / "samples.jsonl"


def test_control_cache_hits_do_not_satisfy_cache_reuse(fault_server: Any, tmp_path: Path) -> None:
    """The patch's prefix cache misses every salted request (cold-warm's), and hits the
    control's unsalted ones: its requests under test never reused the cache."""
    log = _cold_warm(fault_server, tmp_path, {"cache": "prefix", "salt_misses": True})
    header, lines = read_samples(log.parent)
    assert header["control"] == "seeds"
    hits: dict[tuple[str, str], int] = {}
    for line in lines:
        cached = line["usage"]["prompt_tokens_details"]["cached_tokens"]
        key = (line["side"], line["mode"])
        hits[key] = hits.get(key, 0) + (cached > 0)
    control_hits = header["control_repeats"] - 1  # the first control request is cold
    assert hits == {
        ("base", "control"): control_hits,
        ("patch", "control"): control_hits,
        ("base", "cold-warm"): 3,
        ("patch", "cold-warm"): 0,
    }

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        (
            "patch",
            "0 cached prompt tokens in 4 samples that report the count; the control's "
            f"{control_hits} samples with cached prompt tokens are not counted (the first "
            "prompt at temperature 1 before the modes, not the requests under test)",
        )
    ]
    assert "--expect counts the modes' requests, not the control's (the first prompt" in text
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): not exercised (coverage debt): cache-reuse on the patch side"
    )
    # The control's row is still shown: telemetry reports it, `--expect` does not count it.
    modes = {(m["side"], m["mode"]): m["cache_hits"] for m in doc["modes"]}
    assert modes[("patch", "control")] == control_hits

    # The bundle counts the modes' cache hits too, and says the control's apart.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b0" / "REPORT.md").read_text()
    assert (
        "cache reuse, patch: 0 cached prompt tokens, hits in 0 of 4 samples (the control's "
        f"{control_hits} hits not counted)"
    ) in report
    # A document edited to drop the finding and pass is refused: report recounts without the
    # control too.
    doc["not_exercised"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged.json", "--out", tmp_path / "b")
    assert forged.exit_code == 2
    assert "the patch side has 0 cache hits but cache-reuse is not listed" in forged.stderr


def test_a_working_cache_passes_with_the_control_shown(fault_server: Any, tmp_path: Path) -> None:
    log = _cold_warm(fault_server, tmp_path, {"cache": "prefix"})
    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 0 and doc["not_exercised"] == [], text
    assert text.splitlines()[-1] == "Verdict: OK (exit 0): every side exercised cache-reuse"


def _perf(side: str, mode: str, reused: int) -> str:
    kv = {"num_reused_blocks": reused, "num_missed_blocks": 2}
    record = {"perf_metrics": {"kv_cache_metrics": kv}}
    return json.dumps({"side": side, "mode": mode, "key": "a", "repeat": 0, "metrics": [record]})


def test_control_kv_reuse_does_not_satisfy_cache_reuse(fault_server: Any, tmp_path: Path) -> None:
    """TensorRT-LLM: the control's records (drained on their own, mode control) reused blocks;
    the patch's cold-warm records none. `sample` drains the control's `/perf_metrics` before
    the modes start, so its records are filed under the control."""
    base, patch = fault_server("--perf-metrics"), fault_server("--perf-metrics")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "serial",
        "--control", "seeds", "--control-repeats", "3", "--repeats", "2", "--out", out,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr  # 1: the fault server's control is vacuous
    drained = [json.loads(x) for x in (out / "perf_metrics.jsonl").read_text().splitlines()]
    control = [e for e in drained if e.get("mode") == "control"]
    assert sorted(e["side"] for e in control) == ["base", "patch"]
    assert all(len(e["metrics"]) == 3 for e in control)  # the control's 3 requests, each side

    # The same run's perf log as a TensorRT-LLM server would have filled it: the control's
    # records reused blocks on both sides, the serial ones only on the base.
    (out / "perf_metrics.jsonl").write_text(
        "\n".join(
            [
                _perf("base", "control", 4),
                _perf("patch", "control", 4),
                _perf("base", "serial", 4),
                _perf("patch", "serial", 0),
            ]
        )
        + "\n"
    )
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    assert [n["side"] for n in doc["not_exercised"]] == ["patch"]
    assert (
        "no request reused a KV block (1 report kv_cache_metrics)"
        in (doc["not_exercised"][0]["detail"])
    )
    assert {(k["side"], k["requests"], k["hits"]) for k in doc["kv_reuse"]} == {
        ("base", 1, 1),
        ("patch", 1, 0),
    }


def _serial_with_control(fault_server: Any, tmp_path: Path) -> Path:
    """serial, 3 repeats, after a control of 3 (one prompt): the samples log."""
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "serial",
        "--control", "seeds", "--control-repeats", "3", "--repeats", "3", "--out", out,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr  # 1: the fault server's control is vacuous
    return out / "samples.jsonl"


def _with_meta(log: Path, meta: Any) -> None:
    """Each sample line given the SGLang meta_info `meta(line)` (None: none), as `sample`
    keeps it (`spec_meta`)."""
    header, *lines = log.read_text().splitlines()
    edited = []
    for text in lines:
        line = json.loads(text)
        if meta(line) is not None:
            line["spec_meta"] = meta(line)
        edited.append(json.dumps(line))
    log.write_text("\n".join([header, *edited]) + "\n")


def test_control_drafts_do_not_satisfy_speculation(fault_server: Any, tmp_path: Path) -> None:
    """The patch drafted only in the control's requests (SGLang meta_info on temperature 1
    only, say): `--expect speculation` does not count them."""
    log = _serial_with_control(fault_server, tmp_path)
    meta = {"spec_verify_ct": 4, "spec_accept_token_num": 5, "spec_draft_token_num": 12}
    _with_meta(
        log, lambda line: meta if line["side"] == "base" or line["mode"] == "control" else None
    )

    code, doc, text = run_telemetry(log, "--expect", "speculation")
    assert code == 1, text
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        (
            "patch",
            "0 drafted tokens in the modes' requests (SGLang meta_info); the control's 36 are "
            "not counted (the first prompt at temperature 1 before the modes, not the requests "
            "under test)",
        )
    ]
    spec = {s["side"]: s["drafted"] for s in doc["speculation"]}
    assert spec == {"base": 12 * 6, "patch": 12 * 3}


def test_control_drafts_do_not_satisfy_draft_lengths(fault_server: Any, tmp_path: Path) -> None:
    """The patch's serial requests never got a 3rd draft token accepted; its control's did."""
    log = _serial_with_control(fault_server, tmp_path)
    reaches = engine_schemas.sglang_meta_info([1, 2, 3, 4], draft_per_step=3)
    stops = engine_schemas.sglang_meta_info([0, 0, 10], draft_per_step=3)
    kept = (*SPEC_META_COUNTS, SPEC_META_HISTOGRAM)

    def meta(line: dict[str, Any]) -> dict[str, Any]:
        chosen = stops if line["side"] == "patch" and line["mode"] == "serial" else reaches
        return {k: chosen[k] for k in kept}

    _with_meta(log, meta)
    code, doc, text = run_telemetry(log, "--expect", "draft-lengths=1-3")
    assert code == 1, text
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        ("patch", "draft length 3 never accepted in 30 drafts (the control's 30 not counted)")
    ]
    # The positions shown are every request's, the control's included (4 of its 10 steps a
    # request reached position 3).
    third = [
        (r["side"], r["accepted"], r["drafts"]) for r in doc["positions"] if r["position"] == 3
    ]
    assert third == [("base", 4 * 6, 10 * 6), ("patch", 4 * 3, 10 * 6)]
