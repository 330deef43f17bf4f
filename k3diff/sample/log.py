"""The append-only sample log `DIR/samples.jsonl`, durable line by line, and reading it back.

Each sample is one line appended with a single write, then fsynced, before it counts. Samples
finishing together share one write and one fsync (group commit), so durability costs one fsync
per batch rather than per request. A run killed mid-write leaves at most a torn last line;
`--resume` drops it (and says so), checks that the header asks for the same run, and appends.
Lines already written are never rewritten.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff.errors import InputError, OutputError, UsageError
from k3diff.sample.model import LOG_SCHEMA

LOG_NAME = "samples.jsonl"
COMPARED_RUN_FIELDS = (
    "servers",
    "modes",
    "endpoint",
    "stream",
    "params",
    "side_params",
    "repeats",
    "concurrency",
    "prompts_sha256",
    "header_names",
    "cache_salt",
    "flush_url",
    "adaptive",
)
"""Header fields a resumed run must share with the log (the rest: command, times, version)."""

_ENCODER = json.JSONEncoder(separators=(",", ":"))


@dataclass(frozen=True)
class LogContents:
    """What a sample log holds."""

    header: dict[str, Any]
    """The first line's `run` object."""
    samples: list[dict[str, Any]]
    """Every sample line, in file order."""
    torn: bool
    """The file ended in a torn (unterminated) line, which was not read."""
    valid_bytes: int
    """Length of the file up to its last complete line."""


def read_log(path: Path) -> LogContents:
    """Read a sample log; a torn last line is left out and reported in `torn`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    end = data.rfind(b"\n") + 1
    lines = data[:end].splitlines()
    if not lines:
        raise InputError(f"{path}: no header line (not a k3diff sample log)")
    header = _parse(lines[0], path, 1)
    if header.get("schema") != LOG_SCHEMA or not isinstance(header.get("run"), dict):
        raise InputError(f"{path}:1: not a {LOG_SCHEMA} header")
    samples = []
    for lineno, line in enumerate(lines[1:], 2):
        obj = _parse(line, path, lineno)
        if "schema" not in obj:
            samples.append(obj)
    return LogContents(header["run"], samples, end != len(data), end)


def _parse(line: bytes, path: Path, lineno: int) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}:{lineno}: malformed sample line: {exc}") from exc
    if not isinstance(value, dict):
        raise InputError(f"{path}:{lineno}: a sample line is not a JSON object")
    return value


def differing_fields(logged: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """The compared header fields whose values differ between the log and this run."""
    return [name for name in COMPARED_RUN_FIELDS if logged.get(name) != wanted.get(name)]


class SampleLog:
    """An open sample log: `await append(sample)` returns once the line is on disk."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            raise UsageError(f"{path}: another k3diff sample is writing this log") from exc
        self._pending: list[bytes] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    def create(cls, out: Path, run: dict[str, Any]) -> SampleLog:
        """Start a new log in `out` with its header (refused when one is there already)."""
        path = out / LOG_NAME
        try:
            out.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError as exc:
            raise UsageError(
                f"{path}: already holds samples; pass --resume to continue that run"
            ) from exc
        except OSError as exc:
            raise OutputError(f"{path}: cannot create: {exc.strerror or exc}") from exc
        log = cls(path, fd)
        log.write_now({"schema": LOG_SCHEMA, "run": run})
        return log

    @classmethod
    def resume(cls, out: Path, run: dict[str, Any], resumed: str) -> tuple[SampleLog, LogContents]:
        """Reopen the log in `out` for appending after checking it asks for the same run."""
        path = out / LOG_NAME
        contents = read_log(path)
        differ = differing_fields(contents.header, run)
        if differ:
            raise UsageError(
                f"{path}: cannot resume: this run differs from the logged one in "
                f"{', '.join(differ)}; use another --out"
            )
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise OutputError(f"{path}: cannot append: {exc.strerror or exc}") from exc
        log = cls(path, fd)
        if contents.torn:
            try:
                os.ftruncate(fd, contents.valid_bytes)
            except OSError as exc:
                log.close()
                raise OutputError(f"{path}: cannot drop the torn line: {exc}") from exc
        log.write_now({"schema": LOG_SCHEMA, "resumed": resumed})
        return log, contents

    def write_now(self, obj: dict[str, Any]) -> None:
        """Append one line synchronously (headers)."""
        self._write(_ENCODER.encode(obj).encode() + b"\n")

    async def append(self, sample: dict[str, Any]) -> None:
        """Append one sample line; returns once it is written and fsynced."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._pending.append(_ENCODER.encode(sample).encode() + b"\n")
        self._waiters.append(waiter)
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush_pending())
        await waiter

    async def _flush_pending(self) -> None:
        try:
            while self._pending:
                data, waiters = b"".join(self._pending), self._waiters
                self._pending, self._waiters = [], []
                try:
                    await asyncio.to_thread(self._write, data)
                except OutputError as exc:
                    for waiter in waiters:
                        if not waiter.done():
                            waiter.set_exception(exc)
                    continue
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)
        finally:
            self._flusher = None

    def _write(self, data: bytes) -> None:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot append: {exc.strerror or exc}") from exc

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


class PerfLog:
    """`DIR/perf_metrics.jsonl`: what TensorRT-LLM's `/perf_metrics` returned after each batch."""

    NAME = "perf_metrics.jsonl"

    def __init__(self, out: Path) -> None:
        self.path = out / self.NAME
        self.count = 0

    def append(self, entry: dict[str, Any]) -> None:
        """Append (flushed and fsynced) one drained document."""
        try:
            with self.path.open("ab") as handle:
                handle.write(_ENCODER.encode(entry).encode() + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot append: {exc.strerror or exc}") from exc
        self.count += 1
