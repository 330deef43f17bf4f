"""Triage's table (text and Markdown) shows whose each flag is: a record sampled in several
modes gets a `record` row first, with its category, the samples that would decide it and every
flag it carries; each mode's row then carries that mode's flags only. Before (stop 58), the
record's flags sat on its first mode's row, so a concurrent mode's `novel-undecided` read as
the serial match's. The `Fisher p adj` column is the instability test's corrected p, as JSON's
`p_adjusted`: 1 where the patch never left its modal output (a deterministic divergence too:
its sides are stable, and the test ran on them), never a verdict on the divergence."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .helpers import compare_texts, side, write_samples


def _two_modes(tmp_path: Path) -> None:
    """Serial: both sides on A. Concurrent: the patch gave B once, the base never."""
    compare_texts(tmp_path, {"q": ("A", "A")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("q", "base", ["A"] * 3)
        + side("q", "patch", ["A"] * 3)
        + side("q", "base", ["A"] * 3, "concurrent")
        + side("q", "patch", ["A", "B", "A"], "concurrent"),
        modes=("serial", "concurrent"),
        gauge=2,  # the concurrent batches proven by the server's gauge
    )


def _table(stdout: str) -> list[list[str]]:
    """The text table's rows (after its header and rule), split on runs of 2+ spaces."""
    lines = stdout.split("\n\n")[1].splitlines()
    assert lines[0].startswith("key ") and "Fisher p adj" in lines[0]
    return [[cell.strip() for cell in line.split("  ") if cell.strip()] for line in lines[2:]]


def test_several_modes_get_a_record_row_and_each_mode_its_own_flags(tmp_path: Path) -> None:
    _two_modes(tmp_path)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    record, serial, concurrent = _table(result.stdout)
    assert record[:3] == ["q", "inconclusive", "record"]
    assert record[-1] == "concurrency-dependent, condition-unchecked, novel-undecided"
    assert serial[0] == "serial: match" and not any("undecided" in c for c in serial)
    assert concurrent[0] == "concurrent: inconclusive" and concurrent[-1] == "novel-undecided"
    document = json.loads(
        run_k3diff(
            "triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path
        ).stdout
    )
    (found,) = document["records"]
    assert record[3] == str(found["more_samples"])  # the record's, as JSON says
    assert [m["flags"] for m in found["modes"]] == [[], ["novel-undecided"]]


def test_the_markdown_table_does_the_same(tmp_path: Path) -> None:
    _two_modes(tmp_path)
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "markdown", cwd=tmp_path
    )
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert "Fisher p adj" in rows[0]
    assert rows[1].startswith("| q ") and "| record " in rows[1]
    cells = [[c.strip() for c in row.split("|")[1:-1]] for row in rows[1:]]
    assert [row[2] for row in cells] == ["record", "serial: match", "concurrent: inconclusive"]
    assert [row[-1] for row in cells[1:]] == ["", "novel-undecided"]


def test_a_deterministic_divergence_row_shows_the_fisher_p_json_holds(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"q": ("A", "Z")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("q", "base", ["A"] * 3) + side("q", "patch", ["Z"] * 3),
    )
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    document = json.loads(
        run_k3diff(
            "triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path
        ).stdout
    )
    (mode,) = document["records"][0]["modes"]
    assert mode["category"] == "deterministic-divergence" and mode["p_adjusted"] == 1.0
    ((key, category, name, _, _, _, fisher, novelty, *_),) = _table(text.stdout)
    assert (key, category, name) == ("q", "deterministic-divergence ⚑", "serial")
    assert fisher == f"{mode['p_adjusted']:.3g}" and novelty == f"{mode['novelty_p_adjusted']:.3g}"
