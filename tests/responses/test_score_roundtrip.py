"""`report` accepts every `responses` document `responses` itself writes (records76).

An inspect_ai judge value inspect cannot read as a number (`" yes"`, `"1e0"`, a number past
`MAX_SCORE_MAGNITUDE`) makes the metric one-sided on that sample, so `responses` writes no
score for it, while its field change (`scores.judge.value`) is listed. `report` took any
changed tested score on a record without scores for review61b's forgery (the changed records'
scores dropped) and refused the genuine exit-1 document, exit 2. It now refuses only a change
between two values that are scores as inspect reads them, on a record carrying no score of
that metric; the forgery, and the same forgery of a dict-valued score (`scores.NAME.value.KEY`,
which the old check never matched), are still refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .eval_logs import inspect_sample, write_eval_log, write_json_log
from .fixtures import assert_report_reads

SAMPLES = 40
CHANGED = 6


def _logs(
    tmp_path: Path, base_value: Any, patch_value: Any, eval_zip: bool = True
) -> tuple[Path, Path]:
    """40 samples scored `base_value`; the patch's first 6 scored `patch_value`."""
    write = write_eval_log if eval_zip else write_json_log
    suffix = ".eval" if eval_zip else ".json"
    base = [inspect_sample(i, 1, f"q{i}", "42", {"judge": base_value}) for i in range(SAMPLES)]
    patch = [
        inspect_sample(i, 1, f"q{i}", "42", {"judge": patch_value if i < CHANGED else base_value})
        for i in range(SAMPLES)
    ]
    return write(tmp_path / f"b{suffix}", base), write(tmp_path / f"p{suffix}", patch)


def _document(tmp_path: Path, base: Path, patch: Path) -> dict[str, Any]:
    result = run_k3diff("responses", base, patch, "--format", "json", "-o", tmp_path / "d.json")
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads((tmp_path / "d.json").read_text())
    return document


@pytest.mark.parametrize(
    ("base_value", "patch_value"),
    [
        ("yes", " yes"),
        ("1", "1e0"),
        (1, 1e300),
        (1, 10**400),
        ({"a": "C", "b": 1}, {"a": "C", "b": " yes"}),
    ],
)
def test_report_accepts_a_judge_value_that_is_no_score(
    tmp_path: Path, base_value: Any, patch_value: Any
) -> None:
    _document(tmp_path, *_logs(tmp_path, base_value, patch_value))
    result = run_k3diff("report", "d.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "disagrees with itself" not in result.stderr


def _forge(tmp_path: Path, base_value: Any, patch_value: Any, metric: str) -> dict[str, Any]:
    """review61b: the changed records' scores of `metric` dropped, its test replaced by the one
    `responses` computes from the kept samples alone, the verdict's score reason removed: the
    consistent edit a forger would make."""
    document = _document(tmp_path, *_logs(tmp_path, base_value, patch_value))
    samples = [
        inspect_sample(i, 1, f"q{i}", "42", {"judge": base_value}) for i in range(CHANGED, SAMPLES)
    ]
    logs = [write_eval_log(tmp_path / f"kept-{side}.eval", samples) for side in "bp"]
    result = run_k3diff("responses", *logs, "--format", "json")
    assert result.exit_code == 0, result.stderr
    tests = json.loads(result.stdout)["summary"]["scores"]["tests"]
    [honest] = [t for t in tests if t["metric"] == metric]
    for record in document["records"]:
        if record["field_changes"]:
            record["scores"] = [s for s in record["scores"] if s[0] != metric]
            if not record["scores"]:
                del record["scores"]
    stated = document["summary"]["scores"]["tests"]
    stated[:] = [honest if t["metric"] == metric else t for t in stated]
    verdict = document["verdict"]
    verdict["reasons"] = [r for r in verdict["reasons"] if r.endswith("paired differ")]
    return document


@pytest.mark.parametrize(
    ("base_value", "patch_value", "metric"),
    [("C", "I", "judge"), ({"a": "C", "b": 1}, {"a": "I", "b": 1}, "judge.a")],
)
def test_dropping_the_changed_records_scores_is_still_refused(
    tmp_path: Path, base_value: Any, patch_value: Any, metric: str
) -> None:
    document = _forge(tmp_path, base_value, patch_value, metric)
    (tmp_path / "f.json").write_text(json.dumps(document))
    result = run_k3diff("report", "f.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert "a tested score changed (field_changes) between two scores, but the record" in (
        result.stderr
    )


_WORDS = ["yes", " yes", "no", "TRUE", "1", "1e0", " 1", "1_0", "1.2.3", "½", "", "C", "I", "P"]
_SCALARS = st.one_of(
    st.sampled_from(_WORDS),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e100, -1e100, 1e101, 0.5]),
)
_VALUES = st.one_of(_SCALARS, st.dictionaries(st.sampled_from(["a", "b"]), _SCALARS, max_size=2))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.lists(st.tuples(_VALUES, _VALUES), min_size=1, max_size=6),
    epochs=st.sampled_from([1, 2]),
    eval_zip=st.booleans(),
)
# stop 78's CI draw: numpy's mean of the differences (1e100 - 1, -1e100 - 1) was 0, so the
# direction read "unchanged" while the stated means moved 1 -> 0.
@example(values=[("yes", 1e100), ("yes", -1e100)], epochs=1, eval_zip=False)
def test_report_never_refuses_a_document_responses_wrote(
    tmp_path_factory: pytest.TempPathFactory,
    values: list[tuple[Any, Any]],
    epochs: int,
    eval_zip: bool,
) -> None:
    tmp = tmp_path_factory.mktemp("roundtrip")
    write = write_eval_log if eval_zip else write_json_log
    base, patch = [], []
    for i, (before, after) in enumerate(values):
        for epoch in range(1, epochs + 1):
            base.append(inspect_sample(i, epoch, f"q{i}", "42", {"judge": before}))
            patch.append(inspect_sample(i, epoch, f"q{i}", "42", {"judge": after}))
    write(tmp / "b.json", base)
    write(tmp / "p.json", patch)
    result = run_k3diff(
        "responses", "b.json", "p.json", "--format", "json", "-o", "d.json", cwd=tmp
    )
    assert result.exit_code in (0, 1), result.stderr
    assert_report_reads(tmp / "d.json")


def test_direction_follows_the_means_beside_a_score_at_the_magnitude_cap(tmp_path: Path) -> None:
    """The mean paired difference is -1 (1 -> 1e100 and 1 -> -1e100): `responses` says the
    patch is worse, as its stated means show, and `report` reads the document it wrote."""
    base = [inspect_sample(i, 1, f"q{i}", "42", {"judge": "yes"}) for i in range(2)]
    patch = [
        inspect_sample(i, 1, f"q{i}", "42", {"judge": v}) for i, v in enumerate([1e100, -1e100])
    ]
    write_json_log(tmp_path / "b.json", base)
    write_json_log(tmp_path / "p.json", patch)
    document = _document(tmp_path, tmp_path / "b.json", tmp_path / "p.json")
    [test] = document["summary"]["scores"]["tests"]
    assert (test["base_mean"], test["patch_mean"], test["direction"]) == (1.0, 0.0, "worse")
    result = run_k3diff("report", "d.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
