"""Reading one side's logs line by line, in bounded memory, and matching the rules.

Files are streamed (a `.gz` log, recognised by its magic, through gzip); a line longer than
`LINE_CAP` is scanned up to the cap and the rest skipped. A Python traceback is one finding: the
scanner reads from `Traceback (most recent call last):` to the exception line, which becomes the
finding's message. Distinct messages are kept up to a cap per side; lines past it are counted per
rule, never dropped silently.
"""

from __future__ import annotations

import gzip
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from k3diff.errors import InputError
from k3diff.logs.model import FileScan, Location, LogFinding, SideScan
from k3diff.logs.normalize import normalize, strip_log_prefix, strip_worker_prefix
from k3diff.logs.rules import MULTILINE_RULES, STARTUP, STARTUP_KINDS, TRACEBACK_START, Rule

LINE_CAP = 64 * 1024
"""Bytes of one line that are scanned; the rest of a longer line is skipped (and counted)."""

TEXT_CAP = 300
"""Characters of a line kept as an example."""

EXAMPLES = 3
"""Places kept per finding."""

DISTINCT_CAP = 10_000
"""Distinct (rule, message) pairs kept per side."""

TRACEBACK_LINES = 400
"""Lines a traceback may span before the scanner gives up looking for its exception line."""

_GZIP_MAGIC = b"\x1f\x8b"

Progress = Callable[[int], None]
"""Called with the bytes read so far (of the compressed file for a `.gz` log)."""


@dataclass
class _Bucket:
    rule: Rule
    message: str
    count: int = 0
    examples: list[Location] = field(default_factory=list)


@dataclass
class _Collector:
    """Findings of one side as they are seen."""

    buckets: dict[tuple[str, str], _Bucket] = field(default_factory=dict)
    overflow: dict[str, int] = field(default_factory=dict)

    def add(self, rule: Rule, message: str, where: Location) -> None:
        key = (rule.name, normalize(message))
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= DISTINCT_CAP:
                self.overflow[rule.name] = self.overflow.get(rule.name, 0) + 1
                return
            bucket = self.buckets[key] = _Bucket(rule, key[1])
        bucket.count += 1
        if len(bucket.examples) < EXAMPLES:
            bucket.examples.append(where)

    def findings(self) -> tuple[LogFinding, ...]:
        ordered = sorted(self.buckets.values(), key=lambda b: (-b.count, b.rule.name, b.message))
        return tuple(
            LogFinding(b.rule.name, b.rule.severity, b.message, b.count, tuple(b.examples))
            for b in ordered
        )


def log_files(path: Path) -> tuple[list[tuple[Path, str]], list[str]]:
    """The regular files to read for `path` (a file, or every regular file under a directory,
    sorted), each with the name reports use; and the directory entries skipped as not regular.
    InputError for a path that is missing, not a regular file or directory, or a directory
    holding no file."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISREG(info.st_mode):
        return [(path, str(path))], []
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: not a regular file or directory (a FIFO or device is refused)")
    files: list[tuple[Path, str]] = []
    skipped: list[str] = []
    for root, dirs, names in os.walk(path, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            full = Path(root, name)
            shown = str(path / full.relative_to(path))
            if stat.S_ISREG(os.lstat(full).st_mode):
                files.append((full, shown))
            else:
                skipped.append(shown)
    if not files:
        raise InputError(f"{path}: the directory holds no log file")
    return files, skipped


def _lines(stream: BinaryIO) -> Iterator[tuple[str, bool]]:
    """Each line (decoded, without its end) and whether it was longer than LINE_CAP."""
    while True:
        chunk = stream.readline(LINE_CAP)
        if not chunk:
            return
        long = False
        if not chunk.endswith(b"\n") and len(chunk) == LINE_CAP:
            long = True
            while True:  # skip the rest of the long line
                rest = stream.readline(LINE_CAP)
                if not rest or rest.endswith(b"\n"):
                    break
        yield chunk.decode("utf-8", errors="replace").rstrip("\r\n"), long


def _first_rule(rules: tuple[Rule, ...], line: str) -> Rule | None:
    for rule in rules:
        if rule.pattern.search(line):
            return rule
    return None


@dataclass
class _Traceback:
    start: int
    first: str
    lines: int = 0


def scan_file(
    path: Path,
    shown: str,
    rules: tuple[Rule, ...],
    collector: _Collector,
    progress: Progress,
    done_before: int,
) -> FileScan:
    """Read one file, adding what it holds to `collector`."""
    line_rules = tuple(r for r in rules if r.name not in MULTILINE_RULES)
    traceback_rule = next((r for r in rules if r.name == "traceback"), None)
    restart_rule = next((r for r in rules if r.name == "restart"), None)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed below, gzip may wrap it
    except OSError as exc:
        raise InputError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    with raw:
        size = os.fstat(raw.fileno()).st_size
        compressed = raw.read(2) == _GZIP_MAGIC
        raw.seek(0)
        stream: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb") if compressed else raw  # type: ignore[assignment]
        number = long_lines = 0
        starts = dict.fromkeys(STARTUP_KINDS, 0)
        pending: _Traceback | None = None
        try:
            for number, (text, long) in enumerate(_lines(stream), start=1):
                long_lines += long
                line = strip_worker_prefix(text)
                body = strip_log_prefix(line)
                if number % 4096 == 0:
                    progress(done_before + raw.tell())
                if pending is not None:
                    if body[:1].isspace():
                        pending.lines += 1
                        if pending.lines < TRACEBACK_LINES:
                            continue
                    assert traceback_rule is not None
                    exception = body if pending.lines < TRACEBACK_LINES else pending.first
                    collector.add(
                        traceback_rule,
                        exception,
                        Location(shown, pending.start, exception[:TEXT_CAP]),
                    )
                    pending = None
                if traceback_rule is not None and TRACEBACK_START.match(body):
                    pending = _Traceback(number, body)
                    continue
                announced = STARTUP.search(line)
                if announced is not None:
                    starts[announced.group(0)] += 1
                rule = _first_rule(line_rules, line)
                if rule is not None:
                    collector.add(rule, body, Location(shown, number, line[:TEXT_CAP]))
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(f"{shown}: cannot read line {number + 1}: {exc}") from None
        if pending is not None and traceback_rule is not None:
            collector.add(
                traceback_rule,
                "traceback cut off at the end of the file",
                Location(shown, pending.start, pending.first[:TEXT_CAP]),
            )
        started = max(starts.values())
        if started > 1 and restart_rule is not None:
            collector.add(
                restart_rule,
                f"server started {started} times in one file",
                Location(shown, 0, f"server started {started} times"),
            )
    progress(done_before + size)
    return FileScan(shown, number, size, compressed, started, long_lines)


def scan_side(paths: tuple[Path, ...], rules: tuple[Rule, ...], progress: Progress) -> SideScan:
    """Read every log of one side."""
    listed = [log_files(p) for p in paths]
    files = [f for found, _ in listed for f in found]
    skipped = tuple(s for _, skips in listed for s in skips)
    collector = _Collector()
    scans: list[FileScan] = []
    done = 0
    for path, shown in files:
        scan = scan_file(path, shown, rules, collector, progress, done)
        done += scan.size
        scans.append(scan)
    return SideScan(
        paths=tuple(str(p) for p in paths),
        files=tuple(scans),
        skipped=skipped,
        findings=collector.findings(),
        overflow=sum(collector.overflow.values()),
        overflow_by_rule=tuple(sorted(collector.overflow.items())),
    )


def total_size(paths: tuple[Path, ...]) -> int:
    """Bytes the scan of `paths` will read (for byte-weighted progress)."""
    return sum(os.stat(f).st_size for p in paths for f, _ in log_files(p)[0])
