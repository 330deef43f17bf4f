"""The kind screen of a patch wheel's many small entries, run in a child process.

An identical entry whose path gives no kind (a rebuilt torch wheel's ~9,700 `.h` headers) is
sniffed: `spans.span_natives` inflates its first content bytes and tests them for a native
magic prefix. Each sniff is a zlib inflate of a dynamic block's header (its Huffman tables
built for a few output bytes, ≈ 5 µs) around Python calls that hold the GIL, on the pool
phase's critical path. The child (`_CHILD`, `python -I -S`: no site, nothing imported but
`mmap`, `zlib`, `array` and `struct`) screens the same heads on the other core while this
process reads RECORD, pairs the entries and scans the local headers, so the screen is usually
in before the first span needs it. It is started only where spans will sniff many heads
(`worth_asking`).

The child is asked once, when both central directories are read: for every patch entry (by
position), its local header offset and compressed size. The thread that talks to it also starts
it, at `CHILD_NICE` from its first instruction where it can (Linux), so the comparing thread
neither waits for the fork and the exec nor shares a core with the child's start-up. It reads
the local header there, takes the data offset it gives, inflates `SCREEN_BYTES` content bytes
from `min(compressed size, SNIFF_INPUT)` compressed bytes with zlib, as `span_natives` does,
and answers per entry the data offset it used and a status: `CLEAR` when the inflate
succeeded and its bytes start with no magic prefix, `PREFIX` when they start with one,
`UNKNOWN` when it did not tell (no header there, bytes short, an inflate error, a Python file,
fewer content bytes than asked from a stream longer than `SNIFF_INPUT`: its content may start
further on).

Only a `CLEAR` is ever taken, and only for an entry `span_natives` would screen itself
(deflated, not encrypted, not empty, its data offset known by this process and inside the
span's bytes) whose data offset (`ZipArchive.known_data_offsets`) equals the child's: "these
compressed bytes, at this offset in the same open file, start no native format", the answer
`span_natives`' own screen would give from the very bytes its span read. Everything else
(`PREFIX`, `UNKNOWN`, another offset, an answer of the wrong length or with an unknown status,
a child that could not start, died, hung or is not done yet) leaves the entry to
`span_natives`, which sniffs it in this process. So the child can only save work: it never
makes an entry native, and an entry it calls not native is one the in-process screen calls not
native too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import repeat
from operator import and_, eq, itemgetter

from k3diff.native.sniff import MAGIC_PREFIXES, SCREEN_BYTES
from k3diff.wheels.children import end_child, start_python
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import DEFLATED, ZipEntry
from k3diff.zip.inflate import SNIFF_INPUT

CHILD_ENTRIES = 2048
"""Fewest patch entries for which a child is started: below, its start-up (≈ 20 ms of CPU, on
the other core) costs more than the sniffs it would take off this process."""
CHILD_NICE = 10
"""The child's niceness: it takes the CPU this process and `rawchild` leave, not theirs. On
Linux it has it from its first instruction (the thread that starts it is that much nicer):
started at nice 0, its interpreter's start-up took a core from the comparison beside
`rawchild`'s (speed64: case e −8 to −16 ms of wall on a quiet machine)."""
CLEAR, PREFIX, UNKNOWN = 0, 1, 2
"""The child's statuses: no magic prefix; a prefix (sniffed here); not answered."""

_CHILD = """\
import mmap, os, sys, zlib
from array import array
from struct import Struct

def screen(fd, count, most, wanted_bytes, prefixes):  # locals, not module globals: faster
    asked = array("q")
    asked.frombytes(sys.stdin.buffer.read(16 * count))
    if len(asked) != 2 * count:
        sys.exit(3)
    size = os.fstat(fd).st_size
    data = mmap.mmap(fd, size, access=mmap.ACCESS_READ) if size else b""
    view, unpack = memoryview(data), Struct("<4s22xHH").unpack_from
    offsets = array("q", [-1]) * count
    status = bytearray(b"\\2") * count
    inflater, error, python = zlib.decompressobj, zlib.error, (b".py", b".pyi")
    for number in range(count):
        header, compressed = asked[number], asked[count + number]
        if compressed < 1 or header < 0 or header + 30 > size:
            continue
        signature, name, extra = unpack(data, header)
        if signature != b"PK\\3\\4":
            continue
        at = header + 30 + name
        if data[header + 30 : at].lower().endswith(python):
            continue  # a Python file: its path gives its kind, it is never sniffed
        at += extra
        wanted = min(compressed, most)
        if at + wanted > size:
            continue
        try:
            head = inflater(-15).decompress(view[at : at + wanted], wanted_bytes)
        except error:
            continue
        if len(head) < wanted_bytes and compressed > most:
            continue  # its content may start further on: left to this process
        offsets[number] = at
        status[number] = 1 if head.startswith(prefixes) else 0
    sys.stdout.buffer.write(offsets.tobytes() + bytes(status))

try:
    os.nice(int(sys.argv[5]))
except OSError:
    pass
fd, count, most, wanted_bytes = map(int, sys.argv[1:5])
screen(fd, count, most, wanted_bytes, tuple(bytes.fromhex(prefix) for prefix in sys.argv[6:]))
"""
"""The screening process. stdin: every entry's local header offset (by position), then every
entry's compressed size, as native 64-bit integers; stdout: one data offset per entry (-1:
none), then one status byte per entry. Each entry is screened as a raw deflate stream of
`min(compressed size, SNIFF_INPUT)` bytes at the data offset its local header gives (whatever
its method: `span_natives` takes an answer only for its deflated entries), read through a
read-only mapping of the descriptor passed down: a file truncated under it raises SIGBUS, which
kills only the child. A `.py`/`.pyi` local name is not screened (its kind is its path's; a name
that disagrees with the directory's only leaves the entry to this process). At nice 10 the
child takes the CPU this process and `rawchild` leave, not theirs."""


class HeadScreen:
    """The child's answer, by patch entry position (whole and well-formed, or not at all).
    A plain slotted class, not a frozen dataclass: private scaffolding, never compared, and
    defining a frozen dataclass costs ≈ 1.2 ms of every run's start-up."""

    __slots__ = ("offsets", "statuses")

    def __init__(self, offsets: array[int], statuses: bytes) -> None:
        self.offsets = offsets
        """The data offset the child read each entry's stream from (-1: none)."""
        self.statuses = statuses
        """`CLEAR`, `PREFIX` or `UNKNOWN` per entry."""

    def cleared(self, positions: Sequence[int], data_offsets: Sequence[int]) -> list[bool]:
        """For each entry (position, data offset this process knows): True when the child
        read its stream at that same offset and found no magic prefix in its first
        `SCREEN_BYTES` content bytes. A position the answer does not cover is False."""
        if not positions or max(positions) >= len(self.statuses) or min(positions) < 0:
            return [False] * len(positions)
        return list(
            map(
                and_,
                map(eq, map(self.offsets.__getitem__, positions), data_offsets),
                map(eq, map(self.statuses.__getitem__, positions), repeat(CLEAR)),
            )
        )


class SniffChild:
    """The screening child for one patch wheel and a thread that starts it, hands it the
    question and reads its answer (`answer`: None until the child is done and answered well).
    `close` ends both; a child the thread has not started by then is never started."""

    def __init__(self, patch: ZipArchive) -> None:
        self._patch = patch
        self._count = len(patch.entries)
        self._answer: HeadScreen | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def start(self) -> None:
        """Start the thread that starts the child and talks to it (once)."""
        if self._reader is not None or self._closed:
            return
        self._reader = threading.Thread(
            target=self._talk,
            args=(self._patch.entries,),
            name="k3diff-sniff-child",
            daemon=True,
        )
        try:
            self._reader.start()
        except BaseException:  # no thread to spare: no child either
            self._reader = None
            raise

    def answer(self) -> HeadScreen | None:
        """The child's whole answer when it is in; None while it runs, or when it failed."""
        return self._answer

    def wait(self, timeout: float | None = None) -> HeadScreen | None:
        """`answer`, once the child is done or `timeout` seconds have passed (tests; a run
        never waits for the child)."""
        if self._reader is not None:
            self._reader.join(timeout)
        return self._answer

    def _talk(self, entries: Sequence[ZipEntry]) -> None:
        applied = _nice_this_thread(CHILD_NICE)
        with self._lock:  # `close` either comes first (no child) or finds this one
            if self._closed:
                return
            self._process = process = _spawn(self._patch, self._count, CHILD_NICE - applied)
        if process is None:
            return
        assert process.stdin is not None and process.stdout is not None
        try:  # the child reads the whole question before it answers: no deadlock
            with process.stdin:
                process.stdin.write(question(entries))
            out = process.stdout.read()
        except (OSError, ValueError):  # the child gone, or closed under us by `close`
            return
        if process.wait() == 0:
            self._answer = parse_answer(out, self._count)

    def close(self) -> None:
        """Kill the child if it still runs, reap it, and wait for the reader."""
        self._end_process()
        if self._reader is not None:
            self._reader.join()

    def _end_process(self) -> None:
        with self._lock:
            self._closed = True
        end_child(self._process)


def parse_answer(out: bytes, count: int) -> HeadScreen | None:
    """The screen in `out`, or None unless it holds exactly `count` offsets and `count`
    statuses, each one of `CLEAR`, `PREFIX`, `UNKNOWN`."""
    if len(out) != 9 * count:
        return None
    statuses = out[8 * count :]
    if statuses.translate(None, bytes((CLEAR, PREFIX, UNKNOWN))):
        return None
    offsets = array("q")
    offsets.frombytes(out[: 8 * count])
    return HeadScreen(offsets, statuses)


_DECLARED = itemgetter(0, 2, 4, 5, 6)
"""A `ZipEntry`'s name, method, CRC-32, compressed size and size: what a span pair declares
alike."""
_POSITION = itemgetter(1)
_COMPRESSED_SIZE = itemgetter(5)
_HEADER_OFFSET = itemgetter(7)
SAMPLE = 64
"""Entries at the same position in both wheels compared to decide whether to ask the child."""


def worth_asking(base: ZipArchive, patch: ZipArchive) -> bool:
    """Whether spans will likely sniff many of `patch`'s entries: at least `CHILD_ENTRIES`
    entries, numbered by position, and half of `SAMPLE` entries spread over the patch declared
    alike (name, method, sizes, CRC-32) and deflated at the same position in the base, as in a
    wheel rebuilt with its compressed bytes kept. A wheel whose every entry was recompressed
    (no span) or whose order changed is not: its sniffs run here as before. A guess that costs
    ≈ 0.1 ms, where comparing every entry by name would cost ≈ 10 ms of this thread."""
    entries, others = patch.entries, base.entries
    if len(entries) < CHILD_ENTRIES:
        return False
    if not all(map(eq, map(_POSITION, entries), range(len(entries)))):
        return False
    sample = range(0, min(len(entries), len(others)), max(1, len(entries) // SAMPLE))
    alike = sum(
        bool(_DECLARED(entries[number]) == _DECLARED(others[number]))
        and entries[number].method == DEFLATED
        for number in sample
    )
    return 2 * alike >= len(sample)


def question(entries: Sequence[ZipEntry]) -> bytes:
    """The child's stdin for `entries` (`_CHILD`)."""
    offsets = array("q", list(map(_HEADER_OFFSET, entries)))
    return offsets.tobytes() + array("q", list(map(_COMPRESSED_SIZE, entries))).tobytes()


def _nice_this_thread(increment: int) -> int:
    """Raise the calling thread's niceness by `increment` where each thread has its own (Linux:
    the process's other threads keep theirs), so that a child it starts runs that much nicer
    from its first instruction; returns the increment applied (0 elsewhere, or if refused)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + increment)
    except OSError:
        return 0
    return increment


def _spawn(patch: ZipArchive, count: int, nice: int = CHILD_NICE) -> subprocess.Popen[bytes] | None:
    """The child, or None when none can be started: no interpreter to run (a frozen
    application's executable is not one), no process or descriptor to spare. `nice`: what the
    child adds to the niceness it starts with (`CHILD_NICE` less what its thread applied)."""
    fd = patch.fileno()
    prefixes = [prefix.hex() for prefix in MAGIC_PREFIXES]
    arguments = [str(fd), str(count), str(SNIFF_INPUT), str(SCREEN_BYTES), str(nice)]
    return start_python(_CHILD, [*arguments, *prefixes], [fd], stdin=subprocess.PIPE)


@contextmanager
def screened_heads(
    base: ZipArchive, patch: ZipArchive, started: SniffChild | None = None
) -> Iterator[SniffChild | None]:
    """The screening child for `patch`'s entries when it is `worth_asking`, else None: the one
    `started` before the comparison's imports (`headstart`) where given; the child is ended on
    leaving."""
    if started is not None:
        child = started
    elif not worth_asking(base, patch):
        yield None
        return
    else:
        child = SniffChild(patch)
    try:
        child.start()
        yield child
    finally:
        child.close()
