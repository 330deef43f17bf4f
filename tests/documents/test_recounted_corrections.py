"""A triage document's corrected p-values are recounted from its raw ones on reading
(`documents.triagefamilies`): a document whose `p_adjusted` (or the regression candidacy that
rests on it) does not follow from the `p` beside it is refused, exit 2, naming the field."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from hypothesis import given, settings
from hypothesis import strategies as st
from triage.helpers import S, compare_texts, write_samples

N = 20
"""Samples a side and record."""


def _triage(tmp_path: Path, *options: str) -> dict[str, Any]:
    """The real command on three records: `a` whose patch gives a second answer half the time
    (Fisher and novelty tests reject), `c` and `d` matches."""
    cmp = compare_texts(tmp_path, {"a": ("A", "A9"), "c": ("C", "C"), "d": ("D", "D")})
    samples = [S("base", "a", "A")] * N + [S("patch", "a", "A")] * (N // 2)
    samples += [S("patch", "a", "A9")] * (N // 2)
    for key in ("c", "d"):
        samples += [S("base", key, key.upper())] * N + [S("patch", key, key.upper())] * N
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", *options, cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def _report(tmp_path: Path, document: dict[str, Any]) -> Any:
    path = tmp_path / "triage-read.json"
    path.write_text(json.dumps(document))
    return run_k3diff("report", str(path), "--out", str(tmp_path / "bundle"), cwd=tmp_path)


def _holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down by hand: the i-th smallest times (m - i), the running maximum, 1 at most."""
    m = len(pvalues)
    ranked = sorted(range(m), key=lambda i: pvalues[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(ranked):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def _bh(pvalues: list[float]) -> list[float]:
    """Benjamini-Hochberg by hand: p times m over its rank, the running minimum from the top."""
    m = len(pvalues)
    ranked = sorted(range(m), key=lambda i: pvalues[i])
    out, running = [0.0] * m, 1.0
    for rank in range(m - 1, -1, -1):
        i = ranked[rank]
        running = min(running, pvalues[i] * m / (rank + 1))
        out[i] = running
    return out


@pytest.mark.parametrize(("correction", "by_hand"), [("holm", _holm), ("bh", _bh)])
def test_a_genuine_document_is_its_own_correction_and_reads(
    tmp_path: Path, correction: str, by_hand: Any
) -> None:
    document = _triage(tmp_path, "--correction", correction)
    modes = [mode for record in document["records"] for mode in record["modes"]]
    fisher = [mode["p"] for mode in modes]
    assert fisher[0] < 0.001 and fisher[1:] == [1.0, 1.0]
    for mode, expected in zip(modes, by_hand(fisher), strict=True):
        assert mode["p_adjusted"] == pytest.approx(expected, rel=1e-12)
    out = _report(tmp_path, document)
    assert out.exit_code == 1, out.stderr


def _forged(document: dict[str, Any], adjusted: float) -> dict[str, Any]:
    """Record `a`'s corrected p-values raised to `adjusted`, its candidacy, counts and verdict
    edited to match: what the document's other checks recount from the corrected values."""
    record = document["records"][0]
    for view in (record, *record["modes"]):
        view["p_adjusted"] = view["novelty_p_adjusted"] = adjusted
        view["regression_candidate"] = False
    document["summary"]["regression_candidates"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    return document


def test_a_corrected_p_raised_above_alpha_is_refused(tmp_path: Path) -> None:
    # Before: refused only by the novel-undecided rule (a greedy mode); now the recount names
    # the corrected p itself.
    out = _report(tmp_path, _forged(_triage(tmp_path), 0.2))
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "records[0].modes[0].p_adjusted is 0.2 but the recount gives" in out.stderr
    assert "Holm's correction of the document's 3 Fisher p-values" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_a_corrected_p_nudged_across_alpha_within_the_tolerance_is_refused(
    tmp_path: Path,
) -> None:
    document = _triage(tmp_path)
    # The raw p whose Holm correction (x 3) is exactly α; the forgery writes the corrected
    # value one float above it (a pass), well inside the recount's 1e-9 tolerance.
    record = document["records"][0]
    mode = record["modes"][0]
    mode["p"] = record["p"] = 0.05 / 3
    assert _holm([0.05 / 3, 1.0, 1.0])[0] == 0.05
    _forged(document, 0.2)
    for view in (record, mode):
        view["p_adjusted"] = math.nextafter(0.05, 1.0)
    out = _report(tmp_path, document)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "records[0].modes[0].p_adjusted is 0.05000000000000001, above 0.05" in out.stderr


def test_a_record_p_adjusted_is_its_deciding_modes(tmp_path: Path) -> None:
    document = _triage(tmp_path)
    document["records"][1]["p_adjusted"] = 0.5
    out = _report(tmp_path, document)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "records[1].p_adjusted is 0.5 but its deciding mode's is 1.0" in out.stderr


@pytest.mark.parametrize(
    ("written", "recounted", "refused"),
    [
        (0.05, 0.05, False),
        (0.04, 0.05, True),  # beyond the tolerance
        (0.05 * (1 + 5e-10), 0.05, True),  # within it, but a pass where the recount rejects
        (0.05, 0.05 * (1 + 5e-10), False),  # within it, rejecting where the recount falls short
        (0.3 * (1 + 5e-10), 0.3, False),  # within it, on the same side of every level
    ],
)
def test_the_recount_rule(written: float, recounted: float, refused: bool) -> None:
    from k3diff.correction import recount_disagreement

    why = recount_disagreement(written, recounted, (0.05, 0.025))
    assert (why is not None) == refused, why


def _shifted(tmp_path: Path) -> dict[str, Any]:
    """The real command on a third of the answer mass moved to a new answer at temperature 1,
    80 samples a side of three records: every record's MMD test and the pooled one reject."""
    from triage.test_distribution import _sampled_logs

    moved = {"3": 0.2, "5": 0.3, "8": 0.2, "9": 0.3}
    cmp, log = _sampled_logs(tmp_path, 3, moved, "The answer is {}.", n=80)
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_a_sampled_shift_relabelled_with_its_corrected_p_raised_is_refused(
    tmp_path: Path,
) -> None:
    # A third of the answer mass moved to a new answer at temperature 1, 80 samples a side:
    # every record's MMD test and the pooled one reject. The forgery relabels the records
    # both-nondeterministic and raises each corrected p to 0.2, leaving the raw p's (their
    # power, 0.26-0.28 of the answers moved, is within the house shift 0.35). Before: report
    # exit 0 (the corrected p's were read as written).
    document = _shifted(tmp_path)
    tests = [mode["distribution"] for r in document["records"] for mode in r["modes"]]
    family = [t["p"] for t in tests] + [tests[0]["pooled_p"]]
    assert document["distribution_tests"] == len(family) == 4
    for test, expected in zip(tests, _holm(family), strict=False):
        assert test["p_adjusted"] == expected
    for record in document["records"]:
        for view in (record, *record["modes"]):
            view["category"] = "both-nondeterministic"
            view["flags"] = [f for f in view["flags"] if f != "patch-output-outside-base-set"]
            view["regression_candidate"] = False
        for mode in record["modes"]:
            mode["distribution"]["p_adjusted"] = mode["distribution"]["pooled_p_adjusted"] = 0.2
    summary = document["summary"]
    summary["both-nondeterministic"], summary["distribution-shift"] = 3, 0
    summary["regression_candidates"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    out = _report(tmp_path, document)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "records[0].modes[0].distribution.p_adjusted is 0.2 but the recount gives" in out.stderr
    assert "Holm's correction of the document's 4 distribution p-values" in out.stderr


def test_a_genuine_bh_document_is_recounted_by_bh_not_holm(tmp_path: Path) -> None:
    # Two records whose patch gives a second answer (10 and 5 of 20), one match: Holm and BH
    # differ on the two Fisher p's, so a reader that recounted a BH document by Holm refuses
    # the genuine one (review80d: the recount's correction was not told apart by any test, the
    # first test's family [p, 1, 1] is the same by both).
    cmp = compare_texts(tmp_path, {"a": ("A", "A9"), "b": ("B", "B9"), "c": ("C", "C")})
    samples = [S("base", key, key.upper()) for key in "abc" for _ in range(N)]
    samples += [S("patch", "a", "A")] * 10 + [S("patch", "a", "A9")] * 10
    samples += [S("patch", "b", "B")] * 15 + [S("patch", "b", "B9")] * 5
    samples += [S("patch", "c", "C")] * N
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff(
        "triage", str(cmp), str(log), "--format", "json", "--correction", "bh", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    document = json.loads(result.stdout)
    modes = [mode for record in document["records"] for mode in record["modes"]]
    fisher = [mode["p"] for mode in modes]
    assert fisher[2] == 1.0 and fisher[0] < fisher[1] < 0.05
    assert _bh(fisher)[1] != pytest.approx(_holm(fisher)[1], rel=1e-6)
    for mode, expected in zip(modes, _bh(fisher), strict=True):
        assert mode["p_adjusted"] == pytest.approx(expected, rel=1e-12)
    out = _report(tmp_path, document)
    assert out.exit_code == 1, out.stderr


def test_a_pooled_test_written_otherwise_in_one_record_of_its_pool_is_refused(
    tmp_path: Path,
) -> None:
    # The pooled MMD test is one member of the family, written in every record of its pool:
    # the recount takes the first record's, so another record's copy must be alike (review80d:
    # no test held this check).
    document = _shifted(tmp_path)
    test = document["records"][2]["modes"][0]["distribution"]
    assert test["pooled_p_adjusted"] <= 0.025  # rejects at α / 2
    test["pooled_p_adjusted"] = 0.2
    out = _report(tmp_path, document)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "records[2].modes[0].distribution.pooled_p_adjusted is 0.2 of p " in out.stderr, (
        out.stderr
    )
    assert "records[0].modes[0].distribution.pooled_p_adjusted of the same pooled test" in (
        out.stderr
    )


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    drawn=st.floats(0.0, 1.0),
    at=st.sampled_from([None, 1.0, 0.5]),
    ulps=st.integers(-8, 8),
    alpha=st.sampled_from([0.05, 0.01, 0.1, 0.2, 1e-6]),
)
def test_the_rule_reads_no_pass_the_recount_rejects(
    drawn: float, at: float | None, ulps: int, alpha: float
) -> None:
    # Any written value a few floats from the recount (another scipy's last digits), the
    # recount drawn or exactly at a level: read unless it passes a level (alpha or alpha / 2)
    # the recount rejects at, p <= level; never read if so.
    from k3diff.correction import recount_disagreement

    recounted = drawn if at is None else alpha * at
    written = recounted
    for _ in range(abs(ulps)):
        written = math.nextafter(written, 2.0 if ulps > 0 else -1.0)
    written = min(max(written, 0.0), 1.0)
    levels = (alpha, alpha / 2)
    why = recount_disagreement(written, recounted, levels)
    crosses = any(written > level >= recounted for level in levels)
    far = not math.isclose(written, recounted, rel_tol=1e-9)
    assert (why is not None) == (crosses or far), why
