"""Loopback server scripts started by tests (importable by name: pytest's `pythonpath` puts
tests/ and scripts/ on the path): each prints its port first, and is stopped by pid."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

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


@contextlib.contextmanager
def uvicorn_app(app: str, app_dir: Path, workers: int) -> Iterator[str]:
    """Run the ASGI `app` ('module:attribute' in `app_dir`) under a real uvicorn of `workers`
    worker processes on a free loopback port, and give its URL once it answers; SIGTERM its
    parent by pid (which stops the workers) and wait when done."""
    with uvicorn_apps(app, app_dir, workers, servers=1) as (url,):
        yield url


@contextlib.contextmanager
def uvicorn_apps(app: str, app_dir: Path, workers: int, servers: int) -> Iterator[list[str]]:
    """`servers` such uvicorns, every one started before any is waited for, so that their
    processes start together, as one server's workers do (review75b: one started once the
    other answered began 0.5 s later on a loaded 2-core machine, more under more load, and
    read as two servers started apart); their URLs."""
    command = [sys.executable, "-m", "uvicorn", app, "--app-dir", str(app_dir)]
    command += ["--host", "127.0.0.1", "--port", "0", "--workers", str(workers)]
    with contextlib.ExitStack() as stack:
        started = []
        for _ in range(servers):
            log = stack.enter_context(tempfile.TemporaryFile("w+"))
            proc = subprocess.Popen(
                [*command, "--no-access-log"], stdout=subprocess.DEVNULL, stderr=log
            )
            stack.callback(_stop, proc)
            started.append((proc, log))
        yield [f"http://127.0.0.1:{_uvicorn_port(proc, log, workers)}" for proc, log in started]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait(timeout=20)


def _uvicorn_port(proc: subprocess.Popen[bytes], log: IO[str], workers: int) -> int:
    """The port uvicorn logs it runs on, once each worker has started its application."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        log.seek(0)
        text = log.read()
        found = re.search(r"Uvicorn running on http://127\.0\.0\.1:(\d+)", text)
        if found and text.count("Application startup complete") >= workers:
            return int(found.group(1))
        time.sleep(0.05)
    log.seek(0)
    raise AssertionError(f"uvicorn did not start: {log.read()[-2000:]}")
