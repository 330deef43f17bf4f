"""The MMD power simulation settles most simulated tables without drawing their permutations
(speed76): each table's B seeded labellings were drawn to estimate its p, 20,399 of them per
table at a 50-record family's level, over half of such a triage's CPU at 3-4 answers a record.
Where the exact share of labellings reaching the observed MMD² puts the draws' answer below
`NEGLIGIBLE` or at 1.0 but with a chance of 1e-15, that answer is given without them; the stated
shift is the one the draws give."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from k3diff.triage import kernel as text_kernel
from k3diff.triage import mmdpower, power

FOUR = ["The answer is 4."] * 6 + ["It is 4."] * 3 + ["4"] * 2 + ["Four."]
THREE = ["Paris."] * 7 + ["It is Paris."] * 3 + ["paris"] * 2
ONE = ["Paris."] * 12
LEVEL, PERMUTATIONS = 0.05 / 51, 20_399
"""A family of 50 records and its pooled test: the level and permutations triage runs them at."""


def _drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table through its draws, as before speed76."""
    monkeypatch.setattr(mmdpower, "_settled", lambda *_: None)


def _tables(base: list[str]) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(kernel, patch, base counts) of every patch table of the base's size whose new-answer
    count is 0-6 and whose other counts are a base answer's give or take two."""
    atoms = list(dict.fromkeys(base))
    counts = np.array([base.count(a) for a in atoms], dtype=np.int64)
    kernel = np.eye(len(atoms) + 1)
    kernel[:-1, :-1] = text_kernel.gram(atoms)
    kernel[-1, :-1] = kernel[:-1, -1] = mmdpower.new_answer_kernel(kernel[:-1, :-1], counts)
    base_row = np.append(counts, 0)
    for table in mmdpower._compositions(len(atoms) + 1, len(base)):
        if table[-1] <= 6 and (abs(table[:-1] - counts) <= 2).all():
            yield kernel, np.array(table), base_row


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """`_settled`'s answers, one per table asked, as they are given."""
    calls: list[float | None] = []
    settled = mmdpower._settled

    def counted(share: float, allowed: int, permutations: int) -> float | None:
        calls.append(settled(share, allowed, permutations))
        return calls[-1]

    monkeypatch.setattr(mmdpower, "_settled", counted)
    return calls


@pytest.mark.parametrize("answers", [FOUR, THREE], ids=["four", "three"])
def test_a_settled_table_answers_what_its_draws_give(
    answers: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = list(_tables(answers))
    calls = _counting(monkeypatch)
    settled = [mmdpower._exact_rejects(k, p, b, LEVEL, PERMUTATIONS) for k, p, b in tables]
    _drawn(monkeypatch)
    drawn = [mmdpower._exact_rejects(k, p, b, LEVEL, PERMUTATIONS) for k, p, b in tables]
    differ = [(s, d) for s, d in zip(settled, drawn, strict=True) if s != d]
    # Answered without its draws: 0 where they gave less than NEGLIGIBLE, else what they gave.
    assert all(s == 0.0 and d < mmdpower.NEGLIGIBLE for s, d in differ), differ
    assert len(calls) == len(tables) > 50
    assert sum(call is not None for call in calls) >= len(tables) / 2, calls


@pytest.mark.parametrize("answers", [FOUR, ONE], ids=["four", "one"])
def test_the_stated_shift_is_the_one_the_draws_give(
    answers: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(monkeypatch)
    stated = power.detectable_shift(answers, (12, 12), LEVEL, 0.8, "mmd", PERMUTATIONS)
    assert sum(call is not None for call in calls) >= len(calls) / 2, calls
    _drawn(monkeypatch)
    assert power.detectable_shift(answers, (12, 12), LEVEL, 0.8, "mmd", PERMUTATIONS) == stated
