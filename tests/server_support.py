"""Loopback server scripts started by tests (importable by name: pytest's `pythonpath` puts
tests/ and scripts/ on the path): each prints its port first, and is stopped by pid."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@contextlib.contextmanager
def loopback_script(*args: str | Path) -> Iterator[str]:
    """Run a server script (`args`: the script and its flags; scripts/ on its PYTHONPATH) and
    give its URL, from the port it prints first; SIGTERM by pid and wait when done."""
    proc = subprocess.Popen(
        [sys.executable, *map(str, args)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SCRIPTS)},
    )
    try:
        assert proc.stdout is not None
        yield f"http://127.0.0.1:{int(proc.stdout.readline())}"
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
