"""`k3diff sample` names records as the user does: a request's client key or `id`, else the
prompt's start; the key (the prompt hash, for requests paired that way) still pairs."""

from __future__ import annotations

import json
from pathlib import Path

from k3diff.report.sample import _rows
from k3diff.responses.model import text_digest
from k3diff.sample.model import RecordStats, SampleResult
from k3diff.sample.prompts import read_prompts


def test_request_lines_are_labelled_by_their_ids_and_keyed_by_prompt(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.jsonl"
    lines = [
        {"id": "r1", "prompt": "Capital of France?", "max_tokens": 8},
        {"id": "r2", "prompt": "Two plus two?", "max_tokens": 8},
    ]
    prompts.write_text("".join(json.dumps(line) + "\n" for line in lines))
    records = read_prompts(prompts)
    assert [(r.key, r.label) for r in records] == [
        (text_digest("Capital of France?"), "r1"),
        (text_digest("Two plus two?"), "r2"),
    ]


def test_requests_without_ids_are_labelled_by_their_prompt(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"prompt": "Sky   colour?\n", "max_tokens": 8}) + "\n")
    assert read_prompts(prompts)[0].label == "Sky colour?"


def test_the_summary_table_shows_the_label() -> None:
    stats = RecordStats("8f" * 16, "base", "serial", 3, 0, 1, 1.0, label="r1")
    result = SampleResult(
        out=Path("run"),
        records=(stats,),
        planned=3,
        taken=3,
        failed=0,
        taken_now=3,
        torn_line_dropped=False,
        perf_metrics=0,
    )
    assert _rows(result)[0][0] == "r1"
