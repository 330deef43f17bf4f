"""The score gate's soft spots closed at stop 61: a tolerance printed as given, a metric whose
every item moved alike decided exactly, and the bundle naming a tolerance above the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff
from scipy import stats

from .eval_logs import inspect_sample, write_eval_log
from .test_score_gate import GATE, SIDES, _lm_eval, _refused, _run


def test_a_fractional_tolerance_is_printed_as_given_not_rounded_to_zero(tmp_path: Path) -> None:
    """scores61: a bare `--score-tolerance 0.02` read "tolerance 0.0 points" in the text and the
    bundle (a reader saw a gate at zero). The tolerance prints as given; MDEs keep one decimal."""
    _lm_eval(tmp_path, 400, lost=8, gained=7)
    result = run_k3diff("responses", *SIDES, *GATE, "--score-tolerance", "0.02", cwd=tmp_path)
    assert result.exit_code == 1
    assert "0.0 points" not in result.stdout
    (line,) = [
        x for x in result.stdout.splitlines() if x.startswith("exact_match [strict-match]: score-")
    ]
    assert "more than the tolerance 0.02 points, and the run could detect only" in line, line
    _, document = _run(tmp_path, *SIDES, *GATE, "--score-tolerance", "1.25")
    (decision,) = document["score_gate"]["decisions"]
    assert decision["tolerance"] == pytest.approx(0.0125)
    assert "tolerance 1.25 points" in decision["sentence"]
    (tmp_path / "s.json").write_text(json.dumps(document))
    assert run_k3diff("report", "s.json", "--out", "b", cwd=tmp_path).exit_code == 1
    assert "tolerance 1.25 points;" in (tmp_path / "b" / "REPORT.md").read_text()


def _constant(tmp_path: Path, n: int, shift: float) -> None:
    """n inspect samples scored 0.5 by a `judge` (continuous) in the base, 0.5 + shift in the
    patch: every item moves alike."""
    base = [inspect_sample(i, 1, f"Q{i}", f"a{i}", {"judge": 0.5}) for i in range(n)]
    patch = [inspect_sample(i, 1, f"Q{i}", f"b{i}", {"judge": 0.5 + shift}) for i in range(n)]
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)


def test_a_metric_whose_every_item_moved_alike_is_decided_exactly(tmp_path: Path) -> None:
    """scores61: differences that do not vary have no spread, so no MDE, and the metric was held
    whatever the run: a judge unchanged on every item could never pass. The drop is exact across
    the items; it is compared with the tolerance once there are the items a signed-rank test
    needs to reject anything at the level (every item moved one way: p = 2/2^n, the sign test's
    binomtest(n, n)); fewer are still held."""
    enough = next(n for n in range(2, 40) if stats.binomtest(n, n).pvalue <= 0.05)
    assert enough == 6
    tolerance = ("--score-tolerance", "judge=0.02")
    _constant(tmp_path, enough, 0.0)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *tolerance)
    (decision,) = document["score_gate"]["decisions"]
    assert (code, decision["decision"], decision["mde"]) == (0, "pass", None)
    assert (
        "every one of the 6 items moved by the same 0, so the drop is exact"
        in (decision["sentence"])
    )
    (tmp_path / "g.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "g.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr
    assert "every item moved by 0, exactly" in (tmp_path / "b" / "REPORT.md").read_text()
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE)
    assert code == 1  # no tolerance in its units: held, as any continuous metric
    _constant(tmp_path, enough - 1, 0.0)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *tolerance)
    (decision,) = document["score_gate"]["decisions"]
    assert (code, decision["decision"]) == (1, "score-undecided")
    # Five items all 0.01 lower: p = 2/32 > 0.05, not significant, and too few to decide.
    _constant(tmp_path, enough - 1, -0.01)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *tolerance)
    (decision,) = document["score_gate"]["decisions"]
    assert (code, decision["decision"]) == (1, "score-undecided")


def test_report_refuses_an_mde_of_null_over_items_that_moved_apart(tmp_path: Path) -> None:
    """No spread means every item moved alike: a document stating `mde` null with some items
    moved and some not would be decided exactly on a drop that is not exact."""
    _constant(tmp_path, 10, 0.0)
    _, document = _run(
        tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "judge=0.02"
    )
    (test,) = document["summary"]["scores"]["tests"]
    test["gained"] = 3
    line = _refused(tmp_path, document, "g.json")
    assert "mde null (differences that do not vary) but 0 lost and 3 gained of 10" in line, line


def test_a_tolerance_above_the_default_is_named_beside_the_verdict(tmp_path: Path) -> None:
    """scores61: `--score-tolerance 5` passed a run the default 2 points holds (it could detect
    only 2.8 points), and the bundle's bottom line read like any pass. A binary metric's
    tolerance above the default is named there, as a non-default α is, and a continuous one's
    (it has no default), each in its own units; the default is not named."""
    _lm_eval(tmp_path, 400, lost=8, gained=7)
    code, document = _run(tmp_path, *SIDES, *GATE, "--score-tolerance", "5")
    assert code == 0
    (tmp_path / "s.json").write_text(json.dumps(document))
    result = run_k3diff("report", "s.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    named = "s.json score gate judged exact_match at a tolerance of 5.0 points (default 2.0 points)"
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["bottom_line"][1] == named
    assert named in summary["qualifications"]
    markdown = (tmp_path / "b" / "REPORT.md").read_text()
    escaped = named.replace("_", "\\_")
    assert f"- {escaped}" in markdown.split("## Evidence matrix")[0]
    html = (tmp_path / "b" / "report.html").read_text()
    assert named in html.split("Evidence matrix")[0]
    for args in ((), ("--score-tolerance", "2"), ("--score-tolerance", "1")):
        _, document = _run(tmp_path, *SIDES, *GATE, *args)
        (tmp_path / "d.json").write_text(json.dumps(document))
        run_k3diff("report", "d.json", "--out", "d", cwd=tmp_path)
        summary = json.loads((tmp_path / "d" / "summary.json").read_text())
        assert not any("score gate judged" in line for line in summary["bottom_line"]), args
    _constant(tmp_path, 10, 0.0)
    _, document = _run(
        tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "judge=0.05"
    )
    (tmp_path / "j.json").write_text(json.dumps(document))
    assert run_k3diff("report", "j.json", "--out", "j", cwd=tmp_path).exit_code == 0
    summary = json.loads((tmp_path / "j" / "summary.json").read_text())
    continuous = "j.json score gate judged judge at a tolerance of 0.05 (default none: named in its own units)"
    assert summary["bottom_line"][1] == continuous


def _exact_power(n: int, psi: float, delta: float, level: float) -> float:
    """McNemar's exact test's power at discordant rate ψ (at least δ), written out with
    binomtest over the discordant counts that carry any probability."""
    psi = max(psi, delta)
    q = (psi + delta) / (2 * psi)
    low, high = int(stats.binom.ppf(1e-13, n, psi)), int(stats.binom.isf(1e-13, n, psi)) + 1
    total = 0.0
    for d in range(max(1, low), min(n, high) + 1):
        rejected = sum(
            stats.binom.pmf(k, d, q) for k in range(d + 1) if stats.binomtest(k, d).pvalue <= level
        )
        total += stats.binom.pmf(d, n, psi) * rejected
    return total


def test_a_run_that_saw_few_flips_does_not_claim_the_power_of_its_plug_in_rate(
    tmp_path: Path,
) -> None:
    """scores61: GSM8K's 1,319 items with 80 flipped (6.1 %): at the plug-in rate the run could
    detect 1.95 points and passed the 2-point gate, but a rate of 6.1 % seen is compatible with
    7.3 % (one-sided Clopper-Pearson at α), where it could detect only 2.1. The MDE takes the
    bound, so the run is held, saying how many items would decide it."""
    _lm_eval(tmp_path, 1319, lost=40, gained=40)
    code, document = _run(tmp_path, *SIDES, *GATE)
    (decision,) = document["score_gate"]["decisions"]
    assert (code, decision["decision"]) == (1, "score-undecided")
    upper = float(stats.beta.ppf(0.95, 80 + 1, 1319 - 80))
    assert upper == pytest.approx(0.0726, abs=5e-4)
    mde = decision["mde"]
    assert (
        _exact_power(1319, upper, mde, 0.05) >= 0.8 > _exact_power(1319, upper, mde - 0.001, 0.05)
    )
    assert mde > 0.02 and _exact_power(1319, 80 / 1319, 0.02, 0.05) >= 0.8  # the plug-in passed
    assert _exact_power(decision["items_needed"], upper, 0.02, 0.05) >= 0.8
    (tmp_path / "g.json").write_text(json.dumps(document))
    assert run_k3diff("report", "g.json", "--out", "b", cwd=tmp_path).exit_code == 1


def test_report_recounts_inspect_scores_from_the_records_own_scores(tmp_path: Path) -> None:
    """scores61: inspect_ai scores were compared fields (capped at 200 a record), so a
    consistent edit of the score section (30 lost of 1,500 made 0 lost, p 1, the means equal, the
    gate a pass) went through `report`. Each scored record carries its `[metric, filter, base,
    patch]`: every test is recomputed from them and the edit refused (exit 2, one line)."""
    from .test_score_gate_review import _forge_unchanged, thirty_lost_of_1500

    document = thirty_lost_of_1500(tmp_path)
    assert document["score_gate"]["decisions"][0]["decision"] == "score-drop"
    scored = [r["scores"] for r in document["records"]]
    assert scored[0] == [["match", None, 1.0, 0.0]] and scored[30] == [["match", None, 1, 1]]
    test = document["summary"]["scores"]["tests"][0]
    assert (test["lost"], test["gained"]) == (30, 0)
    assert test["p"] == pytest.approx(stats.binomtest(0, 30).pvalue, rel=1e-12)
    from k3diff.responses.scoretests import mcnemar_mde

    mde = mcnemar_mde(1500, 0, 0.05, 0.8)
    forged = _forge_unchanged(document, 1.0, mde)
    (tmp_path / "f.json").write_text(json.dumps(forged))
    result = run_k3diff("report", "f.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "scores 'match': lost 0 but its records' scores give 30" in result.stderr
    # A document whose records carry no scores (written by an older k3diff, or stripped) is refused.
    for record in document["records"]:
        del record["scores"]
    (tmp_path / "s.json").write_text(json.dumps(document))
    result = run_k3diff("report", "s.json", "--out", "c", cwd=tmp_path)
    assert result.exit_code == 2 and "no paired record carries its scores" in result.stderr
