"""The helper processes of a wheels run (`rawchild`, `sniffchild`): a bare interpreter
(`python -I -S`: no site, no user paths) running a script of ours on descriptors passed down,
started only where one can be, and killed and reaped on every path."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence


def start_python(
    script: str, arguments: Sequence[str], fds: Sequence[int], *, stdin: int
) -> subprocess.Popen[bytes] | None:
    """`script` run with `arguments`, `fds` inherited, its stdout a pipe and its stderr
    discarded; None when no child can be started: no interpreter to run (a frozen
    application's executable is not one), no process or descriptor to spare."""
    if not sys.executable or getattr(sys, "frozen", False):
        return None
    try:
        return subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", script, *arguments],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=tuple(fds),
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def end_child(process: subprocess.Popen[bytes] | None) -> None:
    """Kill `process` if it still runs, and reap it."""
    if process is not None:
        if process.poll() is None:
            process.kill()
        process.wait()
