"""Eval scores compared as paired data (issue 44): McNemar's exact test for binary metrics,
Wilcoxon signed-rank for continuous ones, Holm across metrics, the smallest detectable
difference, a base rerun's noise band, and the logs reviewers have (lm-eval samples, inspect_ai
`.eval` and JSON logs, `vllm bench serve` results). Every p-value is recomputed here, from
scipy called separately or from the exact binomial sum written out."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import run_k3diff, twin
from scipy import stats

from k3diff.documents.catalog import load_schema
from k3diff.responses.document import read

from .eval_logs import (
    bench_result,
    inspect_sample,
    write_bench,
    write_eval_log,
    write_json_log,
)
from .fixtures import write_jsonl
from .lm_eval_logs import generate_current
from .signed_rank_support import simulated_power


def _lm_eval_sides(tmp_path: Path, lost: int, gained: int, n: int = 220) -> None:
    """n docs, base correct on the first 150; the patch loses `lost` of those and gains
    `gained` of the rest (the docs whose score moved are also the docs whose answer moved)."""
    base = [1.0 if i < 150 else 0.0 for i in range(n)]
    patch = list(base)
    for i in range(lost):
        patch[i] = 0.0
    for i in range(150, 150 + gained):
        patch[i] = 1.0
    for side, scores in (("base", base), ("patch", patch), ("rerun", base)):
        rows = [
            generate_current(i, f"Q{i}?", [a], a, "strict-match", s)
            for i, s in enumerate(scores)
            for a in ["42" if s else "41"]
        ]
        (tmp_path / side).mkdir(exist_ok=True)
        write_jsonl(tmp_path / side / "samples_gsm8k.jsonl", rows)


def _json(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("responses", *args, "--format", "json", cwd=tmp_path)
    assert result.stderr == "", result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(document, load_schema("responses"))
    return result.exit_code, document


def _mcnemar_by_hand(lost: int, gained: int) -> float:
    """Two-sided exact binomial p at 1/2: twice the smaller tail, capped at 1."""
    d, k = lost + gained, min(lost, gained)
    return min(1.0, 2 * sum(math.comb(d, i) for i in range(k + 1)) / (1 << d))


SIDES = ("base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl")


def test_twelve_lost_two_gained_of_220_is_mcnemar_p_0_0129_and_fails(tmp_path: Path) -> None:
    _lm_eval_sides(tmp_path, lost=12, gained=2)
    code, document = _json(tmp_path, *SIDES)
    (test,) = document["summary"]["scores"]["tests"]
    assert (test["metric"], test["filter"], test["n"]) == ("exact_match", "strict-match", 220)
    assert (test["lost"], test["gained"], test["kind"]) == (12, 2, "binary")
    assert test["p"] == pytest.approx(212 / 16384, rel=1e-12)  # 2·(1 + 14 + 91) / 2^14
    assert test["p"] == pytest.approx(stats.binomtest(12, 14, 0.5).pvalue, rel=1e-12)
    assert test["direction"] == "worse" and test["fails"] is True
    assert test["base_mean"] == pytest.approx(150 / 220)
    assert test["patch_mean"] == pytest.approx(140 / 220)
    sentence = "exact_match [strict-match]: 12 lost, 2 gained of 220, McNemar p = 0.0129: "
    assert sentence + "the patch is worse" in document["verdict"]["reasons"]
    assert code == 1
    text = run_k3diff("responses", *SIDES, cwd=tmp_path).stdout
    assert sentence + "the patch is worse" in text
    assert "exact_match [strict-match] significantly worse (Holm p = 0.0129)" in text
    view = read(document, "cmp.json")
    assert view.scores is not None and [t.lost for t in view.scores.failing] == [12]


def test_an_unpaired_two_proportion_test_would_not_have_rejected(tmp_path: Path) -> None:
    """Why pairing matters: 150/220 vs 140/220 as independent samples is far from significant."""
    table = [[150, 70], [140, 80]]
    assert stats.fisher_exact(table).pvalue > 0.3
    assert _mcnemar_by_hand(12, 2) < 0.05


@pytest.mark.parametrize(("lost", "gained"), [(2, 12), (5, 5), (0, 0), (3, 0)])
def test_better_balanced_or_small_moves_do_not_fail_on_the_score(
    tmp_path: Path, lost: int, gained: int
) -> None:
    _lm_eval_sides(tmp_path, lost, gained)
    _, document = _json(tmp_path, *SIDES)
    (test,) = document["summary"]["scores"]["tests"]
    assert test["p"] == pytest.approx(_mcnemar_by_hand(lost, gained), rel=1e-12)
    assert test["fails"] is False
    assert not any("McNemar" in reason for reason in document["verdict"]["reasons"])
    if (lost, gained) == (2, 12):
        assert test["direction"] == "better" and test["significant"] is True


def _exact_power(n: int, rate: float, delta: float, alpha: float) -> float:
    """The power of McNemar's exact test by enumeration, every test run through binomtest."""
    psi = max(rate, delta)
    q = (psi + delta) / (2 * psi)
    total = 0.0
    for d in range(1, n + 1):
        rejected = sum(
            stats.binom.pmf(k, d, q) for k in range(d + 1) if stats.binomtest(k, d).pvalue <= alpha
        )
        total += stats.binom.pmf(d, n, psi) * rejected
    return total


def test_the_binary_mde_is_the_smallest_difference_with_80_percent_power(tmp_path: Path) -> None:
    base = [1.0] * 30 + [0.0] * 10
    patch = [0.0] * 3 + [1.0] * 27 + [1.0] + [0.0] * 9
    for side, scores in (("base", base), ("patch", patch)):
        rows = [
            generate_current(i, f"Q{i}?", ["42" if s else "41"], "x", "none", s)
            for i, s in enumerate(scores)
        ]
        (tmp_path / side).mkdir()
        write_jsonl(tmp_path / side / "samples_gsm8k.jsonl", rows)
    _, document = _json(tmp_path, *SIDES)
    (test,) = document["summary"]["scores"]["tests"]
    assert (test["n"], test["lost"], test["gained"]) == (40, 3, 1)
    mde = test["mde"]
    # ψ: the one-sided Clopper-Pearson upper bound at α on 4 of 40 (scores61).
    upper = float(stats.beta.ppf(0.95, 4 + 1, 40 - 4))
    assert _exact_power(40, upper, mde, 0.05) >= 0.8
    assert _exact_power(40, upper, mde - 0.005, 0.05) < 0.8


def _inspect_logs(tmp_path: Path, patch_scores: list[float], base_scores: list[float]) -> None:
    base = [
        inspect_sample(i, e, f"Q{i}", f"a{base_scores[i]}", {"judge": base_scores[i]})
        for i in range(len(base_scores))
        for e in (1, 2)
    ]
    patch = [
        inspect_sample(i, e, f"Q{i}", f"a{patch_scores[i]}", {"judge": patch_scores[i]}, time=0.9)
        for i in reversed(range(len(patch_scores)))
        for e in (2, 1)
    ]
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)
    write_json_log(tmp_path / "patch.json", patch)


def test_inspect_eval_logs_pair_by_id_and_epoch_and_test_continuous_scores(
    tmp_path: Path,
) -> None:
    base_scores = [0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.8, 0.3]
    patch_scores = [0.4, 0.5, 0.1, 0.9, 0.1, 0.55, 0.6, 0.25]
    _inspect_logs(tmp_path, patch_scores, base_scores)
    code, document = _json(tmp_path, "base.eval", "patch.eval")
    assert document["base"]["format"] == "inspect-eval"
    assert document["pairing"]["label"] == "id+epoch"
    records = {r["key"]: r for r in document["records"]}
    assert set(records) == {f"{i}/epoch-{e}" for i in range(8) for e in (1, 2)}
    assert records["3/epoch-2"]["status"] == "match"  # 0.9 on both sides, whatever the order
    assert records["3/epoch-2"]["base"]["location"] == "base.eval:samples/3_epoch_2.json"
    (test,) = document["summary"]["scores"]["tests"]
    # One item a sample (its two epochs alike here): n 8, not 16 (stop 61, `test_epochs`).
    differences = [p - b for b, p in zip(base_scores, patch_scores, strict=True)]
    assert test["kind"] == "continuous" and test["n"] == 8
    expected = stats.wilcoxon([d for d in differences if d != 0]).pvalue
    assert test["p"] == pytest.approx(expected, rel=1e-9)
    # 8 items: the drop the exact test finds in 90 % of runs of normal differences of this
    # spread (sized at 0.9 for the stated 0.8, stats64b); 2,000 runs give ±0.02 at 3 sd.
    power = simulated_power(8, test["mde"] / stats.tstd(differences), 0.05)
    assert 0.87 <= power <= 0.93
    assert code == 1
    _, from_json = _json(tmp_path, "base.eval", "patch.json")
    assert from_json["patch"]["format"] == "inspect-json"
    assert from_json["summary"]["scores"]["tests"][0]["p"] == test["p"]


def test_inspect_letter_scores_are_binary_and_holm_corrects_across_scorers(
    tmp_path: Path,
) -> None:
    base, patch = [], []
    for i in range(30):
        b = "C" if i < 20 else "I"
        p = "I" if i < 9 else b  # 9 lost
        base.append(inspect_sample(i, 1, f"Q{i}", b, {"match": b, "exact": 1 if b == "C" else 0}))
        exact = 1 if (p == "C" or i == 25) else 0  # one gained on the second scorer
        patch.append(inspect_sample(i, 1, f"Q{i}", p, {"match": p, "exact": exact}))
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)
    _, document = _json(tmp_path, "base.eval", "patch.eval")
    tests = {t["metric"]: t for t in document["summary"]["scores"]["tests"]}
    p_match = _mcnemar_by_hand(9, 0)
    p_exact = _mcnemar_by_hand(9, 1)
    assert tests["match"]["p"] == pytest.approx(p_match)
    assert tests["exact"]["p"] == pytest.approx(p_exact)
    # Holm: the smaller p times 2, the larger times 1, kept monotone.
    assert tests["match"]["p_adjusted"] == pytest.approx(min(1, 2 * p_match))
    assert tests["exact"]["p_adjusted"] == pytest.approx(max(2 * p_match, p_exact))


def test_base_rerun_reports_the_noise_band_beside_the_patch(tmp_path: Path) -> None:
    _lm_eval_sides(tmp_path, lost=12, gained=2)
    code, document = _json(tmp_path, *SIDES, "--base-rerun", "rerun/samples_gsm8k.jsonl")
    noise = document["noise"]
    assert noise["path"] == "rerun/samples_gsm8k.jsonl" and noise["fails"] is False
    assert (noise["paired"], noise["differing"]) == (220, 0)
    (rerun,) = noise["scores"]["tests"]
    assert (rerun["lost"], rerun["gained"], rerun["p"]) == (0, 0, 1.0)
    assert code == 1
    text = run_k3diff(
        "responses", *SIDES, "--base-rerun", "rerun/samples_gsm8k.jsonl", cwd=tmp_path
    ).stdout
    assert "rerun p (Holm)" in text
    assert "base vs base rerun: exact_match [strict-match]: 0 lost, 0 gained of 220" in text


def test_vllm_bench_results_pair_by_position_with_latencies_as_run_state(
    tmp_path: Path,
) -> None:
    write_bench(tmp_path / "base.json", bench_result(["a b", "c", "d"], ["", "", ""]))
    write_bench(tmp_path / "patch.json", bench_result(["a b", "c", "d"], ttft=0.5))
    code, document = _json(tmp_path, "base.json", "patch.json")
    assert document["base"]["format"] == "vllm-bench"
    assert document["pairing"]["label"] == "position"
    assert [r["key"] for r in document["records"]] == ["#1", "#2", "#3"]
    assert document["summary"]["run_state_differs"] == 3
    assert code == 0
    write_bench(tmp_path / "failed.json", bench_result(["a b", "", "d"], ["", "timeout", ""]))
    code, document = _json(tmp_path, "base.json", "failed.json")
    assert document["summary"]["errors"] == 1 and code == 1


def test_vllm_bench_results_of_unequal_counts_are_refused(tmp_path: Path) -> None:
    write_bench(tmp_path / "base.json", bench_result(["a", "b", "c"]))
    write_bench(tmp_path / "patch.json", bench_result(["a", "b"]))
    result = run_k3diff("responses", "base.json", "patch.json", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "patch.json: 2 requests where base.json has 3" in result.stderr
    broken = bench_result(["a", "b"])
    broken["errors"] = [""]
    write_bench(tmp_path / "broken.json", broken)
    result = run_k3diff("responses", "broken.json", twin("broken.json", tmp_path), cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "broken.json: 'errors' holds 1 entries but 'generated_texts' 2" in result.stderr
    # review66: a per-request field that is no list was an internal error (its message
    # formatted a string as a number).
    broken["errors"] = 5
    write_bench(tmp_path / "broken.json", broken)
    result = run_k3diff("responses", "broken.json", twin("broken.json", tmp_path), cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (
        "k3diff: error: broken.json: 'errors' is not a list (one entry a request)\n"
    )


def test_a_corrupt_or_unsound_eval_log_is_refused_naming_the_file(tmp_path: Path) -> None:
    write_eval_log(tmp_path / "good.eval", [inspect_sample(1, 1, "Q", "a", {"m": "C"})])
    data = (tmp_path / "good.eval").read_bytes()
    (tmp_path / "cut.eval").write_bytes(data[: len(data) // 2])
    result = run_k3diff("responses", "cut.eval", "good.eval", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "cut.eval" in result.stderr and "Traceback" not in result.stderr
    with zipfile.ZipFile(tmp_path / "climb.eval", "w") as archive:
        archive.writestr("header.json", "{}")
        archive.writestr("samples/../../x_epoch_1.json", "{}")
    result = run_k3diff("responses", "climb.eval", "good.eval", cwd=tmp_path)
    assert result.exit_code == 2
    assert "climb.eval: unsound .eval archive" in result.stderr
    with zipfile.ZipFile(tmp_path / "bad.eval", "w") as archive:
        archive.writestr("header.json", "{}")
        archive.writestr("samples/1_epoch_1.json", b"\xca\xfe")
    result = run_k3diff("responses", "bad.eval", "good.eval", cwd=tmp_path)
    assert result.exit_code == 2
    assert "bad.eval:samples/1_epoch_1.json: invalid UTF-8 (byte 0xca)" in result.stderr


def test_the_bundle_states_the_test_and_refuses_a_score_edited_into_a_pass(
    tmp_path: Path,
) -> None:
    _lm_eval_sides(tmp_path, lost=12, gained=2)
    args = ("--base-rerun", "rerun/samples_gsm8k.jsonl", "--format", "json", "-o", "cmp.json")
    assert run_k3diff("responses", *SIDES, *args, cwd=tmp_path).exit_code == 1
    assert run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path).exit_code == 1
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "12 lost, 2 gained of 220, McNemar p = 0.0129: the patch is worse" in report
    assert "(the engine's own noise band): exact" in report
    document = json.loads((tmp_path / "cmp.json").read_text())
    (test,) = document["summary"]["scores"]["tests"]
    test.update(significant=False)
    (tmp_path / "edited.json").write_text(json.dumps(document))
    result = run_k3diff("report", "edited.json", "--out", "b2", cwd=tmp_path)
    assert result.exit_code == 2
    assert "significant is False but p_adjusted 0.0129" in result.stderr


def test_a_hostile_scorer_name_cannot_drive_the_terminal_or_the_table(tmp_path: Path) -> None:
    name = "m\x1b[31m|x"
    base = [inspect_sample(i, 1, f"Q{i}", "a", {name: "C"}) for i in range(3)]
    patch = [inspect_sample(i, 1, f"Q{i}", "a", {name: "C" if i else "I"}) for i in range(3)]
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)
    text = run_k3diff("responses", "base.eval", "patch.eval", cwd=tmp_path).stdout
    assert "\x1b" not in text
    assert "1 lost, 0 gained of 3, McNemar p = 1" in text
    markdown = run_k3diff(
        "responses", "base.eval", "patch.eval", "--format", "markdown", cwd=tmp_path
    ).stdout
    assert "\x1b" not in markdown
    row = next(line for line in markdown.splitlines() if "McNemar |" in line)
    assert "\\|x" in row  # the scorer's pipe is escaped, the row keeps its columns


def test_scores_past_float_range_are_no_scores_and_the_document_stays_valid(
    tmp_path: Path,
) -> None:
    """An integer past float's range (JSON allows 10**400) and values near float's limit (their
    difference is infinite) are no usable scores: no traceback, a schema-valid document whose
    tests count only the finite items."""
    scores = [0.25, 0.5, 0.75, 0.5, 0.25, 0.5]
    base_rows = [generate_current(i, f"Q{i}?", ["a"], "a", "none", s) for i, s in enumerate(scores)]
    patch_rows = [dict(row) for row in base_rows]
    patch_rows[0]["exact_match"] = 10**400
    base_rows[1]["exact_match"], patch_rows[1]["exact_match"] = 1e308, -1e308
    write_jsonl(tmp_path / "base.jsonl", base_rows)
    write_jsonl(tmp_path / "patch.jsonl", patch_rows)
    code, document = _json(tmp_path, "base.jsonl", "patch.jsonl")
    (test,) = document["summary"]["scores"]["tests"]
    assert test["n"] == 4 and (test["lost"], test["gained"]) == (0, 0)
    assert code == 1  # the two records whose metric changed still differ
    base = [inspect_sample(i, 1, f"Q{i}", "a", {"judge": s}) for i, s in enumerate(scores)]
    patch = [inspect_sample(i, 1, f"Q{i}", "a", {"judge": s}) for i, s in enumerate(scores)]
    patch[0]["scores"]["judge"]["value"] = 10**400
    write_json_log(tmp_path / "base.json", base)
    write_json_log(tmp_path / "patch.json", patch)
    code, document = _json(tmp_path, "base.json", "patch.json")
    (test,) = document["summary"]["scores"]["tests"]
    assert test["n"] == 5 and code == 1


def _refused(tmp_path: Path, document: dict[str, Any], name: str) -> str:
    """`document` given to `k3diff report` (its verdict left as written, so nothing else in it
    is refused): the one line it is refused with."""
    (tmp_path / name).write_text(json.dumps(document))
    result = run_k3diff("report", name, "--out", f"b-{name}", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("\n") == 1 and name in result.stderr
    return result.stderr


def test_a_direction_that_disagrees_with_the_counts_is_refused(tmp_path: Path) -> None:
    """12 lost and 2 gained is `worse`, the only direction that fails: a document saying
    `better` or `unchanged`, or calling a higher-is-better metric lower-is-better, is refused
    like any other forged field (it used to read as a score the patch improved, or left)."""
    _lm_eval_sides(tmp_path, lost=12, gained=2)
    args = ("--format", "json", "-o", "cmp.json")
    assert run_k3diff("responses", *SIDES, *args, cwd=tmp_path).exit_code == 1
    original = (tmp_path / "cmp.json").read_text()
    for index, edit in enumerate(
        ({"direction": "better"}, {"direction": "unchanged"}, {"lost": 2, "gained": 12})
    ):
        document = json.loads(original)
        document["summary"]["scores"]["tests"][0].update(edit)
        said = _refused(tmp_path, document, f"e{index}.json")
        assert "scores 'exact_match [strict-match]': direction is" in said, said
    document = json.loads(original)
    document["summary"]["scores"]["tests"][0].update(higher_is_better=False, direction="better")
    said = _refused(tmp_path, document, "lower.json")
    assert "higher_is_better is false but k3diff judges 'exact_match' higher is better" in said


def test_a_continuous_direction_follows_the_means(tmp_path: Path) -> None:
    base_scores = [0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.8, 0.3]
    patch_scores = [0.4, 0.5, 0.1, 0.9, 0.1, 0.55, 0.6, 0.25]
    _inspect_logs(tmp_path, patch_scores, base_scores)
    code, document = _json(tmp_path, "base.eval", "patch.eval")
    assert code == 1 and document["summary"]["scores"]["tests"][0]["direction"] == "worse"
    document["summary"]["scores"]["tests"][0]["direction"] = "better"
    said = _refused(tmp_path, document, "better.json")
    assert "direction is 'better' but the mean moved from" in said
