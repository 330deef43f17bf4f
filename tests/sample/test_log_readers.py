"""A `k3diff.samples/1` log has one reader (`k3diff.sample.reader`), used by every command that
reads one: `sample --resume`, `triage`, `telemetry` and `report`. The same edited log is refused
by each with exit 2 and the same line. The one difference is deliberate and documented: a torn
last line (a run killed mid-write) is dropped by `--resume`, which goes on, and refused by every
other reader until the run is resumed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff
from triage.helpers import compare_texts

from .support import write_prompts

Lines = list[Any]
LOG = "out/samples.jsonl"


def _commands(base: str, patch: str) -> dict[str, tuple[str, ...]]:
    """Every command that reads a samples log, as a user gives it one."""
    sample = ("sample", "--base", base, "--patch", patch, "--prompts", "p.jsonl")
    return {
        "sample --resume": (*sample, "--repeats", "2", "--out", "out", "--resume"),
        "triage": ("triage", "cmp.json", LOG),
        "telemetry": ("telemetry", LOG),
        "report": ("report", LOG, "--out", "bundle"),
    }


def _edit(index: int, **changes: Any) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        lines[index] = lines[index] | changes
        return lines

    return edit


def _drop(index: int, field: str) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        del lines[index][field]
        return lines

    return edit


def _cut(lines: Lines) -> Lines:
    lines[1] = json.dumps(lines[1])[:40]
    return lines


_STOP = {
    "schema": "k3diff.samples/1",
    "stopped": "2026-12-06T00:00:00Z",
    "reason": "interrupted",
    "resumable": True,
    "message": "aborted (Ctrl-C)",
}
"""The stop line of a run stopped by Ctrl-C."""

EDITS: dict[str, tuple[Callable[[Lines], Lines], str]] = {
    "field removed": (_drop(1, "request_sha256"), f"{LOG}:2: 'request_sha256' is missing"),
    "repeat of another type": (_edit(1, repeat="0"), f"{LOG}:2: 'repeat'"),
    "side unknown": (_edit(1, side="left"), f"{LOG}:2: 'side' is 'left'"),
    "digest not its text's": (
        _edit(1, text="edited"),
        f"{LOG}:2: 'text_xxh3' is not the xxh3-128 of 'text'",
    ),
    "a sample twice": (lambda lines: [*lines, lines[1]], f"{LOG}:10: repeat 0 of "),
    "header of another version": (
        _edit(0, schema="k3diff.samples/2"),
        f"{LOG}:1: not a k3diff.samples/1 log (first line schema: 'k3diff.samples/2')",
    ),
    "header without schema": (
        _drop(0, "schema"),
        f"{LOG}:1: not a k3diff.samples/1 log (the first line has no schema field)",
    ),
    "a line cut short": (_cut, f"{LOG}:2: not JSON"),
    "a stop line that does not say whether it resumes": (
        lambda lines: [*lines, {**_STOP, "resumable": "no"}],
        f"{LOG}:10: stop line 'resumable' is \"no\", not true or false",
    ),
}


@pytest.fixture
def run_folder(fault_server: Any, tmp_path: Path) -> tuple[Path, dict[str, tuple[str, ...]]]:
    """A log `k3diff sample` wrote against two servers (2 repeats of 2 prompts a side), the
    comparison of the same keys, and each reader's command line."""
    base, patch = fault_server(), fault_server()
    write_prompts(tmp_path / "p.jsonl", [{"key": f"k{i}", "prompt": f"p{i}"} for i in range(2)])
    commands = _commands(base.url, patch.url)
    written = run_k3diff(*commands["sample --resume"][:-1], cwd=tmp_path)
    assert written.exit_code == 0, written.stderr
    compare_texts(tmp_path, {f"k{i}": (f"echo:p{i}", f"echo:p{i}") for i in range(2)})
    return tmp_path, commands


def _runs(folder: Path, commands: dict[str, tuple[str, ...]]) -> dict[str, CliResult]:
    return {name: run_k3diff(*command, cwd=folder) for name, command in commands.items()}


def _write(log: Path, lines: Lines) -> None:
    text = [line if isinstance(line, str) else json.dumps(line) for line in lines]
    log.write_text("".join(line + "\n" for line in text))


def test_every_reader_takes_the_log_as_written(
    run_folder: tuple[Path, dict[str, tuple[str, ...]]],
) -> None:
    folder, commands = run_folder
    results = _runs(folder, commands)
    assert {name: r.exit_code for name, r in results.items()} == dict.fromkeys(commands, 0), {
        name: r.stderr for name, r in results.items()
    }


def test_every_reader_takes_a_log_that_ends_in_a_stop_line(
    run_folder: tuple[Path, dict[str, tuple[str, ...]]],
) -> None:
    """A run stopped by Ctrl-C ends its log with a stop line: every reader takes the log, and
    --resume continues after it (the stop line kept as history)."""
    folder, commands = run_folder
    log = folder / LOG
    _write(log, [*(json.loads(line) for line in log.read_text().splitlines()), _STOP])
    results = _runs(folder, commands)
    assert {name: r.exit_code for name, r in results.items()} == dict.fromkeys(commands, 0), {
        name: r.stderr for name, r in results.items()
    }
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    # The resume marker records the resume's one-server check (samples73).
    marker = {"schema": "k3diff.samples/1", "resumed": lines[-1]["resumed"]}
    assert lines[-2:] == [_STOP, {**marker, "server_identity": lines[-1]["server_identity"]}]
    assert lines[-1]["server_identity"]["result"] in ("one-server", "two-servers", "unchecked")


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_log_is_refused_alike_by_every_reader(
    run_folder: tuple[Path, dict[str, tuple[str, ...]]], edit: str
) -> None:
    folder, commands = run_folder
    change, message = EDITS[edit]
    log = folder / LOG
    _write(log, change([json.loads(line) for line in log.read_text().splitlines()]))
    before = log.read_bytes()
    refusals = _runs(folder, commands)
    for name, result in refusals.items():
        assert result.exit_code == 2, (name, result.stdout, result.stderr)
        assert result.stderr.startswith(f"k3diff: error: {message}"), (name, result.stderr)
        assert len(result.stderr.splitlines()) == 1, (name, result.stderr)
    assert len({result.stderr for result in refusals.values()}) == 1, refusals
    assert log.read_bytes() == before  # --resume appended nothing to a log it refused


def test_a_torn_last_line_is_dropped_by_resume_and_refused_by_the_others(
    run_folder: tuple[Path, dict[str, tuple[str, ...]]],
) -> None:
    folder, commands = run_folder
    log = folder / LOG
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]) + lines[-1][:30])
    readers = {name: command for name, command in commands.items() if name != "sample --resume"}
    refusals = _runs(folder, readers)
    message = f"k3diff: error: {LOG}:{len(lines)}: torn last line (a run killed mid-write); "
    for name, result in refusals.items():
        assert result.exit_code == 2 and result.stderr.startswith(message), (name, result.stderr)
    assert len({result.stderr for result in refusals.values()}) == 1, refusals
    resumed = run_k3diff(*commands["sample --resume"], cwd=folder)
    assert resumed.exit_code == 0, resumed.stderr
    assert _runs(folder, readers)["triage"].exit_code == 0
