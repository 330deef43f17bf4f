"""The bundle's triage table names the mode a record's category comes from as `record category
from` `this mode` (report65: the column read `decides` `yes`, beside "N more samples would make
it decisive" on an inconclusive record); `summary.json`'s columns changed, so its schema id is
`k3diff.report/2`, and a bundle's own summary of either version is no input to `report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import run_k3diff
from triage.helpers import S, compare_texts, write_samples


def _held(tmp_path: Path) -> dict[str, Any]:
    """A sampled record with no power at n = 3 (inconclusive, more samples named): its
    summary.json, after checking REPORT.md and report.html show the same column and cell."""
    answers = {"base": ["The answer is 3.", "It is 5.", "Five."], "patch": ["8", "Eight.", "8!"]}
    samples = [S(side, "q", text) for side, texts in answers.items() for text in texts]
    compare_texts(tmp_path, {"q": ("The answer is 1.", "9")})
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "bundle", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    summary: dict[str, Any] = json.loads((tmp_path / "bundle/summary.json").read_text())
    return summary


def test_the_mode_a_held_record_takes_its_category_from_is_named_so(tmp_path: Path) -> None:
    summary = _held(tmp_path)
    table = summary["tables"]["records"]
    assert "decides" not in table["columns"]
    (row,) = [dict(zip(table["columns"], r, strict=True)) for r in table["rows"]]
    assert (row["category"], row["mode category"]) == ("inconclusive", "inconclusive")
    assert row["record category from"] == "this mode"
    assert row["more samples"] > 0
    markdown = (tmp_path / "bundle/REPORT.md").read_text(encoding="utf-8")
    section = markdown.split("## Records (triage)", 1)[1].split("\n## ", 1)[0]
    header, _, first = section.strip().splitlines()[:3]
    cells = [c.strip() for c in header.strip("|").split("|")]
    shown = [c.strip() for c in first.strip("|").split("|")]
    assert shown[cells.index("record category from")] == "this mode"
    assert "decides" not in cells
    html = (tmp_path / "bundle/report.html").read_text(encoding="utf-8")
    assert "<th>record category from</th>" in html and "<th>decides</th>" not in html


def test_the_tables_columns_a_reader_cannot_guess_are_explained_under_it(tmp_path: Path) -> None:
    """left67: `base bound`, `p adjusted` and `more samples` were unexplained. A legend under
    the table says each, in REPORT.md and report.html; summary.json's columns keep their
    names."""
    summary = _held(tmp_path)
    columns = summary["tables"]["records"]["columns"]
    for name in ("base bound", "patch bound", "p adjusted", "novelty p adjusted", "more samples"):
        assert name in columns
    markdown = (tmp_path / "bundle/REPORT.md").read_text(encoding="utf-8")
    section = markdown.split("## Records (triage)", 1)[1].split("\n## ", 1)[0]
    table_end = section.strip().split("\n\n", 1)
    legend = table_end[1].strip().splitlines()[0]
    assert table_end[0].lstrip().startswith("|") and legend.startswith("Columns: base bound = ")
    for said in (
        "base bound = the upper bound, at confidence 1 − α, on the share of the base's outputs "
        "that differ from its most common one (its non-modal mass); patch bound the patch's",
        "p adjusted = the one-sided Fisher test's p that the patch is less stable than the base",
        "novelty p adjusted = the p that the patch gave outputs the base never gives",
        "more samples = the samples per side that would decide the record",
    ):
        assert said in legend, legend
    html = (tmp_path / "bundle/report.html").read_text(encoding="utf-8")
    tail = html.split('id="table-records"', 1)[1].split("</table>", 1)[1]
    tail = tail.lstrip().removeprefix("</div>").lstrip()  # the table's scrolling box
    assert tail.startswith('<p class="legend">Columns: base bound = the upper bound'), tail[:80]
    assert "more samples = the samples per side that would decide the record" in tail


def test_the_summary_is_a_report_2_document_its_schema_describes(tmp_path: Path) -> None:
    summary = _held(tmp_path)
    assert summary["schema"] == "k3diff.report/2"
    printed = run_k3diff("schema", "report")
    assert printed.exit_code == 0, printed.stderr
    schema = json.loads(printed.stdout)
    assert schema["title"] == "k3diff.report/2"
    jsonschema.validate(summary, schema)


@pytest.mark.parametrize("version", ["k3diff.report/1", "k3diff.report/2"])
def test_a_bundles_own_summary_of_either_version_is_no_input(tmp_path: Path, version: str) -> None:
    (tmp_path / "summary.json").write_text(json.dumps({"schema": version, "title": "t"}))
    result = run_k3diff("report", "summary.json", "--out", "bundle", cwd=tmp_path)
    assert (result.exit_code, result.stderr) == (
        2,
        f"k3diff: error: summary.json: schema {version} is not read back: it is a bundle's own "
        "summary; give the documents it was made from\n",
    )


def test_the_category_columns_are_explained_too(tmp_path: Path) -> None:
    """words72: `comparison`, `mode category` and `record category from` (its cells `this
    mode`) stood beside `category` unexplained. Failed on base72."""
    _held(tmp_path)
    markdown = (tmp_path / "bundle/REPORT.md").read_text(encoding="utf-8")
    section = markdown.split("## Records (triage)", 1)[1].split("\n## ", 1)[0]
    legend = section.strip().split("\n\n", 1)[1].strip().splitlines()[0]
    for said in (
        "comparison = what k3diff responses found of the record's two captures (match, "
        "text-differs, …)",
        "mode category = the verdict of this row's mode alone (category is the record's)",
        "record category from = 'this mode' on the row of the mode the record's category comes "
        "from, its most severe",
    ):
        assert said in legend, legend
