"""Triage speaks only from observations of the condition it names, on real runs: two scripted
engines on loopback whose answers depend on whether another request is in flight (as batching
engines' do), captured, compared by `k3diff responses`, sampled by `k3diff sample` and
classified by `k3diff triage`.

The base of the first cases is stable serially (A) and varies in batches (B1, B2, B3); its
capture is taken from a batch. Counting that capture as a serial observation made a stable
base look unstable, excused a patch that diverges at batch 1 and hid the concurrency
dependence: the capture is evidence of its own here.
"""

from __future__ import annotations

from typing import Any

import pytest
from scipy import stats

from triage.test_count_test import exact_p

PROMPTS = {"p1": "Tell me about A", "p2": "Say Z"}
STABLE_Z = {"alone": ["Z"], "batched": ["Z"]}
BATCH_VARYING_BASE = {"p1": {"alone": ["A"], "batched": ["B1", "B2", "B3"]}, "p2": STABLE_Z}


def test_batch_variance_of_the_base_with_serial_parity_passes_and_says_why(
    scripted: Any,
) -> None:
    run = scripted(
        BATCH_VARYING_BASE,
        {"p1": {"alone": ["A"], "batched": ["A"]}, "p2": STABLE_Z},
        repeats=6,
        burst=4,
    )
    assert run.triage.exit_code == 0, run.text
    serial = run.mode("p1", "serial")
    assert serial["category"] == "match"
    assert (serial["base"]["n"], serial["base"]["distinct"]) == (6, 1)  # the 6 serial requests
    assert serial["base"]["captured"] is False
    concurrent = run.mode("p1", "concurrent")
    assert (concurrent["base"]["n"], concurrent["base"]["distinct"]) == (6, 3)
    # The patch's A is the base's own serial output: inside the base's outputs.
    assert concurrent["category"] == "base-nondeterminism"
    assert concurrent["novelty"] == 0 and concurrent["novelty_p"] == 1.0
    record = run.record("p1")
    assert record["category"] == "base-nondeterminism"
    assert "concurrency-dependent" in record["flags"]
    assert "capture-reproduced-only-concurrently" in record["flags"]
    assert record["serial_parity"] is True
    assert record["captures"]["base"]["serial"] == {"reproduced": 0, "n": 6}
    assert record["captures"]["patch"]["serial"] == {"reproduced": 6, "n": 6}
    assert run.document["summary"]["serial_agree"] == run.document["summary"]["serial_records"]
    assert "serially, the patch reproduces the base on 2 of 2 records" in run.text
    assert "p1: captured base output reproduced by 0 of 6 serial, " in run.text
    assert "result: no regression candidate (exit 0)" in run.text


def test_a_patch_stable_on_another_output_at_batch_1_fails_whatever_batches_show(
    scripted: Any,
) -> None:
    run = scripted(
        BATCH_VARYING_BASE,
        {"p1": {"alone": ["C"], "batched": ["C"]}, "p2": STABLE_Z},
        repeats=6,
        burst=4,
    )
    assert run.triage.exit_code == 1, run.text
    record = run.record("p1")
    assert record["category"] == "deterministic-divergence"
    assert record["deciding_mode"] == "serial"
    assert record["regression_candidate"] is True
    assert record["serial_parity"] is False
    serial = run.mode("p1", "serial")
    assert (serial["base"]["n"], serial["base"]["distinct"]) == (6, 1)
    assert "serially, the patch reproduces the base on 1 of 2 records" in run.text
    assert "regression candidate: both sides stable and the outputs differ (base 1 output in 6" in (
        run.text
    )


ALTERNATING_BASE = {"p1": {"alone": ["A", "B"]}}


def test_a_flaky_base_does_not_excuse_an_output_it_never_gave(scripted: Any) -> None:
    run = scripted(ALTERNATING_BASE, {"p1": {"alone": ["C"]}}, repeats=8, modes=("serial",))
    assert run.triage.exit_code == 1, run.text
    record = run.record("p1")
    assert record["category"] == "patch-outside-base"
    assert record["regression_candidate"] is True
    mode = run.mode("p1", "serial")
    assert (mode["base"]["distinct"], mode["patch"]["distinct"]) == (2, 1)
    assert mode["novelty"] == 8
    # Exact permutation p: of the C(16, 8) ways to label 8 of the 16 samples "patch", only two
    # put every patch label on an output no base label has (all 8 C's, or all 8 A/B's).
    assert mode["novelty_exact"] is True
    assert mode["novelty_p"] == pytest.approx(2 / 12870, rel=1e-9)
    assert "patch-output-outside-base-set" in record["flags"]
    assert "8 of its 8 samples gave outputs the base never gave" in run.text


def test_three_samples_a_side_cannot_call_it_and_say_how_many_would(scripted: Any) -> None:
    run = scripted(ALTERNATING_BASE, {"p1": {"alone": ["C"]}}, repeats=3, modes=("serial",))
    # Undecided on an output the base never gave: held (novel-undecided), it fails the run
    # (it passed with exit 0 before stop 58: an unexplained output is no evidence of safety).
    assert run.triage.exit_code == 1, run.text
    record = run.record("p1")
    assert record["category"] == "inconclusive"
    assert record["regression_candidate"] is False
    assert "novel-undecided" in record["flags"]
    mode = run.mode("p1", "serial")
    assert mode["novelty_p"] == pytest.approx(0.1)  # 2 of C(6, 3) = 20 labellings
    # Going on as observed, 4 samples a side give p = 2/70 <= 0.05 (one test in the family).
    assert record["more_samples"] == 1
    assert "1 more per side would decide if both sides went on as observed" in run.text
    assert "INCONCLUSIVE: 1 of 1 records could not be decided" in run.text
    assert "1 more sample a side would decide it" in run.text
    strict = scripted(
        ALTERNATING_BASE,
        {"p1": {"alone": ["C"]}},
        repeats=3,
        modes=("serial",),
        triage_args=("--fail-inconclusive",),
    )
    assert strict.triage.exit_code == 1


def test_a_patch_on_the_flaky_bases_most_common_output_is_base_nondeterminism(
    scripted: Any,
) -> None:
    # The base gives A 3 times in 4 and B once; the patch settles on A, the base's own mode:
    # more stable than the base, never a regression (the count test scores it 0).
    base = {"p1": {"alone": ["A", "A", "A", "B"]}}
    run = scripted(base, {"p1": {"alone": ["A"]}}, repeats=8, modes=("serial",))
    assert run.triage.exit_code == 0, run.text
    record = run.record("p1")
    assert record["category"] == "base-nondeterminism"
    assert "patch-output-inside-base-set" in record["flags"]
    assert run.mode("p1", "serial")["novelty_p"] == 1.0
    assert "serially, the patch reproduces the base on 1 of 1 records" in run.text
    assert run.mode("p1", "serial")["distribution"]["p"] == 1.0


def test_a_patch_settling_on_an_output_the_base_gives_half_the_time_is_a_shift(
    scripted: Any,
) -> None:
    # The base alternates A and B; the patch always gives B: inside the base's set, but not the
    # base's distribution (the "1 in 2" case).
    run = scripted(ALTERNATING_BASE, {"p1": {"alone": ["B"]}}, repeats=8, modes=("serial",))
    assert run.triage.exit_code == 1, run.text
    record = run.record("p1")
    assert record["category"] == "distribution-shift"
    assert "patch-output-inside-base-set" in record["flags"]
    test = run.mode("p1", "serial")["distribution"]
    # 8 of 8 patch samples are B, the base gave B 4 of 8: one-sided Fisher on the 2 x 2 table.
    fisher = stats.fisher_exact([[8, 0], [4, 4]], alternative="greater").pvalue
    assert test["p"] == pytest.approx(fisher)


def test_a_patch_more_stable_than_the_base_on_its_outputs_never_scores(scripted: Any) -> None:
    base = {"p1": {"alone": ["A", "B", "C"]}}
    run = scripted(base, {"p1": {"alone": ["A", "A", "A", "B"]}}, repeats=8, modes=("serial",))
    assert run.triage.exit_code == 0, run.text
    mode = run.mode("p1", "serial")
    assert mode["category"] == "both-nondeterministic"
    assert mode["novelty"] == 0 and not mode["regression_candidate"]
    assert mode["p"] > 0.5  # the patch leaves its mode less often than the base
    # Stable on B, which the base gave in 3 of its 8 samples: every patch output is the base's,
    # but not at the base's rate (8 of 8 against 3 of 8), so set membership excuses nothing.
    run = scripted(base, {"p1": {"alone": ["B"]}}, repeats=8, modes=("serial",))
    assert run.triage.exit_code == 1, run.text
    assert run.record("p1")["category"] == "distribution-shift"
    # Margins: patch 8 samples; pooled A 2, B 11, C 3. The patch all B (the base then has A 2,
    # B 3, C 3, its most common tied) is the only table with 8 samples off a base mode,
    # C(11, 8) / C(16, 8); the min-p combination with the hypergeometric tail at most doubles it.
    single = stats.hypergeom.pmf(8, 16, 11, 8)
    expected = exact_p(["A"] * 2 + ["B"] * 3 + ["C"] * 3, ["B"] * 8)
    assert expected == pytest.approx(2 * single, rel=1e-9)
    assert run.mode("p1", "serial")["distribution"]["p"] == pytest.approx(expected)


def test_capture_mode_counts_the_capture_in_that_mode_and_says_so(scripted: Any) -> None:
    run = scripted(
        BATCH_VARYING_BASE,
        {"p1": {"alone": ["A"], "batched": ["A"]}, "p2": STABLE_Z},
        repeats=6,
        burst=4,
        triage_args=("--capture-mode", "concurrent"),
    )
    assert run.triage.exit_code == 0, run.text
    assert run.document["capture_mode"] == "concurrent"
    concurrent = run.mode("p1", "concurrent")
    assert concurrent["base"]["n"] == 7 and concurrent["base"]["captured"] is True
    assert run.mode("p1", "serial")["base"]["n"] == 6
    assert "in 7 (6 sent + 1 captured) identical requests" in run.text
    assert "each side's capture counts as one concurrent observation" in run.text


def test_a_patch_giving_the_batch_1_answer_in_batches_is_never_a_shift(scripted: Any) -> None:
    # The base answers A alone and B1/B2/B3 in batches; the patch answers A alone and in batches
    # (batch-invariant: the fix such patches are made for). With enough samples the count test
    # rejects (20 of 20 patch samples off the base's batched mode), but the patch is more stable
    # than the base on the base's own batch-1 answer: never a regression (DESIGN).
    run = scripted(
        BATCH_VARYING_BASE,
        {"p1": {"alone": ["A"], "batched": ["A"]}, "p2": STABLE_Z},
        repeats=20,
        burst=4,
    )
    assert run.triage.exit_code == 0, run.text
    concurrent = run.mode("p1", "concurrent")
    assert concurrent["category"] == "base-nondeterminism"
    assert not concurrent["regression_candidate"]
    assert concurrent["distribution"]["p"] <= 0.05  # the shift is there, and said
    assert "settled on the base's serial answer" in concurrent["reason"]
    assert "result: no regression candidate (exit 0)" in run.text
    # Settling in batches on one of the base's batched answers instead (B1, a third of the
    # base's batched samples) is not the batch-1 answer: still a shift.
    other = scripted(
        BATCH_VARYING_BASE,
        {"p1": {"alone": ["A"], "batched": ["B1"]}, "p2": STABLE_Z},
        repeats=20,
        burst=4,
    )
    assert other.triage.exit_code == 1, other.text
    assert other.mode("p1", "concurrent")["category"] == "distribution-shift"


def test_a_patch_on_the_batch_1_answer_only_in_batches_still_fails_serially(scripted: Any) -> None:
    # The oracle clears a batched mode only: a patch that gives the base's batch-1 answer in
    # batches but another answer alone is a deterministic divergence in serial mode, and fails.
    run = scripted(
        BATCH_VARYING_BASE,
        {"p1": {"alone": ["Y"], "batched": ["A"]}, "p2": STABLE_Z},
        repeats=6,
        burst=4,
    )
    assert run.triage.exit_code == 1, run.text
    assert run.mode("p1", "serial")["category"] == "deterministic-divergence"
