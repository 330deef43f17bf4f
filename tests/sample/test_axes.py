"""`--mode cold-warm` and `--mode sweep` against scripted loopback servers: a prefix cache whose
hit changes the output (cache-dependent), the same reporting no cache hit (not-exercised), and
output depending on the number in flight (the sweep level where outputs start to differ, with
the curve checked against the server's script)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import compare_texts

from .support import read_samples, sample, write_prompts


def _run(fault_server: Any, tmp_path: Path, fault: dict[str, Any], *flags: str) -> Path:
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": fault}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--out", out, *flags,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr + result.stdout
    return out


def _triage(tmp_path: Path, out: Path, captured: str) -> dict[str, Any]:
    comparison = compare_texts(tmp_path, {"k0": (captured, captured)})
    result = run_k3diff("triage", str(comparison), str(out / "samples.jsonl"), "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    record: dict[str, Any] = json.loads(result.stdout)["records"][0]
    return record


def _mode(record: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(m for m in record["modes"] if m["mode"] == name)
    return found


def test_a_prefix_cache_whose_hit_changes_the_output_is_cache_dependent(
    fault_server: Any, tmp_path: Path
) -> None:
    fault = {"cache": "prefix", "output": "cached"}
    out = _run(fault_server, tmp_path, fault, "--mode", "cold-warm", "--repeats", "4")
    header, lines = read_samples(out)
    assert header["control"] == "seeds"  # on by default in the new modes
    cold_warm = [line for line in lines if line["mode"] == "cold-warm"]
    cached = {
        (line["side"], line["repeat"]): line["usage"]["prompt_tokens_details"]["cached_tokens"]
        for line in cold_warm
    }
    assert cached == {(side, r): 0 if r == 0 else 3 for side in ("base", "patch") for r in range(4)}
    # Cold and warm share one cache_salt per side (left out of request_sha256).
    mode = _mode(_triage(tmp_path, out, "echo:p0 (warm)"), "cold-warm")
    assert "cache-dependent" in mode["flags"] and "not-exercised" not in mode["flags"]
    assert mode["base"]["warm"] == 3 and mode["base"]["cache_hits"] == 3


def test_a_resumed_runs_cold_request_is_no_warm_one_to_triage(
    fault_server: Any, tmp_path: Path
) -> None:
    """left67: a run stopped after each side's repeat 0 and resumed sends repeat 1 under a fresh
    salt: cold, and answered as the cold request was. Triage read it as warm: the warm outputs
    then held the cold one, so the cache-dependent output passed unflagged, and a warm request
    without a hit was counted."""
    base, patch = fault_server(), fault_server()
    fault = {"cache": "prefix", "output": "cached"}
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": fault}])
    out = tmp_path / "out"
    args: tuple[str | Path, ...] = ("--base", base.url, "--patch", patch.url, "--prompts", prompts)
    args += ("--out", out, "--mode", "cold-warm", "--repeats", "4")
    assert sample(*args).exit_code == 0
    log = out / "samples.jsonl"
    kept = [
        text
        for text in log.read_text().splitlines()
        if json.loads(text).get("mode") != "cold-warm" or json.loads(text)["repeat"] == 0
    ]
    log.write_text("\n".join(kept) + "\n")
    assert sample(*args, "--resume").exit_code == 0
    _, lines = read_samples(out)
    cached = {
        (line["side"], line["repeat"], line.get("cold")): line["usage"]["prompt_tokens_details"][
            "cached_tokens"
        ]
        for line in lines
        if line["mode"] == "cold-warm"
    }
    assert cached == {
        (side, r, True if r == 1 else None): 0 if r < 2 else 3
        for side in ("base", "patch")
        for r in range(4)
    }
    mode = _mode(_triage(tmp_path, out, "echo:p0 (warm)"), "cold-warm")
    assert "cache-dependent" in mode["flags"] and "not-exercised" not in mode["flags"]
    assert (mode["base"]["warm"], mode["base"]["cache_hits"]) == (2, 2)


def test_warm_requests_with_zero_cached_tokens_are_not_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    fault = {"cache": "zero", "output": "seeded"}  # the control's seeds change the output
    out = _run(fault_server, tmp_path, fault, "--mode", "cold-warm", "--repeats", "4")
    record = _triage(tmp_path, out, "x")
    mode = _mode(record, "cold-warm")
    # Every sample agrees: without a cache hit that proves nothing about the cache.
    assert mode["category"] == "inconclusive"
    assert "not-exercised" in mode["flags"]
    assert mode["reason"].startswith("not-exercised: no warm request hit the cache")
    assert mode["base"]["cache_hits"] == 0 and mode["base"]["warm"] == 3
    assert record["category"] == "inconclusive"


def test_a_cold_request_that_was_already_cached_is_not_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    """A server that ignores cache_salt and has seen the prompt before answers the "cold"
    request from its cache: cold-warm proves nothing there and must say so (found by a new
    user's stub)."""
    fault = {"cache": "prefix", "output": "seeded", "ignore_salt": True}
    out = _run(fault_server, tmp_path, fault, "--mode", "serial", "--mode", "cold-warm",
               "--repeats", "3")  # fmt: skip
    _, lines = read_samples(out)
    captured = next(line["text"] for line in lines if line["mode"] == "serial")
    mode = _mode(_triage(tmp_path, out, captured), "cold-warm")
    assert mode["base"]["cold_cached"] == 1 and mode["patch"]["cold_cached"] == 1
    assert "not-exercised" in mode["flags"] and mode["category"] == "inconclusive"
    assert mode["reason"].startswith("not-exercised: the cold request was not cold")


def test_the_sweep_finds_the_level_where_outputs_start_to_differ(
    fault_server: Any, tmp_path: Path
) -> None:
    # "solo" below 4 in flight, else "batched:N": a batch of L arriving together sees 1..L.
    fault = {"output": "batch", "threshold": 4, "delay": 0.1, "chunk_delay": 0.05, "pieces": 6}
    out = _run(
        fault_server, tmp_path, fault, "--mode", "sweep", "--levels", "1,2,4,8",
        "--repeats", "8", "--stream", "--control", "off",
    )  # fmt: skip
    _, lines = read_samples(out)
    assert sorted({line["level"] for line in lines}) == [1, 2, 4, 8]
    mode = _mode(_triage(tmp_path, out, "solo"), "sweep")
    curve = {
        (p["side"], p["level"]): (p["distinct"], p["differ_from_serial"]) for p in mode["sweep"]
    }
    # Level 4: two batches, each one request sees 4 in flight; level 8: 5 of 8 see >= 4.
    expected = {1: (1, 0), 2: (1, 0), 4: (2, 2), 8: (6, 5)}
    assert curve == {
        (side, level): v for side in ("base", "patch") for level, v in expected.items()
    }
    assert "the base's outputs start to differ from level 1's at level 4" in mode["reason"]
    # Its streams interleave, but without a running-requests gauge that proves nothing: the
    # batches are unproven (in_flight None), never exercised, and the curve is still drawn.
    base = mode["base"]
    assert base["in_flight"] is None and base["batches_one_at_a_time"] == 0
    assert base["batches_unproven"] == base["batches"] > 0 and "unproven" in mode["flags"]
    # The bundle plots the curve: its points are the triage's, summed over records.
    comparison = tmp_path / "cmp.json"
    triaged = run_k3diff(
        "triage", str(comparison), str(out / "samples.jsonl"), "--format", "json",
        "-o", str(tmp_path / "triage.json"),
    )  # fmt: skip
    assert triaged.exit_code in (0, 1), triaged.stderr
    from k3diff.bundle.plots import make_plots, sweep_points
    from k3diff.documents.read import read_document

    documents = [read_document(tmp_path / "triage.json")]
    assert sweep_points(documents)["base"] == {
        level: (8, d, x) for level, (d, x) in expected.items()
    }
    assert "plot-sweep" in [p.ident for p in make_plots(documents)]


def _co_batched(fault_server: Any, tmp_path: Path, mode: str) -> tuple[Any, Any, Path]:
    base, patch = fault_server(), fault_server()
    fault = {"output": "batch", "threshold": 2, "delay": 0.05, "chunk_delay": 0.05, "pieces": 6}
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": fault}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--out", out,
        "--mode", mode, "--concurrency", "4", "--repeats", "5", "--stream", "--control", "off",
        "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr + result.stdout
    return base, json.loads(result.stdout), out


def test_needle_hides_the_target_in_batches_of_fillers_that_overlap_it(
    fault_server: Any, tmp_path: Path
) -> None:
    base, summary, out = _co_batched(fault_server, tmp_path, "needle")
    _, lines = read_samples(out)
    assert len(lines) == 10 and {line["mode"] for line in lines} == {"needle"}
    # Only the target is a sample; every trial's batch was in flight together with it.
    assert all(line["in_flight"] >= 2 for line in lines)
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {0}
    served = [r for r in base.requests() if r["path"] == "/v1/completions"]
    fillers = [r for r in served if r["prompt"] != '"p0"']
    assert len(served) - len(fillers) == 5
    assert 5 * 1 <= len(fillers) <= 5 * 3  # batch sizes in [C/2, C] = [2, 4]
    assert all("The committee met" in r["prompt"] for r in fillers)


def test_mixed_co_batches_the_target_with_prompts_of_random_lengths(
    fault_server: Any, tmp_path: Path
) -> None:
    base, summary, _ = _co_batched(fault_server, tmp_path, "mixed")
    served = [r for r in base.requests() if r["path"] == "/v1/completions"]
    lengths = {len(r["prompt"]) for r in served if r["prompt"] != '"p0"'}
    assert len(lengths) >= 3
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {0}
