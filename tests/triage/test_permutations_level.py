"""The label permutations B of the distribution tests are sized at the level the tests are
judged at (aa78): 1 / (1 + B), the smallest p, is at most a twentieth of the level a record
needs when it is the only rejection, α / 2 / tests in a sampled mode (aa77's level). Until
aa78, B was sized at α / tests, so a sampled test's smallest p was only a tenth of its level
(α = 0.002, one sampled record: B = 9,999 and p ≥ 1e-4 at a level of 0.001).
B = max(1,999, ⌈20 × tests / level⌉ − 1), at most 99,999, computed here by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples


def _tests(where: Path, prompts: int, alpha: str, params: dict[str, Any] | None) -> list[Any]:
    """Triage of `prompts` records, 12 answers a side; each record's distribution test."""
    keys = [f"p{i}" for i in range(prompts)]
    compare_texts(where, {key: ("The answer is 0.", "The answer is 0.") for key in keys})
    # Every answer new (a greedy mode of them is tested by the MMD too), the patch's shifted.
    answers = {"base": range(1, 13), "patch": range(101, 113)}
    samples = [
        S(side, key, f"The answer is {i}, {key}.")
        for key in keys
        for side, got in answers.items()
        for i in got
    ]
    write_samples(where / "run" / "samples.jsonl", samples, params=params)
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--alpha", alpha, "--format", "json", cwd=where
    )
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return [record["modes"][0]["distribution"] for record in document["records"]]


@pytest.mark.parametrize(
    ("alpha", "prompts", "sampled", "permutations"),
    [
        # one sampled record at α / 2 = 0.001: ⌈20 / 0.001⌉ − 1 (9,999 sized at α before)
        ("0.002", 1, True, 19_999),
        # α / 2 = 0.005: 3,999 (1,999 before)
        ("0.01", 1, True, 3_999),
        # 3 records and their pooled test at α / 2 / 4: 20 × 4 / 0.005 − 1 (7,999 before)
        ("0.01", 3, True, 15_999),
        # at α = 0.05 one record needs 799: the floor of 1,999
        ("0.05", 1, True, 1_999),
        # 20 × 4 / 0.0005 − 1 = 159,999: the ceiling of 99,999 (79,999 before)
        ("0.001", 3, True, 99_999),
        # a greedy mode keeps α: ⌈20 / 0.002⌉ − 1
        ("0.002", 1, False, 9_999),
        # 20 / (1e-308 / 2) overflows to infinity: the ceiling, not an internal error (review78g)
        ("1e-308", 1, True, 99_999),
        ("1e-308", 1, False, 99_999),
    ],
)
def test_permutations_are_sized_at_the_judged_level(
    tmp_path: Path, alpha: str, prompts: int, sampled: bool, permutations: int
) -> None:
    tests = _tests(tmp_path, prompts, alpha, {"temperature": 1} if sampled else None)
    family = prompts + (1 if prompts >= 2 else 0)
    level = float(alpha) / (2 if sampled else 1) / family
    for test in tests:
        assert test["sampled"] is sampled and test["level"] == pytest.approx(level), test
        assert test["permutations"] == permutations, test
        if permutations < 99_999:
            assert 1 / (1 + permutations) <= level / 20, test


def test_a_level_too_small_for_a_float_is_a_usage_error(tmp_path: Path) -> None:
    """α = 5e-324 halves to 0 (a sampled test's level): an internal error (ZeroDivisionError)
    until the option's range refused it; now exit 2 and a line naming the range."""
    compare_texts(tmp_path, {"p0": ("The answer is 0.", "The answer is 0.")})
    samples = [S(side, "p0", f"The answer is {i}.") for side in ("base", "patch") for i in range(3)]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--alpha", "5e-324", cwd=tmp_path
    )
    assert result.exit_code == 2, result.stderr
    assert "internal error" not in result.stderr and "--alpha" in result.stderr, result.stderr
