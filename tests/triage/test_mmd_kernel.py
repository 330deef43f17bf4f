"""The MMD kernel sees the whole text: a patch that changes its answers after character 20 (the
old kernel's blind spot) is a distribution shift, greedy with every output new and at
temperature 1; the kernel matrix is the hand-written kernel's and positive semi-definite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_support import run_k3diff

from k3diff.triage import distribution as dist
from k3diff.triage import kernel
from triage.helpers import S, compare_texts, write_samples
from triage.test_distribution import hand_kernel

STEM = "def fib(n):\n    return n if n < 2 else "
PROMPTS = ("p1", "p2", "p3")


def _run(
    tmp_path: Path, texts: dict[str, tuple[list[str], list[str]]], params: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    """Triage (JSON) of prompts whose base and patch samples are given; the captures are each
    side's first sample."""
    compare_texts(tmp_path, {key: (base[0], patch[0]) for key, (base, patch) in texts.items()})
    samples = [
        S(side, key, text)
        for key, (base, patch) in texts.items()
        for side, sampled in (("base", base), ("patch", patch))
        for text in sampled
    ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params=params)
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads((tmp_path / "t.json").read_text())


def _check_shifted(
    code: int, document: dict[str, Any], texts: dict[str, tuple[list[str], list[str]]]
) -> None:
    assert code == 1
    for record in document["records"]:
        assert record["category"] == "distribution-shift", record["reason"]
        test = record["modes"][0]["distribution"]
        assert test["test"] == "mmd"
        base, patch = texts[record["key"]]
        assert test["statistic"] == pytest.approx(_v_statistic(patch, base), rel=1e-9)
        assert test["statistic"] > 0.01
        assert kernel.PROSE in record["reason"]


def _v_statistic(patch: list[str], base: list[str]) -> float:
    def mean(xs: list[str], ys: list[str]) -> float:
        return sum(hand_kernel(x, y) for x in xs for y in ys) / (len(xs) * len(ys))

    return mean(patch, patch) + mean(base, base) - 2 * mean(patch, base)


def test_a_greedy_change_after_character_20_is_a_shift(tmp_path: Path) -> None:
    # Greedy, batch variance making every output distinct: the first 20 characters agree.
    texts = {
        key: (
            [f"{STEM}# variant {i} of {key}" for i in range(20)],
            [f"{STEM}raise SystemExit({i}) # broken {key}" for i in range(20)],
        )
        for key in PROMPTS
    }
    code, document = _run(tmp_path, texts, {"temperature": 0})
    _check_shifted(code, document, texts)


def test_a_changed_ending_at_temperature_1_is_a_shift(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    texts = {
        key: (
            [f"Sure, here is the answer: {n} is correct." for n in rng.permutation(1000)[:24]],
            [
                f"Sure, here is the answer: I cannot help with that {n}"
                for n in rng.integers(0, 100, 24)
            ],
        )
        for key in PROMPTS
    }
    code, document = _run(tmp_path, texts, {"temperature": 1})
    _check_shifted(code, document, texts)


def test_a_change_in_the_middle_of_a_long_answer_is_a_shift() -> None:
    # 32 characters changed in the middle of 170: neither the first nor the last 20 moves.
    rng = np.random.default_rng(5)
    filler = "x" * 65
    base = [
        f"{i:04d}{filler}{'the same middle ' * 2}{filler}{i:04d}"
        for i in rng.permutation(9999)[:20]
    ]
    patch = [
        f"{i:04d}{filler}{'THE SAME MIDDLE ' * 2}{filler}{i:04d}"
        for i in rng.permutation(9999)[:20]
    ]
    assert {len(t) for t in base + patch} == {170}
    result = dist.mmd_test(patch, base, np.random.default_rng(0), 999)
    assert result.p == pytest.approx(1 / 1000)


TEXTS = [
    "",
    "a",
    "ab",
    "The answer is 7.",
    "The answer is 7. And more text after the twentieth character.",
    "x" * 1500,
    "x" * 1500 + "y",
    "\0",
    "é" * 30,
    "\ud800 a lone surrogate",
    "ab" * 35_000,
    "ab" * 33_000 + "xy" * 1_990 + "ab" * 10,  # the last but for characters 66,000-69,979
]


def test_the_kernel_matrix_is_the_hand_written_kernel_and_positive_semi_definite() -> None:
    computed = kernel.gram(TEXTS)
    expected = np.array([[hand_kernel(x, y) for y in TEXTS] for x in TEXTS])
    assert np.allclose(computed, expected, rtol=0, atol=1e-12)
    assert np.allclose(computed, computed.T) and np.allclose(np.diag(computed), 1.0)
    assert np.linalg.eigvalsh(computed).min() > -1e-10


def test_row_blocks_give_the_same_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = kernel.gram(TEXTS)
    monkeypatch.setattr(kernel, "BLOCK", 1)  # one row per block
    assert np.array_equal(kernel.gram(TEXTS), whole)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 65_536])
def test_the_grams_counted_a_chunk_at_a_time_are_the_whole_texts(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    whole = kernel.gram(TEXTS)
    monkeypatch.setattr(kernel, "GRAM_CHUNK", chunk)
    assert np.allclose(kernel.gram(TEXTS), whole, rtol=0, atol=1e-15)


def test_a_change_past_character_65536_moves_the_kernel() -> None:
    # kernel73 counted the first 65,536 characters: these two scored 1, the same text to it.
    first, second = TEXTS[-2:]
    assert first[:65_536] == second[:65_536] and first[-20:] == second[-20:]
    assert kernel.gram([first, second])[0, 1] < 0.9999  # kernel73: 1.0
