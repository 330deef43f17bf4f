"""The MMD kernel sees every character of every answer: a patch that garbled characters
66,000-68,000 of every 70,000-character answer (temperature 1, 40 samples a side) passed, exit 0,
while the 3-gram kernel counted only the first 65,536 characters (kernel73) and the Hamming
kernels the first 1,024 and the last 20. The 3-gram counts are now built in one streaming pass
over the whole text (mmd74)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples
from triage.test_mmd_middle import WORDS

SAMPLES = 40
LENGTH = 70_000
GARBLED = slice(66_000, 68_000)


def _answer(rng: np.random.Generator) -> str:
    """A temperature-1 answer of `LENGTH` characters: words drawn at random."""
    return " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), LENGTH // 2))[:LENGTH]


def _garbled(text: str) -> str:
    middle = len(text[GARBLED])
    return text[: GARBLED.start] + ("the " * middle)[:middle] + text[GARBLED.stop :]


@pytest.mark.parametrize("seed", [0, 1])
def test_answers_garbled_past_character_65536_are_a_shift(tmp_path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = [_answer(rng) for _ in range(SAMPLES + 1)]
    patch = [_garbled(_answer(rng)) for _ in range(SAMPLES + 1)]
    assert {len(t) for t in base + patch} == {LENGTH}
    compare_texts(tmp_path, {"q": (base[0], patch[0])})
    samples = [S("base", "q", t) for t in base[1:]] + [S("patch", "q", t) for t in patch[1:]]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout[-2000:]
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "distribution-shift", record["reason"]
    assert "3-gram" in record["reason"]
