"""A patch whose server fails requests more often than the base's is held (`patch-errors`) and
fails triage. Before errors73 (review73d) a failed sample (an HTTP error, a transport failure,
an HTTP-200 answer whose finish reason is null, `error` or `abort`) only lowered n beside the
flag `errors-present`: a greedy patch failing 3 of every 10 requests against a base answering
all of them was a `match`, exit 0."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
from cli_support import run_k3diff
from scipy import stats as scipy_stats

from k3diff.triage.errorholds import error_holds, fisher_p, pooled_p
from k3diff.triage.samples import Sample
from k3diff.triage.settings import Correction, Settings
from triage.helpers import S, compare_texts, write_samples


def _failed(key: str, how: str) -> S:
    """A patch request that failed: an HTTP 500, or an HTTP-200 answer cut off as `how`."""
    if how == "http":
        return S("patch", key, None, status=500, error="HTTP 500")
    return S("patch", key, "A", finish=None if how == "null" else how)


def _triage(tmp_path: Path, records: dict[str, tuple[int, int]]) -> tuple[int, dict[str, Any]]:
    """Greedy records, key -> (patch failures of 10, base failures of 10); every answer `A`."""
    compare_texts(tmp_path, {key: ("A", "A") for key in records})
    hows = ["null", "error", "abort", "http"]
    samples: list[S] = []
    for key, (patch, base) in records.items():
        samples += [S("base", key, "A") for _ in range(10 - base)]
        samples += [S("base", key, None) for _ in range(base)]
        samples += [S("patch", key, "A") for _ in range(10 - patch)]
        samples += [_failed(key, hows[i % len(hows)]) for i in range(patch)]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads((tmp_path / "t.json").read_text())


def test_a_patch_failing_3_of_10_requests_of_every_prompt_fails(tmp_path: Path) -> None:
    """review73d's example on three prompts: each record's own test gives p = 0.105 (one record
    alone does not reach alpha = 0.05), the mode's pooled test 0.105 ** 3: every record held."""
    code, document = _triage(tmp_path, {"p1": (3, 0), "p2": (3, 0), "p3": (3, 0)})
    assert code == 1
    for record in document["records"]:
        assert record["category"] == "inconclusive"
        assert "patch-errors" in record["flags"]
        assert "the patch failed 9 of 30 requests in serial, the base 0 of 30" in record["reason"]


def test_a_patch_failing_half_its_requests_fails_on_one_record(tmp_path: Path) -> None:
    code, document = _triage(tmp_path, {"p1": (5, 0)})
    assert code == 1
    (record,) = document["records"]
    assert record["category"] == "inconclusive" and "patch-errors" in record["flags"]
    p = scipy_stats.hypergeom.sf(4, 20, 5, 10)
    assert (
        f"the patch failed 5 of 10 requests in serial, the base 0 of 10; Fisher p = {p:.3g}"
        in (record["reason"])
    )


def test_a_patch_failing_every_request_where_the_base_answered_fails(tmp_path: Path) -> None:
    code, document = _triage(tmp_path, {"p1": (10, 0)})
    assert code == 1
    (record,) = document["records"]
    assert record["category"] == "inconclusive"
    assert {"unanswered", "patch-errors"} <= set(record["flags"])


def test_failures_on_both_sides_alike_hold_nothing(tmp_path: Path) -> None:
    """The same failures on both sides: `errors-present` as before, a `match`, exit 0."""
    code, document = _triage(tmp_path, {"p1": (3, 3), "p2": (1, 0)})
    assert code == 0
    assert all("patch-errors" not in r["flags"] for r in document["records"])
    assert all(r["category"] == "match" for r in document["records"])


def _enumerated(tables: list[tuple[int, int, int, int]]) -> float:
    """The pooled p by enumerating every way each record's failures fall (math.comb only)."""
    laws = []
    for failed, sent, base_failed, base_sent in tables:
        total = failed + base_failed
        whole = math.comb(sent + base_sent, sent)
        laws.append(
            {k: math.comb(total, k) * math.comb(sent + base_sent - total, sent - k) / whole
             for k in range(0, min(total, sent) + 1)}
        )  # fmt: skip
    summed = {0: 1.0}
    for law in laws:
        step: dict[int, float] = {}
        for a, pa in summed.items():
            for b, pb in law.items():
                step[a + b] = step.get(a + b, 0.0) + pa * pb
        summed = step
    observed = sum(t[0] for t in tables)
    return sum(p for s, p in summed.items() if s >= observed)


@pytest.mark.parametrize("seed", range(40))
def test_the_p_values_are_the_closed_form_ones(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tables = []
    for _ in range(int(rng.integers(1, 4))):
        sent, base_sent = int(rng.integers(1, 12)), int(rng.integers(1, 12))
        tables.append(
            (int(rng.integers(0, sent + 1)), sent, int(rng.integers(0, base_sent + 1)), base_sent)
        )
    assert pooled_p(tables) == pytest.approx(_enumerated(tables), rel=1e-9, abs=1e-12)
    assert fisher_p(tables[0]) == pytest.approx(_enumerated(tables[:1]), rel=1e-9, abs=1e-12)


def _grouped(rng: np.random.Generator, rate: float) -> dict[str, Any]:
    """Five records, 10 requests a side, each failing with probability `rate` on both sides."""

    def side() -> list[Sample]:
        failed = rng.random(10) < rate
        return [cast(Sample, SimpleNamespace(text_xxh3=None if f else "A")) for f in failed]

    return {f"p{i}": {"serial": {"base": side(), "patch": side()}} for i in range(5)}


@pytest.mark.parametrize("correction", [Correction.HOLM, Correction.BH])
def test_an_a_a_run_holds_at_most_about_alpha(correction: Correction) -> None:
    """Same failure rate both sides, 400 seeded runs: the family holds a record in at most
    about alpha of them (the exact tests are conservative; 0.05 + 3 binomial sd)."""
    rng = np.random.default_rng(73)
    settings = Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=correction)
    runs = 400
    held = sum(1 for _ in range(runs) if error_holds(_grouped(rng, 0.2), settings))
    assert held / runs <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
    worse = sum(1 for _ in range(50) if error_holds(_grouped_worse(rng), settings))
    assert worse >= 40  # and the test sees a patch failing 50 % against 10 %


def _grouped_worse(rng: np.random.Generator) -> dict[str, Any]:
    grouped = _grouped(rng, 0.1)
    for modes in grouped.values():
        modes["serial"]["patch"] = _grouped(rng, 0.5)["p0"]["serial"]["patch"]
    return grouped


def test_a_triage_with_the_flag_deleted_is_refused_given_with_its_logs(tmp_path: Path) -> None:
    _triage(tmp_path, {"p1": (5, 0), "p2": (0, 0)})
    document = json.loads((tmp_path / "t.json").read_text())
    kept = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b1", cwd=tmp_path
    )
    assert kept.exit_code != 2, kept.stderr
    record = document["records"][0]
    record["flags"] = [f for f in record["flags"] if f != "patch-errors"]
    (tmp_path / "t.json").write_text(json.dumps(document))
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b2", cwd=tmp_path
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("k3diff: error: t.json: ")
