"""The MMD kernel sees the middle of long answers: a patch that turned characters 1,114-2,814 of
every ~2,900-character answer into "the the ..." passed as `both-nondeterministic`, exit 0, p
0.45-0.76, at temperature 1 with 40 samples a side (hunt73), while the reason claimed 80 % power
against a third of the answers moved: the three Hamming kernels saw the first 20, the last 20
and the first 1,024 characters only. The gram kernel counts the whole text."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_support import run_k3diff

from k3diff.triage import distribution as dist
from triage.helpers import S, compare_texts, write_samples

SAMPLES = 40
LENGTH = 2_900
GARBLED = slice(1_114, 2_814)
WORDS = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "as",
    "this",
    "by",
    "be",
    "are",
    "from",
    "or",
    "an",
    "at",
    "which",
    "we",
    "can",
    "function",
    "value",
    "return",
    "list",
    "string",
    "number",
    "patch",
    "change",
    "result",
    "error",
    "file",
    "line",
    "call",
    "use",
    "first",
    "second",
    "then",
    "when",
    "if",
    "else",
    "while",
    "each",
    "new",
    "old",
    "data",
    "model",
    "server",
    "request",
    "answer",
]


def answer(rng: np.random.Generator, length: int = LENGTH) -> str:
    """A temperature-1 answer: words drawn at random, `length` characters (each word and its
    space are 2 or more)."""
    return " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), length // 2))[:length]


def garbled(text: str, where: slice = GARBLED) -> str:
    """`text` with "the the ..." over the characters `where` names."""
    middle = len(text[where])
    return text[: where.start] + ("the " * middle)[:middle] + text[where.stop :]


def check_shifted(tmp_path: Path, base: list[str], patch: list[str]) -> None:
    """Triage of one prompt (the captures each side's first answer, the rest its samples, at
    temperature 1) holds it a `distribution-shift` the 3-gram kernel names, exit 1."""
    compare_texts(tmp_path, {"q": (base[0], patch[0])})
    samples = [S("base", "q", t) for t in base[1:]] + [S("patch", "q", t) for t in patch[1:]]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout[-2000:]
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "distribution-shift", record["reason"]
    assert "3-gram" in record["reason"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_long_answers_garbled_in_the_middle_are_a_shift(tmp_path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = [answer(rng) for _ in range(SAMPLES + 1)]
    patch = [garbled(answer(rng)) for _ in range(SAMPLES + 1)]
    check_shifted(tmp_path, base, patch)


def test_same_distribution_both_sides_rejects_about_as_often_as_alpha_allows() -> None:
    # 50 seeded A/A records (40 long temperature-1 answers a side from one law): at α = 0.05
    # about 2.5 reject; 8 or more has probability about 0.001 under a valid test.
    rejected = 0
    for seed in range(50):
        rng = np.random.default_rng(1_000 + seed)
        patch = [answer(rng) for _ in range(SAMPLES)]
        base = [answer(rng) for _ in range(SAMPLES)]
        rejected += dist.mmd_test(patch, base, rng, 199).p <= 0.05
    assert rejected <= 7
