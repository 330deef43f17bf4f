"""Fields are only ever added within a version: `k3diff report` reads a `k3diff.triage/1`
document written before a field was added (made by the code of that time, in
`data/triage_3e8bbca`, before `summary.unsampled`), compares it with triage run again only in
the fields it has, and never lets a missing field read as a pass: a missing count is recounted
from the document's own records, not taken as 0 (test_readers_older). Read alone, without the evidence to run triage
again on, it is refused: its modes lack `requests` (forge60). Its flaky base's `nonmodal_bound`
and `deviation_ci` are the current rule's (stats64: the code of that time bounded a flaky side
more tightly than its samples allow, and a document stating that is refused as any other that
does not follow from its evidence)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .helpers import current_header

OLD = Path(__file__).parent / "data" / "triage_3e8bbca"


def _copy(tmp_path: Path, name: str) -> Path:
    """The fixture, its log's header as a current `sample` writes it (the documents are what
    these tests are about; an older log holds its records: tests/triage/test_lines_owed.py)."""
    where = tmp_path / name
    shutil.copytree(OLD / name, where)
    if name == "base_flaky":  # unsampled's log holds 3 of k2's 6 repeats: left as written
        current_header(where / "run" / "samples.jsonl")
    return where


def _summary(where: Path) -> Any:
    return json.loads((where / "bundle" / "summary.json").read_text())


def test_the_old_documents_lack_the_later_field() -> None:
    for name in ("base_flaky", "unsampled"):
        document = json.loads((OLD / name / "triage.json").read_text())
        assert document["schema"] == "k3diff.triage/1"
        assert "unsampled" not in document["summary"]


def test_an_older_triage_that_follows_from_its_evidence_explains_its_comparison(
    tmp_path: Path,
) -> None:
    where = _copy(tmp_path, "base_flaky")
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=where
    )
    assert result.exit_code == 0, result.stderr
    row = next(r for r in _summary(where)["matrix"] if r["evidence"] == "record-level comparison")
    assert row["status"] == "explained"
    # Written before triage held samples to the captures' model: run again without that check
    # (its verdicts are what triage says of them), and the bundle says it was not made.
    follow_up = next(
        r for r in _summary(where)["matrix"] if r["evidence"] == "nondeterminism follow-up"
    )
    assert "the samples' model not checked (a triage written before the check)" in str(follow_up)
    assert any(
        "triage.json was written before triage held samples to the model" in q
        for q in _summary(where)["qualifications"]
    )


def test_an_older_triage_is_still_refused_in_a_field_it_has(tmp_path: Path) -> None:
    """Its verdict edited to pass: the field is there, so it is compared (and the document's
    own check refuses it first)."""
    where = _copy(tmp_path, "base_flaky")
    document = json.loads((where / "triage.json").read_text())
    document["records"][0]["category"] = "match"
    (where / "triage.json").write_text(json.dumps(document))
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=where
    )
    assert result.exit_code == 2
    assert "triage.json" in result.stderr


def test_an_older_triage_read_alone_is_refused(tmp_path: Path) -> None:
    """Its modes lack `requests`, which their `sampled` is recounted from (forge60): alone,
    nothing can check them, so report names the field and how to get a document that has it.
    (Read alone, this document's missing `summary.unsampled` was recounted from its records
    in the bundle; the typed reader still does, test_readers_older. Given with its evidence,
    triage today flags k1 `unsampled`, which the document lacks: refused as not following.)"""
    where = _copy(tmp_path, "unsampled")
    result = run_k3diff("report", "triage.json", "--out", "bundle", cwd=where)
    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "triage.json: field 'records[1].modes[0].requests' is missing" in line, line
    assert "re-run k3diff triage" in line, line


def test_an_older_triage_bounding_a_flaky_side_too_tightly_is_refused(tmp_path: Path) -> None:
    """stats64: the fixture as the code of that time wrote it, its base (3 distinct outputs in
    its samples) bounded by Clopper-Pearson over n - 1 trials (0.659), below what the samples
    allow once the mode is the samples' own choice (0.679): `report` runs triage again and
    refuses it (exit 2, one line), as it refuses an older document's binary MDEs."""
    where = _copy(tmp_path, "base_flaky")
    text = (where / "triage.json").read_text()
    for now, then in (
        ("0.6794379332982592", "0.658738563844664"),
        ("0.03185402624994424", "0.036692566176085656"),
        ("0.72690446377727", "0.7095791362626575"),
    ):
        assert text.count(now) == 1
        text = text.replace(now, then)
    (where / "triage.json").write_text(text)
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=where
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "triage.json" in result.stderr
    assert "nonmodal_bound" in result.stderr or "deviation_ci" in result.stderr


SAMPLED = Path(__file__).parent / "data" / "triage_31411530" / "sampled"


def test_a_triage_drawn_from_shared_streams_is_refused_and_triage_again_explains(
    tmp_path: Path,
) -> None:
    """stats64b: each record's permutations come from its own stream, so a document written
    before it states sampled records' p-values triage no longer draws. Its verdict could be
    checked, but its p-values are what the bundle shows: it is refused, as any document that does
    not follow from its evidence, and the message says why and what to do; triage run again on
    the same evidence is believed."""
    where = tmp_path / "sampled"
    shutil.copytree(SAMPLED, where)
    document = json.loads((where / "triage.json").read_text())
    assert {r["modes"][0]["distribution"]["test"] for r in document["records"]} == {"mmd"}
    evidence = ("cmp.json", "run/samples.jsonl", "triage.json")
    result = run_k3diff("report", *evidence, "--out", "bundle", cwd=where)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    # Written before aa77 too: its sampled tests' level, α over the family, is refused first
    # (a sampled test is judged at α / 2 since), the line saying to run triage again.
    assert "triage.json:" in result.stderr and ".distribution.level is" in result.stderr
    assert "before aa77" in result.stderr and "run triage again" in result.stderr
    again = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=where)
    assert again.exit_code in (0, 1), again.stderr
    (where / "triage.json").write_text(again.stdout)
    result = run_k3diff("report", *evidence, "--out", "bundle-again", cwd=where)
    assert result.exit_code in (0, 1), result.stderr


def test_a_triage_drawn_at_the_older_permutation_count_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    """aa78 sized the permutation count at the level a sampled test is judged at, so a
    document written before it (b682bc2b) states p-values from 4,799 permutations where triage
    draws 9,599. It is refused (exit 2, one line), and the line names the permutation count as
    why, not stats64b's streams (small79: it blamed stats64b, which the document postdates)."""
    where = tmp_path / "sampled"
    shutil.copytree(SAMPLED, where)
    shutil.copy(Path(__file__).parent / "data" / "triage_b682bc2b" / "triage.json", where)
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=where
    )
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "triage.json: does not follow from the evidence" in result.stderr
    assert "before aa78 drew 4,799 permutations" in result.stderr
    assert "where triage draws 9,599 today" in result.stderr
    assert "stats64b" not in result.stderr


@pytest.mark.parametrize(
    "count", ["x" * 1_000_000, [4_799] * 100_000, 2**60, True, 0, -4_799, 4_799.5]
)
def test_a_stated_permutation_count_that_is_no_count_is_not_echoed(
    tmp_path: Path, count: Any
) -> None:
    """review79b: the refusal's hint named a document's `permutations` whatever it held: a
        string of 1,000,000 characters made a 1 MB line ("drew 'xxx…' permutations"), a list 300 KB,
        each called a count an older triage drew. A count that is no count is named by no hint (the
    fixture's first-token draws, real counts, still are)."""
    where = tmp_path / "sampled"
    shutil.copytree(SAMPLED, where)
    shutil.copy(Path(__file__).parent / "data" / "triage_b682bc2b" / "triage.json", where)
    document = json.loads((where / "triage.json").read_text())
    for record in document["records"]:
        record["modes"][0]["distribution"]["permutations"] = count
    (where / "triage.json").write_text(json.dumps(document))
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=where
    )
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "triage.json: does not follow from the evidence" in result.stderr
    assert ".distribution.permutations) where triage draws" not in result.stderr
    assert len(result.stderr) < 2_000
    # the first-token draws, a count, still name the reason (written before aa78)
    assert "drew 4,799 permutations (records[0].modes[0].distribution.first_token.draws)" in (
        result.stderr
    )
