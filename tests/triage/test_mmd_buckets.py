"""The gram kernel's buckets are SplitMix64's, exactly, on every platform: the numpy finalizer
wraps its uint64 products (no float, no overflow warning, even with warnings as errors), code
points above U+FFFF and lone surrogates (a JSON `\\ud800` answer) get keys of their own, and a
gram straddling two `GRAM_CHUNK` pieces is counted once (review74h of mmd74)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from k3diff.triage import kernel
from triage.test_distribution import hand_grams, splitmix64

GAMMA = 0x9E3779B97F4A7C15


def test_the_hand_finalizer_is_splitmix64() -> None:
    # Vigna's splitmix64.c seeded 0: its outputs are the finalizer of GAMMA, 2 × GAMMA.
    assert splitmix64(GAMMA) == 0xE220A8397B1DCDAF
    assert splitmix64(2 * GAMMA % 2**64) == 0x6E789E6AA1B965F4


def test_buckets_are_pinned() -> None:
    # Keys packed 21 bits a code point, first highest; the start and end marks past U+10FFFF.
    pieces = {
        (0x110000, 0x110000, ord("a")): 3802,
        (ord("a"), ord("b"), ord("c")): 2182,
        (0x10FFFF, 0xD800, 0x110001): 147,
    }
    for codes, bucket in pieces.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(all="raise"):
                (got,) = kernel._buckets(np.array(codes, dtype=np.uint64))
        assert got == bucket


CHUNK = kernel.GRAM_CHUNK
TEXTS = [
    "\U0001f600\U0010ffff\U00010000 astral",
    "\ud800",
    "\udfff\ud800x",
    "\U00010000",  # not the pair below: one code point, one key
    "\ud800\udc00",
    *("ab\U0001f600"[i % 3] * n for i, n in enumerate((CHUNK - 1, CHUNK, CHUNK + 1, CHUNK + 2))),
    "".join(chr(0x1F600 + i % 7) for i in range(2 * CHUNK + 3)),
]


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_counts_are_the_hand_counts(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            (free,), (placed,) = kernel._counts([text])
    for row, where in ((free, False), (placed, True)):  # placed: each gram's part, chunk or not
        expected = np.zeros(kernel.BUCKETS)
        for bucket, count in hand_grams(text, where).items():
            expected[bucket] = count
        assert np.array_equal(row, expected)
        assert row.sum() == len(text) + kernel.GRAM - 1  # each gram once, none lost at an edge


def test_a_surrogate_pair_string_is_not_its_code_point() -> None:
    (split, whole), _ = kernel._counts(["\ud800\udc00", "\U00010000"])
    assert not np.array_equal(split, whole)
