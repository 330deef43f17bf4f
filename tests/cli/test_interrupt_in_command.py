"""A Ctrl-C while a command runs is one line on stderr, `k3diff: error: aborted (Ctrl-C)`, and
exit 2: click's own handler wrote a blank line before it (closing a terminal's `^C` echo), so
the error came second, after an empty line (w408b).

Each run is a fresh interpreter, entered as the console script is (`k3diff.entry.main`), whose
import of a module the command loads only once it runs raises `KeyboardInterrupt`, what a SIGINT
arriving there does: the subcommand's module (imported as the group resolves the command) and
the comparison (imported by the command itself)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit

_INTERRUPT = """
import sys

target = sys.argv.pop(1)


class Interrupt:
    def find_spec(self, name, path=None, target_=None):
        if name == target:
            raise KeyboardInterrupt
        return None


sys.meta_path.insert(0, Interrupt())
sys.argv[0] = "k3diff"
from k3diff.entry import main

sys.exit(main())
"""


@pytest.mark.parametrize("module", ["k3diff.cli.wheels_cmd", "k3diff.wheels.compare"])
def test_ctrl_c_during_a_command_is_one_line_and_exit_2(module: str, tmp_path: Path) -> None:
    files = {"pkg/__init__.py": b""}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", files)
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPT, module, "wheels", str(base), str(patch)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stderr == "k3diff: error: aborted (Ctrl-C)\n" and done.returncode == 2, done
    assert done.stdout == ""


_INTERRUPT_ON_CLOSE = """
import sys

from k3diff import cli

invoke = cli.LazyGroup.invoke


def interrupt():
    raise KeyboardInterrupt


def invoke_then_interrupt_on_close(self, ctx):
    ctx.call_on_close(interrupt)  # the group's own context: closed as click's main leaves it
    return invoke(self, ctx)


cli.LazyGroup.invoke = invoke_then_interrupt_on_close
sys.argv[0] = "k3diff"
from k3diff.entry import main

sys.exit(main())
"""


def test_ctrl_c_as_click_closes_the_context_after_the_command_is_one_line() -> None:
    """The command has returned; click's `main` then closes the group's context, running its
    `call_on_close` callbacks, outside `invoke`: a Ctrl-C there came after a blank line."""
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPT_ON_CLOSE, "schema", "wheels"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stderr == "k3diff: error: aborted (Ctrl-C)\n" and done.returncode == 2, done
