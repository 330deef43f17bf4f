"""`responses --fail-on score-drop`: an eval gate on the scores, not on the text (stop 60).

Under continuous batching most eval generations of a real engine patch differ a little; the gate
asks the release question instead, "did the patch move the scores?", and never passes on a
claim the run could not back: a metric passes only when it is not significantly worse *and* the
run could have detected a drop of the tolerance (its MDE at Holm's level α/m, 80 % power).
Every MDE and p is checked here against a computation written out independently (the exact
power summed over every discordant count with `binomtest`, the closed form with scipy's normal
quantiles)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import run_k3diff
from scipy import stats

from k3diff.documents.catalog import load_schema

from .eval_logs import inspect_sample, write_eval_log
from .fixtures import write_jsonl
from .lm_eval_logs import generate_current

SIDES = ("base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl")
GATE = ("--fail-on", "score-drop")


def _lm_eval(tmp_path: Path, n: int, lost: int, gained: int, keep: int | None = None) -> None:
    """n docs, base correct on the first 70 %; the patch loses `lost` of those and gains `gained`
    of the rest, and every patch generation differs in its text (batching noise) while the
    filtered answer the metric reads stays the same; `keep`: the patch holds only that many
    docs."""
    correct = int(0.7 * n)
    base = [1.0 if i < correct else 0.0 for i in range(n)]
    patch = list(base)
    for i in range(lost):
        patch[i] = 0.0
    for i in range(correct, correct + gained):
        patch[i] = 1.0
    for side, scores, words in (("base", base, "so"), ("patch", patch, "thus")):
        rows = [
            generate_current(i, f"Q{i}?", [f"{words} {answer}"], answer, "strict-match", score)
            for i, score in enumerate(scores)
            for answer in ["42" if score else "41"]
        ]
        if side == "patch" and keep is not None:
            rows = rows[:keep]
        (tmp_path / side).mkdir(exist_ok=True)
        write_jsonl(tmp_path / side / "samples_gsm8k.jsonl", rows)


def _run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("responses", *args, "--format", "json", cwd=tmp_path)
    assert result.stderr == "", result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(document, load_schema("responses"))
    return result.exit_code, document


def _exact_power(n: int, rate: float, delta: float, level: float) -> float:
    """McNemar's exact test's power, written out: D ~ Bin(n, ψ) discordant items (ψ the run's
    rate, at least δ), L ~ Bin(D, (ψ + δ)/2ψ) of them lost, rejected where binomtest(L, D) ≤
    level; counts beyond 1e-12 of probability left out."""
    psi = max(rate, delta)
    q = (psi + delta) / (2 * psi)
    top = int(stats.binom.isf(1e-13, n, psi)) + 1
    total = 0.0
    for d in range(1, min(n, top) + 1):
        rejected = sum(
            stats.binom.pmf(k, d, q) for k in range(d + 1) if stats.binomtest(k, d).pvalue <= level
        )
        total += stats.binom.pmf(d, n, psi) * rejected
    return total


def _upper(moved: int, n: int, alpha: float = 0.05) -> float:
    """The one-sided Clopper-Pearson upper bound on the discordant rate, the ψ the MDE is
    stated at (scores61), from the beta quantile."""
    return 1.0 if moved >= n else float(stats.beta.ppf(1 - alpha, moved + 1, n - moved))


def _check_mde(decision: dict[str, Any], n: int, moved: int, level: float) -> None:
    """The stated MDE reaches 80 % power and half a point less does not (at the rate's upper
    bound at the run's α)."""
    mde = decision["mde"]
    assert _exact_power(n, _upper(moved, n), mde, level) >= 0.8
    assert _exact_power(n, _upper(moved, n), mde - 0.005, level) < 0.8


def test_a_patch_losing_12_of_220_items_fails_as_score_drop(tmp_path: Path) -> None:
    _lm_eval(tmp_path, 220, lost=12, gained=2)
    code, document = _run(tmp_path, *SIDES, *GATE)
    (test,) = document["summary"]["scores"]["tests"]
    assert test["p"] == pytest.approx(2 * (1 + 14 + 91) / 2**14, rel=1e-12)
    gate = document["score_gate"]
    assert document["fail_on"] == ["score-drop"]
    assert [d["decision"] for d in gate["decisions"]] == ["score-drop"]
    assert [f["name"] for f in gate["findings"]] == ["score-drop"] and gate["passes"] is False
    assert code == 1
    assert document["verdict"]["reasons"] == [
        "exact_match [strict-match]: 12 lost, 2 gained of 220, McNemar p = 0.0129: the patch is "
        "worse"
    ]


def test_same_scores_with_text_diffs_pass_only_when_the_mde_is_within_tolerance(
    tmp_path: Path,
) -> None:
    """1,000 docs, every generation's text differs, 5 lost and 5 gained: the run could detect
    a 1.2-point drop (0.9 at the plug-in rate 1 %, 1.2 at its upper bound 1.7 %), so it passes
    the default 2-point tolerance, and is held at 0.5 points."""
    _lm_eval(tmp_path, 1000, lost=5, gained=5)
    code, document = _run(tmp_path, *SIDES)
    assert code == 1 and document["summary"]["differing"] == 1000  # without the gate: text
    code, document = _run(tmp_path, *SIDES, *GATE)
    gate = document["score_gate"]
    (decision,) = gate["decisions"]
    assert (decision["decision"], decision["tolerance"], gate["level"]) == ("pass", 0.02, 0.05)
    _check_mde(decision, 1000, 10, 0.05)
    assert decision["mde"] == pytest.approx(0.0118, abs=0.0005)
    assert code == 0 and document["verdict"]["reasons"] == []
    text = run_k3diff("responses", *SIDES, *GATE, cwd=tmp_path).stdout
    assert (
        "exact_match [strict-match]: pass (observed drop 0.0 points): no significant drop, and "
        "the run could detect a change of 1.2 points at level 0.05 with 80 % power "
        "(tolerance 2.0 points)"
    ) in text
    assert "1000 of 1000 paired records differ (reported; under --fail-on score-drop" in text
    (tmp_path / "pass.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "pass.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr  # the bundle re-derives the pass
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert (
        "exact\\_match \\[strict-match] pass (tolerance 2.0 points; observed drop 0.0 points; "
        "the run could detect a change of 1.2 points at level 0.05)"
    ) in report
    code, document = _run(tmp_path, *SIDES, *GATE, "--score-tolerance", "0.5")
    (held,) = document["score_gate"]["decisions"]
    assert code == 1 and held["decision"] == "score-undecided"
    assert held["mde"] == decision["mde"] and held["tolerance"] == 0.005
    needed = held["items_needed"]
    assert _exact_power(needed, _upper(10, 1000), 0.005, 0.05) >= 0.8
    assert _exact_power(needed - 200, _upper(10, 1000), 0.005, 0.05) < 0.8
    # newuser61b: the count is at the rate's upper bound, not at the rate the run saw.
    assert (
        f"about {needed:,} items at the upper bound on this run's discordant rate would decide"
    ) in held["sentence"]


def test_a_tiny_run_of_20_items_is_held_with_its_mde_and_the_items_that_would_decide(
    tmp_path: Path,
) -> None:
    _lm_eval(tmp_path, 20, lost=0, gained=0)
    code, document = _run(tmp_path, *SIDES, *GATE)
    (decision,) = document["score_gate"]["decisions"]
    assert decision["decision"] == "score-undecided" and code == 1
    # Nothing moved: ψ = δ, every discordant item lost; power = P(Bin(20, δ) ≥ 6) (2/2^6 ≤ 0.05).
    mde = decision["mde"]
    assert stats.binom.sf(5, 20, mde) >= 0.8 > stats.binom.sf(5, 20, mde - 0.005)
    assert decision["items_needed"] > 300
    reason = document["verdict"]["reasons"][0]
    assert reason.startswith("exact_match [strict-match]: score-undecided: no significant drop")
    assert f"could only detect a change of {100 * mde:.1f} points" in reason


def test_a_patch_dropping_docs_is_not_a_pass_even_with_allow_unpaired(tmp_path: Path) -> None:
    """The patch run lost half its docs; what is left scores the same. Unpaired records fail
    as without the gate; accepted with --allow-unpaired, the 110 docs left are too few to back a
    2-point claim, so the gate holds."""
    _lm_eval(tmp_path, 220, lost=0, gained=0, keep=110)
    code, document = _run(tmp_path, *SIDES, *GATE)
    assert code == 1 and "110 unpaired (only on one side)" in document["verdict"]["reasons"]
    code, document = _run(tmp_path, *SIDES, *GATE, "--allow-unpaired")
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["n"], decision["decision"], code) == (110, "score-undecided", 1)


def test_differing_prompts_and_one_sided_metrics_never_pass(tmp_path: Path) -> None:
    _lm_eval(tmp_path, 1000, lost=0, gained=0)
    rows = [json.loads(line) for line in (tmp_path / SIDES[1]).read_text().splitlines()]
    rows[0]["prompt_hash"] = "0" * 64  # lm-eval's not-comparable
    rows[1]["acc"], rows[1]["metrics"] = 1.0, ["exact_match", "acc"]  # a metric one side has
    write_jsonl(tmp_path / SIDES[1], rows)
    code, document = _run(tmp_path, *SIDES, *GATE)
    reasons = document["verdict"]["reasons"]
    assert "1 not comparable (their prompts or eval inputs differ)" in reasons
    assert [f["name"] for f in document["score_gate"]["findings"]] == ["score-one-sided"]
    assert document["score_gate"]["decisions"][0]["decision"] == "pass"
    assert code == 1


def test_a_gate_on_logs_without_scores_is_held(tmp_path: Path) -> None:
    """Never a pass with nothing scored: held (exit 1, the document written), as telemetry's
    --fail-on acceptance-drop holds a run without speculation counts."""
    rows = [{"id": f"r{i}", "prompt": f"p{i}", "text": "same"} for i in range(5)]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", rows)
    assert _run(tmp_path, "base.jsonl", "patch.jsonl")[0] == 0
    code, document = _run(tmp_path, "base.jsonl", "patch.jsonl", *GATE)
    (finding,) = document["score_gate"]["findings"]
    assert finding["name"] == "score-undecided" and code == 1
    assert "no item carries a score on both sides" in finding["detail"]


def test_an_inspect_continuous_score_needs_a_tolerance_in_its_units_at_holms_level(
    tmp_path: Path,
) -> None:
    """Two scorers (a binary `match`, a continuous `judge`): each MDE is stated at α/2. The
    continuous one is held without a tolerance (k3diff cannot know its scale), and decided by
    the closed form against `--score-tolerance judge=VALUE`."""
    base, patch = [], []
    for i in range(600):
        judge = round(0.3 + 0.4 * ((i * 37) % 11) / 10, 3)
        moved = judge + (0.05 if i % 3 == 0 else -0.05 if i % 3 == 1 else 0.0)
        scores = {"match": "C" if i % 4 else "I", "judge": judge}
        base.append(inspect_sample(i, 1, f"Q{i}", f"a{i}", scores))
        patch.append(inspect_sample(i, 1, f"Q{i}", f"b{i}", {**scores, "judge": moved}))
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE)
    gate = document["score_gate"]
    assert gate["level"] == pytest.approx(0.025)
    decisions = {d["metric"]: d for d in gate["decisions"]}
    assert decisions["judge"]["decision"] == "score-undecided" and code == 1
    assert decisions["judge"]["tolerance"] is None
    differences = [0.05 if i % 3 == 0 else -0.05 if i % 3 == 1 else 0.0 for i in range(600)]
    sd = stats.tstd([round(p, 12) for p in differences])
    # Over 50 items the closed form, sized at power 0.9 for the stated 0.8 (stats64b).
    z = stats.norm.ppf(1 - 0.025 / 2) + stats.norm.ppf(0.9)
    closed = z * sd / math.sqrt(600) * math.sqrt(math.pi / 3)
    assert decisions["judge"]["mde"] == pytest.approx(closed, rel=1e-6)
    # match: nothing moved, so ψ = δ and the power is P(Bin(600, δ) ≥ 7) (2/2^7 ≤ 0.025).
    mde = decisions["match"]["mde"]
    assert stats.binom.sf(6, 600, mde) >= 0.8 > stats.binom.sf(6, 600, mde - 0.0025)
    assert decisions["match"]["decision"] == "pass"
    code, document = _run(
        tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "judge=0.02"
    )
    judge = next(d for d in document["score_gate"]["decisions"] if d["metric"] == "judge")
    assert (judge["decision"], judge["tolerance"], code) == ("pass", 0.02, 0)
    code, document = _run(
        tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "judge=0.005"
    )
    judge = next(d for d in document["score_gate"]["decisions"] if d["metric"] == "judge")
    assert judge["decision"] == "score-undecided" and code == 1
    assert judge["items_needed"] == math.ceil(600 * (closed / 0.005) ** 2)


def test_a_misspelt_tolerance_name_and_a_failed_request_hold_the_gate(tmp_path: Path) -> None:
    """`--score-tolerance exact_mach=1` would leave exact_match on the default 2 points: held,
    never passed by. A failed request (inspect's sample `error`) still fails: no score stands in
    for it, whatever the scorer wrote."""
    samples = [
        inspect_sample(i, 1, f"Q{i}", f"a{i}", {"match": "C" if i % 3 else "I"})
        for i in range(1000)
    ]
    write_eval_log(tmp_path / "base.eval", samples)
    write_eval_log(tmp_path / "patch.eval", samples)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE)
    assert code == 0 and document["score_gate"]["passes"] is True
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "mach=1")
    (finding,) = document["score_gate"]["findings"]
    assert code == 1 and finding["name"] == "score-undecided" and finding["metric"] is None
    assert "--score-tolerance names 'mach', which no metric" in finding["detail"]
    failed = [dict(sample) for sample in samples]
    failed[7] = {**failed[7], "error": {"message": "engine died", "traceback": ""}}
    write_eval_log(tmp_path / "failed.eval", failed)
    code, document = _run(tmp_path, "base.eval", "failed.eval", *GATE)
    assert code == 1 and document["score_gate"]["passes"] is True
    assert "1 of 1000 paired hold a failed request" in document["verdict"]["reasons"]


def test_a_mean_pulled_down_by_a_few_items_is_held_though_the_test_does_not_reject(
    tmp_path: Path,
) -> None:
    """16 of 2,000 items fall from 1 to 0 and 39 rise by 0.01: the signed-rank test balances
    the ranks (p = 0.93), but the mean fell by 0.0078, more than the 0.007 tolerated, while
    the run could detect 0.0057. A pass would claim what the scores contradict: held."""
    base, patch = [], []
    for i in range(2000):
        before, after = (1.0, 0.0) if i < 16 else (0.5, 0.51) if i < 55 else (0.5, 0.5)
        base.append(inspect_sample(i, 1, f"Q{i}", f"a{i}", {"judge": before}))
        patch.append(inspect_sample(i, 1, f"Q{i}", f"b{i}", {"judge": after}))
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)
    tolerance = ("--score-tolerance", "judge=0.007")
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *tolerance)
    (test,) = document["summary"]["scores"]["tests"]
    differences = [-1.0] * 16 + [0.01] * 39
    assert test["p"] == pytest.approx(stats.wilcoxon(differences).pvalue, rel=1e-9)
    assert test["p"] > 0.9 and test["significant"] is False
    (decision,) = document["score_gate"]["decisions"]
    assert decision["observed_drop"] == pytest.approx((16 - 0.39) / 2000)
    sd = stats.tstd(differences + [0.0] * 1945)
    closed = (stats.norm.ppf(0.975) + stats.norm.ppf(0.9)) * sd / math.sqrt(2000)
    assert decision["mde"] == pytest.approx(closed * math.sqrt(math.pi / 3), rel=1e-6)
    assert decision["mde"] < 0.007 < decision["observed_drop"]
    assert (decision["decision"], decision["items_needed"], code) == ("score-undecided", None, 1)
    assert "but the mean fell by 0.00781, more than the tolerance 0.007" in decision["sentence"]


@pytest.mark.parametrize("value", ["-1", "0", "nan", "x", "=2", "judge=inf"])
def test_a_bad_tolerance_or_one_without_the_gate_is_a_usage_error(
    tmp_path: Path, value: str
) -> None:
    _lm_eval(tmp_path, 5, 0, 0)
    result = run_k3diff("responses", *SIDES, *GATE, "--score-tolerance", value, cwd=tmp_path)
    assert result.exit_code == 2 and "--score-tolerance" in result.stderr
    result = run_k3diff("responses", *SIDES, "--score-tolerance", "1", cwd=tmp_path)
    assert result.exit_code == 2 and "applies to --fail-on score-drop" in result.stderr


def _refused(tmp_path: Path, document: dict[str, Any], name: str) -> str:
    (tmp_path / name).write_text(json.dumps(document))
    result = run_k3diff("report", name, "--out", f"b-{name}", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("\n") == 1 and name in result.stderr
    return result.stderr


def test_report_rederives_the_gate_and_refuses_one_edited_into_a_pass(tmp_path: Path) -> None:
    _lm_eval(tmp_path, 220, lost=0, gained=0)
    args = (*GATE, "--format", "json", "-o", "cmp.json")
    assert run_k3diff("responses", *SIDES, *args, cwd=tmp_path).exit_code == 1
    bundle = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr
    assert "score-undecided" in (tmp_path / "b" / "REPORT.md").read_text()
    original = json.loads((tmp_path / "cmp.json").read_text())
    forged = json.loads(json.dumps(original))
    gate = forged["score_gate"]
    gate["decisions"][0]["decision"] = "pass"
    gate["findings"], gate["passes"] = [], True
    forged["verdict"] = {"ok": True, "exit_code": 0, "reasons": []}
    said = _refused(tmp_path, forged, "pass.json")
    assert "decision 'pass' but its test and tolerance give 'score-undecided'" in said
    forged = json.loads(json.dumps(original))
    forged["score_gate"]["decisions"][0]["mde"] = 0.01
    assert "mde 0.01 and tolerance 0.02 but its test gives" in _refused(tmp_path, forged, "m.json")
    forged = json.loads(json.dumps(original))
    forged["fail_on"] = []
    assert "score_gate present but fail_on lacks score-drop" in _refused(tmp_path, forged, "f.json")
    forged = json.loads(json.dumps(original))
    forged["score_gate"]["level"] = 0.1
    assert "level 0.1 but alpha / metrics is 0.05" in _refused(tmp_path, forged, "l.json")


@pytest.mark.parametrize(
    ("n", "lost", "line"),
    [
        (220, 12, "score gate fails the run (1 score-drop)"),
        (20, 0, "score gate holds the run (1 score-undecided)"),
    ],
)
def test_the_text_says_a_drop_fails_and_an_undecided_metric_holds(
    tmp_path: Path, n: int, lost: int, line: str
) -> None:
    """newuser60b: a significant drop of 2.5 points on GSM8K read `score gate holds the run (2
    score-drop)`, the word the docs keep for a metric the run could not decide."""
    _lm_eval(tmp_path, n, lost=lost, gained=0)
    result = run_k3diff("responses", *SIDES, *GATE, cwd=tmp_path)
    assert result.exit_code == 1
    assert line in result.stdout.splitlines()


def test_the_bundle_names_each_metrics_own_tolerance_not_the_default(tmp_path: Path) -> None:
    """newuser60c: a pass at a named 4-point tolerance read in the bundle as a pass at 2 points
    that could detect only 2.8 (a pass the default would have held). Each metric's part names
    the tolerance it was judged at; a repeated name is a usage error, not the last one silently
    winning (a CI wrapper appending a looser value would loosen the gate)."""
    _lm_eval(tmp_path, 400, lost=8, gained=7)
    code, _ = _run(tmp_path, *SIDES, *GATE)
    assert code == 1  # held at the default 2 points: the run could detect only 3.4
    code, document = _run(tmp_path, *SIDES, *GATE, "--score-tolerance", "exact_match=4pt")
    assert code == 0
    (tmp_path / "s4.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "s4.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "tolerance 2.0 points" not in report and " 2 points" not in report
    assert (
        "exact\\_match \\[strict-match] pass (tolerance 4.0 points; observed drop 0.2 points; "
        "the run could detect a change of 3.4 points at level 0.05)"
    ) in report
    twice = run_k3diff(
        "responses",
        *SIDES,
        *GATE,
        "--score-tolerance",
        "exact_match=2pt",
        "--score-tolerance",
        "exact_match=3pt",
        cwd=tmp_path,
    )
    assert twice.exit_code == 2 and "exact_match" in twice.stderr
    assert len(twice.stderr.strip().splitlines()) == 1
