"""A `k3diff.responses/1` comparison has one reader (`k3diff.responses.document`), used by every
command that reads one: `triage` (its COMPARISON) and `report` (any document). The same edited
file is refused by each with exit 2 and the same line; before there was one reader, a comparison
without its `summary`, or with a record's `similarity: "high"`, made triage go on (exit 1) while
report refused it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff
from triage.helpers import compare_texts, side, write_samples

Document = dict[str, Any]

COMMANDS: dict[str, tuple[str, ...]] = {
    "triage": ("triage", "cmp.json", "s.jsonl"),
    "report": ("report", "cmp.json", "--out", "bundle"),
}
"""Every command that reads a comparison, as a user gives it one."""


def _without(document: Document, *path: str | int) -> Document:
    *parents, last = path
    inner: Any = document
    for step in parents:
        inner = inner[step]
    del inner[last]
    return document


def _set(document: Document, value: Any, *path: str | int) -> Document:
    *parents, last = path
    inner: Any = document
    for step in parents:
        inner = inner[step]
    inner[last] = value
    return document


def _twice(document: Document) -> Document:
    document["records"].append(document["records"][0])
    document["summary"]["records"] += 1
    return document


EDITS: dict[str, tuple[Callable[[Document], Document | str], str]] = {
    "summary removed": (
        lambda d: _without(d, "summary"),
        "cmp.json: k3diff.responses/1 document without summary",
    ),
    "record field removed": (
        lambda d: _without(d, "records", 0, "status"),
        "cmp.json: field 'records[0].status' is missing",
    ),
    "similarity of another type": (
        lambda d: _set(d, "high", "records", 0, "similarity"),
        "cmp.json: field 'records[0].similarity' must be a number or null",
    ),
    "similarity above 1": (
        lambda d: _set(d, 5, "records", 0, "similarity"),
        "cmp.json: field 'records[0].similarity' must be a number from 0 to 1 or null",
    ),
    "similarity not a number": (
        lambda d: _set(d, "NaN", "records", 0, "similarity"),
        "cmp.json: field 'records[0].similarity' must be a number from 0 to 1 or null",
    ),
    "text digest of another type": (
        lambda d: _set(d, 7, "records", 1, "patch", "text_xxh3"),
        "cmp.json: field 'records[1].patch.text_xxh3' must be a string or null",
    ),
    "request route unknown": (
        lambda d: _set(d, "grpc", "records", 0, "base", "request", "route"),
        "cmp.json: field 'records[0].base.request.route' must be chat, completions or null",
    ),
    "count not its records'": (
        lambda d: _set(d, 3, "summary", "paired"),
        "cmp.json: the document disagrees with itself (summary.paired is 3 but its records give 2)",
    ),
    "verdict not its records'": (
        lambda d: _set(d, {"ok": True, "exit_code": 0, "reasons": []}, "verdict"),
        "cmp.json: the document disagrees with itself (verdict.exit_code 0 does not follow from "
        "its records (1 failing: 1 of 2 paired records differ))",
    ),
    "a key twice": (_twice, "cmp.json: the document disagrees with itself (record 'k' appears 2"),
    "schema of another version": (
        lambda d: _set(d, "k3diff.responses/2", "schema"),
        "cmp.json: schema k3diff.responses/2: version 2 is not readable by this k3diff",
    ),
    "schema unknown": (
        lambda d: _set(d, "k3diff.respones/1", "schema"),
        "cmp.json: unknown schema 'k3diff.respones/1' (k3diff reads ",
    ),
    "truncated": (
        lambda d: json.dumps(d, indent=2)[:400],
        "cmp.json: not a k3diff JSON document (line ",
    ),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A comparison `k3diff responses` wrote (one record differs, one matches) and a samples
    log of the differing record (the base gives both texts, so the patch's samples are inside
    its observed set and triage passes; as many a side as the run owed, samples71)."""
    folder = tmp_path_factory.mktemp("comparison")
    compare_texts(folder, {"k": ("a", "b"), "m": ("x", "x")})
    write_samples(
        folder / "s.jsonl", side("k", "base", ["a", "b"]) + side("k", "patch", ["b", "b"])
    )
    return folder


def _run(folder: Path, command: tuple[str, ...]) -> CliResult:
    return run_k3diff(*command, cwd=folder)


def test_every_reader_takes_the_comparison_as_written(inputs: Path) -> None:
    """The edits below are what makes each refusal: unedited, every command reads it."""
    results = {name: _run(inputs, command) for name, command in COMMANDS.items()}
    assert {name: result.exit_code for name, result in results.items()} == {
        "triage": 0,
        "report": 1,
    }, {name: result.stderr for name, result in results.items()}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_comparison_is_refused_alike_by_every_reader(
    inputs: Path, tmp_path: Path, edit: str
) -> None:
    change, message = EDITS[edit]
    (tmp_path / "s.jsonl").write_bytes((inputs / "s.jsonl").read_bytes())
    edited = change(json.loads((inputs / "cmp.json").read_text()))
    (tmp_path / "cmp.json").write_text(edited if isinstance(edited, str) else json.dumps(edited))
    refusals = {name: _run(tmp_path, command) for name, command in COMMANDS.items()}
    for name, result in refusals.items():
        assert result.exit_code == 2, (name, result.stdout, result.stderr)
        assert result.stderr.startswith(f"k3diff: error: {message}"), (name, result.stderr)
        assert len(result.stderr.splitlines()) == 1, (name, result.stderr)
    assert len({result.stderr for result in refusals.values()}) == 1, refusals
    assert not (tmp_path / "bundle").exists()
