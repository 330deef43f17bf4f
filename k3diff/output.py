"""Output formats, atomic report files and terminal progress, shared by every command."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TextIO

from k3diff.errors import OutputError


class OutputFormat(StrEnum):
    """The `--format` choices every command offers."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the whole new one, never half."""
    emit_chunks((text,), path)


def emit(text: str, output: Path | None) -> None:
    """Send a finished report to `output` (atomically) or to stdout."""
    if not text.endswith("\n"):
        text += "\n"
    emit_chunks((text,), output)


def emit_chunks(chunks: Iterable[str], output: Path | None) -> None:
    """Like `emit` for a report produced piece by piece, so a large report is never held whole.

    With `output`, the pieces go to a temporary file beside it that replaces `output` only once
    the last piece is written; a failure midway leaves the previous file untouched.
    """
    if output is None:
        for chunk in chunks:
            sys.stdout.write(chunk)
        sys.stdout.flush()
        return
    directory = output.parent if str(output.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"{output}: cannot write report: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, output)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise OutputError(f"{output}: cannot write report: {exc.strerror or exc}") from exc
        raise


class Progress:
    """A one-line progress indicator on stderr, shown only when stderr is a terminal.

    Call it as `progress(done, total)`; it redraws at most a few times a second.
    """

    def __init__(self, label: str, stream: TextIO | None = None, interval: float = 0.2) -> None:
        self._label = label
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = self._stream.isatty()
        self._interval = interval
        self._last = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self._enabled:
            return
        now = time.monotonic()
        if done < total and now - self._last < self._interval:
            return
        self._last = now
        self._stream.write(f"\r{self._label}: {done}/{total}")
        self._stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Erase the progress line so the report starts on a clean line."""
        if self._enabled and self._drawn:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
