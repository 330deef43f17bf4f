"""Acceptance by draft position where one side's engine reports fewer positions than the
other's: SGLang's histogram grows only to the most tokens a verify step accepted, so past it
no draft reached (0), and the per-position Fisher screen and the gate compare those positions
too (telemetry66). Statistics are checked against scipy.stats called here and Holm written out
(`telemetry.gate_support`), not against the function the tool calls."""

from __future__ import annotations

from math import comb
from pathlib import Path
from typing import Any

import engine_schemas
import pytest
from cli_support import run_telemetry
from scipy.stats import beta, fisher_exact
from telemetry.gate_support import holm

from .support import sample_fault_pair

REPEATS = 4


def _run(fault_server: Any, tmp_path: Path, base: Any, patch: Any, *args: str) -> Any:
    out = sample_fault_pair(
        fault_server, tmp_path, ({"meta_info": base}, {"meta_info": patch}), REPEATS
    )
    return run_telemetry(out / "samples.jsonl", *args)


def _clopper_pearson_high(k: int, n: int, alpha: float = 0.05) -> float:
    return 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))


def test_the_position_screen_reads_sglang_past_its_histogram_as_zero(
    fault_server: Any, tmp_path: Path
) -> None:
    # telemetry66: stop 65 made the gate read an SGLang side past its histograms as 0 (no
    # verify step reached there), but the Fisher screen per position still stopped where both
    # histograms reached: this patch never reached position 3 (the base did in 4 of 10 steps a
    # request), and the positions table said "not reported" there, with no Fisher p, Holm over
    # 2 positions. Now position 3 is 0 of the patch's drafts, screened, and Holm counts 3.
    base_meta = engine_schemas.sglang_meta_info([1, 2, 3, 4], draft_per_step=3)
    patch_meta = engine_schemas.sglang_meta_info([0, 0, 10], draft_per_step=3)
    code, doc, text = _run(fault_server, tmp_path, base_meta, patch_meta)
    assert code == 0  # a screen: it never fails a run
    drafts = 10 * REPEATS
    rates = {(r["side"], r["position"]): (r["accepted"], r["drafts"]) for r in doc["positions"]}
    assert rates == {
        ("base", 1): (9 * REPEATS, drafts),
        ("base", 2): (7 * REPEATS, drafts),
        ("base", 3): (4 * REPEATS, drafts),
        ("patch", 1): (10 * REPEATS, drafts),
        ("patch", 2): (10 * REPEATS, drafts),
        ("patch", 3): (0, drafts),
    }
    patch_third = next(r for r in doc["positions"] if (r["side"], r["position"]) == ("patch", 3))
    assert patch_third["ci"][0] == 0.0
    assert patch_third["ci"][1] == pytest.approx(_clopper_pearson_high(0, drafts))
    expected = [
        float(
            fisher_exact(
                [[rates[("base", L)][0], drafts - rates[("base", L)][0]],
                 [rates[("patch", L)][0], drafts - rates[("patch", L)][0]]]
            ).pvalue
        )
        for L in (1, 2, 3)
    ]  # fmt: skip
    tests = doc["position_tests"]
    assert [t["position"] for t in tests] == [1, 2, 3]
    assert [t["p"] for t in tests] == pytest.approx(expected)
    assert [t["p_adjusted"] for t in tests] == pytest.approx(holm(expected))  # m = 3
    assert tests[2]["p_adjusted"] < 1e-4
    row = next(x for x in text.splitlines() if x.strip().startswith("3 "))
    assert f"0 of {drafts} (0.0%" in row and "not reported" not in row


def test_an_sglang_side_that_never_accepted_a_draft_is_screened_at_every_position(
    fault_server: Any, tmp_path: Path
) -> None:
    # telemetry66: a histogram of one entry (every verify step accepted 0 draft tokens) gave
    # the side no positions at all: the screen and the gate compared none, and the positions
    # table said "not reported" where no draft of the patch reached.
    base_meta = engine_schemas.sglang_meta_info([1, 2, 3, 4], draft_per_step=3)
    patch_meta = engine_schemas.sglang_meta_info([10], draft_per_step=3)
    code, doc, _ = _run(
        fault_server, tmp_path, base_meta, patch_meta, "--fail-on", "acceptance-drop"
    )
    drafts = 10 * REPEATS
    patch = [(r["position"], r["accepted"], r["drafts"]) for r in doc["positions"]]
    assert [p for p in patch if p[1] == 0] == [(1, 0, drafts), (2, 0, drafts), (3, 0, drafts)]
    base = [9 * REPEATS, 7 * REPEATS, 4 * REPEATS]
    expected = [float(fisher_exact([[b, drafts - b], [0, drafts]]).pvalue) for b in base]
    assert [t["p"] for t in doc["position_tests"]] == pytest.approx(expected)
    assert [t["p_adjusted"] for t in doc["position_tests"]] == pytest.approx(holm(expected))
    gate = doc["acceptance_gate"]
    assert [t["position"] for t in gate["tests"]] == [None, 1, 2, 3]
    # Every split of 4 + 4 identical units: only the observed one is as extreme.
    assert [t["p"] for t in gate["tests"]] == pytest.approx([1 / comb(2 * REPEATS, REPEATS)] * 4)
    assert code == 1
