"""An accuracy scored 0 or 1 in every epoch whose epochs disagree (stop 61, part 2): its
per-sample means are fractions, so the test is the signed-rank test of a continuous metric, but
the gate judges it at the binary default, 2 points of its mean on [0, 1], without
`--score-tolerance`; one partial (0.5) epoch value keeps the continuous rule (a tolerance must
be named). Every figure is checked against scipy on the per-sample means computed here."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .eval_logs import inspect_sample, write_eval_log
from .test_epochs import GATE, _compare, _expected, _one_test, _report, _side, _write
from .test_score_gate import _run

PER_SAMPLE = "2.0 points of the per-sample mean of epochs each scored 0 or 1"


def test_epoch_noise_passes_at_the_default_tolerance(tmp_path: Path) -> None:
    """300 samples in 5 epochs (the last 50 in 3: 1,400 records), noise only: the MDE of the
    per-sample means is under 2 points, so a default gate passes (held for want of a
    tolerance until now). `report` rederives the classification from the records' scores."""
    base, patch = _side(random.Random(3), 300, 5), _side(random.Random(4), 300, 5)
    code, document = _compare(tmp_path, base, patch)
    test = _one_test(document)
    differences, p, mde = _expected(base, patch)
    assert (test["kind"], test["n"], test["binary_epochs"]) == ("continuous", 300, True)
    assert test["p"] == pytest.approx(p, rel=1e-9) and p > 0.05
    assert test["mde"] == pytest.approx(mde, rel=1e-9) and mde < 0.02
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["decision"], decision["tolerance"], code) == ("pass", 0.02, 0)
    assert decision["observed_drop"] == pytest.approx(-sum(differences) / 300)
    assert PER_SAMPLE in decision["sentence"]
    assert _report(tmp_path, document, "noise.json")[0] == 0
    # The flag dropped from the document: the records' scores give it back, and without it
    # the metric has no tolerance, so the stated pass is refused.
    forged = json.loads(json.dumps(document))
    del forged["summary"]["scores"]["tests"][0]["binary_epochs"]
    code, stderr = _report(tmp_path, forged, "forged.json")
    assert code == 2 and "binary_epochs False but its records' scores give True" in stderr


def test_a_3_point_drop_of_the_per_sample_means_is_a_score_drop(tmp_path: Path) -> None:
    """15 always-right samples lose 3 of their 5 epochs: 3 points of the per-sample means,
    significant, so a default gate fails it as score-drop."""
    base = _side(random.Random(1), 300, 5)
    patch = _side(random.Random(2), 300, 5, dropped=range(2, 240, 16))
    code, document = _compare(tmp_path, base, patch)
    test = _one_test(document)
    differences, p, mde = _expected(base, patch)
    assert (test["kind"], test["n"], test["binary_epochs"]) == ("continuous", 300, True)
    assert test["p"] == pytest.approx(p, rel=1e-9) and p < 0.05
    assert test["mde"] == pytest.approx(mde, rel=1e-9)
    assert -sum(differences) / 300 == pytest.approx(0.03, abs=0.01)
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["decision"], decision["tolerance"], code) == ("score-drop", 0.02, 1)
    assert [f["name"] for f in document["score_gate"]["findings"]] == ["score-drop"]
    assert _report(tmp_path, document, "drop.json")[0] == 1


def test_a_partial_epoch_value_keeps_the_continuous_rule(tmp_path: Path) -> None:
    """One epoch scored 0.5 (inspect's partial credit): not 0/1 epochs, so no default; the gate
    holds the metric until a tolerance is named."""
    base, patch = _side(random.Random(3), 300, 5), _side(random.Random(4), 300, 5)
    for side, scores in (("base", base), ("patch", patch)):
        samples = [
            inspect_sample(
                i, e + 1, f"Q{i}", f"{side} {i} {e}", {"match": "P" if (i, e) == (5, 0) else s}
            )
            for i, values in scores.items()
            for e, s in enumerate("C" if v else "I" for v in values)
        ]
        write_eval_log(tmp_path / f"{side}.eval", samples)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE)
    test = _one_test(document)
    assert (test["kind"], "binary_epochs" in test) == ("continuous", False)
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["decision"], decision["tolerance"], code) == ("score-undecided", None, 1)
    code, document = _run(
        tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "match=2pt"
    )
    assert document["score_gate"]["decisions"][0]["decision"] == "pass"


def test_n_is_named_as_samples_in_text_markdown_and_bundle(tmp_path: Path) -> None:
    """'1400 records … n 300' said n counts samples nowhere: every reader of the test's
    sentence now reads '300 samples (1,400 records over 5 epochs)'."""
    base, patch = _side(random.Random(3), 300, 5), _side(random.Random(4), 300, 5)
    _write(tmp_path / "base.eval", base, "base")
    _write(tmp_path / "patch.eval", patch, "patch")
    said = "gained of 300 samples (1,400 records over 5 epochs), Wilcoxon"
    for form in ("text", "markdown"):
        result = run_k3diff(
            "responses", "base.eval", "patch.eval", *GATE, "--format", form, cwd=tmp_path
        )
        assert result.exit_code == 0 and said in result.stdout, form
        assert "per-sample means of epochs each scored 0 or 1" in result.stdout
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE)
    assert (document["summary"]["scores"]["tests"][0]["records"], code) == (1400, 0)
    assert _report(tmp_path, document, "cmp.json")[0] == 0
    bundle = "\n".join(p.read_text() for p in (tmp_path / "b-cmp.json").rglob("*.md"))
    assert said in bundle


def test_an_underpowered_drop_beyond_the_tolerance_says_too_few_items(tmp_path: Path) -> None:
    """9 always-right samples of 300 lose all 3 epochs: the mean fell by 3 points, past the
    2-point default, not significant at --score-alpha 0.01, and the run could detect only 4.2
    points. The sentence gave the signed-rank test's reason, "a few items fell far", where the
    reason is power (stop 61, newuser61c): it says so and how many items would decide it."""
    base = _side(random.Random(1), 300, 3)
    patch = _side(random.Random(2), 300, 3, dropped=range(2, 2 + 16 * 9, 16))
    code, document = _compare(tmp_path, base, patch, "--score-alpha", "0.01")
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["decision"], code) == ("score-undecided", 1)
    assert 0.02 < decision["observed_drop"] < decision["mde"]
    needed = decision["items_needed"]
    assert needed is not None and needed > 300
    sentence = decision["sentence"]
    assert "fell far" not in sentence and "ranks the items" not in sentence
    assert "the mean fell by 0.03, more than the tolerance 0.02" in sentence
    assert (  # an epoch log's items are its samples, as the rest of its lines say
        f"the run could detect only a change of {decision['mde']:.3g} at level 0.01 with 80 % "
        f"power: too few samples to tell; about {needed:,} samples would decide it"
    ) in sentence
    text = run_k3diff(
        "responses", "base.eval", "patch.eval", *GATE, "--score-alpha", "0.01", cwd=tmp_path
    )
    assert text.exit_code == 1 and sentence in text.stdout
    assert _report(tmp_path, document, "underpowered.json")[0] == 1
    summary = (tmp_path / "b-underpowered.json" / "summary.json").read_text()
    assert f"about {needed:,} samples would decide it" in summary


def test_the_text_gate_line_gives_the_observed_drop(tmp_path: Path) -> None:
    """The bundle's gate line gave the observed drop or rise and the CLI's did not (newuser61c):
    a pass now says it too."""
    base, patch = _side(random.Random(3), 300, 5), _side(random.Random(4), 300, 5)
    code, document = _compare(tmp_path, base, patch)
    (decision,) = document["score_gate"]["decisions"]
    drop = decision["observed_drop"]
    observed = f"observed drop {drop:.3g}" if drop >= 0 else f"observed rise {-drop:.3g}"
    text = run_k3diff("responses", "base.eval", "patch.eval", *GATE, cwd=tmp_path)
    assert (code, text.exit_code) == (0, 0)
    assert f"\nmatch: pass ({observed}): no significant drop, and the run" in text.stdout


def test_one_sample_in_3_epochs_is_too_few_samples_and_the_table_says_samples(
    tmp_path: Path,
) -> None:
    """polish62: an epoch log's sentences said "too few items", and its table's `n` column
    showed samples without saying so. One sample scored in 3 epochs on each side: too few
    samples, in the test's sentence, the gate's and the table (text and Markdown)."""
    _write(tmp_path / "base.eval", {0: [1, 1, 0]}, "base")
    _write(tmp_path / "patch.eval", {0: [1, 0, 0]}, "patch")
    sentence = (
        "match: 1 lost, 0 gained of 1 sample (3 records over 3 epochs), Wilcoxon signed-rank "
        "p = 1: no significant change at α = 0.05 (too few samples to detect any change with "
        "80 % power)"
    )
    gate = (
        "though no detectable change can be sized (too few samples, or differences that do not "
        "vary): a few samples fell far (the test ranks the samples, the mean weighs them)"
    )
    for form, cell in (("text", "Wilcoxon  1 sample  "), ("markdown", "| Wilcoxon | 1 sample |")):
        result = run_k3diff(
            "responses", "base.eval", "patch.eval", *GATE, "--format", form, cwd=tmp_path
        )
        assert result.exit_code == 1 and "items" not in result.stdout, form
        assert sentence in result.stdout and gate in result.stdout and cell in result.stdout
