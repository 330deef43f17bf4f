"""`report` accepts every lm-eval `responses` document `responses` itself writes (flake79).

`report` recounts a continuous lm-eval test's mean difference from the records' metric changes
(`scorecount`). It summed the rounded per-item differences, while `responses` states the means
from the sums of the scores (`math.fsum`): 1 → 1e100 beside 1e100 → 0 rounds each difference
to ±1e100, whose sum 0 hid the 1 lost, and the genuine document (means 1/3 → 0) was refused as
disagreeing with itself, exit 2. The recount now sums the scores as `responses` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .fixtures import assert_report_reads, write_jsonl
from .lm_eval_logs import bleu_row


def _write(tmp: Path, pairs: list[tuple[float, float]]) -> None:
    write_jsonl(tmp / "base.jsonl", [bleu_row(i, base) for i, (base, _) in enumerate(pairs)])
    write_jsonl(tmp / "patch.jsonl", [bleu_row(i, patch) for i, (_, patch) in enumerate(pairs)])


def test_a_score_lost_beside_two_at_the_magnitude_cap_is_read_back(tmp_path: Path) -> None:
    """1 → 1e100, 1e100 → 0, −1e100 unmoved: the means 1/3 → 0, as `responses` states them."""
    _write(tmp_path, [(1.0, 1e100), (1e100, 0.0), (-1e100, -1e100)])
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "d.json", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    [test] = json.loads((tmp_path / "d.json").read_text())["summary"]["scores"]["tests"]
    assert (test["base_mean"], test["patch_mean"]) == (1 / 3, 0.0)
    result = run_k3diff("report", "d.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "disagrees with itself" not in result.stderr


_SCORES = st.one_of(
    st.floats(min_value=-1e100, max_value=1e100, allow_nan=False),
    st.sampled_from([0.0, 1.0, 0.5, 1e100, -1e100, 1e-300, 1e16, 1e16 + 2]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pairs=st.lists(st.tuples(_SCORES, _SCORES), min_size=1, max_size=8))
@example(pairs=[(1.0, 1e100), (1e100, 0.0), (-1e100, -1e100)])
def test_report_never_refuses_an_lm_eval_document_responses_wrote(
    tmp_path_factory: pytest.TempPathFactory, pairs: list[tuple[float, float]]
) -> None:
    tmp = tmp_path_factory.mktemp("lmeval")
    _write(tmp, pairs)
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "d.json", cwd=tmp
    )
    assert result.exit_code in (0, 1), result.stderr
    assert_report_reads(tmp / "d.json")
