"""A telemetry document's acceptance rates, Clopper-Pearson intervals and per-position Fisher
tests are recounted from the counts they state on reading (`documents.telemetryrates`): one
edited number is refused, exit 2, one line naming the field; the genuine document reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry
from scipy.stats import beta

from .test_acceptance_gate import BASE_RATES, BROKEN_RATES, _sample, servers

__all__ = ["servers"]


@pytest.fixture
def genuine(servers: Any, tmp_path: Path) -> dict[str, Any]:
    log = _sample(tmp_path, servers(BASE_RATES, BROKEN_RATES), repeats=4)
    code, doc, _ = run_telemetry(log)
    assert code == 0
    assert doc["positions"] and doc["position_tests"]
    return doc


def _report(tmp_path: Path, doc: dict[str, Any]) -> Any:
    (tmp_path / "t.json").write_text(json.dumps(doc))
    return run_k3diff("report", "t.json", "--out", "bundle", cwd=tmp_path)


def _refused(result: Any) -> str:
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    return str(line)


def test_the_genuine_document_is_its_own_recount(genuine: dict[str, Any], tmp_path: Path) -> None:
    alpha = genuine["alpha"]
    for row in genuine["positions"] + genuine["speculation"]:
        k, n = row["accepted"], row.get("drafts", row.get("drafted"))
        # Clopper-Pearson by its closed form in beta quantiles.
        low = 0.0 if k == 0 else beta.ppf(alpha / 2, k, n - k + 1)
        high = 1.0 if k == n else beta.ppf(1 - alpha / 2, k + 1, n - k)
        assert row["rate"] == k / n
        assert row["ci"] == pytest.approx([low, high], rel=1e-9)
    assert _report(tmp_path, genuine).exit_code == 0


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda d: d["positions"][1].update(rate=0.99), "positions[1].rate is 0.99"),
        (lambda d: d["positions"][0]["ci"].__setitem__(0, 0.5), "positions[0].ci low is 0.5"),
        (lambda d: d["speculation"][1].update(rate=0.99), "speculation[1].rate is 0.99"),
        (lambda d: d["position_tests"][0].update(p=1.0), "position_tests[0].p is 1.0"),
        (
            lambda d: d["position_tests"][-1].update(p_adjusted=1.0),
            "position_tests[{last}].p_adjusted is 1.0",
        ),
        (lambda d: d["positions"][0].pop("ci"), "ci' is missing"),
    ],
    ids=["rate", "ci", "speculation-rate", "fisher-p", "holm", "ci-removed"],
)
def test_one_edited_number_is_refused(
    genuine: dict[str, Any], tmp_path: Path, edit: Any, said: str
) -> None:
    edit(genuine)
    line = _refused(_report(tmp_path, genuine))
    assert said.format(last=len(genuine["position_tests"]) - 1) in line, line


def _huge_positions(doc: dict[str, Any]) -> None:
    for row in doc["positions"]:
        row["accepted"], row["drafts"] = row["accepted"] * 10**20, row["drafts"] * 10**20


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (_huge_positions, "field 'positions[0].accepted' must be an integer from 0 to"),
        (
            lambda d: d["speculation"][0].update(accepted=d["speculation"][0]["drafted"] + 1),
            "field 'speculation[0].accepted' must be between 0 and drafted",
        ),
    ],
    ids=["counts-past-2^53", "accepted-over-drafted"],
)
def test_counts_the_recount_cannot_take_are_refused_in_one_line(
    genuine: dict[str, Any], tmp_path: Path, edit: Any, said: str
) -> None:
    # Before (review80d): an internal error from scipy's binomtest (TypeError past int64,
    # ValueError where accepted > drafted), not one line naming the document.
    edit(genuine)
    line = _refused(_report(tmp_path, genuine))
    assert f"t.json: {said}" in line, line


def test_a_position_past_the_fisher_cap_is_not_recounted(monkeypatch: pytest.MonkeyPatch) -> None:
    # Fisher's exact test of [[n/2, n/2], [n/2 + 1, n/2 - 1]] at n = 10^15 ran past 100 s:
    # report's recount of a document's position counts is bounded as telemetry's acceptance_p
    # is (review80d: before, scipy was handed the table). The cheap position is still recounted.
    import scipy.stats

    from k3diff.counts import FISHER_MAX_TOTAL
    from k3diff.documents.telemetryrates import position_test_problems

    tables: list[Any] = []
    real = scipy.stats.fisher_exact

    def counted(table: Any) -> Any:
        tables.append(table)
        assert sum(map(sum, table)) <= FISHER_MAX_TOTAL, table  # else minutes, not an answer
        return real(table)

    monkeypatch.setattr(scipy.stats, "fisher_exact", counted)
    half = 5 * 10**14
    positions = [
        ("base", 1, 30, 40),
        ("patch", 1, 20, 40),
        ("base", 2, half, 2 * half),
        ("patch", 2, half + 1, 2 * half),
    ]
    p_one = real([[30, 10], [20, 20]]).pvalue
    tests = [(1, p_one, min(1.0, 2 * p_one)), (2, 1.0, 1.0)]
    assert position_test_problems(positions, tests, 0.05) == []
    assert tables == [[[30, 10], [20, 20]]]
    assert 4 * half > FISHER_MAX_TOTAL
    forged = [(1, 0.9, tests[0][2]), (2, 1.0, 1.0)]
    (why,) = position_test_problems(positions, forged, 0.05)
    assert why.startswith("position_tests[0].p is 0.9 but the recount gives"), why
