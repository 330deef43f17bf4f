"""The scenario triage was built for, run as a user runs it: a real comparison from
`k3diff responses`, sample logs in the contract's format, the CLI in a subprocess."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, Golden

from .helpers import S, compare_texts, side, write_samples

MISMATCHED = [f"q{n}" for n in range(4)]
MATCHED = [f"q{n}" for n in range(4, 8)]


def _seed(tmp_path: Path, base_stable: bool, patch_inside: bool = True) -> tuple[Path, Path]:
    """8 records, 4 mismatched; on those a follow-up of 3 serial requests a side gives the base
    3 distinct outputs (one of them the patch's, unless not `patch_inside`) and the patch 1 —
    or, with `base_stable`, the base 1 of 3 that differs from the patch."""
    captured = {key: (f"base {key} #0", f"patch {key}") for key in MISMATCHED}
    captured |= {key: (f"same {key}", f"same {key}") for key in MATCHED}
    comparison = compare_texts(tmp_path, captured)
    samples: list[S] = []
    for key in MISMATCHED:
        first = f"patch {key}" if patch_inside else f"base {key} #3"
        base = (
            [f"base {key} #0"] * 3 if base_stable else [f"base {key} #1", first, f"base {key} #2"]
        )
        samples += side(key, "base", list(base)) + side(key, "patch", [f"patch {key}"] * 3)
    for key in MATCHED:
        samples += side(key, "base", [f"same {key}"] * 3) + side(key, "patch", [f"same {key}"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    return comparison.relative_to(tmp_path), Path("run/samples.jsonl")


def _json(result: CliResult) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_seed_scenario_is_base_nondeterminism_with_the_078_caveat(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    comparison, samples = _seed(tmp_path, base_stable=False)
    result = k3diff_cli("triage", comparison, samples, cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert "8 records: 4 base-nondeterminism, 4 match" in result.stdout
    assert (
        "serially, the patch reproduces the base on 8 of 8 records (on 4 of them the base itself "
        "gave several serial outputs)"
    ) in result.stdout
    assert "bound its non-modal mass only by 0.78 at α = 0.05" in result.stdout
    assert "57 more per side would bound it by 0.05" in result.stdout
    assert "result: no regression candidate (exit 0)" in result.stdout
    # The flag names the side whose capture never came back, and the counts (newuser63b).
    said = "capture-not-reproduced (base 0 of 3, patch 3 of 3 samples)"
    assert said in next(line for line in result.stdout.splitlines() if line.startswith("q0 "))
    caveat = result.stdout.split("caveat for q0, q1, q2, q3:\n", 1)[1].split("\n\n", 1)[0]
    lines = caveat.splitlines()
    assert len(lines) > 4 and all(len(line) <= 100 for line in lines)  # a terminal can read it
    assert (
        lines[0]
        == "  3 agreeing patch observations bound its non-modal mass only by 0.78 at α = 0.05;"
    )

    document = _json(k3diff_cli("triage", comparison, samples, "--format", "json", cwd=tmp_path))
    assert document["schema"] == "k3diff.triage/1"
    assert document["verdict"] == {"ok": True, "exit_code": 0}
    assert document["summary"]["base-nondeterminism"] == 4
    assert document["summary"]["inconclusive"] == 0
    record = next(r for r in document["records"] if r["key"] == "q0")
    mode = record["modes"][0]
    assert (mode["base"]["n"], mode["base"]["distinct"]) == (3, 3)
    assert (mode["patch"]["n"], mode["patch"]["distinct"]) == (3, 1)
    # Independent closed forms: 2 agreeing repeats after the first bound the mass by 1 - α^(1/2);
    # the two-sided Clopper–Pearson upper limit for 0 of 2 is 1 - (α/2)^(1/2).
    assert math.isclose(mode["patch"]["nonmodal_bound"], 1 - 0.05 ** (1 / 2), rel_tol=1e-9)
    assert round(mode["patch"]["nonmodal_bound"], 4) == 0.7764
    assert mode["patch"]["deviation_ci"][0] == 0.0
    assert math.isclose(mode["patch"]["deviation_ci"][1], 1 - 0.025**0.5, rel_tol=1e-9)
    # Base: 2 deviations of 3 observations (the observed mode is the samples' own choice, so the
    # lower limit counts all 3): P(Bin(3, u) >= 2) = 3u² - 2u³ = α/2; upper 1.
    low = mode["base"]["deviation_ci"][0]
    assert math.isclose(3 * low**2 - 2 * low**3, 0.025, rel_tol=1e-9)
    assert round(low, 4) == 0.0943 and mode["base"]["deviation_ci"][1] == 1.0
    assert record["good_turing_base"] == 1.0  # 3 singletons among 3
    assert record["more_samples"] == 57  # 60 per side minus the 3 held
    assert record["p"] == 1.0  # the patch deviates less than the base: no evidence against it
    assert record["novelty_p"] == 1.0  # every patch output is one the base gave
    assert mode["base"]["captured"] is mode["patch"]["captured"] is False
    # The captures: the base's never came back, the patch's every time.
    assert record["captures"] == {
        "base": {"serial": {"reproduced": 0, "n": 3}},
        "patch": {"serial": {"reproduced": 3, "n": 3}},
    }
    assert "capture-not-reproduced" in record["flags"]
    # Every patch output is one of the base's most common serial outputs (3 tied at 1 each).
    assert document["summary"]["serial_agree"] == document["summary"]["serial_records"] == 8
    assert document["summary"]["serial_agree_base_unstable"] == 4


def test_seed_scenario_with_a_patch_output_the_base_never_gave_is_a_pooled_shift(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    comparison, samples = _seed(tmp_path, base_stable=False, patch_inside=False)
    result = k3diff_cli("triage", comparison, samples, cwd=tmp_path)
    # Each record alone is undecided (novelty p = 0.1, holm 0.4), but four records whose patch
    # settles on an output its base never gave are a shift of the mode: the pooled count test.
    assert result.exit_code == 1, result.stderr
    assert "8 records: 4 distribution-shift, 4 match" in result.stdout
    assert "novelty p = 0.1" not in result.stdout  # the distribution verdict decides
    document = _json(k3diff_cli("triage", comparison, samples, "--format", "json", cwd=tmp_path))
    test = next(r for r in document["records"] if r["key"] == "q0")["modes"][0]["distribution"]
    # Independently: of the C(6, 3) = 20 equally likely patch draws from a record's 3 "patch"
    # and 3 distinct base samples, two leave the patch off every base mode (its 3 samples, or
    # the 3 base ones), each record's term then at its maximum 3; four records: (2 / 20)^4.
    assert test["pooled_records"] == 4 and test["pooled_statistic"] == 3
    assert test["pooled_p"] == pytest.approx((2 / math.comb(6, 3)) ** 4, rel=1e-9, abs=0)
    assert test["pooled_p_adjusted"] <= 0.05 < test["p_adjusted"]


def test_seed_scenario_markdown_reads_like_the_argument(k3diff_cli: Any, tmp_path: Path) -> None:
    comparison, samples = _seed(tmp_path, base_stable=False)
    result = k3diff_cli("triage", comparison, samples, "--format", "markdown", cwd=tmp_path)
    assert result.exit_code == 0
    assert "**No regression candidate on this evidence** (exit 0)" in result.stdout
    assert (
        "- **`q0`** — base-nondeterminism (serial): not a regression: the base gave 3 distinct "
        "outputs in 3 identical requests and every output the patch gave in this mode is one the "
        "base gave, so the mismatch is not attributable to the patch"
    ) in result.stdout
    assert (
        "Flags: patch-output-inside-base-set, capture-not-reproduced (base 0 of 3, patch 3 of 3 samples)"
        in result.stdout
    )
    assert "**Serially, the patch reproduces the base on 8 of 8 records (on 4 of" in result.stdout
    assert (
        "- Caveat for q0, q1, q2, q3: 3 agreeing patch observations bound its non-modal mass "
        "only by 0.78"
    ) in result.stdout


def test_stable_but_different_sides_are_a_deterministic_divergence(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    comparison, samples = _seed(tmp_path, base_stable=True)
    result = k3diff_cli("triage", comparison, samples, cwd=tmp_path)
    assert result.exit_code == 1
    assert "4 deterministic-divergence, 4 match" in result.stdout
    assert "result: 4 regression candidates (exit 1)" in result.stdout
    document = _json(k3diff_cli("triage", comparison, samples, "--format", "json", cwd=tmp_path))
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    assert {r["category"] for r in document["records"][:4]} == {"deterministic-divergence"}
    assert all(r["regression_candidate"] for r in document["records"][:4])


def test_output_file_is_written_and_exit_code_kept(k3diff_cli: Any, tmp_path: Path) -> None:
    comparison, samples = _seed(tmp_path, base_stable=True)
    result = k3diff_cli(
        "triage", comparison, samples, "--format", "json", "-o", "triage.json", cwd=tmp_path
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert (
        json.loads((tmp_path / "triage.json").read_text())["summary"]["regression_candidates"] == 4
    )


def test_plan_gives_60_per_side(k3diff_cli: Any) -> None:
    result = k3diff_cli("triage", "--plan", "--bound", "0.05", "--alpha", "0.05")
    assert result.exit_code == 0
    assert result.stdout.startswith("60 observations per side")
    assert "(run --repeats 60; the captured response is not one of them)" in result.stdout
    document = json.loads(
        k3diff_cli(
            "triage", "--plan", "--bound", "0.05", "--alpha", "0.05", "--format", "json"
        ).stdout
    )
    per_side = document["plan"]["per_side"]
    # Closed form: the smallest n with (1 - B)^(n - 1) <= α.
    assert per_side == math.ceil(math.log(0.05) / math.log(0.95)) + 1 == 60
    assert 0.95 ** (per_side - 1) <= 0.05 < 0.95 ** (per_side - 2)


def test_golden_seed_scenario_outputs(k3diff_cli: Any, tmp_path: Path, golden: Golden) -> None:
    """The seed's triage as a reviewer reads it (text and Markdown), and the case where the
    patch's output is one the base never gave (inconclusive, with the samples that would decide)."""
    comparison, samples = _seed(tmp_path, base_stable=False)
    for fmt in ("text", "markdown"):
        result = k3diff_cli("triage", comparison, samples, "--format", fmt, cwd=tmp_path)
        golden.check("triage", f"seed-{fmt}", result)
    outside = tmp_path / "outside"
    outside.mkdir()
    comparison, samples = _seed(outside, base_stable=False, patch_inside=False)
    result = k3diff_cli("triage", comparison, samples, cwd=outside)
    golden.check("triage", "seed-outside-text", result)
    # polish62: triage wrote '<= α' where the bundle writes '≤ α'; text and Markdown agree now.
    markdown = k3diff_cli("triage", comparison, samples, "--format", "markdown", cwd=outside)
    for said in (result.stdout, markdown.stdout):
        assert "holm 0.0005 ≤ α = 0.05" in said and "<=" not in said and "&lt;" not in said
