"""Reading one side's logs line by line, in bounded memory, and matching the rules.

Files are streamed (a `.gz` log, recognised by its magic, through gzip); a line longer than
`LINE_CAP` is scanned up to the cap, and its rest searched only for an error rule's match, which
makes the file one not read whole (an entry skipped: it fails the verdict). A Python traceback is one finding, read
to its exception line (`k3diff.logs.matcher`). Distinct messages are kept up to a cap per side;
lines past it are counted per rule, never dropped silently.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

from k3diff import bounded
from k3diff.errors import InputError
from k3diff.logs.caps import ScanBudget
from k3diff.logs.files import (
    BLOCK,
    CUT,
    GZIP_MAGIC,
    LAST,
    LINE_CAP,
    TAIL,
    Inflating,
    Listing,
    Readable,
    blocks,
    in_stream_order,
    log_files,
    stream_of,
)
from k3diff.logs.matcher import TEXT_CAP, Collector, FileMatcher
from k3diff.logs.model import WHOLE_LOG, FileScan, Location, Severity, SideScan, Skipped
from k3diff.logs.normalize import strip_terminal_codes
from k3diff.logs.rules import PREFILTER, Rule
from k3diff.logs.tail import TailSearch

Progress = Callable[[int], None]
"""Called with the bytes read so far (of the compressed file for a `.gz` log)."""


def _candidates(low: bytes, keywords: tuple[bytes, ...]) -> list[int]:
    """Start offsets of the lines of `low` (a lower-cased block) holding any keyword."""
    starts: set[int] = set()
    for keyword in keywords:
        found = low.find(keyword)
        while found >= 0:
            starts.add(low.rfind(b"\n", 0, found) + 1)
            end = low.find(b"\n", found)
            if end < 0:
                break
            found = low.find(keyword, end)
    return sorted(starts)


@dataclass
class _Restarts:
    """Start announcements counted per log stream: a server's rotated pieces (`server.log.2`,
    `server.log.1`, `server.log`) are one stream, so one start in each is a restart."""

    rule: Rule | None
    streams: dict[str, tuple[list[str], dict[str, int]]] = field(default_factory=dict)

    def add(self, path: Path, shown: str, starts: dict[str, int]) -> None:
        names, counts = self.streams.setdefault(stream_of(path)[0], ([], {}))
        names.append(shown)
        for kind, count in starts.items():
            counts[kind] = counts.get(kind, 0) + count

    def report(self, collector: Collector) -> None:
        """A restart finding for every stream whose server announced its start more than once
        (in one file, or across rotated pieces, which its place names oldest first)."""
        for names, counts in self.streams.values():
            started = max(counts.values(), default=0)
            if started < 2 or self.rule is None:
                continue
            # One message however the log was cut, so that it matches the other side's; the
            # place names the rotated pieces, oldest first.
            message = text = f"server started {started} times in one log"
            if len(names) > 1:
                text = f"{message}: {', '.join(names)} (rotated)"[:TEXT_CAP]
            collector.add(self.rule, message, Location(names[-1], WHOLE_LOG, text))


def _scan_block(block: bytes, first: int, matcher: FileMatcher, every_line: bool) -> None:
    """Feed the lines of `block` (its first line numbered `first`) that need a look."""
    # A line holding a terminal's escape sequence is looked at too: one inside a keyword
    # (`ERR ESC[0m OR`) would hide it from the search.
    keywords = (*PREFILTER, b"\x1b") if b"\x1b" in block else PREFILTER
    candidates = [] if every_line else _candidates(block.lower(), keywords)
    size = len(block)
    pos = counted = index = 0
    number = first
    while pos < size:
        if every_line or matcher.pending is not None:
            start = pos
        else:
            while index < len(candidates) and candidates[index] < pos:
                index += 1
            if index == len(candidates):
                return
            start = candidates[index]
            index += 1
        number += block.count(b"\n", counted, start)
        counted = start
        end = block.find(b"\n", start)
        if end < 0:
            end = size
        text = strip_terminal_codes(block[start:end].decode("utf-8", errors="replace").rstrip("\r"))
        # A carriage return starts the line over, as a terminal shows it (tqdm's redraws, a log
        # with CR-only line ends): each part is a line to the rules, at the line's number.
        for part in text.split("\r") if "\r" in text else (text,):
            if part or "\r" not in text:
                matcher.line(number, part)
        pos = end + 1


def scan_file(
    path: Path,
    shown: str,
    rules: tuple[Rule, ...],
    collector: Collector,
    progress: Progress,
    done_before: int,
    budget: ScanBudget,
    restarts: _Restarts | None = None,
    hashed: bool = False,
) -> FileScan:
    """Read one file, adding what it holds to `collector` (its start announcements to
    `restarts`), within `budget`; `hashed`: with the SHA-256 of the bytes read."""
    # A rule of the user's has no keywords the prefilter knows: every line is looked at.
    every_line = any(not r.builtin for r in rules)
    matcher = FileMatcher(shown, rules, collector)
    # Opened without blocking and checked on the descriptor: a FIFO swapped in after the
    # directory walk is refused, never waited on.
    raw = bounded.open_input(path, shown, "log file")
    with raw:
        size = os.fstat(raw.fileno()).st_size
        compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        hashing = _Hashing(raw) if hashed else None
        # Read as a file is (gzip reads it through `read` and `tell` only).
        source = raw if hashing is None else cast(BinaryIO, hashing)
        stream: Readable = Inflating(source, shown, budget) if compressed else source
        lines = long_lines = 0
        errors = tuple(r for r in rules if r.severity is Severity.ERROR)
        tails = TailSearch(errors, every_line, shown)
        unread: dict[int, str] = {}
        try:
            for block, part in blocks(stream):
                budget.check_time(shown, lines)
                if part in (TAIL, LAST):
                    hit = None if lines in unread else tails.match(block, part == LAST)
                    if hit is not None:
                        unread[lines] = hit
                    continue
                if lines == 0 and b"\0" in block[:BINARY_SNIFF]:
                    raise BinaryLogError(
                        f"{shown}: binary content (NUL bytes in its first "
                        f"{BINARY_SNIFF // 1024} KiB), not a text log"
                    )
                if part == CUT:
                    long_lines += 1
                    tails.head(block)
                _scan_block(block, lines + 1, matcher, every_line)
                lines += block.count(b"\n") + (not block.endswith(b"\n"))
                progress(done_before + raw.tell())
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(f"{shown}: cannot read after line {lines}: {exc}") from None
        if hashing is not None:
            hashing.rest()
    starts = matcher.finish()
    if restarts is not None:
        restarts.add(path, shown, starts)
    progress(done_before + size)
    if hashing is not None:
        digest: str | None = hashing.hash.hexdigest()
        size = hashing.size
    else:
        digest = None
    return FileScan(
        shown, lines, size, compressed, max(starts.values()), long_lines, digest,
        unread=tuple(unread.items()),
    )  # fmt: skip


class _Hashing:
    """The file's bytes as they are read, hashed (the SHA-256 a side's document records: the
    file scanned, not one read again beside the scan)."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.hash = hashlib.sha256()
        self.size = 0

    def read(self, size: int = -1, /) -> bytes:
        data = self.raw.read(size)
        self.hash.update(data)
        self.size += len(data)
        return data

    def tell(self) -> int:
        return self.raw.tell()

    def rest(self) -> None:
        """Hash what the reader left unread (a `.gz` log's bytes past its last member)."""
        while self.read(BLOCK):
            pass


class BinaryLogError(InputError):
    """A file whose first block holds NUL bytes: a wheel, a core dump, a model file."""


BINARY_SNIFF = 64 * 1024
"""Bytes of a log's start looked at for NUL bytes (after gzip decompression)."""


def list_side(paths: tuple[Path, ...]) -> list[Listing]:
    """Each given path's logs (`log_files`): walked once a run, for the progress total and the
    scan alike."""
    return [log_files(p) for p in paths]


def scan_side(
    paths: tuple[Path, ...],
    listed: list[Listing],
    rules: tuple[Rule, ...],
    progress: Progress,
    budget: ScanBudget,
) -> SideScan:
    """Read every log of one side (`paths`, as `list_side` listed them) within `budget`. A
    binary file given by name is an error; one found in a given directory is skipped and
    listed (why: "binary"), as is a link to it."""
    files = in_stream_order([f for found in listed for f in found.files])
    skipped = [s for found in listed for s in found.skipped]
    given = {str(p) for p in paths}
    names = {
        shown: shown if shown == str(p) else full.relative_to(p).as_posix()
        for p, found in zip(paths, listed, strict=True)
        for full, shown in found.files
    }
    collector = Collector()
    restarts = _Restarts(next((r for r in rules if r.name == "restart"), None))
    scans: list[FileScan] = []
    binary: set[Path] = set()
    done = 0
    for path, shown in files:
        try:
            scan = scan_file(path, shown, rules, collector, progress, done, budget, restarts, True)
        except BinaryLogError:
            if shown in given:
                raise
            skipped.append(Skipped(shown, "binary"))
            binary.add(path)
            done += os.stat(path).st_size
            continue
        done += scan.size
        scans.append(dataclasses.replace(scan, name=names[shown]))
        skipped += [
            Skipped(
                shown,
                f"line {line} is longer than the {LINE_CAP >> 20} MiB scanned, and its rest "
                f"matches {rule}: not read as a finding",
            )
            for line, rule in scan.unread
        ]
    restarts.report(collector)
    links = []
    for p, found in zip(paths, listed, strict=True):
        for link in found.links:
            if p / link.target in binary:  # its target was not read after all
                skipped.append(Skipped(str(p / link.name), f"a link to {link.target}: binary"))
            else:
                links.append(link)
    return SideScan(
        paths=tuple(str(p) for p in paths),
        files=tuple(scans),
        skipped=tuple(skipped),
        findings=collector.findings(),
        overflow=sum(collector.overflow.values()),
        overflow_by_rule=tuple(sorted(collector.overflow.items())),
        links=tuple(links),
        downgraded=tuple((r, o, n) for (r, o), n in sorted(collector.downgraded.items())),
    )


def total_size(listed: list[Listing]) -> int:
    """Bytes the scan of a side's listed logs will read (for byte-weighted progress)."""
    return sum(os.stat(f).st_size for found in listed for f, _ in found.files)
