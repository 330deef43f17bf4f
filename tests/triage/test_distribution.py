"""Triage judges nondeterministic records by their output distributions: a base that gave the
patch's output rarely excuses nothing, and sampled requests (temperature > 0) get a two-sample
test. Scripted engines with known distributions write the logs; every p is checked against an
independent computation (scipy's hypergeometric and Fisher tests, a hand-written kernel)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_support import run_k3diff
from scipy import stats

from k3diff.triage import Correction, Settings, power, triage
from k3diff.triage import distribution as dist
from k3diff.triage.plan import samples_for_shift
from triage.helpers import S, compare_texts, triage_greedy, write_samples

ALPHA = 0.05


def _record(document: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in document["records"] if r["key"] == key)
    return found


def two_output_p(base: list[str], patch: list[str]) -> float:
    """The count test's p for a two-output record (A: the first in sorted order, B: the other),
    from scipy's hypergeometric law alone: x, the patch's A count given the margins, is
    hypergeometric, and each x is a table. Two scores per table against its own base mode m
    (a tie: the worse for the patch): the patch samples off m, and the one-sided (Fisher) tail
    P(patch count of m <= its count). Each score's p-value is the law's mass at least as extreme;
    a table's statistic is the smaller of its two, and p the mass of tables whose statistic is
    at most the observed one."""
    first = sorted({*base, *patch})[0]
    base = ["A" if o == first else "B" for o in base]
    patch = ["A" if o == first else "B" for o in patch]
    size, total = len(patch), len(base) + len(patch)
    pooled_a = base.count("A") + patch.count("A")
    law = stats.hypergeom(total, pooled_a, size)
    other = stats.hypergeom(total, total - pooled_a, size)
    xs = range(max(0, size - (total - pooled_a)), min(size, pooled_a) + 1)
    mass = {x: float(law.pmf(x)) for x in xs}

    def scores(x: int) -> tuple[int, float]:
        base_a, base_b = pooled_a - x, len(base) - (pooled_a - x)
        offs, tails = [], []
        if base_a >= base_b:
            offs.append(size - x)
            tails.append(float(law.cdf(x)))
        if base_b >= base_a:
            offs.append(x)
            tails.append(float(other.cdf(size - x)))
        return max(offs), min(tails)

    def smaller_p(x: int) -> float:
        off, tail = scores(x)
        by_off = sum(m for y, m in mass.items() if scores(y)[0] >= off)
        by_tail = sum(m for y, m in mass.items() if scores(y)[1] <= tail * (1 + 1e-7))
        return min(by_off, by_tail)

    observed = smaller_p(patch.count("A")) * (1 + 1e-7)
    return sum(m for x, m in mass.items() if smaller_p(x) <= observed)


RARE = {
    # key: (base outputs, patch outputs, the one-sided Fisher p of the base's mode alone)
    "1-in-100": (["A"] * 99 + ["B"], ["B"] * 100, stats.hypergeom.pmf(0, 200, 99, 100)),
    "1-in-20": (["A"] * 19 + ["B"], ["B"] * 20, stats.hypergeom.pmf(0, 40, 19, 20)),
    # The base's most common output is tied (50 A, 50 B): the patch always B scores the smaller
    # tail, that of A.
    "1-in-2": (["A"] * 50 + ["B"] * 50, ["B"] * 100, stats.hypergeom.pmf(0, 200, 50, 100)),
    "1-in-8": (["A"] * 7 + ["B"], ["B"] * 8, stats.fisher_exact([[0, 8], [7, 1]], "less")[1]),
}


def test_rare_base_outputs_excuse_no_patch_that_always_gives_them(tmp_path: Path) -> None:
    document = triage_greedy(
        tmp_path, {key: (base, patch) for key, (base, patch, _) in RARE.items()}
    )
    assert document["exit"] == 1
    assert document["summary"]["distribution-shift"] == 4
    assert document["distribution_tests"] == 5  # and the pooled count test of the mode
    ps = {key: _record(document, key)["modes"][0]["distribution"] for key in RARE}
    independent = {key: two_output_p(base, patch) for key, (base, patch, _) in RARE.items()}
    for key, (_, _, fisher) in RARE.items():
        record = _record(document, key)
        assert record["category"] == "distribution-shift", record["reason"]
        assert record["regression_candidate"] is True
        assert "patch-output-inside-base-set" in record["flags"]
        test = ps[key]
        assert test["test"] == "counts" and test["exact"] is True and test["sampled"] is False
        assert test["p"] == pytest.approx(independent[key], rel=1e-9, abs=0)
        # The observed table is the most extreme there is: p is the one-sided Fisher p.
        assert test["p"] == pytest.approx(fisher, rel=1e-9, abs=0)
    # The pooled count test, from scipy's hypergeometric laws convolved (ties toward the patch:
    # "1-in-2" adds 0 to the observed sum, but up to 50 under relabelling).
    law, observed = np.ones(1), 0
    for base, patch, _ in RARE.values():
        term_law, term = _two_output_term_law(base, patch)
        law, observed = np.convolve(law, term_law), observed + term
    pooled = float(law[observed:].sum())
    assert observed == 128 and 1e-15 < pooled < 1e-12
    # Holm over the 5 tests (4 records and the pool), from the independent p-values.
    family = dict(independent) | {"pooled": pooled}
    running, adjusted = 0.0, {}
    for rank, key in enumerate(sorted(family, key=family.__getitem__)):
        running = max(running, min(1.0, (5 - rank) * family[key]))
        adjusted[key] = running
    for key in RARE:
        assert ps[key]["p_adjusted"] == pytest.approx(adjusted[key], rel=1e-9, abs=0)
        assert ps[key]["pooled_p"] == pytest.approx(pooled, rel=1e-9, abs=0)
        assert ps[key]["pooled_p_adjusted"] == pytest.approx(adjusted["pooled"], rel=1e-9, abs=0)
    reason = _record(document, "1-in-8")["reason"]
    assert "patch: 'B' in 8 of 8, base: 1 of 8" in reason
    assert "count test (exact)" in reason


def _two_output_term_law(base: list[str], patch: list[str]) -> tuple[np.ndarray, int]:
    """A two-output ("A"/"B") record's term of the pooled count statistic (patch samples off the
    base's most common output, a tie resolved toward the patch): its law under relabelling, from
    scipy's hypergeometric law of the patch's A count, and its observed value."""

    def term(patch_a: int) -> int:
        size = len(patch)
        base_a = base.count("A") + patch.count("A") - patch_a
        base_b = len(base) - base_a
        if base_a == base_b:
            return min(patch_a, size - patch_a)
        return size - patch_a if base_a > base_b else patch_a

    pooled_a, size = base.count("A") + patch.count("A"), len(patch)
    law = np.zeros(size + 1)
    for patch_a in range(max(0, size - (len(base) + size - pooled_a)), min(size, pooled_a) + 1):
        law[term(patch_a)] += stats.hypergeom.pmf(patch_a, len(base) + size, pooled_a, size)
    return law, term(patch.count("A"))


def test_both_sides_varying_base_1_percent_patch_half(tmp_path: Path) -> None:
    base, patch = ["A"] * 99 + ["B"], ["A"] * 50 + ["B"] * 50
    document = triage_greedy(tmp_path, {"q": (base, patch)})
    record = _record(document, "q")
    assert document["exit"] == 1
    assert record["category"] == "distribution-shift"
    # a = the patch's A count among 149 A of 200; the base's mode is A while a < 99, tied at
    # a = 99, B at a = 100; the observed a = 50 is as extreme as a <= 50, 99 and 100 by both
    # scores.
    null = stats.hypergeom(200, 149, 100)
    expected = two_output_p(base, patch)
    assert expected == pytest.approx(null.cdf(50) + null.pmf(99) + null.pmf(100), rel=1e-9)
    assert record["modes"][0]["distribution"]["p"] == pytest.approx(expected, rel=1e-9, abs=0)


def test_a_patch_on_the_bases_own_mode_is_never_a_shift(tmp_path: Path) -> None:
    base, patch = ["A"] * 90 + ["B"] * 10, ["A"] * 100
    document = triage_greedy(tmp_path, {"q": (base, patch)})
    record = _record(document, "q")
    assert document["exit"] == 0
    assert record["category"] == "base-nondeterminism"
    test = record["modes"][0]["distribution"]
    assert test["statistic"] == 0 and test["p"] == 1.0
    assert "no shift detected" in record["reason"] and "power against" in record["reason"]


def test_count_test_false_positive_rate_is_within_alpha() -> None:
    rng = np.random.default_rng(7)
    runs, rejected = 400, 0
    for _ in range(runs):
        base = list(rng.choice(["A", "B", "C"], size=20, p=[0.6, 0.3, 0.1]))
        patch = list(rng.choice(["A", "B", "C"], size=20, p=[0.6, 0.3, 0.1]))
        rejected += dist.count_test(patch, base)[1] <= ALPHA
    # The conditional test is exact, so at most α of same-distribution runs reject: allow the
    # binomial's 99.9 % quantile.
    assert rejected <= stats.binom.ppf(0.999, runs, ALPHA)


def _answers(rng: np.random.Generator, probs: dict[str, float], n: int, form: str) -> list[str]:
    """Sampled answers: the number from `probs`, then a random tail (every answer new)."""
    picked = rng.choice(list(probs), size=n, p=list(probs.values()))
    letters = list("abcdefghijklmnopqrstuvwxyz")
    return [form.format(x) + " " + "".join(rng.choice(letters, 8)) for x in picked]


BASE_MASS = {"3": 0.5, "5": 0.3, "8": 0.2}
SHIFTED_MASS = {"3": 0.15, "5": 0.3, "8": 0.55}  # total variation 0.35 from BASE_MASS
PROMPTS = ("p1", "p2", "p3")


def _sampled_logs(
    tmp_path: Path, seed: int, patch_mass: dict[str, float], patch_form: str, n: int = 36
) -> tuple[Path, Path]:
    """Comparison and temperature-1 samples log of three prompts, n samples a side each."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    base = {key: _answers(rng, BASE_MASS, n + 1, "The answer is {}.") for key in PROMPTS}
    patch = {key: _answers(rng, patch_mass, n + 1, patch_form) for key in PROMPTS}
    cmp = compare_texts(tmp_path, {key: (base[key][0], patch[key][0]) for key in PROMPTS})
    samples = [
        S(side, key, text)
        for key in PROMPTS
        for side, texts in (("base", base[key][1:]), ("patch", patch[key][1:]))
        for text in texts
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    return cmp, log


SETTINGS = Settings(alpha=ALPHA, bound=0.05, near_tie=0.1, correction=Correction.HOLM)
WIDER = dataclasses.replace(SETTINGS, shift=0.5)
"""A shift the MMD test at 36 a side could detect (about 40 %)."""


def hand_kernel(x: str, y: str) -> float:
    """The MMD kernel by hand: the mean of Hamming on the first 20 characters (padded: past both
    ends agrees), on the last 20 (right-aligned), and on the first 1,024 with an end mark, over
    the geometric mean of the positions each text has; and the cosines of hashed 3-gram counts,
    unplaced and placed in 32 parts."""

    def agree(a: list[str | None], b: list[str | None]) -> int:
        return sum(ca == cb for ca, cb in zip(a, b, strict=False))

    def padded(text: str) -> list[str | None]:
        return [*text, *[None] * (20 - len(text))]

    head = agree(padded(x[:20]), padded(y[:20]))
    tail = agree(padded(x[::-1][:20]), padded(y[::-1][:20]))
    wx: list[str | None] = [*x[:1024], None][:1024]  # None: the end of a shorter text
    wy: list[str | None] = [*y[:1024], None][:1024]
    whole = agree(wx, wy) / math.sqrt(len(wx) * len(wy))
    grams = _cosine(hand_grams(x), hand_grams(y))
    placed = _cosine(hand_grams(x, True), hand_grams(y, True))
    return (head / 20 + tail / 20 + whole + grams + placed) / 5


def _cosine(gx: dict[int, int], gy: dict[int, int]) -> float:
    return sum(c * gy.get(b, 0) for b, c in gx.items()) / math.sqrt(
        sum(c * c for c in gx.values()) * sum(c * c for c in gy.values())
    )


def hand_grams(text: str, placed: bool = False) -> dict[int, int]:
    """Bucket -> count of the 3-grams of the whole text framed by two start marks (0x110000) and
    two end marks (0x110001); a gram's bucket is the SplitMix64 finalizer of its code points
    packed 21 bits each (first highest), mod 4,096. `placed`: gram i of g is in part i × 32 //
    max(g, 1,024), its bucket the finalizer of (the finalizer of its key + its part) mod 2**64,
    mod 4,096."""
    points = [0x110000] * 2 + [ord(ch) for ch in text] + [0x110001] * 2
    counts: dict[int, int] = {}
    grams = len(points) - 2
    for i in range(grams):
        a, b, c = points[i : i + 3]
        key = splitmix64((a << 42) | (b << 21) | c)
        if placed:
            key = splitmix64((key + i * 32 // max(grams, 1_024)) % 2**64)
        bucket = key % 4_096
        counts[bucket] = counts.get(bucket, 0) + 1
    return counts


def splitmix64(z: int) -> int:
    """The SplitMix64 finalizer (Vigna's splitmix64.c, Stafford's mix 13) of a 64-bit word."""
    mask = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _v_statistic(patch: list[str], base: list[str]) -> float:
    """MMD² (V-statistic) with `hand_kernel`."""
    k = hand_kernel

    def mean(xs: list[str], ys: list[str]) -> float:
        return sum(k(x, y) for x in xs for y in ys) / (len(xs) * len(ys))

    return mean(patch, patch) + mean(base, base) - 2 * mean(patch, base)


def test_reworded_answers_at_temperature_1_are_a_distribution_shift(tmp_path: Path) -> None:
    cmp, log = _sampled_logs(tmp_path, 1, BASE_MASS, "ANSWER={} !!")
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    assert document["summary"]["distribution-shift"] == 3
    texts = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    for key in PROMPTS:
        record = _record(document, key)
        assert record["category"] == "distribution-shift"
        test = record["modes"][0]["distribution"]
        assert test["test"] == "mmd" and test["sampled"] is True
        assert test["kernel"] == (
            "mean of hamming on first 20, last 20 and first 1,024 characters and cosines of hashed"
            " 3-gram counts of all characters, unplaced and placed in 32 equal parts of the text"
            " or of 1,024 grams, the longer (splitmix64, 4,096 buckets)"
        )
        mine = [t["text"] for t in texts if t["key"] == key and t["side"] == "patch"]
        theirs = [t["text"] for t in texts if t["key"] == key and t["side"] == "base"]
        assert test["statistic"] == pytest.approx(_v_statistic(mine, theirs))
        # No permutation scores as high: p = 1 / (1 + B), B = 20 / (α / 2 / 4 tests) − 1 = 3,199
        # (sized at the level the sampled tests are judged at, aa78; 1,999 at α / 4 before).
        assert test["permutations"] == 3_199
        assert test["p"] == pytest.approx(1 / 3_200)
        assert test["pooled_records"] == 3 and test["pooled_p_adjusted"] <= ALPHA
        assert "patch: 'ANSWER=' in 36 of 36, base: 0 of 36" in record["reason"]
        assert "base: 'The answer is ' in 36 of 36, patch: 0 of 36" in record["reason"]


def test_a_third_of_the_answer_mass_moved_is_flagged(tmp_path: Path) -> None:
    cmp, log = _sampled_logs(tmp_path, 2, SHIFTED_MASS, "The answer is {}.")
    result = triage(cmp, (log,), SETTINGS)
    assert int(result.exit_code) == 1
    assert {r.category.value for r in result.records} == {"distribution-shift"}


def test_the_base_distribution_passes_in_7_of_8_runs_and_says_what_it_could_detect(
    tmp_path: Path,
) -> None:
    # 36 a side: each MMD test detects about 40 % of the answers moved (mmdpower75's honest
    # figure, above the default 35 %), so the shift asked for is 50 %.
    passed = 0
    for seed in range(8):
        cmp, log = _sampled_logs(tmp_path / str(seed), seed, BASE_MASS, "The answer is {}.")
        result = triage(cmp, (log,), WIDER)
        passed += int(result.exit_code) == 0
        for record in result.records:
            if record.regression_candidate:
                continue
            assert record.category.value == "both-nondeterministic"
            assert "the requests sampled; no shift detected (MMD test" in record.reason
            assert "80 % power against" in record.reason
            test = record.modes[0].distribution
            assert test is not None and test.detectable_shift is not None
    assert passed >= 7


def test_mmd_false_positive_rate_per_record_and_pooled_is_within_alpha() -> None:
    rng = np.random.default_rng(11)
    runs, single, pooled = 200, 0, 0
    for _ in range(runs):
        results = [
            dist.mmd_test(
                _answers(rng, BASE_MASS, 12, "The answer is {}."),
                _answers(rng, BASE_MASS, 12, "The answer is {}."),
                rng,
                99,
            )
            for _ in range(3)
        ]
        single += results[0].p <= ALPHA
        pooled += dist.pooled_p(results) <= ALPHA
    bound = stats.binom.ppf(0.999, runs, ALPHA)
    assert single <= bound and pooled <= bound


def test_detectable_shift_shrinks_with_more_samples() -> None:
    base = [f"The answer is {i % 5}. tail{i}" for i in range(40)]
    few = power.detectable_shift(base[:8], (8, 8), ALPHA, 0.8, "mmd")
    many = power.detectable_shift(base, (40, 40), ALPHA, 0.8, "mmd")
    assert few is not None and many is not None and many < few


def _fisher_power(n: int, shift: float, alpha: float) -> float:
    """The one-sided Fisher test of k new answers of n on the patch against none of n on the
    base, k ~ Binomial(n, shift): its power, summed over k with scipy."""
    return float(
        sum(
            stats.binom.pmf(k, n, shift)
            for k in range(n + 1)
            if stats.fisher_exact([[k, n - k], [0, n]], "greater")[1] <= alpha
        )
    )


@pytest.mark.parametrize(("shift", "alpha"), [(0.35, ALPHA), (0.5, 0.01), (0.2, ALPHA / 3)])
def test_the_plan_figure_is_the_least_n_whose_exact_power_stays_above_the_target(
    shift: float, alpha: float
) -> None:
    n = samples_for_shift(shift, alpha, 0.8)
    powers = {m: _fisher_power(m, shift, alpha) for m in range(max(2, n - 1), 2 * n + 1)}
    assert all(powers[m] >= 0.8 for m in range(n, 2 * n + 1))
    assert powers[n - 1] < 0.8  # n - 1 falls short (n is the least)


def test_plan_states_samples_per_prompt_for_a_shift() -> None:
    n = samples_for_shift(0.35, ALPHA, 0.8)
    # The exact power saw-tooths: 15 per side reach 80 %, 16 do not (one more new answer is
    # needed to reject there), 18 and on do; the normal approximation's 14 fall short.
    assert n == 18
    assert _fisher_power(15, 0.35, ALPHA) >= 0.8 > _fisher_power(16, 0.35, ALPHA)
    assert _fisher_power(14, 0.35, ALPHA) < 0.8
    result = run_k3diff("triage", "--plan", "--shift", "0.35")
    assert result.exit_code == 0
    assert f"{n} samples per side per prompt" in result.stdout


def _bundle(tmp_path: Path, *inputs: str) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    summary: dict[str, Any] = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    return result.exit_code, summary


def _matrix(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["evidence"]: row for row in summary["matrix"]}


def test_the_bundle_fails_a_rare_base_output_case_and_explains_nothing(tmp_path: Path) -> None:
    document = triage_greedy(tmp_path, {"q": (["A"] * 7 + ["B"], ["B"] * 8)})
    assert document["exit"] == 1
    code, summary = _bundle(tmp_path, "cmp.json", "run/samples.jsonl", "t.json")
    assert code == 1
    rows = _matrix(summary)
    assert rows["record-level comparison"]["status"] == "FAIL"
    follow_up = rows["nondeterminism follow-up"]
    assert follow_up["status"] == "FAIL"
    assert (
        "it is a regression candidate: distribution shift (the base gave " in follow_up["finding"]
    )
    assert "distribution tests on 1 record: 1 shifted (q)" in follow_up["finding"]


def test_the_bundle_carries_a_sampled_pass_with_its_distribution_verdict_and_power(
    tmp_path: Path,
) -> None:
    # 66 a side (60 until power77's rewording of the most typical answer): each test detects
    # 35 % (the house --shift) with 80 % power; a pass at a laxer
    # --shift is held at the house's (tests/bundle/test_house_shift.py, hunt76).
    cmp, log = _sampled_logs(tmp_path, 0, BASE_MASS, "The answer is {}.", n=66)
    made = run_k3diff(
        "triage", str(cmp), str(log), "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert made.exit_code == 0, made.stdout
    code, summary = _bundle(tmp_path, "cmp.json", "run/samples.jsonl", "t.json")
    assert code == 0
    rows = _matrix(summary)
    assert rows["record-level comparison"]["status"] == "explained"
    finding = rows["nondeterminism follow-up"]["finding"]
    assert "distribution tests on 3 records (3 sampled, judged at --shift 35 %): none shifted" in (
        finding
    )
    assert "the least sensitive test that passed had 80 % power against" in finding
    assert any("Distribution tests on 3 records" in q for q in summary["qualifications"])


def test_which_request_fields_sample() -> None:
    from k3diff.sampling_params import samples_sampled

    assert samples_sampled({"temperature": 1}) and samples_sampled({"top_p": 0.9})
    assert not samples_sampled({"temperature": 0, "top_p": 0.9})
    assert not samples_sampled({}) and not samples_sampled({"top_k": 1})
    assert not samples_sampled({"temperature": True})  # a JSON true is no temperature


def test_requests_that_carry_their_own_temperature_are_sampled(tmp_path: Path) -> None:
    # Found by the new-user trial: prompts (or a capture) carrying `"temperature": 1` per
    # request, sampled without --param, logged the temperature in each line's request_params but
    # not in the header's params; the distribution test was chosen from the header alone (the
    # count test, `"sampled": false`) while the rest of triage read the lines (firsttoken,
    # hold_unexplained). A sample's own logged request fields say how it was sampled.
    from k3diff.triage import shift
    from k3diff.triage.samples import read_samples
    from triage.helpers import side

    samples = [*side("q", "base", ["a", "b"] * 3), *side("q", "patch", ["a", "b"] * 3)]
    log = write_samples(tmp_path / "s.jsonl", samples, params={})
    lines = log.read_text().splitlines()
    lines[1:] = [
        json.dumps({**json.loads(line), "request_params": {"temperature": 1}}) for line in lines[1:]
    ]
    log.write_text("\n".join(lines) + "\n")
    assert shift.sampled(read_samples((log,))) == {("q", "serial")}


def test_a_sampled_record_the_test_could_not_have_tested_clears_nothing(tmp_path: Path) -> None:
    # Found by a new-user trial against a real `transformers serve` (top_k 2 against the base at
    # temperature 1, 3 repeats): every answer reworded, and triage passed (exit 0), saying only
    # in each reason that the test "had less than 80 % power against any shift ... however
    # large". A non-rejection with no power is no evidence: the record is inconclusive, flagged
    # no-power, and fails the run whatever --fail-inconclusive says.
    cmp, log = _sampled_logs(tmp_path, 1, BASE_MASS, "ANSWER={} !!", n=2)
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    for key in PROMPTS:
        record = _record(document, key)
        assert record["category"] == "inconclusive", record
        assert "no-power" in record["flags"]
        mode = record["modes"][0]
        assert mode["distribution"]["detectable_shift"] is None
        assert "could not have seen a shift" in mode["reason"]
    text = run_k3diff("triage", str(cmp), str(log), cwd=tmp_path)
    assert text.exit_code == 1
    assert "sampled records whose test could not have detected --shift 35 % (no-power)" in (
        text.stdout
    )
    # The base against itself at the same n: no more evidence, so no pass either.
    same, same_log = _sampled_logs(tmp_path / "same", 1, BASE_MASS, "The answer is {}.", n=2)
    again = run_k3diff("triage", str(same), str(same_log), "--format", "json", cwd=tmp_path)
    assert again.exit_code == 1, again.stdout


def test_no_power_is_claimed_where_the_permutation_test_cannot_reject() -> None:
    # The smallest p of a permutation test of side labels: the observed labelling (tied with its
    # full swap when both sides have n samples) among C(m + n, n), computed here independently.
    for m, n in ((2, 2), (3, 3), (4, 4), (5, 5), (3, 5), (8, 8)):
        floor = (2 if m == n else 1) / math.comb(m + n, n)
        assert power.smallest_permutation_p((m, n)) == pytest.approx(floor)
    base = [f"The answer is {i}." for i in range(8)]
    for n, level in ((2, 0.05), (3, 0.05), (4, 0.05 / 3)):
        assert power.smallest_permutation_p((n, n)) > level
        assert power.detectable_shift(base[:n], (n, n), level, 0.8, "mmd") is None
    # Where labellings are enough to reject, the bootstrap's figure stands.
    assert power.detectable_shift(base, (8, 8), 0.05, 0.8, "mmd") is not None


def test_the_plan_says_which_alpha_a_run_of_several_prompts_is_judged_at() -> None:
    """Triage judges P sampled prompts at α / 2 over P + 1 distribution tests (the pooled
    test; the novelty test has the other half of α): 2 prompts at α / 2 / 3, where the plan's
    figure is 25 a side. The plan said "use α over the number of prompts", α / 2, whose figure
    (18) a run following it was held no-power at; then α / 3 (22, plan77)."""
    assert samples_for_shift(0.35, 0.025 / 3, 0.8) == 25 > samples_for_shift(0.35, 0.05 / 3, 0.8)
    result = run_k3diff("triage", "--plan", "--shift", "0.35", "--prompts", "2")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "over the number of prompts for" not in text
    assert (
        "a sampled run (temperature > 0) of 2 prompts needs 25 samples per side per prompt" in text
    )
    assert "at α / 2 / 3 distribution tests = 0.00833 (2 records and their pooled test" in text
    alone = " ".join(run_k3diff("triage", "--plan", "--shift", "0.35").stdout.split())
    assert (
        "triage judges each of P prompts' tests at α / 2 / (P + 1), with their pooled test" in alone
    )
