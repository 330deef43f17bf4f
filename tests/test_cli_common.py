"""Behaviour every command shares: help with examples, progress only on a terminal."""

from __future__ import annotations

import io
from typing import Any

import pytest

from k3diff.output import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("command", ["wheels", "responses"])
def test_help_shows_an_example(k3diff_cli: Any, command: str) -> None:
    result = k3diff_cli(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout
    assert f"k3diff {command}" in result.stdout


def test_progress_draws_on_a_terminal_and_erases_itself() -> None:
    stream = _Terminal()
    progress = Progress("comparing", stream=stream, interval=0.0)
    progress(5, 10)
    progress(10, 10)
    progress.close()
    assert "comparing: 10/10" in stream.getvalue()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_progress_is_silent_when_stderr_is_not_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress("comparing", stream=stream, interval=0.0)
    progress(10, 10)
    progress.close()
    assert stream.getvalue() == ""


def test_unknown_command_is_one_line_and_exit_2(k3diff_cli: Any) -> None:
    result = k3diff_cli("frobnicate")
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
