"""The MMD kernel sees every character of every answer: a patch that garbled characters
66,000-68,000 of every 70,000-character answer (temperature 1, 40 samples a side) passed, exit 0,
while the 3-gram kernel counted only the first 65,536 characters (kernel73) and the Hamming
kernels the first 1,024 and the last 20. The 3-gram counts are now built in one streaming pass
over the whole text (mmd74)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from triage.test_mmd_middle import answer, check_shifted, garbled

SAMPLES = 40
LENGTH = 70_000
GARBLED = slice(66_000, 68_000)


@pytest.mark.parametrize("seed", [0, 1])
def test_answers_garbled_past_character_65536_are_a_shift(tmp_path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = [answer(rng, LENGTH) for _ in range(SAMPLES + 1)]
    patch = [garbled(answer(rng, LENGTH), GARBLED) for _ in range(SAMPLES + 1)]
    assert {len(t) for t in base + patch} == {LENGTH}
    check_shifted(tmp_path, base, patch)
