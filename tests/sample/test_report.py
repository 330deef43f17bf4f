"""The end-of-run summary (`k3diff.sample/1`) in each format, and its exit code."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from k3diff.output import OutputFormat
from k3diff.report.sample import render
from k3diff.sample.model import LoadSummary, RecordStats, SampleResult

from .support import flat, without_result


def _result(failed: int, taken: int) -> SampleResult:
    rows = (
        RecordStats("q1", "base", "serial", 3, 0, 2, 2 / 3),
        RecordStats("q1", "patch", "serial", 3 - failed, failed, 1, 1.0 if failed < 3 else None),
    )
    return SampleResult(
        Path("out"),
        rows,
        planned=6,
        taken=taken,
        failed=failed,
        taken_now=6,
        torn_line_dropped=False,
        perf_metrics=0,
    )


def test_json_document_follows_the_contract() -> None:
    doc = json.loads(render(_result(0, 6), OutputFormat.JSON))
    assert doc["schema"] == "k3diff.sample/1" and doc["out"] == "out"
    assert set(doc["records"][0]) == {
        "key",
        "label",
        "side",
        "mode",
        "n",
        "errors",
        "distinct",
        "modal_share",
        "in_flight",
        "batches_one_at_a_time",
        "server_running",
        "batches_server_one_at_a_time",
        "batches",
        "batches_unproven",
        "batches_by_gauge",
        "batches_by_token_windows",
        "batches_load_failed",
        "batches_load_idle",
    }
    assert doc["summary"]["planned"] == 6 and doc["summary"]["unstable"] == 1
    assert doc["verdict"] == {"ok": True, "exit_code": 0}


def test_a_failed_or_missing_sample_never_exits_0() -> None:
    assert _result(0, 6).exit_code == 0
    assert _result(1, 6).exit_code == 1
    assert _result(0, 5).exit_code == 1  # a planned sample is missing
    assert json.loads(render(_result(3, 6), OutputFormat.JSON))["verdict"]["exit_code"] == 1


def test_text_and_markdown_show_every_row_and_the_verdict() -> None:
    text = render(_result(1, 6), OutputFormat.TEXT)
    markdown = render(_result(1, 6), OutputFormat.MARKDOWN)
    for out in (text, markdown):
        assert (
            "FAILED: 6 of 6 planned samples taken (out/samples.jsonl, 6 taken now), 1 of them failed"
            in out
            and "0.67" in out
            and out.count("q1") == 2
        )
    assert markdown.startswith("# k3diff sample\n") and "| record" in markdown


def test_the_summary_says_when_the_requests_sampled() -> None:
    import dataclasses

    plain = render(_result(0, 6), OutputFormat.TEXT)
    assert "the requests sampled" not in plain
    sampled = dataclasses.replace(_result(0, 6), sampled=("base", "patch"), sampled_keys=("q1",))
    text = render(sampled, OutputFormat.TEXT)
    assert "the requests sampled (base, patch)" in text
    assert "triage --plan --shift" in text
    assert json.loads(render(sampled, OutputFormat.JSON))["sampled"] == ["base", "patch"]


def test_the_status_says_plainly_when_concurrency_was_not_proven() -> None:
    """Every sample taken (exit 0), but no batch proven exercised: the first line says so, with
    no "OK" beside it (it read "OK, concurrency NOT proven": OK and not OK at once)."""
    rows = (
        RecordStats("q1", "base", "concurrent", 8, 0, 1, 1.0, batches=4, unproven=4),
        RecordStats("q1", "patch", "concurrent", 8, 0, 1, 1.0, batches=4, unproven=3, by_gauge=1),
    )
    result = SampleResult(Path("out"), rows, 16, 16, 0, 16, False, 0)
    assert result.exit_code == 0
    text = flat(render(result, OutputFormat.TEXT))
    assert (
        "CONCURRENCY NOT PROVEN (1 of 8 batches exercised; 7 without a server gauge "
        "reading): 16 of 16 planned samples taken" in text
    )
    proven = (RecordStats("q1", "base", "concurrent", 8, 0, 1, 1.0, batches=4, by_gauge=4),)
    shown = render(SampleResult(Path("out"), proven, 8, 8, 0, 8, False, 0), OutputFormat.TEXT)
    assert "OK: 8 of 8 planned samples taken (out/samples.jsonl, 8 taken now), none failed" in shown


def test_batches_and_loaded_targets_are_counted_apart() -> None:
    """A concurrent batch holds C requests, a loaded target is one request under load: 32
    batches and 128 targets were counted as "160 batches" before."""
    rows = (
        RecordStats("q1", "base", "concurrent", 8, 0, 1, 1.0, batches=2, unproven=2),
        RecordStats("q1", "base", "loaded", 8, 0, 1, 1.0, batches=8, unproven=7, by_gauge=1),
    )
    result = SampleResult(Path("out"), rows, 16, 16, 0, 16, False, 0)
    assert result.exit_code == 0
    text = flat(without_result(render(result, OutputFormat.TEXT).split("\n\n")[-1]))
    assert text.startswith("CONCURRENCY NOT PROVEN (0 of 2 batches and 1 of 8 loaded targets ")
    assert "overlap: 0 of 2 batches and 1 of 8 loaded targets exercised (decided by gauge 1" in text
    assert "OK" not in text.split(": ")[0]


def test_unproven_batches_and_loaded_targets_are_worded_apart() -> None:
    """The unproven clause counts batches and loaded targets each in its own unit (failed on
    main: "unproven: 9 batches without a running-requests gauge reading" for 2 batches and 7
    targets); targets whose load failed or never ended have their own clauses."""
    rows = (
        RecordStats("q1", "base", "concurrent", 8, 0, 1, 1.0, batches=2, unproven=2),
        RecordStats("q1", "base", "loaded", 8, 0, 1, 1.0, batches=8, unproven=7, by_gauge=1),
        RecordStats("q2", "base", "loaded", 4, 0, 1, 1.0, batches=4, unproven=4, load_failed=1),
        RecordStats("q3", "base", "loaded", 4, 0, 1, 1.0, batches=4, unproven=4, load_idle=1),
    )
    text = flat(render(SampleResult(Path("out"), rows, 24, 24, 0, 24, False, 0), OutputFormat.TEXT))
    assert (
        "; unproven: 2 batches and 13 loaded targets without a running-requests gauge reading"
        in text
    )
    only = (RecordStats("q1", "base", "loaded", 8, 0, 1, 1.0, batches=1, unproven=1),)
    text = flat(render(SampleResult(Path("out"), only, 8, 8, 0, 8, False, 0), OutputFormat.TEXT))
    assert "; unproven: 1 loaded target without a running-requests gauge reading" in text


def test_failed_summary_names_the_most_common_error() -> None:
    result = SampleResult(Path("out"), (), 4, 4, 4, 4, False, 0, common_error=("boom\nagain", 3))
    text = flat(render(result, OutputFormat.TEXT))
    assert "all 4 failed (most common error, 3 of them: boom again)" in text


def test_an_ok_run_whose_load_failed_does_not_claim_the_load_held() -> None:
    """Every sample taken (exit 0 says so), but the background requests all failed while the
    loaded targets were in flight: the headline says concurrency is not proven, and why."""
    row = RecordStats(
        "q1", "base", "loaded", 3, 0, 1, 1.0, server_running=3, batches=3, unproven=3,
        load_failed=3,
    )  # fmt: skip
    result = dataclasses.replace(
        _result(0, 6), records=(row,), planned=3, taken=3,
        load=LoadSummary(requests=7, failed=7, common_error="out: answered a page"),
    )  # fmt: skip
    text = flat(without_result(render(result, OutputFormat.TEXT).split("\n\n")[-1]))
    assert text.startswith(
        "CONCURRENCY NOT PROVEN (0 of 3 loaded targets exercised; 3 whose background load failed)"
    )
    assert (
        "background load: 7 of 7 background requests that ended while a loaded target was in "
        "flight failed; most common error: out: answered a page"
    ) in text
    document = json.loads(render(result, OutputFormat.JSON))
    assert document["load"] == {"requests": 7, "failed": 7, "common_error": "out: answered a page"}
    assert document["verdict"] == {"ok": True, "exit_code": 0}


def test_the_text_headline_is_one_clause_a_line_and_markdown_keeps_one_line() -> None:
    """The headline of a batched, sampled run with failures runs to ~900 characters: in text
    the verdict, then each clause indented on its own lines, wrapped at 100 columns; joined
    again it is the Markdown's one line. An error cut with its parenthesis open does not join
    the clauses after it."""
    rows = (
        RecordStats("q1", "base", "concurrent", 8, 0, 1, 1.0, batches=4, unproven=4),
        RecordStats("q1", "patch", "loaded", 8, 0, 1, 1.0, batches=4, unproven=4, load_idle=4),
    )
    result = dataclasses.replace(
        _result(2, 16), records=rows, planned=16,
        common_error=("URL: answered (it begins 'page " + "word " * 80, 2), sampled=("base",),
        sampled_keys=("q1",),
    )  # fmt: skip
    text = without_result(render(result, OutputFormat.TEXT).split("\n\n")[-1]).rstrip("\n")
    markdown = render(result, OutputFormat.MARKDOWN).split("\n\n")[-2].rstrip("\n")
    lines = text.splitlines()
    assert lines[0].startswith("FAILED: 16 of 16 planned samples taken")
    assert all(len(line) <= 100 for line in lines), lines
    clauses = [line for line in lines if line.startswith("  ") and not line.startswith("    ")]
    starts = "overlap: unproven: unproven: most the moving this size"
    assert [c.split()[0] for c in clauses] == starts.split()
    blocks = re.split(r"\n(?=  \S)", text)  # each clause with its wrapped lines
    assert len(blocks) == len(clauses) + 1
    assert all(block.endswith(";") for block in blocks[:-1]) and not blocks[-1].endswith(";")
    assert "\n" not in markdown
    assert flat(text) == flat(markdown.replace("\\", ""))


def test_a_sampled_runs_advice_is_the_figure_triage_will_require() -> None:
    """3 prompts in one sampled mode: triage judges each test at α / 2 / 4 (3 records and
    their pooled test, the novelty test having the other half) and holds a mode of 18 a side
    no-power; the summary advised 18 (the figure at α), then 22 (at α / 4, plan77). It states
    triage's figure for the run's prompts, 25, and the level it assumes."""
    rows = tuple(
        RecordStats(key, side, "serial", 18, 0, 18, 1 / 18)
        for key in ("q1", "q2", "q3")
        for side in ("base", "patch")
    )
    result = SampleResult(
        Path("out"), rows, 108, 108, 0, 108, False, 0, sampled=("base", "patch"),
        sampled_keys=("q1", "q2", "q3"),
    )  # fmt: skip
    text = flat(render(result, OutputFormat.TEXT))
    assert "from 25 samples per side per prompt" in text, text
    assert "at α / 2 / 4 distribution tests = 0.00625 (3 records and their pooled test" in text
    assert "this run took 18 or more per record and side" in text
    assert "size a run with: k3diff triage --plan --shift 0.35 --prompts 3" in text
    two_modes = dataclasses.replace(
        result, records=rows + tuple(dataclasses.replace(r, mode="concurrent") for r in rows)
    )
    text = flat(without_result(render(two_modes, OutputFormat.TEXT)))
    assert "at α / 2 / 8 distribution tests = 0.00313 (6 records and 2 pooled tests" in text, text
    assert "from 28 samples per side per prompt" in text, text
    assert text.rstrip().endswith("--prompts 3 --modes 2"), text


def test_the_unstable_rows_are_counted_out_of_the_rows_shown() -> None:
    """words72: '4 record/side/mode with more than one distinct output' named no unit a new
    reader could find; the rows of the table above are that unit. Failed on base72."""
    rows = (
        RecordStats("q1", "base", "serial", 3, 0, 3, 0.33),
        RecordStats("q1", "patch", "serial", 3, 0, 1, 1.0),
    )
    shown = render(SampleResult(Path("out"), rows, 6, 6, 0, 6, False, 0), OutputFormat.TEXT)
    assert shown.splitlines()[0].split() == [  # words72: "modal share" named a statistic
        "record", "side", "mode", "n", "errors", "distinct", "most", "common", "share"
    ]  # fmt: skip
    text = flat(shown)
    assert (
        "none failed, 1 of 2 rows (one per record, side and mode) gave more than one distinct "
        "output" in text
    )
