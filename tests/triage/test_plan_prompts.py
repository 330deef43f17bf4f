"""`triage --plan --prompts P [--modes M]` sizes a sampled run at the level triage judges it at:
each sampled record's test at α / 2 (aa77: the novelty test has the other half; plan77: the plan
sized at α) over the run's distribution tests (P × M records and, per mode
of two or more records, its pooled test), the level a no-power hold's `more_samples` uses.

Found in review (stop 59): the plan and `k3diff sample`'s end summary advised 18 samples a side
(0.35 at α = 0.05), while triage judged 3 prompts' tests at α / 4 and held a run of 18 a side
no-power, asking for 22."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff.triage.plan import distribution_tests, samples_for_shift
from triage.test_distribution import BASE_MASS, _sampled_logs


@pytest.mark.parametrize(
    ("prompts", "modes", "tests"),
    [(1, 1, 1), (2, 1, 3), (3, 1, 4), (3, 2, 8), (1, 3, 3), (10, 1, 11)],
)
def test_the_family_is_the_records_and_each_modes_pooled_test(
    prompts: int, modes: int, tests: int
) -> None:
    assert distribution_tests(prompts, modes) == tests


def test_the_plan_for_3_prompts_is_triages_figure() -> None:
    text = run_k3diff("triage", "--plan", "--shift", "0.35", "--prompts", "3")
    assert text.exit_code == 0, text.stderr
    assert "a sampled run (temperature > 0) of 3 prompts needs 25 samples per side per prompt" in (
        text.stdout
    )
    assert "at α / 2 / 4 distribution tests = 0.00625" in text.stdout
    document = json.loads(
        run_k3diff("triage", "--plan", "--prompts", "3", "--modes", "2", "--format", "json").stdout
    )
    plan = document["plan"]
    assert plan["prompts"] == 3 and plan["modes"] == 2 and plan["tests"] == 8
    assert plan["level"] == pytest.approx(0.05 / 2 / 8)
    assert plan["per_prompt"] == samples_for_shift(0.35, 0.05 / 2 / 8, 0.8) == 28


def test_without_prompts_the_plan_says_what_it_assumes() -> None:
    text = run_k3diff("triage", "--plan", "--shift", "0.35").stdout
    assert "needs 18 samples per side per prompt" in text
    assert "one prompt in one mode" in text and "--prompts P" in text
    document = json.loads(run_k3diff("triage", "--plan", "--format", "json").stdout)
    assert "at α / 2 = 0.025 (1 record" in text
    assert document["plan"]["tests"] == 1 and document["plan"]["level"] == 0.025


def test_a_held_modes_more_samples_reach_the_plans_figure(tmp_path: Path) -> None:
    # 5 a side on 3 prompts at temperature 1: held no-power; the samples it asks for reach the
    # plan's figure for 3 prompts (here above it: 5 scaled by (94 % / 35 %)², since newuser74
    # stated the test's power against the permutation test's floor).
    _sampled_logs(tmp_path, 0, BASE_MASS, "The answer is {}.", n=5)
    made = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert made.exit_code == 1
    plan = json.loads(run_k3diff("triage", "--plan", "--prompts", "3", "--format", "json").stdout)
    for record in json.loads(made.stdout)["records"]:
        assert plan["plan"]["per_prompt"] == 25
        assert record["more_samples"] + 5 >= 25
