"""A record where a request failed (comparison status `error`) is counted once in the bundle,
in its own kind: before (lmrep68) it was counted under "text differs" and again as "error
records", so one failed request and one changed text read "2 of 3 paired records differ: text
differs on 2 (a, b); ...; 1 error records", and the bottom line said the text of both differs."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff


def _rows(path: Path, rows: list[dict[str, str]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_a_failed_request_is_said_once_and_not_as_a_text_difference(tmp_path: Path) -> None:
    _rows(
        tmp_path / "base.jsonl", [{"id": k, "text": t} for k, t in zip("abc", "xyz", strict=True)]
    )
    _rows(
        tmp_path / "patch.jsonl",
        [{"id": "a", "error": "HTTP 500"}, {"id": "b", "text": "q"}, {"id": "c", "text": "z"}],
    )
    made = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    statuses = [r["status"] for r in json.loads((tmp_path / "cmp.json").read_text())["records"]]
    assert statuses == ["error", "text-differs", "match"]
    result = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "record-level comparison"]
    assert row["finding"] == (
        "2 of 3 paired records differ: text differs on 1 (b), a request failed on 1 (a); "
        "exact text match 1"
    )
    bottom = (tmp_path / "b" / "REPORT.md").read_text()
    assert "FAIL: text differs on 1 record: b; a request failed on 1 record: a;" in bottom
    assert "error records" not in bottom
