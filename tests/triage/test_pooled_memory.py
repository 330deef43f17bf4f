"""A mode's pooled tests keep B permuted statistics for the mode, not B for each of its records
(review78g): the pooled MMD test kept every record's B permuted statistics (Python floats,
3.2 MB a record at B = 99,999) until the last record was tested, so a samples log of a few
hundred tiny sampled records (200 records of 3 answers a side, 0.5 MB) made triage hold
1.2 GB, and nothing bounds the records a log holds. The sums are now kept as each record is
tested: the same p-values (the same additions, in record order)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
from cli_support import run_k3diff

from triage.firsttokens import BASE, draw, write_texts
from triage.helpers import S, compare_texts, write_samples

RECORDS = 40


def _triage(where: Path) -> tuple[dict[str, Any], int]:
    """Triage's document at α = 0.001 (every test draws 99,999), and its peak traced memory."""
    tracemalloc.start()
    try:
        result = run_k3diff(
            "triage", "cmp.json", "run/samples.jsonl", "--alpha", "0.001", "--format", "json",
            cwd=where,
        )  # fmt: skip
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document, peak


def test_pooled_mmd_memory_does_not_grow_with_the_records(tmp_path: Path) -> None:
    keys = [f"p{i}" for i in range(RECORDS)]
    compare_texts(tmp_path, {key: ("The answer is 0.", "The answer is 0.") for key in keys})
    # Every answer new at temperature 1: each record gets the MMD test, all in one pool.
    samples = [
        S(side, key, f"answer {i} of the {side}, {key}")
        for key in keys
        for side in ("base", "patch")
        for i in range(3)
    ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    document, peak = _triage(tmp_path)
    tests = [record["modes"][0]["distribution"] for record in document["records"]]
    assert len(tests) == RECORDS
    for test in tests:
        # 20 × 41 tests / (α / 2) is past the ceiling: every record draws 99,999.
        assert test["test"] == "mmd" and test["permutations"] == 99_999, test
        assert test["pooled_records"] == RECORDS and test["pooled_p"] is not None, test
    # 230 MiB traced before (40 records × 99,999 kept floats), 56 MiB after (a mode's sum is
    # 0.8 MB; the rest is one record's test and power simulation at a time).
    assert peak < 112 << 20, f"triage peaked at {peak / 2**20:.0f} MiB traced"


def test_pooled_first_token_memory_does_not_grow_with_the_records(tmp_path: Path) -> None:
    """The first-token tests' pooled tests too: every record's null draws (3 tests × B) were
    kept until the last record was tested (170 MiB traced with the MMD's sums fixed, 66 after;
    the premise tests now run first, each test on its own stream as before)."""
    rng = np.random.default_rng(7)
    keys = tuple(f"p{i}" for i in range(RECORDS))
    texts = {
        (key, side): [f"{token} end {key} {side} {i}" for i, token in enumerate(draw(rng, BASE, 6))]
        for key in keys
        for side in ("base", "patch")
    }
    write_texts(tmp_path, texts, keys, {"temperature": 1, "logprobs": 5})
    document, peak = _triage(tmp_path)
    tokens = [record["modes"][0]["distribution"]["first_token"] for record in document["records"]]
    assert len(tokens) == RECORDS and all(t["draws"] == 99_999 for t in tokens), tokens[0]
    assert all(t["used"] and t["pooled"] for t in tokens), tokens[0]
    assert peak < 112 << 20, f"triage peaked at {peak / 2**20:.0f} MiB traced"
