"""Inputs triage cannot use: exit 2 with one line naming the file (and line) and the problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .helpers import compare_texts, side, write_samples


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    compare_texts(tmp_path, {"k": ("a", "b")})
    write_samples(tmp_path / "s.jsonl", side("k", "base", ["a", "a"]) + side("k", "patch", ["b"]))
    return tmp_path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, rows: list[Any]) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


def _edit_sample(rows: list[dict[str, Any]], **changes: Any) -> list[Any]:
    return [rows[0], rows[1] | changes, *rows[2:]]


CASES: dict[str, tuple[Callable[[list[Any]], list[Any]], str]] = {
    "not-json-line": (lambda rows: [rows[0], "{oops", *rows[2:]], "s.jsonl:2: not JSON"),
    "wrong-header": (
        lambda rows: [{"schema": "k3diff.sample/1"}, *rows[1:]],
        "s.jsonl:1: not a k3diff.samples/1 log",
    ),
    "bad-side": (lambda rows: _edit_sample(rows, side="left"), "s.jsonl:2: 'side' is 'left'"),
    "bad-repeat": (lambda rows: _edit_sample(rows, repeat=True), "s.jsonl:2: 'repeat'"),
    "digest-mismatch": (
        lambda rows: _edit_sample(rows, text="changed"),
        "s.jsonl:2: 'text_xxh3' is not the xxh3-128 of 'text'",
    ),
    "success-without-digest": (
        lambda rows: _edit_sample(rows, text_xxh3=None),
        "s.jsonl:2: a successful sample",
    ),
    "request-hash-missing": (
        lambda rows: [rows[0], {k: v for k, v in rows[1].items() if k != "request_sha256"}],
        "s.jsonl:2: 'request_sha256' is missing",
    ),
    "duplicate-repeat": (lambda rows: [*rows, rows[1]], "s.jsonl:5: repeat 0 of base 'k'"),
    "trace-not-object": (
        lambda rows: _edit_sample(rows, trace=[1, 2]),
        "s.jsonl:2: 'trace' is not an object",
    ),
    "trace-bad-margins": (
        lambda rows: _edit_sample(rows, trace={"positions": 1, "kept": 1, "margins": ["x"]}),
        "s.jsonl:2: 'trace.margins' is not a list of numbers and nulls",
    ),
    "trace-bad-count": (
        lambda rows: _edit_sample(rows, trace={"positions": -1, "kept": 0}),
        "s.jsonl:2: 'trace.positions' is not a non-negative integer",
    ),
    "no-key-matches": (
        lambda rows: [  # a log of another prompts file: its header lists its own records
            rows[0] | {"run": rows[0]["run"] | {"keys": ["other"]}},
            *(r | {"key": "other"} for r in rows[1:]),
        ],
        "no sample key matches a record of cmp.json",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_sample_log_exits_2_with_one_line(
    k3diff_cli: Any, inputs: Path, case: str
) -> None:
    mutate, message = CASES[case]
    _write(inputs / "s.jsonl", mutate(_lines(inputs / "s.jsonl")))
    result = k3diff_cli("triage", "cmp.json", "s.jsonl", cwd=inputs)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr


def _keyless(document: dict[str, Any]) -> str:
    del document["records"][0]["key"]
    return json.dumps(document)


TRIAGE_DOCUMENT = {"schema": "k3diff.triage/1", "alpha": 0.05, "bound": 0.05, "records": []}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cmp.json: no such file"),
        (lambda _: '{\n  "schema": \n', "cmp.json: not a k3diff JSON document (line 3: "),
        (
            lambda _: json.dumps(TRIAGE_DOCUMENT | {"summary": {}, "verdict": {}}),
            "cmp.json: a k3diff.triage/1 document, not a k3diff.responses/1 comparison",
        ),
        (_keyless, "cmp.json: field 'records[0].key' is missing"),
    ],
)
def test_unusable_comparison_exits_2(
    k3diff_cli: Any, inputs: Path, content: Callable[[dict[str, Any]], str] | None, message: str
) -> None:
    """The comparison is read by its one reader (`k3diff.responses.document`): the refusals
    `report` gives (tests/cli/test_one_reader.py feeds the same edits to both)."""
    document = json.loads((inputs / "cmp.json").read_text())
    (inputs / "cmp.json").unlink()
    if content is not None:
        (inputs / "cmp.json").write_text(content(document))
    result = k3diff_cli("triage", "cmp.json", "s.jsonl", cwd=inputs)
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr


@pytest.mark.parametrize("cut", [True, False])
def test_a_responses_capture_given_as_samples_is_named_as_no_log(
    k3diff_cli: Any, inputs: Path, cut: bool
) -> None:
    """A capture (cut short or whole) in a samples log's place is no log: the error says so,
    never that a run was killed mid-write or that `sample --resume` would continue it."""
    rows = [{"id": "k", "prompt": "p", "text": "a"}, {"id": "j", "prompt": "q", "text": "b"}]
    data = "".join(json.dumps(row) + "\n" for row in rows)
    (inputs / "capture.jsonl").write_text(data + '{"id": "c", "prom' if cut else data)
    for command in (
        ("triage", "cmp.json", "capture.jsonl"),
        ("report", "capture.jsonl", "--out", "bundle"),
    ):
        result = k3diff_cli(*command, cwd=inputs)
        assert result.exit_code == 2, command
        assert result.stderr.splitlines() == [
            "k3diff: error: capture.jsonl:1: not a k3diff.samples/1 log (the first line has no schema field)"
        ], command
        assert "torn" not in result.stderr and "--resume" not in result.stderr


def test_missing_samples_and_bad_options_exit_2(k3diff_cli: Any, inputs: Path) -> None:
    for args in (
        ("cmp.json",),
        ("cmp.json", "absent.jsonl"),
        ("--plan", "--bound", "1.5"),
        ("--plan", "cmp.json"),
    ):
        result = k3diff_cli("triage", *args, cwd=inputs)
        assert result.exit_code == 2, args
        assert len(result.stderr.splitlines()) == 1, result.stderr


def test_all_failed_patch_samples_are_inconclusive_and_counted_loudly(
    k3diff_cli: Any, inputs: Path
) -> None:
    """The captures differ and every request to the patch failed: nothing explains the
    difference, so the record fails the run (unsampled), never a quiet pass."""
    write_samples(
        inputs / "s.jsonl", side("k", "base", ["a", "a"]) + side("k", "patch", [None] * 4)
    )
    result = k3diff_cli("triage", "cmp.json", "s.jsonl", cwd=inputs)
    assert result.exit_code == 1
    assert "INCONCLUSIVE: 1 of 1 records could not be decided" in result.stdout
    assert "it fails the run" in result.stdout
    assert "the patch was never sampled (all 4 requests to it failed)" in result.stdout
    assert "the patch needs at least 2 successful ones" in result.stdout
    assert "errors-present" in result.stdout and "4 failed" in result.stdout


def test_too_few_patch_samples_are_inconclusive_and_do_not_fail(
    k3diff_cli: Any, inputs: Path
) -> None:
    """One successful patch sample, an output the base gave: too few to say, not held."""
    write_samples(
        inputs / "s.jsonl", side("k", "base", ["a", "b"]) + side("k", "patch", ["b", None])
    )
    result = k3diff_cli("triage", "cmp.json", "s.jsonl", cwd=inputs)
    assert result.exit_code == 0
    assert "it does not fail the run but is not cleared" in result.stdout
    assert "the patch needs at least 2 successful ones" in result.stdout


def test_too_few_patch_samples_on_an_output_the_base_never_gave_fail(
    k3diff_cli: Any, inputs: Path
) -> None:
    """Stop 59: the one patch sample is an output the base never gave (novel-undecided); it
    passed with exit 0 before, as no novelty test runs at n = 1."""
    write_samples(
        inputs / "s.jsonl", side("k", "base", ["a", "a"]) + side("k", "patch", ["b", None])
    )
    result = k3diff_cli("triage", "cmp.json", "s.jsonl", cwd=inputs)
    assert result.exit_code == 1
    assert "novel-undecided" in result.stdout
    assert "the patch needs at least 2 successful ones" in result.stdout


def test_fail_inconclusive_makes_an_undecided_record_fail_the_gate(
    k3diff_cli: Any, inputs: Path
) -> None:
    write_samples(
        inputs / "s.jsonl", side("k", "base", ["a", "a"]) + side("k", "patch", ["b", None, None])
    )
    gated = k3diff_cli("triage", "cmp.json", "s.jsonl", "--fail-inconclusive", cwd=inputs)
    assert gated.exit_code == 1
    assert "1 inconclusive, failing under --fail-inconclusive (exit 1)" in gated.stdout
    document = k3diff_cli(
        "triage", "cmp.json", "s.jsonl", "--fail-inconclusive", "--format", "json", cwd=inputs
    )
    body = json.loads(document.stdout)
    assert body["fail_inconclusive"] is True
    assert body["verdict"] == {"ok": False, "exit_code": 1}
    markdown = k3diff_cli(
        "triage", "cmp.json", "s.jsonl", "--fail-inconclusive", "--format", "markdown", cwd=inputs
    )
    assert markdown.exit_code == 1 and "failing under `--fail-inconclusive`" in markdown.stdout
