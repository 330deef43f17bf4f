"""How the user ran k3diff, for the commands k3diff prints for them to run next (triage's
`next:` line, `sample`'s sizing hint): bare `k3diff` where that name on PATH is the program
running now, else the program as it was run (`.venv/bin/k3diff`, `python -m k3diff`),
shell-quoted, so a pasted line runs the same k3diff rather than exit 127 or another install."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

NAME = "k3diff"

_running = NAME
"""The program the printed commands start with; `k3diff` unless `from_process` set it (tests
call the CLI in-process, where the host's `sys.argv[0]` is not k3diff)."""


def program() -> str:
    """The program a printed command starts with, shell-quoted."""
    return _running


def from_process() -> None:
    """Take the program from this process's `sys.argv[0]` (the console script or `-m`)."""
    global _running
    _running = resolve(sys.argv[0], shutil.which(NAME), sys.executable)


def resolve(argv0: str, on_path: str | None, executable: str) -> str:
    """The program for `argv0` (as the process was started), `on_path` (what `k3diff`
    resolves to on PATH, None where nothing does) and `executable` (the interpreter)."""
    if Path(argv0).name == "__main__.py":  # python -m k3diff
        script = Path(executable).parent / NAME
        if on_path is not None and _same(on_path, str(script)):
            return NAME
        return shlex.join([executable, "-m", NAME])
    if not argv0 or (on_path is not None and _same(on_path, argv0)):
        return NAME
    return shlex.quote(argv0)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
