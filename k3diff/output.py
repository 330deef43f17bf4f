"""Output formats, atomic report files and terminal progress, shared by every command."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TextIO

from k3diff import escape
from k3diff.errors import OutputError
from k3diff.exitcodes import ExitCode
from k3diff.lazyre import lazy


class OutputFormat(StrEnum):
    """The `--format` choices every command offers."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


class CiFormat(StrEnum):
    """The `--format` choices commands that emit findings add (`wheels`, `audit`, `logs`)."""

    SARIF = "sarif"
    JUNIT = "junit"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 entry`, `2 entries`, `1 byte`, `15,096 bytes`: a count with its noun agreeing, its
    thousands separated as every human-facing number is (JSON keeps the plain integer)."""
    if count == 1:
        return f"{count} {singular}"
    if plural_form is None:
        plural_form = (
            singular[:-1] + "ies"
            if singular.endswith("y") and singular[-2:-1] not in "aeiou"
            else singular + "s"
        )
    return f"{count:,} {plural_form}"


def first_few(items: Sequence[str], separator: str, limit: int = 8) -> str:
    """`items` joined, the first `limit` named and the rest counted (`and 65,528 more`): a list
    an input decides (an ELF's 65,536 version needs) stays one readable line."""
    named = separator.join(items[:limit])
    return named + (f"{separator}and {len(items) - limit:,} more" if len(items) > limit else "")


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the whole new one, never half;
    silently (a side file such as `audit --write-manifest`, not a report with a verdict)."""
    _write_file((text,), path)


def emit(text: str, output: Path | None, verdict: str) -> None:
    """Send a finished report to `output` (atomically) or to stdout; see `emit_chunks`."""
    if not text.endswith("\n"):
        text += "\n"
    emit_chunks((text,), output, verdict)


def short_verdict(code: ExitCode) -> str:
    """`OK (exit 0)` or `FAIL (exit 1)`: the verdict said for a report that has no line of its
    own to repeat (a JSON document holds it as its `verdict` object)."""
    return f"{'FAIL' if code != ExitCode.OK else 'OK'} (exit {int(code)})"


class Prewritten:
    """A piece of a report already written out as bytes (`blocks`, cut anywhere), meant to be
    ASCII in which `escape.terminal` changes nothing (compact JSON written with `ensure_ascii`,
    which escapes every control character, DEL and all that is not ASCII; items joined by a
    newline and spaces). `emit_chunks` copies it to the report as it is: a JSON report's 100 MB
    of records are not decoded and encoded again. Each block is still checked as
    `escape.terminal` checks text (`escape.terminal_safe`), the last line of defence, and one
    that fails is escaped like text."""

    __slots__ = ("_blocks",)

    def __init__(self, blocks: Callable[[], Iterable[bytes]]) -> None:
        self._blocks = blocks

    def blocks(self) -> Iterator[bytes]:
        """The piece's bytes, as `escape.terminal` leaves them."""
        for block in self._blocks():
            if escape.terminal_safe(block):
                yield block
            else:
                yield escape.terminal(block.decode("ascii")).encode("ascii")

    def texts(self) -> Iterator[str]:
        """The blocks as text, for a stream that takes only text."""
        for block in self.blocks():
            yield block.decode("ascii")


Piece = str | Prewritten
"""What a report is written in: text, or bytes written out before (`Prewritten`)."""


def emit_chunks(chunks: Iterable[Piece], output: Path | None, verdict: str) -> None:
    """Like `emit` for a report produced piece by piece, so a large report is never held whole.

    With `output`, the pieces go to a temporary file beside it that replaces `output` only once
    the last piece is written; a failure midway leaves the previous file untouched. The new
    file gets the mode a plain `open()` would give it (the umask's), not mkstemp's 0600. Once
    written, the one-line `verdict` the command took from its result (never read back out of
    the report) is repeated on stderr, so a run with `-o` still says how it ended.

    Every piece passes `escape.terminal` on its way out: renderers escape each value they
    show, and this keeps a control character any of them missed (ESC, a lone carriage return,
    C1, a bidirectional override) from reaching a terminal. JSON pieces hold none of those
    (they are written with `ensure_ascii`), so they pass unchanged; a `Prewritten` piece is
    checked block by block and copied as it is. Under GitHub Actions every piece, a
    `Prewritten` one read as text, also passes `escape.workflow_inert` (a JSON document's
    values unchanged), so no input makes the runner read a line of the report as a workflow
    command (review64).
    """
    if under_actions():
        chunks = _workflow_inert(map(escape.terminal, _texts(chunks)))
    else:
        chunks = _terminal(chunks)
    if output is None:
        _write_stdout(chunks)
        return
    _write_file(chunks, output)
    say(escape.text(f"k3diff: report written to {output}; {verdict}"))


def _terminal(chunks: Iterable[Piece]) -> Iterator[Piece]:
    """Each piece of text through `escape.terminal`; `Prewritten` pieces check their blocks."""
    for chunk in chunks:
        yield escape.terminal(chunk) if isinstance(chunk, str) else chunk


def _texts(chunks: Iterable[Piece]) -> Iterator[str]:
    """Every piece as text."""
    for chunk in chunks:
        if isinstance(chunk, str):
            yield chunk
        else:
            yield from chunk.texts()


def _write_pieces(handle: TextIO, chunks: Iterable[Piece]) -> None:
    """Write `chunks` to the text stream `handle`: a `Prewritten` piece's bytes go to its byte
    stream once the text before them is flushed, where it has one that writes ASCII as
    itself; else (a `StringIO`) as text."""
    write = handle.write
    for chunk in chunks:
        if isinstance(chunk, str):
            write(chunk)
            continue
        raw = getattr(handle, "buffer", None)
        if raw is None or not _ascii_as_itself(handle):
            for text in chunk.texts():
                write(text)
            continue
        handle.flush()
        for block in chunk.blocks():
            raw.write(block)


def _ascii_as_itself(handle: TextIO) -> bool:
    """True when `handle`'s encoding writes ASCII text as its bytes (UTF-8 does; UTF-16 not)."""
    try:
        return "{}".encode(handle.encoding) == b"{}"
    except (LookupError, TypeError):
        return False


def under_actions() -> bool:
    """True in a GitHub Actions step, whose runner reads workflow commands in its output."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _workflow_inert(chunks: Iterable[str]) -> Iterator[str]:
    """`chunks` through `escape.workflow_inert`, a command split across two pieces included:
    the end of a piece that may still start one (`#`, `##`, or a line so far only spaces and a
    colon) waits for the next."""
    held, line_start = "", True
    for chunk in chunks:
        text = held + chunk
        last = text.rfind("\n")
        if (last >= 0 or line_start) and _UNDECIDED.fullmatch(text, last + 1) is not None:
            cut = last + 1
        else:
            cut = len(text) - (2 if text.endswith("##") else 1 if text.endswith("#") else 0)
        if cut:
            yield escape.workflow_inert(text[:cut], line_start)
            line_start = text[cut - 1] == "\n"
        held = text[cut:]
    if held:
        yield escape.workflow_inert(held, line_start)


_UNDECIDED = lazy(r"[^\S\n]*:?")
"""A line's start that may still become a workflow command's (`::`)."""


def say(line: str) -> None:
    """Write `line` and a newline to stderr, flushed. A stderr that cannot take it (a full
    device, a closed descriptor) loses the line and changes nothing else: the exit code still
    carries the verdict (it was exit 1, a traceback nobody could read), and the descriptor goes
    to /dev/null so that later lines and the exit's flush cannot fail again. Under GitHub
    Actions the line passes `escape.workflow_inert`: only `say_command` writes a command."""
    say_command(escape.workflow_inert(line) if under_actions() else line)


def say_command(line: str) -> None:
    """`say` for a workflow command k3diff itself gives the runner (`k3diff.report.github`)."""
    stream = sys.stderr
    if stream is None:  # started with its descriptor closed
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):
        _drop_stream(stream)


class StdoutClosed(Exception):
    """stdout's reader went away (`| head`): the run ends with exit 2 and says nothing more.
    Not an OSError, so that click does not turn it into its own `sys.exit(1)`."""


def _write_stdout(chunks: Iterable[Piece]) -> None:
    """Write `chunks` to stdout; a stdout that cannot take them (a closed pipe, a full device,
    a closed descriptor) is `StdoutClosed` or an `OutputError`, never the report's verdict."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("stdout: closed; cannot write report (use --output FILE)")
    try:
        _write_pieces(stream, chunks)
        stream.flush()
    except OSError as exc:
        _drop_stream(stream)
        if isinstance(exc, BrokenPipeError):
            raise StdoutClosed from None
        raise OutputError(f"stdout: cannot write report: {exc.strerror or exc}") from exc


def _drop_stream(stream: TextIO) -> None:
    """Point the stream's descriptor at /dev/null, so the interpreter's flush at exit of what it
    still buffers neither fails again (exit 120) nor prints an ignored exception."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)


def _write_file(chunks: Iterable[Piece], output: Path) -> None:
    """Write `chunks` to `output` atomically: a new file beside it replaces it. An existing
    character device (`-o /dev/null`, a terminal) is written to instead, never replaced (as
    root, replacing `/dev/null` with a regular file breaks every program that reads it); any
    other file that is not a regular file (a FIFO, a socket, a directory) is refused.

    The new file is fsynced before it replaces `output`, so that "the old report or the whole
    new one" holds across a crash or power loss too: without it, a file system that may commit
    the rename before the data (XFS; ext4 mounted without `auto_da_alloc`; a network file
    system) can leave `output` empty or cut short, where a release job that reads its report
    after a reboot expects the previous one or the complete new one (DESIGN.md: written
    atomically). Its cost was measured on `wheels` case e (a 6.9 MB JSON report, ext4 on a
    virtio disk, issue 41): 4-6 ms of wall and ≈ 0.1-0.4 ms of CPU per run on a quiet
    machine (12-15 ms at load 5), ≈ 1 % of that run's wall; kept."""
    try:
        mode = os.stat(output).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISCHR(mode):
        _write_device(chunks, output)
        return
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputError(f"{output}: not a regular file; refused (a report replaces its file)")
    directory = output.parent if str(output.parent) else Path(".")
    try:
        fd, tmp_name = _new_temporary(directory, f".{output.name}.", ".tmp")
    except OSError as exc:
        raise OutputError(f"{output}: cannot write report: {exc.strerror or exc}") from exc
    try:
        # the handle owns the descriptor before anything can fail: it closes it on every error
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            os.fchmod(handle.fileno(), _new_file_mode(output))
            _write_pieces(handle, chunks)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, output)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise OutputError(f"{output}: cannot write report: {exc.strerror or exc}") from exc
        raise


_TEMPORARY_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
"""`tempfile.mkstemp`'s flags: a new file only, never through a symbolic link."""
_TEMPORARY_ATTEMPTS = 100
"""Names tried before giving up (each a fresh 48-bit random one)."""


def _new_temporary(directory: Path, prefix: str, suffix: str) -> tuple[int, str]:
    """A new file in `directory` named `prefix` + random + `suffix`, mode 0600, opened for
    writing, and its absolute path: `tempfile.mkstemp` without importing `tempfile` (with the
    `shutil`, `bz2`, `lzma` and `random` it loads, ≈ 2 ms at the end of every report written
    to a file, issue 41). A name taken is tried again with another; any other error is raised."""
    for _ in range(_TEMPORARY_ATTEMPTS):
        name = os.path.abspath(os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{suffix}"))
        try:
            return os.open(name, _TEMPORARY_FLAGS, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(directory))


def _write_device(chunks: Iterable[Piece], output: Path) -> None:
    """Write `chunks` straight to the character device `output`."""
    try:
        with open(output, "w", encoding="utf-8", newline="\n") as handle:
            _write_pieces(handle, chunks)
    except OSError as exc:
        raise OutputError(f"{output}: cannot write report: {exc.strerror or exc}") from exc


def _new_file_mode(output: Path) -> int:
    """The mode of the file being replaced, or what the umask gives a new file."""
    try:
        return stat.S_IMODE(os.stat(output).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
