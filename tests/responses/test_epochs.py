"""inspect_ai samples scored in several epochs are one item each (stop 61): the tests take each
sample's mean over its epochs, so 300 samples in 5 epochs are n = 300, not 1,500, and the gate
decides them instead of holding the run. Every figure is checked against scipy on the
per-sample means computed here, and `report` recounts the tests from the records' scores."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from scipy import stats

from .eval_logs import inspect_sample, write_eval_log, write_json_log
from .test_score_gate import _run

GATE = ("--fail-on", "score-drop")
Epochs = dict[int, list[int]]
"""Per sample id, its epochs' scores (1 correct, 0 not)."""


def _side(rng: random.Random, samples: int, epochs: int, dropped: range = range(0)) -> Epochs:
    """A quarter of the samples always wrong, a tenth a coin flip in every epoch, the rest
    always right; the samples in `dropped` (always right otherwise) lose their first 3 epochs.
    Every sample from 250 on is scored in 3 epochs only (unequal epoch counts)."""
    scores: Epochs = {}
    for i in range(samples):
        count = epochs if i < 250 else 3
        if i % 4 == 0:
            scores[i] = [0] * count
        elif i % 10 == 1:
            scores[i] = [rng.randrange(2) for _ in range(count)]
        else:
            scores[i] = [0 if i in dropped and e < 3 else 1 for e in range(count)]
    return scores


def _write(path: Path, scores: Epochs, side: str) -> None:
    samples = [
        inspect_sample(i, e + 1, f"Q{i}", f"{side} {i} {e}", {"match": "C" if s else "I"})
        for i, values in scores.items()
        for e, s in enumerate(values)
    ]
    if path.suffix == ".json":
        write_json_log(path, samples)
    else:
        write_eval_log(path, samples)


def _compare(
    tmp_path: Path, base: dict[int, list[int]], patch: dict[int, list[int]], *args: str
) -> tuple[int, dict[str, Any]]:
    """`base.eval` and `patch.eval` written in `tmp_path` from the two sides' samples, and the
    gated `responses` run on them with `args` added: its exit code and document."""
    _write(tmp_path / "base.eval", base, "base")
    _write(tmp_path / "patch.eval", patch, "patch")
    return _run(tmp_path, "base.eval", "patch.eval", *GATE, *args)


def _report(tmp_path: Path, document: dict[str, Any], name: str) -> tuple[int, str]:
    (tmp_path / name).write_text(json.dumps(document))
    result = run_k3diff("report", name, "--out", f"b-{name}", cwd=tmp_path)
    return result.exit_code, result.stderr


def _expected(base: Epochs, patch: Epochs) -> tuple[list[float], float, float]:
    """The per-sample mean differences, their signed-rank p and the closed-form MDE at 0.05
    (over 50 items; sized at power 0.9 for the stated 0.8, stats64b)."""
    differences = [
        sum(patch[i]) / len(patch[i]) - sum(base[i]) / len(base[i]) for i in sorted(base)
    ]
    p = float(stats.wilcoxon([d for d in differences if d != 0]).pvalue)
    assert len(differences) > 50
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.9)
    sd = stats.tstd(differences)
    return differences, p, z * sd / math.sqrt(len(differences)) * math.sqrt(math.pi / 3)


def _one_test(document: dict[str, Any]) -> dict[str, Any]:
    (test,) = document["summary"]["scores"]["tests"]
    return test  # type: ignore[no-any-return]


def test_a_real_drop_over_300_samples_in_5_epochs_is_a_score_drop_at_n_300(
    tmp_path: Path,
) -> None:
    """30 always-right samples lose 3 of their 5 epochs: 6 points of the per-sample means. The
    epochs disagree on some samples, so the test is the signed-rank test of the 300 per-sample
    mean differences (not McNemar over 1,500 epochs)."""
    base = _side(random.Random(1), 300, 5)
    patch = _side(random.Random(2), 300, 5, dropped=range(2, 300, 10))
    _write(tmp_path / "base.eval", base, "base")
    _write(tmp_path / "patch.eval", patch, "patch")
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, "--score-tolerance", "2")
    test = _one_test(document)
    differences, p, mde = _expected(base, patch)
    assert (test["kind"], test["test"], test["n"]) == ("continuous", "wilcoxon-signed-rank", 300)
    assert test["p"] == pytest.approx(p, rel=1e-9) and p < 0.001
    assert test["mde"] == pytest.approx(mde, rel=1e-9)
    assert test["difference"] == pytest.approx(sum(differences) / 300)
    assert test["lost"] == sum(1 for d in differences if d < 0)
    (decision,) = document["score_gate"]["decisions"]
    assert (decision["decision"], code) == ("score-drop", 1)
    assert [f["name"] for f in document["score_gate"]["findings"]] == ["score-drop"]
    assert _report(tmp_path, document, "drop.json")[0] == 1  # accepted, the drop re-derived


def test_epoch_noise_alone_passes_when_the_mde_is_within_the_tolerance(tmp_path: Path) -> None:
    """The same samples on both sides, a tenth of them a coin flip in every epoch on each side
    independently (the same rate): the per-sample means move by noise only. n = 300, the MDE
    from their spread is under 2 points, the drop within it: a pass, where 1,500 epochs were
    held until stop 61. The JSON log reads the same."""
    base = _side(random.Random(3), 300, 5)
    patch = _side(random.Random(4), 300, 5)
    _write(tmp_path / "base.eval", base, "base")
    _write(tmp_path / "patch.eval", patch, "patch")
    _write(tmp_path / "patch.json", patch, "patch")
    tolerance = ("--score-tolerance", "match=2pt")
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *tolerance)
    test = _one_test(document)
    differences, p, mde = _expected(base, patch)
    assert (test["kind"], test["n"]) == ("continuous", 300)
    assert test["p"] == pytest.approx(p, rel=1e-9) and p > 0.05
    assert test["mde"] == pytest.approx(mde, rel=1e-9) and mde < 0.02
    (decision,) = document["score_gate"]["decisions"]
    assert decision["mde"] == pytest.approx(mde, rel=1e-9)  # one metric: level = alpha
    assert decision["observed_drop"] == pytest.approx(-sum(differences) / 300)
    assert abs(decision["observed_drop"]) < 0.02
    assert (decision["decision"], document["score_gate"]["findings"], code) == ("pass", [], 0)
    assert _report(tmp_path, document, "noise.json")[0] == 0
    _, from_json = _run(tmp_path, "base.eval", "patch.json", *GATE, *tolerance)
    assert _one_test(from_json)["p"] == test["p"]
    # One epoch's score edited in its record: the sample's mean, so every figure, moves.
    forged = json.loads(json.dumps(document))
    record = next(r for r in forged["records"] if r["key"] == "5/epoch-2")
    assert record["scores"] == [["match", None, 1, 1]]
    record["scores"] = [["match", None, 1, 0]]
    code, stderr = _report(tmp_path, forged, "forged.json")
    assert code == 2 and "scores 'match'" in stderr and "records' scores give" in stderr


def test_samples_whose_epochs_all_agree_are_mcnemar_items_counted_once(tmp_path: Path) -> None:
    """Greedy decoding: every epoch of a sample scores alike on both sides, so the per-sample
    means are 0 or 1 and McNemar's exact test counts samples: 5 epochs give the test 1 epoch
    gives (n 300, the same lost, gained, p and MDE)."""
    tests = []
    for epochs in (1, 5):
        for side, lost in (("base", ()), ("patch", range(3, 300, 60))):
            scores = {i: [0 if i % 4 == 0 or i in lost else 1] * epochs for i in range(300)}
            _write(tmp_path / f"{side}{epochs}.eval", scores, side)
        code, document = _run(tmp_path, f"base{epochs}.eval", f"patch{epochs}.eval", *GATE)
        tests.append(_one_test(document))
        assert code == 1  # 5 lost of 300: not significant, and 300 items cannot see 2 points
        assert document["score_gate"]["decisions"][0]["decision"] == "score-undecided"
        assert _report(tmp_path, document, f"e{epochs}.json")[0] == 1
    one, five = tests
    assert (five["kind"], five["n"], five["lost"], five["gained"]) == ("binary", 300, 5, 0)
    assert five["p"] == pytest.approx(stats.binomtest(5, 5, 0.5).pvalue)
    assert (five["records"], five["epochs"], "records" in one) == (1500, 5, False)
    assert "of 300 samples (1,500 records over 5 epochs), McNemar" in five["sentence"]
    assert {k: v for k, v in five.items() if k not in ("sentence", "records", "epochs")} == {
        k: v for k, v in one.items() if k != "sentence"
    }


def test_a_sample_is_one_item_whatever_its_epoch_count_or_their_order() -> None:
    """Unequal epoch counts weigh alike (one item a sample, not one an epoch), and the mean is
    the same bits in any order the epochs come in (`math.fsum`), so `report`, reading the
    records back, rebuilds what `responses` took."""
    from k3diff.responses.scores import ScoreCollector

    epochs = [("a", 1.0, 0.0), ("b", 0.1, 0.2), ("a", 1.0, 1.0), ("b", 0.7, 0.2), ("a", 0.0, 0.0)]
    epochs += [("b", 0.3, 0.2), ("c", 1.0, 1.0)]
    means = []
    for order in (epochs, epochs[::-1]):
        collector = ScoreCollector()
        for sample, base, patch in order:
            collector.take("judge", None, base, patch, sample)
        ((_, _, base_means, patch_means),) = collector.columns()
        samples = "abc" if order is epochs else "cba"
        means.append(
            (
                dict(zip(samples, base_means, strict=True)),
                dict(zip(samples, patch_means, strict=True)),
            )
        )
    base_by_sample = {"a": 2 / 3, "b": math.fsum([0.1, 0.7, 0.3]) / 3, "c": 1.0}
    patch_by_sample = {"a": 1 / 3, "b": math.fsum([0.2] * 3) / 3, "c": 1.0}
    assert means[0] == means[1] == (base_by_sample, patch_by_sample)
