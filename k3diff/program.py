"""How the user ran k3diff, for the commands k3diff prints for them to run next (triage's
`next:` line, `sample`'s sizing hint): bare `k3diff` where that name on PATH is the program
running now, else the program as it was run (`.venv/bin/k3diff`, `python -m k3diff`),
shell-quoted (`k3diff.shellwords`: a path the printed line would fold or escape in `$'…'`), so a pasted line runs the same k3diff rather than exit 127 or another install.
A bundle's commands stay bare `k3diff` (`k3diff.bundle.model.MAKES` says why)."""

from __future__ import annotations

import sys

NAME = "k3diff"

_argv0: str | None = None
"""`sys.argv[0]` of a process that runs the CLI (`from_process`); None: `k3diff` (tests call
the CLI in-process, where the host's `sys.argv[0]` is not k3diff)."""


def program() -> str:
    """The program a printed command starts with, shell-quoted (resolved only when a command
    is printed: PATH is searched then, not at every start)."""
    if _argv0 is None:
        return NAME
    import shutil

    return resolve(_argv0, shutil.which(NAME), sys.executable)


def from_process() -> None:
    """Take the program from this process's `sys.argv[0]` (the console script or `-m`)."""
    global _argv0
    _argv0 = sys.argv[0]


def resolve(argv0: str, on_path: str | None, executable: str) -> str:
    """The program for `argv0` (as the process was started), `on_path` (what `k3diff`
    resolves to on PATH, None where nothing does) and `executable` (the interpreter)."""
    import os
    from pathlib import Path

    from k3diff import shellwords

    def same(a: str, b: str) -> bool:
        try:
            return os.path.samefile(a, b)
        except OSError:
            return False

    if Path(argv0).name == "__main__.py":  # python -m k3diff
        script = Path(executable).parent / NAME
        if on_path is not None and same(on_path, str(script)):
            return NAME
        return shellwords.join([executable, "-m", NAME])
    if not argv0 or (on_path is not None and same(on_path, argv0)):
        return NAME
    return shellwords.quote(argv0)
