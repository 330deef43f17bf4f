"""A sampled mode's tests share α (aa77): its distribution test and its novelty test, the two
that can make it a regression candidate, are each judged at α / 2, so that a patch that changed
nothing makes the record a candidate by chance at most α of the time (each at α it was up to
2α: 18 of 200 A/A runs of 30 answers at 20 a side, tests/triage/test_aa_rate.py). The Fisher
test of the instability rates is supporting evidence there. Every level the verdict states is
the judged one: checked here against figures computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from k3diff.triage.classify import decide, evidence
from k3diff.triage.model import Category, Correction, Settings
from k3diff.triage.observations import Adjusted, SideObservations
from triage.helpers import S, compare_texts, write_samples

SETTINGS = Settings(alpha=0.05, bound=0.05, near_tie=0.5, correction=Correction.HOLM)


def _triage(where: Path, prompts: int, params: dict[str, Any] | None) -> dict[str, Any]:
    """`prompts` records, 12 answers a side, the patch's shifted by one."""
    keys = [f"p{i}" for i in range(prompts)]
    compare_texts(where, {key: ("The answer is 0.", "The answer is 0.") for key in keys})
    answers = {"base": range(1, 13), "patch": range(2, 14)}
    samples = [
        S(side, key, f"The answer is {i % 4}, {key}.")
        for key in keys
        for side, got in answers.items()
        for i in got
    ]
    write_samples(where / "run" / "samples.jsonl", samples, params=params)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=where)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


@pytest.mark.parametrize(("prompts", "level"), [(1, 0.05 / 2 / 1), (3, 0.05 / 2 / 4)])
def test_a_sampled_test_is_judged_at_half_alpha_over_its_family(
    tmp_path: Path, prompts: int, level: float
) -> None:
    # 3 prompts: 3 records and the mode's pooled test in the family (4 tests), α / 2 over them.
    document = _triage(tmp_path, prompts, {"temperature": 1})
    for record in document["records"]:
        test = record["modes"][0]["distribution"]
        assert test["sampled"] and test["level"] == pytest.approx(level, rel=1e-12), test
        held = record["reason"]
        if "no-power" in record["flags"]:
            assert f"(shared with the novelty test) / {round(0.025 / level)} tests" in held


def test_a_greedy_test_keeps_alpha_over_its_family(tmp_path: Path) -> None:
    # Greedy requests whose outputs vary: the count test, at α over its family (1 test).
    document = _triage(tmp_path, 1, None)
    test = document["records"][0]["modes"][0]["distribution"]
    assert not test["sampled"] and test["level"] == pytest.approx(0.05, rel=1e-12), test


def _decided(base: list[str], patch: list[str], adjusted: Adjusted) -> tuple[Category, bool]:
    ev = evidence("serial", SideObservations(tuple(base)), SideObservations(tuple(patch)), SETTINGS)
    verdict = decide(ev, adjusted, SETTINGS)
    return verdict.category, verdict.regression_candidate


@pytest.mark.parametrize(
    ("sampled", "novelty", "candidate"),
    [(False, 0.04, True), (True, 0.04, False), (True, 0.025, True), (False, 0.06, False)],
)
def test_a_sampled_novelty_test_rejects_at_half_alpha(
    sampled: bool, novelty: float, candidate: bool
) -> None:
    # Base A, B; patch A, C: outside the base's outputs, the novelty test decides.
    adjusted = Adjusted(fisher=None, novelty=novelty, novelty_tests=1, sampled=sampled)
    category, is_candidate = _decided(["A", "B"] * 4, ["A", "C"] * 4, adjusted)
    assert is_candidate is candidate, category
    if candidate:
        assert category is Category.PATCH_OUTSIDE_BASE


@pytest.mark.parametrize(("sampled", "candidate"), [(False, True), (True, False)])
def test_a_sampled_fisher_test_is_supporting_evidence(sampled: bool, candidate: bool) -> None:
    # Base stable on A, the patch less stable on A's own output and D: the Fisher test rejects
    # (p 0.001); a sampled mode's novelty test (0.3) does not, so it is no candidate.
    adjusted = Adjusted(fisher=0.001, novelty=0.3, novelty_tests=1, sampled=sampled)
    category, is_candidate = _decided(["A"] * 8, ["A", "D"] * 4, adjusted)
    assert is_candidate is candidate, category
    if not candidate:
        assert category is Category.INCONCLUSIVE
