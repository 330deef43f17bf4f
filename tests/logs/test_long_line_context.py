"""A rule's match spread over a long line, where what surrounds it decides (review72e).

The parts of a rule found in order across the pieces of a line past the scanned MiB
(`k3diff.logs.spread`) missed a match the same line would show the scanner whole, exit 0: a
lookahead reading past the part it follows; a worker prefix or a carriage return before a `^`
rule, a carriage return after a `$` one (the scanner reads each part between `\\r`s as a line,
its worker prefix removed); a terminal's OSC across a seam, which made what followed it read as
the bytes leading the piece. Where CPython's private regular-expression parser cannot be read,
a long line is refused (exit 2), never passed."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff.logs import spread

from .logs_support import clean, write

MIB = 1 << 20
SEAM = 3 * MIB
"""Where the first piece past the scanned MiB of a long first line ends (test_long_lines)."""


def _fails(tmp_path: Path, line: str, *rule: str) -> str:
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", line + "\n" + clean(pid=9))
    result = run_k3diff("logs", base, patch, *rule)
    assert result.exit_code == 1, result.stdout
    verdict = result.stdout.splitlines()[-1]
    assert "line 1 is longer than the 1 MiB scanned, and its rest matches" in verdict
    return verdict


def test_a_lookahead_reading_past_the_piece_is_followed(tmp_path: Path) -> None:
    """`fatal(?=.*end)`: three characters wide, but it reads to `end` 2 MiB on."""
    line = "fatal " + "y" * (2 * MIB) + " end"
    assert "matches lost" in _fails(tmp_path, line, "--rule", "lost=fatal(?=.*end)")


@pytest.mark.parametrize(
    "before", ["(EngineCore_DP0 pid=104) ", "x" * 10 + "\r"], ids=["worker prefix", "\\r"]
)
def test_an_anchored_rule_after_a_worker_prefix_or_a_carriage_return(
    tmp_path: Path, before: str
) -> None:
    """`^fatal.*gone`: the scanner reads the line without its worker prefix, and from a `\\r`
    on as a line of its own; the parts were searched in the raw head, where `^` never held."""
    line = before + "fatal " + "y" * (2 * MIB) + " gone" + "y" * 100
    assert "matches lost" in _fails(tmp_path, line, "--rule", "lost=^fatal.*gone")


def test_a_rule_ending_the_line_before_a_carriage_return(tmp_path: Path) -> None:
    """`fatal.*gone$` where `gone` ends the part of the line before a `\\r` (a CRLF line too)."""
    line = "fatal " + "y" * (2 * MIB) + " gone\rmore" + "y" * 100
    assert "matches lost" in _fails(tmp_path, line, "--rule", "lost=fatal.*gone$")
    crlf = "fatal " + "y" * (2 * MIB) + " gone\r"
    assert "matches lost" in _fails(tmp_path, crlf, "--rule", "lost=fatal.*gone$")


def test_a_terminal_code_across_a_seam_hides_no_crash(tmp_path: Path) -> None:
    """A window title (OSC) opened in the 4 KiB that lead the piece past `SEAM` and closed past
    it: the whole line shown reads `worker … died`, the built-in crash rule."""
    line = "worker " + "x" * (SEAM - 7 - 4000) + "\x1b]0;" + "t" * 4096 + "\x07 died"
    line += "x" * MIB
    assert "matches crash" in _fails(tmp_path, line)


@pytest.mark.parametrize("change", ["missing", "an operator renamed"])
def test_a_python_whose_parser_is_not_read_here_refuses_a_long_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """`re._parser` is private to CPython: where it is missing or changed, a long line is
    refused in one line (exit 2), never passed unread; a log of short lines is scanned."""
    if change == "missing":
        monkeypatch.setattr(spread, "sre_parse", None)
    else:
        monkeypatch.setattr(spread, "_READ", [*spread._READ, "POSSESSIVE_REPEAT_RENAMED"])
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", "x" * (2 * MIB) + "\n" + clean(pid=9))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 2, result.stdout
    assert "re._parser" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    short = write(tmp_path / "short.log", clean(pid=9))
    assert run_k3diff("logs", base, short).exit_code == 0
