"""A Ctrl-C while `k3diff` is still importing its command-line interface (click, the command
group: a good part of a short run, before `run_main` answers Ctrl-C) is the same exit 2 and one
line as a Ctrl-C during the command, never a `KeyboardInterrupt` traceback (newuser67b:
`timeout -s INT 0.05 k3diff wheels BASE PATCH` printed one).

Each run is a fresh interpreter whose import of `k3diff.cli.common` raises `KeyboardInterrupt`,
what a SIGINT arriving there does, through the two real entry points: the console script's
entry point as installed, and `python -m k3diff`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

_INTERRUPT = """
import sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "k3diff.cli.common":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
"""

_CONSOLE_SCRIPT = """
import sys
from importlib.metadata import entry_points
(entry,) = entry_points(group="console_scripts", name="k3diff")
sys.argv[0] = "k3diff"
sys.exit(entry.load()())
"""

_DASH_M = """
import runpy
runpy.run_module("k3diff", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("entry", ["console script", "python -m k3diff"])
def test_ctrl_c_during_the_import_is_one_line_and_exit_2(entry: str, tmp_path: Path) -> None:
    argv = ["wheels", str(tmp_path / "base.whl"), str(tmp_path / "patch.whl")]
    script = _INTERRUPT + (_CONSOLE_SCRIPT if entry == "console script" else _DASH_M)
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stderr == "k3diff: error: aborted (Ctrl-C)\n" and done.returncode == 2, done
    assert done.stdout == ""
