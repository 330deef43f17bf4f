"""Output formats, atomic report files and terminal progress, shared by every command."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

from k3diff.errors import OutputError
from k3diff.report import escape


class OutputFormat(StrEnum):
    """The `--format` choices every command offers."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 entry`, `2 entries`, `1 byte`, `0 bytes`: a count with its noun agreeing."""
    if count == 1:
        return f"{count} {singular}"
    if plural_form is None:
        plural_form = (
            singular[:-1] + "ies"
            if singular.endswith("y") and singular[-2:-1] not in "aeiou"
            else singular + "s"
        )
    return f"{count} {plural_form}"


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the whole new one, never half;
    silently (a side file such as `audit --write-manifest`, not a report with a verdict)."""
    _write_file((text,), path)


def emit(text: str, output: Path | None, verdict: str | None = None) -> None:
    """Send a finished report to `output` (atomically) or to stdout."""
    if not text.endswith("\n"):
        text += "\n"
    emit_chunks((text,), output, verdict)


_VERDICT_LINE = re.compile(r"\(exit \d\)")
"""A report's last line that names the exit code is its verdict line (text and Markdown)."""

_unannounced: list[Path] = []
"""Reports written without a verdict line to repeat on stderr (see `take_unannounced`)."""


def emit_chunks(chunks: Iterable[str], output: Path | None, verdict: str | None = None) -> None:
    """Like `emit` for a report produced piece by piece, so a large report is never held whole.

    With `output`, the pieces go to a temporary file beside it that replaces `output` only once
    the last piece is written; a failure midway leaves the previous file untouched. The new
    file gets the mode a plain `open()` would give it (the umask's), not mkstemp's 0600. Once
    written, the one-line `verdict` (or, when None, the report's own last line naming the exit
    code) is repeated on stderr, so a run with `-o` still says how it ended.

    Every piece passes `escape.terminal` on its way out: renderers escape each value they
    show, and this keeps a control character any of them missed (ESC, a lone carriage return,
    C1, a bidirectional override) from reaching a terminal. JSON pieces hold none of those
    (they are written with `ensure_ascii`), so they pass unchanged.
    """
    chunks = map(escape.terminal, chunks)
    if output is None:
        for chunk in chunks:
            sys.stdout.write(chunk)
        sys.stdout.flush()
        return
    tail = _write_file(chunks, output)
    _announce(output, verdict if verdict is not None else _verdict_from(tail))


def _write_file(chunks: Iterable[str], output: Path) -> str:
    """Write `chunks` to `output` atomically; return the last non-blank chunk."""
    directory = output.parent if str(output.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"{output}: cannot write report: {exc.strerror or exc}") from exc
    tail = ""
    try:
        os.fchmod(fd, _new_file_mode(output))
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for chunk in chunks:
                handle.write(chunk)
                if chunk.strip():
                    tail = chunk
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, output)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise OutputError(f"{output}: cannot write report: {exc.strerror or exc}") from exc
        raise
    return tail


def _new_file_mode(output: Path) -> int:
    """The mode of the file being replaced, or what the umask gives a new file."""
    try:
        return stat.S_IMODE(os.stat(output).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _verdict_from(tail: str) -> str | None:
    lines = [line.strip().strip("*").strip() for line in tail.splitlines() if line.strip()]
    if lines and _VERDICT_LINE.search(lines[-1]):
        return lines[-1]
    return None


def _announce(output: Path, verdict: str | None) -> None:
    if verdict is None:
        _unannounced.append(output)
        return
    sys.stderr.write(escape.text(f"k3diff: report written to {output}; {verdict}") + "\n")
    sys.stderr.flush()


def take_unannounced() -> list[Path]:
    """Reports written whose verdict is still to be said on stderr (the CLI says it from the
    exit code); the list is emptied."""
    taken = list(_unannounced)
    _unannounced.clear()
    return taken
