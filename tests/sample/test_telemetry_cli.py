"""`k3diff telemetry` on logs that `k3diff sample` wrote against real loopback servers whose
usage and `/perf_metrics` report cache hits and speculative decoding the way engines do.

Every number is recounted in the test from the log itself, and the statistics are checked
against closed forms (Clopper-Pearson from the beta distribution; Fisher's exact p by summing
the hypergeometric probabilities), not against the function the tool calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy
from cli_support import run_k3diff, run_telemetry
from scipy.stats import beta, hypergeom

from .support import read_samples, sample, write_prompts

REPEATS = 4


def _run(fault_server: Any, tmp_path: Path, fault: dict[str, Any], *flags: str) -> Path:
    base, patch = fault_server(*flags), fault_server(*flags)
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a", "fault": fault}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts,
        "--repeats", str(REPEATS), "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out


def test_cache_hits_are_counted_and_satisfy_expect(fault_server: Any, tmp_path: Path) -> None:
    out = _run(fault_server, tmp_path, {"cache": "prefix"})
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 0, text
    _, samples = read_samples(out)
    for side in ("base", "patch"):
        mine = [s for s in samples if s["side"] == side]
        cached = [s["usage"]["prompt_tokens_details"]["cached_tokens"] for s in mine]
        row = next(m for m in doc["modes"] if m["side"] == side)
        assert row["cached_tokens"] == sum(cached) == 3 * (REPEATS - 1)
        assert row["cache_hits"] == sum(1 for c in cached if c > 0) == REPEATS - 1
        assert row["cache_reported"] == REPEATS
        latencies = [s["latency_s"] for s in mine]
        assert row["latency_s"]["p50"] == numpy.percentile(latencies, 50)
    assert "Verdict: OK (exit 0): every side exercised cache-reuse" in text


def test_zero_cached_tokens_is_not_exercised(fault_server: Any, tmp_path: Path) -> None:
    out = _run(fault_server, tmp_path, {"cache": "zero"})
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1
    assert {(n["side"], n["detail"]) for n in doc["not_exercised"]} == {
        (side, f"0 cached prompt tokens in {REPEATS} samples that report the count")
        for side in ("base", "patch")
    }
    assert "not exercised (coverage debt)" in text.splitlines()[-1]
    # Without --expect the same run is summarised, not judged.
    assert run_telemetry(out / "samples.jsonl")[0] == 0


def test_a_server_that_reports_no_cache_count_is_not_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    out = _run(fault_server, tmp_path, {})
    code, doc, _ = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1
    assert all("reported no cached-token count" in n["detail"] for n in doc["not_exercised"])


def _clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
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


def test_speculation_acceptance_interval_and_test(fault_server: Any, tmp_path: Path) -> None:
    base = fault_server("--perf-metrics", "--spec", "30,40")
    patch = fault_server("--perf-metrics", "--spec", "10,40")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    run = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts,
        "--repeats", str(REPEATS), "--out", out,
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 0, text
    spec = {s["side"]: s for s in doc["speculation"]}
    n = 40 * REPEATS
    assert (spec["base"]["accepted"], spec["base"]["drafted"]) == (30 * REPEATS, n)
    assert (spec["patch"]["accepted"], spec["patch"]["drafted"]) == (10 * REPEATS, n)
    for side, k in (("base", 30 * REPEATS), ("patch", 10 * REPEATS)):
        low, high = _clopper_pearson(k, n, 0.05)
        assert spec[side]["ci"] == [low, high] or numpy.allclose(spec[side]["ci"], [low, high])
    expected_p = _fisher_two_sided(30 * REPEATS, 10 * REPEATS, 10 * REPEATS, 30 * REPEATS)
    assert numpy.isclose(doc["acceptance_p"], expected_p, rtol=1e-6)
    assert "Clopper-Pearson" in text and "Fisher's exact p" in text
    # A run with no speculation counts does not pass --expect speculation.
    (tmp_path / "plain").mkdir()
    no_spec = _run(fault_server, tmp_path / "plain", {}, "--perf-metrics")
    code, doc, _ = run_telemetry(no_spec / "samples.jsonl", "--expect", "speculation")
    assert code == 1 and {n["side"] for n in doc["not_exercised"]} == {"base", "patch"}


def test_unreadable_log_is_an_error(tmp_path: Path) -> None:
    result = run_k3diff("telemetry", tmp_path / "missing.jsonl")
    assert result.exit_code == 2
    assert "missing.jsonl" in result.stderr and "Traceback" not in result.stderr


def test_perf_metrics_beside_the_log_are_read_through_the_capped_reader(
    fault_server: Any, tmp_path: Path
) -> None:
    """`perf_metrics.jsonl` is input too: a repeated key or a line over --max-record-bytes is
    one line naming the file, exit 2, never a traceback or a silent skip."""
    out = _run(fault_server, tmp_path, {}, "--perf-metrics")
    perf = out / "perf_metrics.jsonl"
    perf.write_text('{"side": "base", "side": "patch", "metrics": []}\n')
    result = run_k3diff("telemetry", out / "samples.jsonl")
    assert result.exit_code == 2 and "perf_metrics.jsonl" in result.stderr
    assert "Traceback" not in result.stderr
    perf.write_text('{"side": "base", "metrics": ["' + "x" * 20000 + '"]}\n')
    capped = run_k3diff("telemetry", out / "samples.jsonl", "--max-record-bytes", "8192")
    assert capped.exit_code == 2 and "perf_metrics.jsonl:1" in capped.stderr


def test_an_edited_telemetry_verdict_is_refused_by_the_bundle(
    fault_server: Any, tmp_path: Path
) -> None:
    out = _run(fault_server, tmp_path, {"cache": "zero"})
    result = run_k3diff(
        "telemetry", out / "samples.jsonl", "--expect", "cache-reuse",
        "--format", "json", "-o", tmp_path / "t.json",
    )  # fmt: skip
    assert result.exit_code == 1
    doc = json.loads((tmp_path / "t.json").read_text())
    doc["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "t.json").write_text(json.dumps(doc))
    report = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "bundle")
    assert report.exit_code == 2
    assert (
        "axes not exercised (2 failing: cache-reuse on base, cache-reuse on patch)" in report.stderr
    )


def _perf_line(side: str, accepted: Any, drafted: Any) -> str:
    spec = {"total_accepted_draft_tokens": accepted, "total_draft_tokens": drafted}
    return json.dumps({"side": side, "metrics": [{"speculative_decoding": spec}]}) + "\n"


def test_server_counts_out_of_range_never_reach_scipy(fault_server: Any, tmp_path: Path) -> None:
    """10^19 and 10^30 drafted tokens (past a 64-bit integer), a negative, a fraction or a
    string: not a count (`server_count`), so that request's speculation is lost (left66: in
    `counter_resets`), and scipy never sees it: no traceback, no hang, the other side's counts
    stand."""
    out = _run(fault_server, tmp_path, {}, "--perf-metrics")
    perf = out / "perf_metrics.jsonl"
    for accepted, drafted in ((1, 10**19), (10**30, 10**30), (-1, 5), (1, 2.5), ("3", 4)):
        perf.write_text(_perf_line("base", 1, 2) + _perf_line("patch", accepted, drafted))
        code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "speculation")
        spec = {s["side"]: s for s in doc["speculation"]}
        assert (spec["base"]["accepted"], spec["base"]["drafted"]) == (1, 2)
        assert "patch" not in spec and code == 1, (accepted, drafted, text)
        assert [r["source"] for r in doc["counter_resets"]] == ["TensorRT-LLM /perf_metrics"]
        assert doc["acceptance_p"] is None


def test_counts_in_range_but_too_many_for_fishers_test_are_said_not_tested(
    fault_server: Any, tmp_path: Path
) -> None:
    """10^15 drafted tokens a side is a count, so the interval is computed (checked against
    the beta quantiles), but Fisher's exact test (minutes at that size) is not run, and the
    report says so."""
    out = _run(fault_server, tmp_path, {}, "--perf-metrics")
    big = 10**15
    (out / "perf_metrics.jsonl").write_text(
        _perf_line("base", big // 2, big) + _perf_line("patch", big // 3, big)
    )
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 0 and doc["acceptance_p"] is None
    assert "not tested (more than 100,000,000 drafted tokens" in text
    spec = {s["side"]: s for s in doc["speculation"]}
    assert numpy.allclose(spec["base"]["ci"], _clopper_pearson(big // 2, big, 0.05))
    # Past 2^53 - 1 in all, the pooled total is refused too.
    (out / "perf_metrics.jsonl").write_text(_perf_line("base", 0, 2**52) * 3)
    result = run_k3diff("telemetry", out / "samples.jsonl")
    assert result.exit_code == 2 and "drafted tokens of the base side: total" in result.stderr
    assert "samples.jsonl" in result.stderr and "Traceback" not in result.stderr


def test_a_new_run_refuses_a_folder_holding_an_earlier_runs_perf_metrics(
    fault_server: Any, tmp_path: Path
) -> None:
    # review65: `rm run/samples.jsonl` and a new run into `run` appended to the earlier run's
    # perf_metrics.jsonl, and telemetry counted that run's TensorRT-LLM requests as this one's
    # (read before the run's own vLLM or SGLang counts, the earlier run's alone).
    base = fault_server("--perf-metrics", "--spec", "30,40")
    patch = fault_server("--perf-metrics", "--spec", "30,40")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    args = ("--base", base.url, "--patch", patch.url, "--prompts", prompts, "--out", out)
    assert sample(*args, "--repeats", "1").exit_code == 0
    perf = (out / "perf_metrics.jsonl").read_bytes()
    (out / "samples.jsonl").unlink()
    again = sample(*args, "--repeats", "1")
    assert again.exit_code == 2, again.stdout
    assert again.stderr == (
        f"k3diff: error: {out / 'perf_metrics.jsonl'}: holds /perf_metrics drained by an "
        "earlier run, which `k3diff telemetry` would count as this run's; remove it or give "
        "another --out\n"
    )
    assert (out / "perf_metrics.jsonl").read_bytes() == perf and not (
        out / "samples.jsonl"
    ).exists()
    # A run that is there is resumed with its perf log, as before.
    assert sample(*args, "--repeats", "1").exit_code == 2  # the perf log alone: still refused
    (out / "perf_metrics.jsonl").unlink()
    assert sample(*args, "--repeats", "1").exit_code == 0
    resumed = sample(*args, "--repeats", "2", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    code, doc, _ = run_telemetry(out / "samples.jsonl")
    assert code == 0
    assert {s["side"]: s["requests"] for s in doc["speculation"]} == {"base": 2, "patch": 2}
