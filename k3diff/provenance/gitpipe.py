"""A long-running git command k3diff talks to through pipes (``cat-file --batch``), under a
deadline on git's own time.

`run_git` bounds a whole call (600 s). A batch process is different: between its answers
k3diff does its own work (a line diff of a 32 MiB file may take minutes), which is not git's
time. So the deadline is on each wait: a read still unanswered `GIT_TIMEOUT_S` after it
began kills git, its reader sees the pipe end, and the error is said as the timeout. Without
it, a loose tree object that is a FIFO held ``cat-file`` (and k3diff) forever (review67).
One watchdog thread per process; a read costs two lock round trips, not a timer.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, cast

from k3diff.errors import SourceError
from k3diff.provenance import gitrun


class GitPipe:
    """A running git command: its stdin and stdout, and `waiting()` around every read."""

    def __init__(
        self, process: subprocess.Popen[bytes], seconds: float, stderr: IO[bytes] | None = None
    ) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.stdin: IO[bytes] = process.stdin
        """Where requests are written."""
        self.stdout = cast(io.BufferedReader, process.stdout)  # Popen's, unbuffered=False
        """Where git answers."""
        self.seconds = seconds
        """How long one read may wait on git."""
        self.expired = False
        """Set when the watchdog killed git."""
        self._stderr = stderr
        self._process = process
        self._changed = threading.Condition()
        self._since: float | None = None  # when the pending read began; None: none pending
        self._closed = False
        threading.Thread(target=self._watch, daemon=True).start()

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """Around one read of git's answer: git is killed if it has not answered in time."""
        with self._changed:
            self._since = time.monotonic()
            self._changed.notify()
        try:
            yield
        finally:
            with self._changed:
                self._since = None

    def wait(self) -> int:
        """git's exit status, once it has written its last answer (the watchdog still on)."""
        with self.waiting():
            return self._process.wait()

    def said(self) -> str | None:
        """git's first message line so far (its stderr goes to a file: a pipe could fill and
        stall git), None when it said nothing. A corrupt pack makes ``cat-file`` answer
        "missing", or stop inside an object, and say why only there (left67b)."""
        if self._stderr is None:
            return None
        self._stderr.seek(0)
        message = gitrun.first_line(self._stderr.read(_SAID_BYTES))
        return None if message == "no message" else message

    def close(self) -> None:
        """Stop the watchdog, kill git (whatever it was doing) and reap it."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        self._process.kill()
        self._process.wait()

    def _watch(self) -> None:
        with self._changed:
            while not self._closed:
                if self._since is None:
                    self._changed.wait()
                    continue
                left = self._since + self.seconds - time.monotonic()
                if left <= 0:
                    self.expired = True
                    self._process.kill()
                    return
                self._changed.wait(left)


_SAID_BYTES = 64 << 10
"""Most bytes of git's messages read back (the first line is what is said)."""


@contextlib.contextmanager
def popen_git(
    repo_path: Path, args: Sequence[str], *, overrides: Sequence[tuple[str, str]] = ()
) -> Iterator[GitPipe]:
    """One hardened git command (`gitrun`: configuration, environment, memory cap) whose stdin
    and stdout are pipes; ended on leaving. An error raised after the watchdog killed git is
    said as the timeout."""
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed on leaving, below)
    try:
        process = subprocess.Popen(
            gitrun.launched(gitrun.git_command(repo_path, args, overrides)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,  # a file, read back only on failure: a pipe could fill and stall git
            env=gitrun.environment(repo_path, overrides),
        )
    except FileNotFoundError as exc:
        stderr.close()
        raise SourceError("git is not installed or not on PATH") from exc
    except OSError as exc:
        stderr.close()
        raise SourceError(f"{repo_path}: cannot run git: {exc.strerror or exc}") from exc
    pipe = GitPipe(process, gitrun.GIT_TIMEOUT_S, stderr)
    try:
        yield pipe
    except (SourceError, OSError) as exc:
        if pipe.expired:
            raise SourceError(
                f"{repo_path}: git {args[0]} took longer than {pipe.seconds:g} s to answer "
                "(stopped)"
            ) from exc
        raise
    finally:
        pipe.close()
        stderr.close()
