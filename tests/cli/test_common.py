"""Behaviour every command shares: help with examples, progress only on a terminal."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.parametrize("command", ["wheels", "responses"])
def test_help_shows_an_example(k3diff_cli: Any, command: str) -> None:
    result = k3diff_cli(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout
    assert f"k3diff {command}" in result.stdout


def test_unknown_command_is_one_line_and_exit_2(k3diff_cli: Any) -> None:
    result = k3diff_cli("frobnicate")
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
