"""A continuous eval score that moved on a few items of many: the signed-rank p is the exact one
of the items that moved, not the normal approximation over all items (which read 5 items lost
of 200 as p = 0.025 and failed the run, where the exact sign-flip p is 2/32 = 0.0625)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .fixtures import write_jsonl
from .lm_eval_logs import bleu_row


def _sides(tmp_path: Path, drops: list[float], n: int = 200) -> None:
    base = [30.0 + i % 7 for i in range(n)]
    patch = [b - (drops[i] if i < len(drops) else 0.0) for i, b in enumerate(base)]
    write_jsonl(tmp_path / "base.jsonl", [bleu_row(i, s) for i, s in enumerate(base)])
    write_jsonl(tmp_path / "patch.jsonl", [bleu_row(i, s) for i, s in enumerate(patch)])


def _exact_sign_flip_p(differences: list[float]) -> float:
    """Two-sided p of the signed-rank statistic over every sign assignment of the nonzero
    differences (midranks for ties): the exact permutation distribution, written out."""
    moved = [d for d in differences if d != 0]
    magnitudes = sorted(abs(d) for d in moved)
    ranks = {m: (magnitudes.index(m) + 1 + len(magnitudes) - magnitudes[::-1].index(m)) / 2
             for m in magnitudes}  # fmt: skip
    rank = [ranks[abs(d)] for d in moved]
    total = sum(rank)
    observed = sum(r for r, d in zip(rank, moved, strict=True) if d > 0)
    centre = total / 2
    extreme = 0
    signs = list(itertools.product((0, 1), repeat=len(moved)))
    for flips in signs:
        positive = sum(r for r, s in zip(rank, flips, strict=True) if s)
        extreme += abs(positive - centre) >= abs(observed - centre) - 1e-9
    return extreme / len(signs)


@pytest.mark.parametrize(
    "drops", [[5.0] * 5, [5.0] * 3, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2.0, 2.0, 4.0, -1.0, 3.0]]
)
def test_a_few_moved_items_get_the_exact_signed_rank_p(tmp_path: Path, drops: list[float]) -> None:
    _sides(tmp_path, drops)
    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", "--format", "json", cwd=tmp_path)
    (test,) = json.loads(result.stdout)["summary"]["scores"]["tests"]
    expected = _exact_sign_flip_p([-d for d in drops])
    assert test["test"] == "wilcoxon-signed-rank" and test["n"] == 200
    assert test["p"] == pytest.approx(expected, rel=1e-9)
    assert test["significant"] is (expected <= 0.05)


def test_a_continuous_score_that_never_moved_is_not_said_to_lack_items(tmp_path: Path) -> None:
    # 200 items, every difference 0: the closed-form MDE has no spread to size a change from;
    # the sentence says that, not that 200 items are too few.
    _sides(tmp_path, [])
    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "too few items" not in result.stdout
    assert (
        "bleu: 0 lost, 0 gained of 200, Wilcoxon signed-rank p = 1: no significant change at "
        "α = 0.05 (the differences do not vary, so no detectable change can be sized)"
    ) in result.stdout
