"""The append-only sample log `DIR/samples.jsonl`, durable line by line, and reading it back.

Each sample is one line appended with a single write, then fsynced, before it counts. Samples
finishing together share one write and one fsync (group commit), so durability costs one fsync
per batch rather than per request. A run killed mid-write leaves at most a torn last line;
`--resume` drops it (and says so), checks that the header asks for the same run, and appends;
a larger `--repeats` grows the run (recorded in the resume marker), nothing else may differ.
Lines already written are never rewritten; a run that stops part-way appends its stop line
(`k3diff.sample.stopline`) after the samples it wrote. The line types, their encoding and the reader are
`k3diff.sample.header`'s, `k3diff.sample.lines`'s and `k3diff.sample.reader`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from k3diff.errors import OutputError, UsageError
from k3diff.sample.credentials import redacted_run
from k3diff.sample.header import header_line, json_line, resumed_line
from k3diff.sample.lines import SampleLine, encode_line
from k3diff.sample.oneserver import IDENTITY_FIELD
from k3diff.sample.reader import SamplesLog, read_samples_log
from k3diff.sample.resumeoptions import option_named
from k3diff.sample.stopline import StopLine, stop_line

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
    "finish_reasons",
)
"""Header fields a resumed run must share with the log (the rest: command, times, version)."""
ADDED_RUN_FIELDS = (
    "request_template",
    "proxy",
    "flush_header_names",
    "levels",
    "control",
    "control_repeats",
)
"""Header fields compared too where the log has them (logs written before them lack them).
The header's `keys` (the records asked) is not compared: the prompts file's `prompts_sha256`
decides them, and a resume keeps the log's header, so a log written before `keys` stays one
whose missing records triage says it cannot check."""


def read_log(path: Path) -> SamplesLog:
    """Read a sample log to resume it: a torn last line is left out and reported in `torn`."""
    return read_samples_log(path, drop_torn=True)


def differing_fields(logged: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """The compared header fields whose values differ between the log and this run."""
    names = COMPARED_RUN_FIELDS + tuple(name for name in ADDED_RUN_FIELDS if name in logged)
    # Redacted both (a log written before review71c holds the user:password it was given).
    was, now = redacted_run(logged), redacted_run(wanted)
    return [name for name in names if was.get(name) != now.get(name)]


def more_repeats(path: Path, logged: Mapping[str, Any], wanted: Mapping[str, Any]) -> int | None:
    """The repeats a resume grows the logged run to (None where it keeps them), or UsageError
    naming what differs and the command that takes the samples instead. Only `--repeats` may
    grow: the samples logged are the first repeats of the larger run, taken under every other
    option as now (a sweep numbers its repeats by level, so it cannot grow)."""
    logged, wanted = redacted_run(logged), redacted_run(wanted)  # as said, too
    differ = differing_fields(logged, wanted)
    elsewhere = (
        "to sample another run, give another --out, then pool both runs: give triage both "
        "samples.jsonl after the comparison, with --pool-runs"
    )
    if differ and differ != ["repeats"]:
        # Repeats that grow are no difference (newuser65: 'differs ... in params, repeats,
        # request_template' read as if --repeats were refused too); each other one is named
        # with both values, so the option that changed is found without reading the header.
        named = [name for name in differ if name != "repeats" or not _grows(logged, wanted)]
        raise UsageError(
            f"{path}: cannot resume: this run differs from the logged one in "
            f"{'; '.join(_both(name, logged, wanted) for name in named)}; resume with the "
            f"logged run's options (only --repeats may grow), or {elsewhere}"
        )
    if not differ:
        return None
    was, now = logged.get("repeats"), wanted.get("repeats")
    if not isinstance(was, int) or not isinstance(now, int):
        raise UsageError(f"{path}: cannot resume: the log records no repeats to grow; {elsewhere}")
    if now < was:
        raise UsageError(
            f"{path}: cannot resume: --repeats {now} is fewer than the logged run's {was}; "
            "--resume only takes more samples (a larger --repeats) or the missing ones"
        )
    levels = logged.get("levels")
    if isinstance(levels, list) and len(levels) > 1:
        raise UsageError(
            f"{path}: cannot resume with more repeats: a sweep numbers its repeats level by "
            f"level, so its --repeats {was} cannot grow; {elsewhere}"
        )
    return now


SHOWN = 80
"""Characters of each value a refused resume shows (JSON, ASCII: no control character)."""


def _grows(logged: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    was, now = logged.get("repeats"), wanted.get("repeats")
    return isinstance(was, int) and isinstance(now, int) and now > was


def _both(name: str, logged: Mapping[str, Any], wanted: Mapping[str, Any]) -> str:
    """'params.temperature (logged 0, now 0.5)': each value that differs, an object's
    down to the keys that differ ('absent' where one side lacks the key)."""
    return "; ".join(
        f"{option_named(where)} (logged {_shown(was)}, now {_shown(now)})"
        for where, was, now in _differences(
            name, logged.get(name, ABSENT), wanted.get(name, ABSENT)
        )
    )


ABSENT = object()
"""A key one side's object lacks."""


def _differences(where: str, was: Any, now: Any) -> list[tuple[str, Any, Any]]:
    if was is ABSENT and isinstance(now, Mapping):  # an object a side lacks: down to its keys
        was = {}
    elif now is ABSENT and isinstance(was, Mapping):
        now = {}
    if isinstance(was, Mapping) and isinstance(now, Mapping):
        keys = sorted({*was, *now}, key=str)
        return [
            found
            for key in keys
            if was.get(key, ABSENT) != now.get(key, ABSENT)
            for found in _differences(f"{where}.{key}", was.get(key, ABSENT), now.get(key, ABSENT))
        ]
    return [(where, was, now)]


def _shown(value: Any) -> str:
    if value is ABSENT:
        return "absent"
    text = json.dumps(value, sort_keys=True, default=str)  # ASCII: no control character
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


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
        self.failed = False
        """A write of this log failed (a full disk): a stop writes no line after it."""
        self.samples = 0
        """Sample lines the log holds on disk: a resumed log's, then each one written since
        (what a stopped run says it kept, `k3diff.sample.stop`)."""
        self._pending: list[bytes] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    def create(cls, out: Path, run: dict[str, Any]) -> SampleLog:
        """Start a new log in `out` with its header (refused when one is there already).

        The header is written and fsynced under a temporary name, and the log appears under
        its own name (a hard link, which never replaces a file) only once it holds it: a full
        disk or a kill leaves no empty `samples.jsonl` behind that would block both a new run
        and `--resume`. An empty one left by an older k3diff holds nothing and is replaced."""
        path = out / LOG_NAME
        staging = out / f".{LOG_NAME}.{os.getpid()}.new"
        try:
            out.mkdir(parents=True, exist_ok=True)
            fd = os.open(staging, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        except OSError as exc:
            raise OutputError(f"{path}: cannot create: {exc.strerror or exc}") from exc
        try:
            _write_all(fd, header_line(run), path)
            _publish(staging, path)
        except BaseException:
            os.close(fd)
            raise
        finally:
            with contextlib.suppress(OSError):
                os.unlink(staging)
        return cls(path, fd)

    @classmethod
    def resume(
        cls,
        out: Path,
        run: dict[str, Any],
        resumed: str,
        check: Callable[[SamplesLog], None] | None = None,
    ) -> tuple[SampleLog, SamplesLog]:
        """Reopen the log in `out` for appending after checking it asks for the same run, and
        with `check` that its lines are of the requests this run sends (`k3diff.sample.resumed`)."""
        path = out / LOG_NAME
        contents = read_log(path)
        grown = more_repeats(path, contents.header.fields, run)
        if check is not None:
            check(contents)
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
        log._write(resumed_line(resumed, grown, run.get("command"), run.get(IDENTITY_FIELD)))
        log.samples = len(contents.samples)
        return log, contents

    async def append(self, sample: SampleLine) -> None:
        """Append one sample line; returns once it is written and fsynced."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._pending.append(encode_line(sample))
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
                self.samples += len(waiters)
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)
        finally:
            self._flusher = None

    def _write(self, data: bytes) -> None:
        try:
            _write_all(self._fd, data, self.path)
        except OutputError:
            self.failed = True
            raise

    def record_stop(self, stop: StopLine) -> bool:
        """Append the stop line of a run that stopped part-way, unless a write of this log
        failed (a full disk: nothing more is attempted); False where it was not written."""
        if self.failed or self._fd < 0:
            return False
        try:
            self._write(stop_line(stop))
        except OutputError:
            return False
        return True

    def close(self) -> None:
        """Close the log (once: a second close does nothing)."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)

    async def settle(self) -> None:
        """Return once the lines handed to `append` are written (a run stopped early keeps the
        answers it took, and its stop line comes after them)."""
        if self._flusher is not None:
            await asyncio.wait({self._flusher})

    async def aclose(self) -> None:
        """Close once the lines handed to `append` are written (no write meets a closed
        descriptor)."""
        try:
            await self.settle()
        finally:
            self.close()


def _write_all(fd: int, data: bytes, path: Path) -> None:
    """Write all of `data` at the end of `fd` and fsync it; OutputError naming `path`."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except OSError as exc:
        raise OutputError(f"{path}: cannot append: {exc.strerror or exc}") from exc


def _publish(staging: Path, path: Path) -> None:
    """Give the staged log its name; UsageError when a non-empty log is there already."""
    try:
        os.link(staging, path)
        return
    except FileExistsError:
        pass
    except OSError as exc:
        raise OutputError(f"{path}: cannot create: {exc.strerror or exc}") from exc
    try:
        empty = os.stat(path).st_size == 0
    except OSError:
        empty = False
    if not empty:
        raise UsageError(
            f"{path}: already holds the log of a run; pass --resume to continue that run, or "
            "give another --out"
        )
    try:
        os.replace(staging, path)
    except OSError as exc:
        raise OutputError(f"{path}: cannot create: {exc.strerror or exc}") from exc


class PerfLog:
    """`DIR/perf_metrics.jsonl`: what TensorRT-LLM's `/perf_metrics` returned after each batch."""

    NAME = "perf_metrics.jsonl"

    def __init__(self, out: Path) -> None:
        self.path = out / self.NAME
        self.count = 0

    @classmethod
    def refuse_stale(cls, out: Path) -> None:
        """UsageError when the folder of a new run (no samples log, or an empty one) already
        holds drained `/perf_metrics`: an earlier run's, whose samples.jsonl was removed. This
        run would append to it and `telemetry` read it as this run's, before the run's own
        speculation source (review65)."""
        perf = out / cls.NAME
        try:
            stale = perf.stat().st_size > 0 and _size(out / LOG_NAME) == 0
        except OSError:
            return  # none there (or unreadable: appending to it says so)
        if stale:
            raise UsageError(
                f"{perf}: holds /perf_metrics drained by an earlier run, which `k3diff "
                "telemetry` would count as this run's; remove it or give another --out"
            )

    def append(self, entry: dict[str, Any]) -> None:
        """Append (flushed and fsynced) one drain's line (`k3diff.sample.perfdrain`); `count`
        counts the documents that held records."""
        try:
            with self.path.open("ab") as handle:
                handle.write(json_line(entry))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot append: {exc.strerror or exc}") from exc
        self.count += 1 if entry.get("metrics") else 0


def _size(path: Path) -> int:
    """The file's size, 0 when there is none."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
