"""Categories per mode, most severe over modes, and every sub-flag, on real comparisons."""

from __future__ import annotations

from pathlib import Path

from k3diff.triage import Category, Correction, Flag, Settings, triage

from .helpers import S, compare, compare_texts, completion, side, write_samples

SETTINGS = Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=Correction.HOLM)


def _run(
    tmp_path: Path,
    captured: dict[str, tuple[str, str]],
    samples: list[S],
    settings: Settings = SETTINGS,
) -> dict[str, object]:
    comparison = compare_texts(tmp_path, captured)
    log = write_samples(tmp_path / "samples.jsonl", samples)
    result = triage(comparison, (log,), settings)
    return {record.key: record for record in result.records}


def test_each_mode_gets_its_verdict_and_the_record_takes_the_most_severe(tmp_path: Path) -> None:
    samples = (
        side("k", "base", ["b", "b"])
        + side("k", "patch", ["p", "p"])
        + side("k", "base", ["b", "x"], "concurrent")
        + side("k", "patch", ["p", "p"], "concurrent")
    )
    record = _run(tmp_path, {"k": ("b", "p")}, samples)["k"]
    by_mode = {m.mode: m.category for m in record.modes}  # type: ignore[attr-defined]
    # Concurrently the base gave {b, x} and the patch p, an output the base never gave: 2
    # samples a side cannot call that (inconclusive, not base-nondeterminism).
    assert by_mode == {
        "concurrent": Category.INCONCLUSIVE,
        "serial": Category.DETERMINISTIC_DIVERGENCE,
    }
    assert record.category is Category.DETERMINISTIC_DIVERGENCE  # type: ignore[attr-defined]
    assert record.deciding_mode == "serial"  # type: ignore[attr-defined]
    assert Flag.CONCURRENCY_DEPENDENT in record.flags  # type: ignore[attr-defined]


def test_first_request_differs_and_patch_inside_base_set(tmp_path: Path) -> None:
    samples = side("k", "base", ["b1", "b2", "p"]) + side("k", "patch", ["cold", "p", "p"])
    record = _run(tmp_path, {"k": ("b0", "p")}, samples)["k"]
    assert Flag.FIRST_REQUEST_DIFFERS in record.flags  # type: ignore[attr-defined]
    samples = side("k", "base", ["b1", "p"]) + side("k", "patch", ["p", "p"])
    record = _run(tmp_path, {"k": ("b0", "p")}, samples)["k"]
    assert record.category is Category.BASE_NONDETERMINISM  # type: ignore[attr-defined]
    assert Flag.PATCH_INSIDE_BASE_SET in record.flags  # type: ignore[attr-defined]


def test_errors_reduce_n_and_all_failed_is_inconclusive(tmp_path: Path) -> None:
    samples = side("k", "base", ["b1", "b2"]) + side("k", "patch", [None, None, None])
    record = _run(tmp_path, {"k": ("b0", "p")}, samples)["k"]
    assert record.category is Category.INCONCLUSIVE  # type: ignore[attr-defined]
    assert Flag.ERRORS_PRESENT in record.flags  # type: ignore[attr-defined]
    mode = record.modes[0]  # type: ignore[attr-defined]
    assert (mode.patch.n, mode.patch.errors) == (0, 3)  # the capture is not an observation
    assert "3 failed" in record.reason  # type: ignore[attr-defined]


def test_one_sided_and_unsampled_records_are_inconclusive(tmp_path: Path) -> None:
    comparison = compare(
        tmp_path,
        [completion("both", "x"), completion("gone", "y"), completion("quiet", "a")],
        [completion("both", "x"), completion("new", "z"), completion("quiet", "b")],
    )
    samples = side("both", "base", ["x", "x"]) + side("both", "patch", ["x", "x"])
    samples += side("gone", "base", ["y", "y"]) + side("gone", "patch", ["y", "y"])
    log = write_samples(tmp_path / "samples.jsonl", samples)
    records = {r.key: r for r in triage(comparison, (log,), SETTINGS).records}
    assert records["both"].category is Category.MATCH
    assert records["gone"].category is Category.INCONCLUSIVE
    assert "only in the base capture" in records["gone"].reason
    assert records["new"].category is Category.INCONCLUSIVE
    assert records["quiet"].category is Category.INCONCLUSIVE
    assert "no samples for this key" in records["quiet"].reason


def test_near_tie_flip_from_the_comparison_logprob_gap(tmp_path: Path) -> None:
    def lp(first: str, second: str) -> dict[str, object]:
        return {
            "tokens": ["The", first],
            "token_logprobs": [-0.1, -0.70],
            "top_logprobs": [{"The": -0.1, "A": -3.0}, {first: -0.70, second: -0.72}],
        }

    comparison = compare(
        tmp_path,
        [completion("k", "The cat", lp(" cat", " dog"))],
        [completion("k", "The dog", lp(" dog", " cat"))],
    )
    log = write_samples(
        tmp_path / "s.jsonl",
        side("k", "base", ["The cat", "The dog"]) + side("k", "patch", ["The dog", "The dog"]),
    )
    record = triage(comparison, (log,), SETTINGS).records[0]
    assert Flag.NEAR_TIE_FLIP in record.flags  # gap 0.02 < 0.1
    tight = Settings(alpha=0.05, bound=0.05, near_tie=0.01, correction=Correction.HOLM)
    assert Flag.NEAR_TIE_FLIP not in triage(comparison, (log,), tight).records[0].flags


def test_patch_nondeterminism_is_a_regression_only_when_significant_after_correction(
    tmp_path: Path,
) -> None:
    strong = side("k", "base", ["b"] * 19) + side("k", "patch", ["b", "x"] * 10)
    weak = side("w", "base", ["b", "b"]) + side("w", "patch", ["b", "x"])
    records = _run(tmp_path, {"k": ("b", "b"), "w": ("b", "b")}, strong + weak)
    k, w = records["k"], records["w"]
    assert k.category is Category.PATCH_NONDETERMINISM  # type: ignore[attr-defined]
    assert k.regression_candidate and not w.regression_candidate  # type: ignore[attr-defined]
    # The weak one looks less stable but no test says so yet: undecided, never a quiet clear.
    assert w.category is Category.INCONCLUSIVE  # type: ignore[attr-defined]
    assert "undecided" in w.reason and "Fisher p = " in w.reason  # type: ignore[attr-defined]
    k_mode, w_mode = k.modes[0], w.modes[0]  # type: ignore[attr-defined]
    # Holm over the two tests: the smaller p doubled, the larger kept (or the running max).
    assert k_mode.p_adjusted == min(1.0, 2 * k_mode.p)
    assert w_mode.p_adjusted == max(k_mode.p_adjusted, w_mode.p)


def test_every_verdict_says_what_the_run_could_have_seen_at_the_asked_power(
    tmp_path: Path,
) -> None:
    samples = side("k", "base", ["b"] * 16) + side("k", "patch", ["b"] * 16)
    record = _run(tmp_path, {"k": ("b", "b")}, samples)["k"]
    mode = record.modes[0]  # type: ignore[attr-defined]
    assert round(mode.detectable, 4) == round(1 - 0.2 ** (1 / 16), 4)
    assert record.reason.endswith(  # type: ignore[attr-defined]
        "with 16 patch samples, an output the patch gives at least 9.57 % of the time would "
        "have been seen with 80 % power"
    )
    strict = Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=Correction.HOLM, power=0.95)
    record = _run(tmp_path, {"k": ("b", "b")}, samples, strict)["k"]
    assert "at least 17.1 % of the time would have been seen with 95 % power" in record.reason  # type: ignore[attr-defined]


def test_stable_serially_but_not_among_fillers_is_composition_dependent(tmp_path: Path) -> None:
    samples = (
        side("k", "base", ["a", "a", "a"])
        + side("k", "patch", ["a", "a", "a"])
        + side("k", "base", ["a", "b", "a"], "needle")
        + side("k", "patch", ["a", "a", "a"], "needle")
    )
    record = _run(tmp_path, {"k": ("a", "a")}, samples)["k"]
    assert Flag.COMPOSITION_DEPENDENT in record.flags  # type: ignore[attr-defined]
    assert Flag.CONCURRENCY_DEPENDENT in record.flags  # type: ignore[attr-defined]
    samples = samples[:6] + side("k", "base", ["a", "b", "a"], "concurrent")
    record = _run(tmp_path, {"k": ("a", "a")}, samples)["k"]
    assert Flag.COMPOSITION_DEPENDENT not in record.flags  # type: ignore[attr-defined]
