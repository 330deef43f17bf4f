"""Run a command and measure its own peak resident set size, not its parent's.

Linux keeps ``ru_maxrss`` across ``exec``: a process spawned from a large parent (a pytest worker
that has imported scipy, a benchmark holding wheels in its page tables) starts with the parent's
high-water mark, so ``os.wait4`` on it reports the parent's size whenever that is the larger. The
command is therefore spawned by a tiny launcher (``python -I -S``, about 10 MB) which waits for it
and passes its rusage back on a pipe: the measured process inherits only the launcher's mark.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

LAUNCHER = """
import os, sys
fd = int(sys.argv[1])
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
os.write(fd, f"{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)} {usage.ru_utime + usage.ru_stime}".encode())
os.close(fd)
"""


@dataclass(frozen=True)
class Measured:
    """How one measured command ended."""

    exit_code: int
    """The command's own exit code (negative for a signal)."""
    peak_rss_mb: float
    """Its peak resident set size in MiB (Linux reports KiB)."""
    cpu_seconds: float = 0.0
    """Its user + system CPU seconds (all its threads and reaped children)."""


def run_with_peak_rss(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: Path | None = None,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
) -> Measured:
    """Run `argv` to completion through the launcher and return its exit code and peak RSS."""
    read_end, write_end = os.pipe()
    try:
        launcher = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(write_end), *map(str, argv)]
        proc = subprocess.Popen(
            launcher, cwd=cwd, stdout=stdout, stderr=stderr, pass_fds=(write_end,)
        )
        os.close(write_end)
        write_end = -1
        with os.fdopen(read_end, "rb") as report:
            read_end = -1
            message = report.read().decode()
        launcher_status = proc.wait()
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
    if not message:
        raise RuntimeError(f"the launcher failed (exit {launcher_status}) before reporting")
    peak_kib, exit_code, cpu = message.split()
    return Measured(int(exit_code), int(peak_kib) / 1024, float(cpu))
