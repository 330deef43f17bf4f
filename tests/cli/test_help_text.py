"""`k3diff --help` lists every command with a short help that reads whole (click cuts a long
help mid-sentence with "..."), and no usage line wraps inside a word."""

from __future__ import annotations

import click
import pytest
from cli_support import run_k3diff

from k3diff.cli import COMMANDS, cli
from k3diff.documents.catalog import NAMES

SHORT_HELP_MOST = 60
"""Characters of a command's short help at most: one line beside the command at 80 columns."""


def _commands_section(text: str) -> str:
    return text.split("Commands:\n", 1)[1]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_a_whole_short_help(command: str) -> None:
    real = cli.get_command(click.Context(cli), command)
    assert real is not None and real.short_help is not None
    assert real.short_help.endswith(".") and not real.short_help.endswith("...")
    assert len(real.short_help) <= SHORT_HELP_MOST, real.short_help


def test_top_level_help_cuts_no_description() -> None:
    listing = _commands_section(run_k3diff("--help").stdout)
    assert "..." not in listing
    for command in COMMANDS:
        real = cli.get_command(click.Context(cli), command)
        assert real is not None
        assert f"  {command.ljust(9)}  {real.short_help}\n" in listing


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_usage_line_wraps_inside_a_word(command: str) -> None:
    """One line each (click breaks a token longer than the line, as `schema`'s choices were)."""
    usage = run_k3diff(command, "--help").stdout.split("\n\n", 1)[0]
    assert "\n" not in usage.strip(), usage
    if command == "schema":
        assert usage.strip().endswith("schema [OPTIONS] [NAME]")
        described = " ".join(run_k3diff(command, "--help").stdout.split())
        assert all(f" {name}," in described or f" {name}." in described for name in NAMES)


def test_the_server_library_run_as_a_script_names_the_server_to_run() -> None:
    # Found by the new-user trial: `python scripts/openai_stub.py --help` (a library of the
    # loopback servers) printed nothing and exited 0, as if it had served and stopped.
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts/openai_stub.py"
    ran = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, check=False
    )
    assert ran.returncode == 2
    assert "scripted_server.py" in ran.stderr and ran.stderr.count("\n") == 1


def test_report_help_says_which_documents_it_runs_again() -> None:
    """Both a wheels and a responses document are run again on their inputs (forge61, forge61b);
    the help named only the first, so a reader took a responses document for judged alone."""
    text = " ".join(run_k3diff("report", "--help").stdout.split())
    assert "k3diff wheels on them" in text
    # forge62: with the settings it records, and the source repository as a directory input
    assert "and its --source check when a directory given is a git repository" in text
    assert (
        "a responses document given with its two inputs is run again through k3diff responses"
        in text
    )
    # review62: an audit given with the wheels it audited is run again too.
    assert "audited through k3diff audit" in text
    # stop 62: a logs document given with its two log files is run again too.
    assert (
        "a logs document given with its two log files (or log directories) through k3diff logs"
        in text
    )  # rerun63: a side given as a directory is run again too
    # newuser61c: a document that does not follow from its inputs is one exit-2 reason.
    assert "2 on an unreadable, unknown or self-contradictory document, one that does not " in text
    assert "follow from the inputs given with it" in text


def test_responses_help_says_epoch_means_of_0_or_1_take_the_binary_default() -> None:
    """Per-sample means of epochs each scored 0 or 1 take the binary default (stop 61); the help
    said only a binary metric had one and a continuous metric without one is held."""
    text = " ".join(run_k3diff("responses", "--help").stdout.split())
    assert "binary metrics and per-sample means of epochs each scored 0 or 1" in text
