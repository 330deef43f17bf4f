"""The MMD test's stated power against a rewording (mmdpower75). Until then the simulated patch's
new answer sat at kernel 0 to every base answer, and the null was a bootstrap from the base
alone; a real new answer, a rewording of a base answer, scores 0.10-0.75 against the base's
under the test's kernel, and the real test detected it 0.39-0.59 of the time at the 80 % stated
(power74r). A patch rewording a third of its answers, on a base of 30 distinct near-identical answers, was
cleared at the default --shift 0.35 (stated 22 %), exit 0.

Now the new answer lies as close to the base as the base's most typical sample is to the others
(`mmdpower.new_answer_kernel`), each simulated table goes through the permutation test itself,
and the simulated power must reach the target at its 95 % lower bound. The check below is the
real test (`distribution.mmd_test`) on real rewordings of the base's texts, 200 seeded runs a
point: at the stated shift it detects them at least 80 % of the time, within the Monte Carlo
error (two standard errors), on both base shapes power74r measured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_support import run_k3diff

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
RUNS = 200
PERMUTATIONS = 999
LEVEL = 0.05


def _mean_kernel(new: str, base: list[str]) -> float:
    return float(kernel.gram([new, *base])[0, 1:].mean())


def _measured(base: list[str], new: str, shift: float, monkeypatch: pytest.MonkeyPatch) -> float:
    """The real test's rejection rate at `LEVEL`: `RUNS` seeded patches of len(base) samples,
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
    return hits / RUNS


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
    measured = _measured(base, new, stated, monkeypatch)
    error = (0.8 * 0.2 / RUNS) ** 0.5
    assert measured >= 0.8 - 2 * error, (stated, new, measured)


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
