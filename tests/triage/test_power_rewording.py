"""The MMD test's stated power against a rewording (mmdpower75). Until then the simulated patch's
new answer sat at kernel 0 to every base answer, and the null was a bootstrap from the base
alone; a real new answer, a rewording of a base answer, scores 0.10-0.75 against the base's
under the test's kernel, and the real test detected it 0.39-0.59 of the time at the 80 % stated
(power74r). A patch rewording a third of its answers, on a base of 30 distinct near-identical answers, was
cleared at the default --shift 0.35 (stated 22 %), exit 0.

Now the new answer lies as close to the base as the base's most typical sample is to the others
(`mmdpower.new_answer_kernel`), each simulated table goes through the permutation test itself,
and the simulated power must reach the target at its 95 % lower bound. The check below is the
real test (`distribution.mmd_test`) on real rewordings of the base's texts, `RUNS` seeded runs a
point: at the stated shift the one-sided 95 % Clopper–Pearson lower bound of its rejection rate
is at least the 80 % stated, on both base shapes power74r measured. Until power77 the check
allowed two standard errors below 80 %, and the 30-a-side near-identical base ("answer k is
yes", a sixth "· is yes" answer) was detected 0.78 of the time at the 0.50 stated (1,000
runs): the new answer at c to every base answer alike was easier to detect than a rewording of
the most typical answer at the same mean kernel (`mmdpower.new_answer_row`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_support import run_k3diff
from scipy import stats

from k3diff.triage import distribution as dist
from k3diff.triage import kernel, mmdpower, power
from triage.helpers import S, compare_texts, write_samples

WORDS = ["yes", "no", "maybe", "yes", "no", "yes", "no", "yes", "yes", "no"]
NEAR = [f"answer {c} is {w}" for c, w in zip("abcdefghij", WORDS, strict=True)]
"""A base of ten near-identical answers (one letter and the verdict apart)."""
FOUR = ["The answer is 4."] * 6 + ["It is 4."] * 3 + ["4"] * 2 + ["Four."]
"""A base of four answers, 6 / 3 / 2 / 1 of 12."""
SHAPES = {
    "near-identical": (NEAR, ["answer k is yes", "answer a is yeah", "answer k is unsure"]),
    "four answers": (FOUR, ["The answer is 4!", "The answer: 4.", "It is four.", "Answer 4"]),
}
"""Each base and rewordings of its answers (edits of one character to a few words)."""
RUNS = 300
"""Runs a point: at the lowest real rate measured (0.886, 1,000 runs) the Clopper–Pearson
bound of 300 is about 0.85, and the 30-a-side points take about 20 s each on a quiet core."""
PERMUTATIONS = 999
LEVEL = 0.05


def _mean_kernel(new: str, base: list[str]) -> float:
    return float(kernel.gram([new, *base])[0, 1:].mean())


def _measured(base: list[str], new: str, shift: float, monkeypatch: pytest.MonkeyPatch) -> int:
    """The real test's rejections at `LEVEL`: `RUNS` seeded patches of len(base) samples,
    each the new answer with chance `shift`, else one of the base's own texts. The test is
    `distribution.mmd_test` itself; its kernel, `kernel.gram`, is computed once over the
    distinct texts and looked up (the same matrix, entry by entry)."""
    atoms = [*dict.fromkeys(base), new]
    once = kernel.gram(atoms)
    where = {text: i for i, text in enumerate(atoms)}

    def looked_up(texts: list[str]) -> np.ndarray:
        index = [where[t] for t in texts]
        return once[np.ix_(index, index)]

    monkeypatch.setattr(kernel, "gram", looked_up)
    rng, labels = np.random.default_rng(12345), np.random.default_rng(7)
    hits = 0
    for _ in range(RUNS):
        patch = [new if rng.random() < shift else base[rng.integers(len(base))] for _ in base]
        hits += dist.mmd_test(patch, base, labels, PERMUTATIONS).p <= LEVEL
    return hits


@pytest.mark.parametrize("n", [5, 12, 30])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_stated_power_is_what_the_real_test_achieves_on_a_rewording(
    shape: str, n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers, rewordings = SHAPES[shape]
    base = (answers * 10)[:n]
    stated = power.detectable_shift(base, (n, n), LEVEL, 0.8, "mmd", PERMUTATIONS)
    assert stated is not None
    # The closest rewording the claim covers: its mean kernel to the base at most the
    # simulated new answer's (the base's most typical sample's to the others).
    atoms = list(dict.fromkeys(base))
    counts = np.array([base.count(a) for a in atoms])
    ceiling = mmdpower.new_answer_kernel(kernel.gram(atoms), counts)
    # A base of one answer: any new answer gives the test one p (the MMD² of two answers is a
    # multiple of 1 - c), so the closest rewording of all.
    covered = [r for r in rewordings if len(atoms) == 1 or _mean_kernel(r, base) <= ceiling + 1e-9]
    new = max(covered, key=lambda r: _mean_kernel(r, base))
    started = time.perf_counter()
    hits = _measured(base, new, stated, monkeypatch)
    low = stats.binomtest(hits, RUNS).proportion_ci(0.90).low  # one-sided 95 %
    print(f"{shape} {n}: {new!r} at {stated}: {hits}/{RUNS}, lower bound {low:.3f}", end=" ")
    print(f"({time.perf_counter() - started:.1f} s)")
    assert low >= 0.8, (stated, new, hits)


def test_the_new_answer_is_a_rewording_of_the_most_typical_answer_at_its_mean_kernel() -> None:
    # Two answers, 2 and 1 samples, kernel k between them. The first's mean kernel to the other
    # samples is (1 + k) / 2, the second's k: c = (1 + k) / 2. The new answer is the first
    # reworded: k to the second, t to the first with (2 t + k) / 3 = c, t = (3 + k) / 4.
    k = 0.6
    gram = np.array([[1.0, k], [k, 1.0]])
    counts = np.array([2, 1])
    assert mmdpower.new_answer_kernel(gram, counts) == pytest.approx((1 + k) / 2)
    assert mmdpower.new_answer_row(gram, counts) == pytest.approx([(3 + k) / 4, k])
    # On the near-identical base of 30 its mean kernel is c, and t within [0, 1].
    base = (NEAR * 10)[:30]
    atoms = list(dict.fromkeys(base))
    counts = np.array([base.count(a) for a in atoms])
    gram = kernel.gram(atoms)
    row = mmdpower.new_answer_row(gram, counts)
    assert row @ counts / counts.sum() == pytest.approx(mmdpower.new_answer_kernel(gram, counts))
    assert 0.0 <= row.max() <= 1.0
    assert mmdpower.new_answer_row(np.ones((1, 1)), np.array([5])).tolist() == [0.0]


def _triage(tmp_path: Path, patch: list[str], base: list[str]) -> tuple[int, dict[str, Any]]:
    cmp = compare_texts(tmp_path, {"q": (base[0], patch[0])})
    samples = [S("base", "q", text) for text in base] + [S("patch", "q", t) for t in patch]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    record: dict[str, Any] = json.loads(result.stdout)["records"][0]
    return result.exit_code, record


def test_a_patch_rewording_a_third_of_its_answers_is_held_not_cleared(tmp_path: Path) -> None:
    # 30 distinct answers a side at temperature 1 ("answer 7 is no"); the patch gives 20 of
    # the base's and rewords the other 10 ("answer 7 is yes!"). The test does not reject (p
    # about 0.1); the old model stated 80 % power against 22 % moved and cleared it, exit 0.
    verdicts = ["yes", "no", "maybe"]
    base = [f"answer {i} is {verdicts[i % 3]}" for i in range(30)]
    patch = [f"answer {i} is yes!" for i in range(10)] + base[10:]
    code, record = _triage(tmp_path, patch, base)
    test = record["modes"][0]["distribution"]
    assert test["p"] > 0.05
    assert test["detectable_shift"] is None or test["detectable_shift"] > 0.35, test
    assert "no-power" in record["flags"], record["reason"]
    assert code == 1, record["reason"]
    assert "as like the base's answers" in record["reason"], record["reason"]
