"""A/A runs of triage at temperature > 0: base and patch drawn from one distribution of answers,
judged by the real `triage` (comparison and samples log written as files, `run.triage` on them,
as the CLI calls it). Shared by tests/triage/test_aa_rate.py and scripts/aa_triage.py (the
figures docs/statistics.md states).

Shapes of the answer distribution (`SHAPES`):

- three: 3 distinct answers, shares 0.5 / 0.3 / 0.2 (a short factual answer, reworded);
- thirty: 30 distinct near-identical answers, uniform (one letter and the verdict apart);
- long-tailed: answer i of 5,000 with chance proportional to 1 / (i + 1)^1.1 (a few answers
  common, most drawn once), each a sentence of words of its own;
- every-new: every answer a new sentence of random words (temperature 1 on a long answer).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cli_support import run_k3diff

from k3diff.triage.model import Flag
from k3diff.triage.run import triage
from k3diff.triage.settings import Correction, Settings
from triage.helpers import S, completion, write_samples

WORDS = [
    "the",
    "answer",
    "is",
    "four",
    "because",
    "two",
    "and",
    "two",
    "make",
    "four",
    "so",
    "we",
    "add",
    "them",
    "then",
    "check",
    "that",
    "each",
    "step",
    "holds",
    "first",
    "second",
    "next",
    "finally",
    "result",
    "value",
    "sum",
    "total",
]
VERDICTS = ("yes", "no", "maybe")
THREE = ("The answer is 4.", "It is 4.", "4")
THREE_SHARES = (0.5, 0.3, 0.2)
TAIL = 5_000
TAIL_EXPONENT = 1.1


def _sentence(rng: np.random.Generator, words: int) -> str:
    return " ".join(WORDS[i] for i in rng.integers(len(WORDS), size=words)) + "."


def _long_tail_text(index: int) -> str:
    return _sentence(np.random.default_rng(index), 8 + index % 7)


def _draw_three(rng: np.random.Generator, n: int) -> list[str]:
    return [THREE[i] for i in rng.choice(len(THREE), size=n, p=THREE_SHARES)]


def _draw_thirty(rng: np.random.Generator, n: int) -> list[str]:
    return [f"answer {i} is {VERDICTS[i % 3]}" for i in rng.integers(30, size=n)]


def _draw_long_tail(rng: np.random.Generator, n: int) -> list[str]:
    weights = 1.0 / np.arange(1, TAIL + 1) ** TAIL_EXPONENT
    return [_long_tail_text(int(i)) for i in rng.choice(TAIL, size=n, p=weights / weights.sum())]


def _draw_every_new(rng: np.random.Generator, n: int) -> list[str]:
    return [_sentence(rng, int(rng.integers(8, 16))) for _ in range(n)]


SHAPES: dict[str, Callable[[np.random.Generator, int], list[str]]] = {
    "three": _draw_three,
    "thirty": _draw_thirty,
    "long-tailed": _draw_long_tail,
    "every-new": _draw_every_new,
}


@dataclass(frozen=True)
class Outcome:
    """What triage decided on one A/A run (one record, one sampled mode)."""

    exit_code: int
    regression: bool
    """The record is a regression candidate (a wrong rejection: both sides drew one law)."""
    families: tuple[str, ...]
    """The families whose corrected test rejected: distribution, novelty, fisher."""
    no_power: bool
    """Held `no-power` (the distribution test could not have detected --shift)."""
    seconds: float
    """triage's own time (files written before it)."""
    eligible: tuple[tuple[str, float], ...] = ()
    """(family, corrected p) of each test that could make the mode a candidate before aa77
    (each family at α): the distribution test; the novelty test where the patch gave an
    output the base never gave; the Fisher test where the base was stable and the patch not."""


def settings(alpha: float = 0.05) -> Settings:
    """The CLI's defaults at `alpha`."""
    return Settings(alpha=alpha, bound=0.05, near_tie=0.5, correction=Correction.HOLM)


def aa_outcome(base: list[str], patch: list[str], alpha: float = 0.05) -> Outcome:
    """Triage of one record sampled at temperature 1, `base` and `patch` its answers."""
    with tempfile.TemporaryDirectory(prefix="k3diff-aa-") as where:
        tmp = Path(where)
        _captures(tmp, base[0], patch[0])
        samples = [S("base", "q", text) for text in base] + [S("patch", "q", t) for t in patch]
        log = write_samples(tmp / "run" / "samples.jsonl", samples, params={"temperature": 1})
        start = time.perf_counter()
        result = triage(tmp / "cmp.json", (log,), settings(alpha))
        seconds = time.perf_counter() - start
    record = result.records[0]
    (mode,) = record.modes
    families = []
    if mode.distribution is not None and mode.distribution.rejects(alpha):
        families.append("distribution")
    if mode.novelty_p_adjusted is not None and mode.novelty_p_adjusted <= alpha:
        families.append("novelty")
    if mode.p_adjusted is not None and mode.p_adjusted <= alpha:
        families.append("fisher")
    eligible = []
    if mode.distribution is not None:
        eligible.append(("distribution", mode.distribution.p_adjusted))
    if mode.novelty and mode.novelty_p_adjusted is not None:
        eligible.append(("novelty", mode.novelty_p_adjusted))
    if mode.base.stable and mode.patch.unstable and mode.p_adjusted is not None:
        eligible.append(("fisher", mode.p_adjusted))
    return Outcome(
        exit_code=int(result.exit_code),
        regression=record.regression_candidate,
        families=tuple(families),
        no_power=Flag.NO_POWER in record.flags,
        seconds=seconds,
        eligible=tuple(eligible),
    )


def shifted(
    draw: Callable[[np.random.Generator, int], list[str]], share: float, new: str
) -> Callable[[np.random.Generator, int], list[str]]:
    """`draw` with each answer moved to `new` (an answer the base never gives) with chance
    `share`: the patch of a power run."""

    def moved(rng: np.random.Generator, n: int) -> list[str]:
        answers = draw(rng, n)
        return [new if rng.random() < share else answer for answer in answers]

    return moved


def _captures(tmp: Path, base: str, patch: str) -> None:
    """The comparison of two captures (one draw a side), by the real `k3diff responses`."""
    for name, text in (("base", base), ("patch", patch)):
        line = completion("q", text)
        (tmp / f"{name}.jsonl").write_text(json.dumps(line) + "\n")
    done = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json", cwd=tmp
    )
    assert done.exit_code in (0, 1), done.stderr
