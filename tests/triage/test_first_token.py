"""Where the samples carry the first position's logprobs, triage counts the chosen first tokens
against the probabilities the servers reported for that position (the first-token test): a
sampler that does not sample the base's distribution is caught with far fewer samples than the
MMD on the texts needs. Logs from a known first-token distribution; every p checked against an
independent computation (scipy's G statistic, an exact multinomial enumeration)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_support import run_k3diff
from scipy import stats

from k3diff.correction import holm
from k3diff.triage import Correction, Settings, firsttoken, triage
from k3diff.triage import distribution as dist
from k3diff.triage.firsttoken import Prepared, Side
from k3diff.triage.firstverdict import OTHER
from triage.firsttokens import BASE, PROMPTS, SHARPER, draw, write_run

ALPHA = 0.05
SETTINGS = Settings(alpha=ALPHA, bound=0.05, near_tie=0.1, correction=Correction.HOLM)


def _json(tmp_path: Path, cmp: Path, log: Path) -> dict[str, Any]:
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    document["exit"] = result.exit_code
    return document


def _mode(document: dict[str, Any], key: str) -> dict[str, Any]:
    record = next(r for r in document["records"] if r["key"] == key)
    found: dict[str, Any] = record["modes"][0]
    return found


def _firsts(log: Path, key: str, side: str) -> list[str]:
    lines = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    return [s["trace"]["tokens"][0] for s in lines if s["key"] == key and s["side"] == side]


def _g(chosen: list[str], reported: dict[str, float]) -> float:
    """G by scipy: power divergence with λ = 0 over the reported tokens and the rest."""
    names = [*reported, "rest"]
    observed = [sum(t == name for t in chosen) for name in reported]
    observed.append(len(chosen) - sum(observed))
    expected = [len(chosen) * p for p in reported.values()]
    expected.append(len(chosen) * max(0.0, 1 - sum(reported.values())))
    keep = [i for i in range(len(names)) if expected[i] > 0]
    statistic, _ = stats.power_divergence(
        [observed[i] for i in keep], [expected[i] for i in keep], lambda_="log-likelihood"
    )
    return float(statistic)


def test_a_sharper_sampler_is_flagged_by_its_first_tokens_where_the_mmd_is_not(
    tmp_path: Path,
) -> None:
    # 12 samples a side for each of 3 prompts; the patch samples ' The' 83 % of the time while
    # reporting the base's 42 % (total variation 0.41).
    # One seeded run of a test whose power here is about 0.9 (the 40-run test below): seed 3's
    # pooled cross p sat at the Holm edge (0.0527 with each record's own stream, stats64b).
    cmp, log = write_run(tmp_path, 5, SHARPER)
    document = _json(tmp_path, cmp, log)
    assert document["exit"] == 1
    assert document["summary"]["distribution-shift"] == 3
    for key in PROMPTS:
        test = _mode(document, key)["distribution"]
        # The MMD on the same texts: neither the record's test nor its mode's pooled test
        # rejects.
        assert test["test"] == "mmd" and test["p_adjusted"] > ALPHA
        assert test["pooled_p_adjusted"] > ALPHA
        first = test["first_token"]
        assert first["used"] is True and first["why_not"] is None
        pooled = {p["test"]: p for p in first["pooled"]}
        assert pooled["cross"]["records"] == 3 and pooled["cross"]["p_adjusted"] <= ALPHA
        assert pooled["patch_own"]["p_adjusted"] <= ALPHA
        # Each record's G, by scipy from the log's first tokens (the log holds logprobs to 6
        # decimals, hence the tolerance).
        mine = _firsts(log, key, "patch")
        assert first["cross"]["statistic"] == pytest.approx(_g(mine, BASE), rel=1e-4)
        assert first["patch_own"]["statistic"] == pytest.approx(_g(mine, BASE), rel=1e-4)
        assert first["base_own"]["statistic"] == pytest.approx(
            _g(_firsts(log, key, "base"), BASE), rel=1e-4
        )
        # The pooled statistic is the sum of the records'.
        total = sum(_g(_firsts(log, k, "patch"), BASE) for k in PROMPTS)
        assert pooled["cross"]["statistic"] == pytest.approx(total, rel=1e-4)
    record = next(r for r in document["records"] if r["key"] == "p2")
    count = _firsts(log, "p2", "patch").count(" The")
    assert (
        f"first token ' The': patch {count} of 12, base reports p = 0.42, the patch itself 0.42 "
        "(its sampler does not sample what it reports)"
    ) in record["reason"]
    assert (
        "first-token test (G against the base's reported first-token probabilities"
        in (record["reason"])
    )


def test_the_first_token_test_has_far_more_power_than_the_mmd_at_12_samples() -> None:
    # Library level, 40 seeded runs of 3 prompts x 12 samples a side, each test at α / 12 (the
    # triage family of such a run): the pooled first-token test against the pooled MMD.
    runs, token, mmd = 40, 0, 0
    letters = list("abcdefghij")
    for seed in range(runs):
        rng = np.random.default_rng(seed)
        nulls, observed, results = [], 0.0, []
        for _ in PROMPTS:
            base, patch = draw(rng, BASE, 12), draw(rng, SHARPER, 12)
            g, _, _, _, _, null = firsttoken.fit(patch, BASE, 1_999, rng)
            nulls.append(null)
            observed += g
            texts = [
                [f"{t} end {''.join(rng.choice(letters, 8))}" for t in s] for s in (patch, base)
            ]
            results.append(dist.mmd_test(texts[0], texts[1], rng, 1_999))
        pooled = (1 + int((np.sum(nulls, axis=0) >= observed * (1 - 1e-9)).sum())) / 2_000
        token += pooled <= ALPHA / 12
        mmd += dist.pooled_p(results) <= ALPHA / 12
    assert token >= 0.8 * runs and mmd <= 0.7 * runs and token - mmd >= 0.2 * runs


def _exact_p(counts: list[int], probs: list[float]) -> float:
    """P(G >= observed) under the multinomial, by enumerating every count vector."""
    n = sum(counts)
    names = len(probs)
    observed = _gee(counts, probs)
    total = 0.0
    for cut in itertools.combinations(range(n + names - 1), names - 1):
        bounds = [-1, *cut, n + names - 1]
        table = [bounds[i + 1] - bounds[i] - 1 for i in range(names)]
        if _gee(table, probs) >= observed * (1 - 1e-9):
            total += float(stats.multinomial.pmf(table, n, probs))
    return total


def _gee(counts: list[int], probs: list[float]) -> float:
    n = sum(counts)
    return 2 * sum(c * math.log(c / (n * p)) for c, p in zip(counts, probs, strict=True) if c)


@pytest.mark.parametrize("patch", [["The"] * 7 + ["A"] * 3 + ["It"] * 2, ["The"] * 11 + ["It"]])
def test_the_monte_carlo_p_agrees_with_the_exact_multinomial_p(patch: list[str]) -> None:
    reported = {"The": 0.42, "A": 0.3, "It": 0.18, "In": 0.1}
    draws = 99_999
    g, p, token, count, prob, _ = firsttoken.fit(patch, reported, draws, np.random.default_rng(5))
    counts = [patch.count(t) for t in reported]
    exact = _exact_p(counts, list(reported.values()))
    assert g == pytest.approx(_g(patch, reported), rel=1e-9)
    # A Monte Carlo p is (1 + hits) / (1 + B): within 4.5 standard errors of the exact p.
    assert abs(p - exact) <= 4.5 * math.sqrt(exact * (1 - exact) / draws) + 2 / draws
    assert token == "The" and count == patch.count("The") and prob == pytest.approx(0.42)


def _side(rng: np.random.Generator, samples: dict[str, float], n: int) -> Side:
    return Side(tuple(draw(rng, samples, n)), dict(BASE), None)


def test_the_same_distribution_is_rejected_in_at_most_alpha_of_runs() -> None:
    # 300 runs of 3 prompts x 12 samples a side, both sides sampling what they report: the
    # record tests and the pooled tests each reject in at most α of the runs (the binomial's
    # 99.9 % quantile allowed).
    runs = 300
    rejected = {"cross": 0, "patch_own": 0, "pooled cross": 0, "pooled patch_own": 0}
    for seed in range(runs):
        rng = np.random.default_rng(1_000 + seed)
        firsts: dict[tuple[str, str], Prepared | Any] = {
            (key, "serial"): Prepared(_side(rng, BASE, 12), _side(rng, BASE, 12)) for key in PROMPTS
        }
        ran = firsttoken.run_all(firsts, 999, 0.0, lambda ps: list(ps))
        first = ran.tests[("p1", "serial")]
        for name in ("cross", "patch_own"):
            rejected[name] += first[name].p <= ALPHA
            rejected[f"pooled {name}"] += ran.pooled[("serial", name)][1] <= ALPHA
    bound = stats.binom.ppf(0.999, runs, ALPHA)
    assert all(count <= bound for count in rejected.values()), rejected


def test_a_patch_sampling_the_bases_distribution_passes_and_says_what_it_could_detect(
    tmp_path: Path,
) -> None:
    passed = 0
    for seed in range(8):
        cmp, log = write_run(tmp_path / str(seed), 100 + seed, BASE)
        # At 12 samples a side the MMD test could detect only about 82 % of the answers moved
        # (mmdpower75's honest figure; 55 % before), held no-power at --shift 0.35: this test is
        # about the first-token test, so the run is judged at --shift 0.9 (at 36 a side, which
        # passes at 0.35, the base's premise check voids the first-token test of a record by
        # chance in these seeds). Since aa77 the record's test is judged at α / 2 (shared with
        # the novelty test), where some records' tests detect only 94 %: judged at 0.95.
        result = triage(cmp, (log,), dataclasses.replace(SETTINGS, shift=0.95))
        passed += int(result.exit_code) == 0
        for record in result.records:
            if record.regression_candidate:
                continue
            assert "first-token test (G against" in record.reason
            assert "the first-token test had 80 % power against a total variation of" in (
                record.reason
            )
            test = record.modes[0].distribution
            assert test is not None and test.first_token is not None
            assert test.first_token.detectable is not None
    assert passed >= 7


def test_the_power_statement_is_the_tests_own_rejection_rate() -> None:
    # At the stated total variation the simulated rejection rate of the cross test (its own
    # rule on fresh null draws) is at least the power; one grid step below it is not.
    base = Side(("x",) * 12, dict(BASE), None)
    level, draws = ALPHA / 4, 1_999
    shift = firsttoken.detectable(base, 12, draws, level, 0.8)
    assert shift is not None
    rng = np.random.default_rng(9)
    probs = np.array([*BASE.values(), 0.0])

    def rate(tv: float) -> float:
        moved = probs * (0.58 - tv) / 0.58
        moved[0] = 0.42 + tv
        hits = 0
        for _ in range(400):
            counts = rng.multinomial(12, moved)
            chosen = [
                name for name, c in zip([*BASE, OTHER], counts, strict=True) for _ in range(c)
            ]
            hits += firsttoken.fit(chosen, BASE, draws, rng)[1] <= level
        return hits / 400

    assert rate(shift) >= 0.8 - 3 * math.sqrt(0.8 * 0.2 / 400)
    assert rate(shift - 0.04) < 0.8 + 3 * math.sqrt(0.8 * 0.2 / 400)


def test_a_model_that_moved_is_caught_against_the_bases_reports_not_its_own(
    tmp_path: Path,
) -> None:
    # The patch samples what it reports, but reports (and samples) the sharper distribution.
    # Seed 4's pooled cross p sat at the Holm edge (0.0625 with each record's own stream).
    cmp, log = write_run(tmp_path, 6, SHARPER, patch_reports=SHARPER)
    document = _json(tmp_path, cmp, log)
    assert document["exit"] == 1
    test = _mode(document, "p1")["distribution"]["first_token"]
    pooled = {p["test"]: p for p in test["pooled"]}
    assert pooled["cross"]["p_adjusted"] <= ALPHA and pooled["patch_own"]["p_adjusted"] > ALPHA
    record = next(r for r in document["records"] if r["key"] == "p1")
    assert (
        "base reports p = 0.42, the patch itself 0.83 (its model's first-token distribution "
        in (record["reason"])
    )


def test_samples_without_logprobs_say_the_test_was_not_available(tmp_path: Path) -> None:
    cmp, log = write_run(tmp_path, 1, BASE, base_reports=None, patch_reports=None)
    document = _json(tmp_path, cmp, log)
    first = _mode(document, "p1")["distribution"]["first_token"]
    assert first["used"] is False and first["cross"] is None
    assert first["why_not"].startswith("base: 12 of 12 samples carry no first-position")
    record = next(r for r in document["records"] if r["key"] == "p1")
    assert "first-token test not used: base: 12 of 12 samples carry no" in record["reason"]


def test_logprobs_at_another_temperature_are_not_taken_as_the_sampling_distribution(
    tmp_path: Path,
) -> None:
    params = {"temperature": 0.7, "logprobs": 5}
    cmp, log = write_run(tmp_path, 1, SHARPER, params=params)
    document = _json(tmp_path, cmp, log)
    first = _mode(document, "p1")["distribution"]["first_token"]
    assert first["used"] is False
    assert "the base's reports need not be what it samples: temperature 0.7" in first["why_not"]


def test_a_base_that_does_not_sample_what_it_reports_voids_the_test(tmp_path: Path) -> None:
    # Both sides sample the sharper distribution while reporting the base's: the reports are
    # not the sampling distribution, so the patch matching them or not proves nothing.
    cmp, log = write_run(tmp_path, 2, SHARPER, n=30, base_samples=SHARPER)
    document = _json(tmp_path, cmp, log)
    for key in PROMPTS:
        first = _mode(document, key)["distribution"]["first_token"]
        assert first["used"] is False
        assert first["why_not"].startswith("the base's own first tokens do not follow its reports")
        assert first["base_own"]["p_adjusted"] <= ALPHA
    assert document["distribution_tests"] == 4  # 3 MMD tests and the pooled one: no token test


def test_premise_checks_are_corrected_among_themselves() -> None:
    rng = np.random.default_rng(3)
    firsts: dict[tuple[str, str], Any] = {
        (key, "serial"): Prepared(_side(rng, BASE, 12), _side(rng, BASE, 12)) for key in PROMPTS
    }
    ran = firsttoken.run_all(firsts, 999, ALPHA, holm)
    raw = [ran.tests[(k, "serial")]["base_own"].p for k in PROMPTS]
    adjusted = [ran.tests[(k, "serial")]["base_own"].p_adjusted for k in PROMPTS]
    assert adjusted == pytest.approx(holm(raw))


def test_a_malformed_first_top_is_one_line_naming_the_line(tmp_path: Path) -> None:
    cmp, log = write_run(tmp_path, 1, BASE)
    lines = log.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["trace"]["first_top"] = [[" The", 0.5]]  # a logprob above 0
    lines[1] = json.dumps(broken)
    log.write_text("\n".join(lines) + "\n")
    result = run_k3diff("triage", str(cmp), str(log), cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0
    assert "samples.jsonl:2: 'trace.first_top' is not a list of [token, logprob <= 0]" in (
        result.stderr
    )


def test_the_bundle_counts_a_first_token_shift(tmp_path: Path) -> None:
    cmp, log = write_run(tmp_path, 5, SHARPER)
    made = run_k3diff("triage", str(cmp), str(log), "--format", "json", "-o", "t.json",
                      cwd=tmp_path)  # fmt: skip
    assert made.exit_code == 1
    bundled = run_k3diff("report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b",
                         cwd=tmp_path)  # fmt: skip
    assert bundled.exit_code == 1, bundled.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    rows = {row["evidence"]: row for row in summary["matrix"]}
    assert "3 shifted (p1, p2, p3)" in rows["nondeterminism follow-up"]["finding"]


def test_k3diff_sample_records_a_scripted_engines_first_token_reports(scripted: Any) -> None:
    # Real engines behind the OpenAI API: the base samples what it reports, the patch reports
    # the same but samples a sharper distribution; `k3diff sample` keeps position 0's
    # alternatives and triage tests them.
    prompts = {"p1": "Tell me about A", "p2": "Say Z", "p3": "Name a colour"}
    base = {k: {"first": BASE, "rest": " end.", "seed": i} for i, k in enumerate(prompts)}
    patch = {
        k: {"first": SHARPER, "reported": BASE, "rest": " end.", "seed": 10 + i}
        for i, k in enumerate(prompts)
    }
    run = scripted(
        base, patch, repeats=12, modes=("serial",), prompts=prompts,
        capture_params={"temperature": 1, "logprobs": 3},
    )  # fmt: skip
    lines = [json.loads(line) for line in run.log.read_text().splitlines()[1:]]
    samples = [s for s in lines if "side" in s]
    assert all(len(s["trace"]["first_top"]) in (3, 4) for s in samples)
    assert run.triage.exit_code == 1, run.text
    first = run.mode("p1", "serial")["distribution"]["first_token"]
    assert first["used"] is True
    # The top 3, and " In" where a request chose it (listed beside them, as vLLM does).
    assert [r["token"] for r in first["base_reports"]] == [" The", " A", " It", " In"]
    assert {p["test"] for p in first["pooled"]} == {"cross", "patch_own"}
