"""The huge pairs' raw-bytes comparisons, started as soon as both central directories are read.

On the CUDA shape a few libraries hold most of the bytes (libtorch_cuda.so: 560 MB compressed).
A comparison is started for each entry name both archives hold once, with the same declared
size, CRC-32, method and compressed size above `EARLY_BYTES`: exactly the pairs whose proof
(`proof.prove_reading`) would compare raw bytes. The proof then takes the answer, or the error
the reading met, instead of reading again; a comparison the final pairing does not ask for
(another entry paired by installed path) is never read.

The bytes are compared in a child process (`_CHILD`), which reads the same open files (their
descriptors passed down) while this one reads RECORD, builds the installed views, pairs the
entries and reads the local headers. In a thread of this process the comparison took the GIL
back after every read: on an idle machine the main thread and the comparison slowed each other
down (torch 2.5.0 against 2.5.1: 195 MB a side compared in 0.85 s instead of 0.1 s, and the run
slower than without the early start). Only the child's "equal" is taken: any other answer, or
no child, and the pair is compared here by `proof.raw_equal`, which reads the bytes itself and
says what is wrong with them in the words it always used.
"""

from __future__ import annotations

import operator
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import IO

from k3diff.errors import ArchiveError
from k3diff.wheels.proof import RAW_CHUNK, raw_equal
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

EARLY_BYTES = 32 << 20
"""Compressed size from which a pair's raw comparison starts early: a handful of entries in a
CUDA wheel, none in most wheels (whose largest entries take less time than their start-up).
Above `spans.SPAN_BYTES`, so a started pair is never one a span proves instead."""

_DECLARED = operator.attrgetter("size", "crc32", "method", "compressed_size")

_CHILD = """\
import os, sys
step = int(sys.argv[1])
for spec in sys.argv[2:]:
    fd_b, at_b, fd_p, at_p, size = map(int, spec.split(":"))
    done, equal = 0, True
    while equal and done < size:
        n = min(step, size - done)
        left = os.pread(fd_b, n, at_b + done)
        equal = len(left) == n and left == os.pread(fd_p, n, at_p + done)
        done += n
    os.write(1, b"1" if equal else b"0")
"""
"""The comparing process: for each pair (`base fd:offset:patch fd:offset:size`), in order, one
byte: 1 when every byte was read and equal, 0 otherwise. `python -I -S`: no site, no
environment, nothing imported beyond the interpreter's own start-up."""

RawAnswer = Callable[[], bool]
"""Whether the pair's raw bytes are equal, waiting for the comparison when it still runs."""


class EarlyRaw:
    """The comparisons started, by (base entry position, patch entry position)."""

    def __init__(self, started: dict[tuple[int, int], Future[bool]]) -> None:
        self._started = started

    def answer(self, base_entry: ZipEntry | None, patch_entry: ZipEntry | None) -> RawAnswer | None:
        """The started comparison of this exact pair, or None when there is none."""
        if base_entry is None or patch_entry is None:
            return None
        future = self._started.get((base_entry.position, patch_entry.position))
        return None if future is None else future.result


@contextmanager
def raw_compares(base: ZipArchive, patch: ZipArchive) -> Iterator[EarlyRaw]:
    """Start the huge pairs' comparisons (`_candidates`, largest first) in a child process,
    their answers taken in order on a thread of their own; on leaving, those not begun are
    cancelled, the child ended and the running answer waited for."""
    candidates = _candidates(base, patch)
    if not candidates:
        yield EarlyRaw({})
        return
    child = _spawn(base, patch, candidates)
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="k3diff-early")
    started: dict[tuple[int, int], Future[bool]] = {}
    try:
        for b, p in candidates:
            future = worker.submit(_answer, child, base, b, patch, p)
            started[(b.position, p.position)] = future
        yield EarlyRaw(started)
    finally:
        for future in started.values():
            future.cancel()
        if child is not None:
            _end(child)
        worker.shutdown(wait=True)


def _spawn(
    base: ZipArchive, patch: ZipArchive, candidates: list[tuple[ZipEntry, ZipEntry]]
) -> subprocess.Popen[bytes] | None:
    """The comparing process for `candidates`, or None when none can be started (no
    interpreter to run, as in a frozen application, or no process to spare): the pairs are
    then compared on the thread."""
    if not sys.executable or getattr(sys, "frozen", False):
        return None
    specs = [
        f"{base.fileno()}:{base.data_offset(b)}:{patch.fileno()}:{patch.data_offset(p)}:"
        f"{b.compressed_size}"
        for b, p in candidates
    ]
    argv = [sys.executable, "-I", "-S", "-c", _CHILD, str(RAW_CHUNK), *specs]
    try:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=(base.fileno(), patch.fileno()),
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _answer(
    child: subprocess.Popen[bytes] | None,
    base: ZipArchive,
    base_entry: ZipEntry,
    patch: ZipArchive,
    patch_entry: ZipEntry,
) -> bool:
    """The child's next answer when it is "equal"; otherwise `raw_equal` here."""
    if child is not None and _read_answer(child.stdout) == b"1":
        return True
    return raw_equal(base, base_entry, patch, patch_entry)


def _read_answer(stream: IO[bytes] | None) -> bytes:
    """One answer byte, or b"" when the child is gone."""
    if stream is None:
        return b""
    try:
        return stream.read(1)
    except (OSError, ValueError):
        return b""


def _end(child: subprocess.Popen[bytes]) -> None:
    """End the child (done already after a whole run) and release its pipe: a thread still
    waiting on an answer reads the end of it and compares the pair itself."""
    if child.poll() is None:
        child.kill()
    child.wait()
    if child.stdout is not None:
        child.stdout.close()


def _candidates(base: ZipArchive, patch: ZipArchive) -> list[tuple[ZipEntry, ZipEntry]]:
    """Pairs by name above `EARLY_BYTES` declared alike, largest first, whose data offsets read
    from their local headers (here, on the calling thread, before any other reads them); a pair
    whose header is unreadable or overlapping is left to its proof, which says what is wrong."""
    big_base = _big_by_name(base)
    pairs = [
        (b, p)
        for p in _big_by_name(patch).values()
        if (b := big_base.get(p.name)) is not None and _DECLARED(b) == _DECLARED(p)
    ]
    pairs.sort(key=lambda pair: -pair[0].compressed_size)
    readable = []
    for b, p in pairs:
        try:
            base.data_offset(b)
            patch.data_offset(p)
        except ArchiveError:
            continue
        readable.append((b, p))
    return readable


def _big_by_name(archive: ZipArchive) -> dict[str, ZipEntry]:
    """Entries above `EARLY_BYTES` whose name the archive holds once."""
    big = [entry for entry in archive.entries if entry.compressed_size > EARLY_BYTES]
    if not big:
        return {}
    counts = Counter(entry.name for entry in archive.entries)
    return {entry.name: entry for entry in big if counts[entry.name] == 1}
