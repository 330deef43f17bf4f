"""`responses --fail-on score-drop` under a hostile review (stop 60): every way found to make the
gate exit 0 where the scores really fell or the run could not tell, each through the CLI on
lm-eval `samples_*.jsonl` and inspect_ai logs. A pass must mean "the patch did not move the
scores by more than the tolerance, and the run could have seen it"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import run_k3diff

from k3diff.documents.catalog import load_schema

from .eval_logs import inspect_sample, write_eval_log
from .fixtures import write_jsonl
from .lm_eval_logs import generate_current

SIDES = ("base/samples_t.jsonl", "patch/samples_t.jsonl")
GATE = ("--fail-on", "score-drop")


def _lm_eval(
    tmp_path: Path, n: int, moved: int, metric: str = "exact_match", drop: int = 0
) -> None:
    """n docs, the base scores 1 on the first 70 %; the patch turns `moved` of the rest from 0 to
    1 (for a lower-is-better metric, `moved` more errors); `drop`: the patch log lacks its first
    `drop` docs (all scored 1 by the base)."""
    correct = int(0.7 * n)
    base = [1.0 if i < correct else 0.0 for i in range(n)]
    patch = [1.0 if correct <= i < correct + moved else s for i, s in enumerate(base)]
    for side, scores in (("base", base), ("patch", patch)):
        rows = []
        for i, score in enumerate(scores):
            row = generate_current(i, f"Q{i}?", [f"{side} {i}"], str(score), "strict-match", 0.0)
            del row["exact_match"]
            row[metric], row["metrics"] = score, [metric]
            rows.append(row)
        (tmp_path / side).mkdir(exist_ok=True)
        write_jsonl(tmp_path / side / "samples_t.jsonl", rows[drop:] if side == "patch" else rows)


def _run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("responses", *args, "--format", "json", cwd=tmp_path)
    assert result.stderr == "", result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(document, load_schema("responses"))
    return result.exit_code, document


def test_a_significant_move_of_a_metric_of_unknown_direction_is_held_not_passed(
    tmp_path: Path,
) -> None:
    """`wer` (word error rate) is lower-is-better, but k3diff cannot know it from the name: 40
    of 1,000 docs gaining an error read as 40 *gained*, 'significantly better', and the gate
    passed (exit 0) a patch that made 4 % of the answers worse. Held: a metric k3diff does not
    know the direction of passes only when it did not move beyond the tolerance either way."""
    _lm_eval(tmp_path, 1000, moved=40, metric="wer")
    code, document = _run(tmp_path, *SIDES, *GATE)
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["decision"], code) == ("score-undecided", 1)
    assert "which way is better for 'wer'" in decision["sentence"]
    # A known metric's significant improvement still passes (exact_match: higher is better).
    _lm_eval(tmp_path, 1000, moved=40)
    code, document = _run(tmp_path, *SIDES, *GATE)
    assert (document["score_gate"]["decisions"][0]["decision"], code) == ("pass", 0)


def test_an_unknown_direction_move_beyond_the_tolerance_is_held_even_when_not_significant(
    tmp_path: Path,
) -> None:
    """5 of 1,000 docs gaining an error (0.5 points, McNemar p = 0.0625) against a 0.4-point
    tolerance: 'observed_drop' read -0.5 points (a rise) and the gate passed."""
    _lm_eval(tmp_path, 1000, moved=5, metric="wer")
    code, document = _run(tmp_path, *SIDES, *GATE, "--score-tolerance", "wer=0.4pt")
    (decision,) = document["score_gate"]["decisions"]
    assert document["summary"]["scores"]["tests"][0]["significant"] is False
    assert (decision["decision"], code) == ("score-undecided", 1)


def test_docs_the_patch_dropped_hold_the_gate_under_allow_unpaired(tmp_path: Path) -> None:
    """The patch log lacks 30 of 1,300 docs, each one the base answered right (2.3 points of
    the run, beyond the 2-point tolerance): tested on the 1,270 left, nothing moved, and the
    gate passed under --allow-unpaired. The patch may have lost every one: held."""
    _lm_eval(tmp_path, 1300, moved=0, drop=30)
    code, document = _run(tmp_path, *SIDES, *GATE, "--allow-unpaired")
    assert (document["score_gate"]["decisions"][0]["decision"]) == "pass"  # the 1,270 left
    names = [(f["name"], f["metric"]) for f in document["score_gate"]["findings"]]
    assert names == [("score-undecided", None)] and code == 1
    assert "30 records only in the base" in document["score_gate"]["findings"][0]["detail"]
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr  # report re-derives the hold
    # Docs only in the patch take nothing from the base: they do not hold the gate.
    (tmp_path / "patch" / "samples_t.jsonl").rename(tmp_path / "x")
    (tmp_path / "base" / "samples_t.jsonl").rename(tmp_path / "patch" / "samples_t.jsonl")
    (tmp_path / "x").rename(tmp_path / "base" / "samples_t.jsonl")
    code, document = _run(tmp_path, *SIDES, *GATE, "--allow-unpaired")
    assert (document["score_gate"]["findings"], code) == ([], 0)


def test_epochs_of_one_sample_are_not_independent_items(tmp_path: Path) -> None:
    """300 samples, each scored in 5 epochs with the same result (greedy decoding): one epoch
    is held (the run could only detect 2.7 points), five read as 1,500 independent items and
    passed, though they hold no more evidence than the 300 samples. Since stop 61 a sample is
    one item, its mean over the epochs: five epochs are held as one is, with the same test."""
    tests = []
    for epochs in (1, 5):
        for side in ("base", "patch"):
            samples = [
                inspect_sample(i, e, f"Q{i}", f"{side}{i}", {"match": "C" if i % 4 else "I"})
                for i in range(300)
                for e in range(1, epochs + 1)
            ]
            write_eval_log(tmp_path / f"{side}{epochs}.eval", samples)
        code, document = _run(tmp_path, f"base{epochs}.eval", f"patch{epochs}.eval", *GATE)
        assert code == 1, epochs
        assert document["score_gate"]["passes"] is False
        tests.append(document["summary"]["scores"]["tests"][0])
    one, five = tests
    assert (five["records"], five["epochs"], five["n"]) == (1500, 5, 300)  # n counts samples
    same = {k: v for k, v in five.items() if k not in ("records", "epochs", "sentence")}
    assert same == {k: v for k, v in one.items() if k != "sentence"}
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr  # report re-derives the hold


def thirty_lost_of_1500(tmp_path: Path) -> dict[str, Any]:
    """`base.eval` and `patch.eval` in `tmp_path`: 1,500 inspect samples all right on the base,
    the first 30 wrong on the patch; the gated document `responses` writes for them (exit 1)."""
    base = [inspect_sample(i, 1, f"Q{i}", f"a{i}", {"match": "C"}) for i in range(1500)]
    patch = [
        inspect_sample(i, 1, f"Q{i}", f"b{i}", {"match": "I" if i < 30 else "C"})
        for i in range(1500)
    ]
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE)
    assert code == 1
    return document


def _forge(document: dict[str, Any], **test: Any) -> dict[str, Any]:
    """`document` with its one score test edited, its gate re-decided into a pass, and a
    passing verdict: the consistent edit a forger would make."""
    forged: dict[str, Any] = json.loads(json.dumps(document))
    forged["summary"]["scores"]["tests"][0].update(test)
    gate = forged["score_gate"]
    gate["decisions"][0]["decision"] = "pass"
    gate["findings"], gate["passes"] = [], True
    forged["verdict"] = {"ok": True, "exit_code": 0, "reasons": []}
    return forged


def _forge_unchanged(
    document: dict[str, Any], patch_mean: float, mde: float | None, **test: Any
) -> dict[str, Any]:
    """`_forge` into the most common lie: nothing lost or gained, p = 1, the patch's mean
    `patch_mean`, the gate's observed drop 0 at `mde` (and any other test field in `test`)."""
    forged = _forge(
        document,
        lost=0,
        gained=0,
        p=1.0,
        p_adjusted=1.0,
        significant=False,
        direction="unchanged",
        patch_mean=patch_mean,
        difference=0.0,
        mde=mde,
        **test,
    )
    forged["score_gate"]["decisions"][0].update(observed_drop=0.0, mde=mde)
    return forged


def _report(tmp_path: Path, document: dict[str, Any], name: str) -> tuple[int, str]:
    (tmp_path / name).write_text(json.dumps(document))
    result = run_k3diff("report", name, "--out", f"b-{name}", cwd=tmp_path)
    return result.exit_code, result.stderr


def test_report_recounts_the_score_tests_from_the_lm_eval_records(tmp_path: Path) -> None:
    """A drop of 30 lost, 0 gained of 1,000 edited into 0 lost, 0 gained, p = 1 (and every
    number the gate re-derives from them consistent): report re-derived a pass from the edited
    counts. The records carry each doc's metric change: recounted, and refused (exit 2, one
    line naming the field)."""
    _lm_eval(tmp_path, 1000, moved=0)
    rows = [json.loads(line) for line in (tmp_path / SIDES[1]).read_text().splitlines()]
    for row in rows[:30]:
        row["exact_match"] = 0.0
    write_jsonl(tmp_path / SIDES[1], rows)
    code, document = _run(tmp_path, *SIDES, *GATE)
    assert code == 1 and document["score_gate"]["decisions"][0]["decision"] == "score-drop"
    test = document["summary"]["scores"]["tests"][0]
    base = test["base_mean"]
    forged = _forge_unchanged(document, base, None)
    from k3diff.responses.scoretests import mcnemar_mde

    mde = mcnemar_mde(1000, 0, 0.05, 0.8)
    forged["summary"]["scores"]["tests"][0]["mde"] = mde
    forged["score_gate"]["decisions"][0]["mde"] = mde
    code, said = _report(tmp_path, forged, "counts.json")
    assert code == 2 and said.count("\n") == 1, said
    assert "lost 0 and gained 0, but its records' metric changes give 30 and 0" in said
    # p alone edited (a binary p is McNemar's of the stated counts, whatever the records).
    code, said = _report(tmp_path, _forge(document, p=0.9, p_adjusted=0.9, significant=False), "p")
    assert code == 2 and "p 0.9 but McNemar's exact test of 30 lost, 0 gained gives" in said
    # n inflated past the records (a smaller MDE): refused.
    code, said = _report(tmp_path, _forge(document, n=5000), "n.json")
    assert code == 2 and "n 5000 but only 1000 paired records" in said


def test_a_metric_named_twice_in_lm_evals_metrics_list_counts_each_doc_once(
    tmp_path: Path,
) -> None:
    """300 docs, nothing moved: held (the run could only detect 2.7 points). With each line's
    `metrics` list naming exact_match five times, every doc was counted five times, n = 1,500,
    and the gate passed."""
    _lm_eval(tmp_path, 300, moved=0)
    for side in SIDES:
        rows = [json.loads(line) for line in (tmp_path / side).read_text().splitlines()]
        for row in rows:
            row["metrics"] = ["exact_match"] * 5
        write_jsonl(tmp_path / side, rows)
    code, document = _run(tmp_path, *SIDES, *GATE)
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["n"], decision["decision"], code) == (300, "score-undecided", 1)


def test_a_doc_with_a_hundred_thousand_metrics_is_read_in_linear_time(tmp_path: Path) -> None:
    """Each lm-eval line's fields were copied without its metrics by a test against a tuple of
    every metric name: quadratic, 200,000 metrics on one 3 MB line took minutes. Bounded now
    (no timing asserted: the run simply finishes, within the suite's timeout)."""
    _lm_eval(tmp_path, 1, moved=0)
    (row,) = [json.loads(line) for line in (tmp_path / SIDES[1]).read_text().splitlines()]
    del row["metrics"]
    row.update({f"m{i}": 1.0 for i in range(100_000)})
    write_jsonl(tmp_path / SIDES[1], [row])
    code, document = _run(tmp_path, *SIDES, *GATE)
    assert code == 1 and document["summary"]["scores"]["one_sided"] == 100_000


def test_a_corpus_metric_the_gate_cannot_test_holds_it(tmp_path: Path) -> None:
    """lm-eval writes a corpus metric per doc as `[refs, prediction]` (bleu, ter, chrf): no
    number, so no test. Every doc's bleu input changed and the gate passed on exact_match
    alone, saying nothing of bleu. Held, by name; report re-derives the hold."""
    _lm_eval(tmp_path, 1000, moved=0)
    for side in SIDES:
        rows = [json.loads(line) for line in (tmp_path / side).read_text().splitlines()]
        for row in rows:
            row["metrics"] = ["exact_match", "bleu"]
            row["bleu"] = [["the reference"], "base words" if "base" in side else "other"]
        write_jsonl(tmp_path / side, rows)
    code, document = _run(tmp_path, *SIDES, *GATE)
    assert document["summary"]["scores"]["unscored"] == ["bleu [strict-match]"]
    names = [(f["name"], f["metric"]) for f in document["score_gate"]["findings"]]
    assert (names, code) == ([("score-undecided", "bleu [strict-match]")], 1)
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr


def test_the_epoch_key_field_is_inspects() -> None:
    from k3diff.responses import inspect_log
    from k3diff.responses.epochs import EPOCH_KEY_FIELD

    assert EPOCH_KEY_FIELD == inspect_log.KEY_FIELD


@pytest.mark.parametrize(("field", "value"), [("n", 0), ("n", -3), ("lost", -5), ("gained", -1)])
def test_report_refuses_counts_no_run_writes_in_one_line(
    tmp_path: Path, field: str, value: int
) -> None:
    """An edited n of 0 divided by zero, a negative count reached scipy: internal errors.
    Refused as a field of the document instead (exit 2, one line)."""
    _lm_eval(tmp_path, 100, moved=3)
    code, document = _run(tmp_path, *SIDES, *GATE)
    document["summary"]["scores"]["tests"][0][field] = value
    code, said = _report(tmp_path, document, "edited.json")
    assert code == 2 and said.count("\n") == 1, said
    assert f"field 'summary.scores.tests[0].{field}' must be an integer of at least" in said


@pytest.mark.parametrize("partial", [False, True])
def test_one_partial_grade_does_not_make_a_named_tolerance_100_times_more_lenient(
    tmp_path: Path, partial: bool
) -> None:
    """inspect's `match` graded C/I is binary; one `P` (0.5) makes it continuous. The patch
    loses 5 of 300 items (1.7 points): `match=1` (1 point, or the whole range) never passes it,
    whatever the data; `match=1pt` and `match=0.01` mean the same either way."""
    grades = ["C"] * 299 + ["P" if partial else "C"]
    base = [inspect_sample(i, 1, f"Q{i}", f"a{i}", {"match": g}) for i, g in enumerate(grades)]
    patch = [
        inspect_sample(i, 1, f"Q{i}", f"b{i}", {"match": "I" if i < 5 else g})
        for i, g in enumerate(grades)
    ]
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)
    code, document = _run(
        tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "match=1"
    )
    (decision,) = document["score_gate"]["decisions"]
    assert (code, decision["decision"], decision["tolerance"]) == (1, "score-undecided", 1.0)
    assert "write 1pt for points or 0.01 in its own units" in decision["sentence"]
    code, said = _report(tmp_path, document, "held.json")  # report re-derives the hold
    assert code == 1 and "; FAIL (exit 1)" in said.splitlines()[-1]
    for value in ("match=1pt", "match=0.01"):
        code, document = _run(
            tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", value
        )
        (decision,) = document["score_gate"]["decisions"]
        assert code == 1 and decision["decision"] != "pass"
        assert decision["tolerance"] == pytest.approx(0.01)


def test_a_binary_drop_beyond_the_tolerance_is_worded_for_mcnemar(tmp_path: Path) -> None:
    """8 lost and 2 gained of 220 docs: the accuracy fell 6/220 = 2.7 points, past the 2-point
    tolerance, and McNemar's p = 2·(1 + 10 + 45)/2¹⁰ = 0.109 does not reject. The sentence read
    "a few items fell far (the test ranks the items, the mean weighs them)", the signed-rank
    test's reason: McNemar counts only the 10 items that flipped, and each moved by one. The
    run could detect only 5.3 points, more than the drop: polish62 says so, too few items to
    tell and how many would decide it, as a continuous metric's sentence does (stop 61)."""
    correct = 154
    for side in ("base", "patch"):
        rows = []
        for i in range(220):
            score = 1.0 if i < correct else 0.0
            if side == "patch" and (i < 8 or correct <= i < correct + 2):
                score = 1.0 - score
            answer = "42" if score else "41"
            rows.append(generate_current(i, f"Q{i}?", [f"{side} {answer}"], answer, "s", score))
        (tmp_path / side).mkdir(exist_ok=True)
        write_jsonl(tmp_path / side / "samples_t.jsonl", rows)
    code, document = _run(tmp_path, *SIDES, *GATE)
    (test,) = document["summary"]["scores"]["tests"]
    assert test["p"] == pytest.approx(2 * (1 + 10 + 45) / 2**10, rel=1e-12)
    (decision,) = document["score_gate"]["decisions"]
    assert decision["observed_drop"] == pytest.approx(6 / 220)
    assert (decision["decision"], code) == ("score-undecided", 1)
    sentence = decision["sentence"]
    assert "ranks" not in sentence and "fell far" not in sentence
    assert "the accuracy fell by 2.7 points, more than the tolerance 2.0 points" in sentence
    mde, needed = decision["mde"], decision["items_needed"]
    assert mde > 6 / 220 and needed is not None and needed > 220
    assert (
        f"the run could detect only a change of {100 * mde:.1f} points at level 0.05 with 80 % "
        "power: too few items to tell (McNemar's test counts only the 10 items that flipped: 8 "
        f"lost, 2 gained); about {needed:,} items would decide it"
    ) in sentence
    text = run_k3diff("responses", *SIDES, *GATE, cwd=tmp_path)
    assert text.exit_code == 1 and sentence in text.stdout
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr  # report rebuilds the same sentence
    assert f"about {needed:,} items would decide it" in (tmp_path / "b/REPORT.md").read_text()
