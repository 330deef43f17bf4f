"""Triage's text and Markdown state the run-level bound they claim: each family of tests
(Fisher, novelty, distribution, finish reasons, patch errors) is corrected at `--alpha` on its
own, so a patch drawing from the base's own distribution can fail the run in any of them, at
most the sum of their levels (mmd74: the verdict stated α per family only, and an A/A run's
chance of failing was up to five times it)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples


def _logs(tmp_path: Path) -> None:
    """A sampled record (every answer new) and a record whose sides agree."""
    rng = np.random.default_rng(0)
    compare_texts(tmp_path, {"q": ("a", "b"), "r": ("x", "x")})
    samples = [
        S(side, "q", f"answer {i}") for side in ("base", "patch") for i in rng.integers(0, 999, 12)
    ]
    samples += [S(side, "r", "x") for side in ("base", "patch") for _ in range(12)]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})


# 0.0123456: 5 × 1.23456 % is 6.1728 %, said 6.18 (review74h: '6.17', rounded to nearest, said
# less than the bound it claims to be at most).
@pytest.mark.parametrize(
    ("alpha", "percent"),
    [("0.05", "25"), ("0.01", "5"), ("0.3", "100"), ("0.0123456", "6.18"), ("0.00111", "0.555")],
)
def test_the_run_level_bound_is_the_sum_of_the_families_levels(
    tmp_path: Path, alpha: str, percent: str
) -> None:
    _logs(tmp_path)
    args = ("triage", "cmp.json", "run/samples.jsonl", "--alpha", alpha)
    document = json.loads(run_k3diff(*args, "--format", "json", cwd=tmp_path).stdout)
    assert document["tests"] and document["novelty_tests"] and document["distribution_tests"]
    line = (
        f"run level: 5 families at α = {alpha} each (Fisher, novelty, distribution, finish "
        "reasons, patch errors; the last two counted whether or not they tested): a patch drawing"
        f" from the base's own distribution fails the run on a chance rejection at most {percent}"
        " % of the time (the sum of their levels)"
    )
    text = run_k3diff(*args, cwd=tmp_path)
    assert text.exit_code in (0, 1), text.stderr
    assert f"\n{line}\n" in text.stdout
    markdown = run_k3diff(*args, "--format", "markdown", cwd=tmp_path)
    assert f"\n- {line}\n" in markdown.stdout


def test_a_family_that_ran_no_test_adds_nothing(tmp_path: Path) -> None:
    # Greedy, both sides agreeing: Fisher tests, no novelty or distribution test.
    compare_texts(tmp_path, {"q": ("a", "a"), "r": ("x", "x")})
    samples = [
        S(side, key, text)
        for side in ("base", "patch")
        for key, text in (("q", "a"), ("r", "x"))
        for _ in range(12)
    ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 0})
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "over 2 Fisher, 0 novelty and 0 distribution tests" in result.stdout
    assert (
        "run level: 3 families at α = 0.05 each (Fisher, finish reasons, patch errors; the last "
        "two counted whether or not they tested): a patch drawing from the base's own "
        "distribution fails the run on a chance rejection at most 15 % of the time"
    ) in result.stdout
