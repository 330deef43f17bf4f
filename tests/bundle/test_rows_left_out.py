"""REPORT.md says where a table's hidden rows are: those summary.json keeps past the ones shown,
and apart those left out of the bundle. Before (newuser79b), a 100,000-record comparison's
bundle said "… 99,950 more rows in summary.json", which holds 1,000 of them: a reviewer looking
there for a record found nothing."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff


def _rows(path: Path, texts: list[str]) -> None:
    path.write_text(
        "".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    )


def test_rows_left_out_of_the_bundle_are_not_said_to_be_in_summary_json(tmp_path: Path) -> None:
    _rows(tmp_path / "base.jsonl", [f"base {i}" for i in range(1100)])
    _rows(tmp_path / "patch.jsonl", [f"patch {i}" for i in range(1100)])
    made = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    result = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    table = json.loads((tmp_path / "b" / "summary.json").read_text())["tables"]["records"]
    assert (len(table["rows"]), table["rows_omitted"]) == (1000, 100)
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert (
        "… 950 more rows in summary.json (`tables.records`); 100 more left out of the bundle, "
        "in the documents given."
    ) in report
    assert "1,050 more rows" not in report
