"""Byte regions the two wheels hold alike, compared in a child process from the central
directories alone, before the pool needs them.

A patch rebuilt from its base keeps most local records (header, compressed data, descriptor)
byte for byte and in the same order. The pool proves such records a span at a time
(`spans`): both stretches read and compared, ≈ 60 MB a side on torch's CPU wheel, once the
pairs and the local headers are known, on worker threads whose every read hands the GIL back to
the comparing thread and waits to take it again. Yet which stretches are worth comparing is
plain from the central directories: records, by header offset, whose declared method, times,
CRC-32, sizes and record length (to the next record's header offset) agree on both sides. The
child (`_CHILD`, `python -I -S`: nothing imported but `ctypes`, `array` and `operator`) is
handed both directories' fixed parts (`CentralDirectory.fixed`) as the comparison starts
(`early.raw_compares`), walks both in header-offset order, reads each run of such records into
two buffers (`RUN_BYTES`) from the same open files and compares them with the C library's
`memcmp`, a record at a time where a run differs, and answers the runs it found equal:
`(base offset, patch offset, length)`.

An answer is a statement about bytes, nothing more: "these `length` bytes of the base from
this offset equal the patch's from that one". It says nothing of what the headers in them
declare, and it is taken only where the pool would compare exactly such bytes (`covers`,
`regionproofs`): a span's two stretches (`spans.plan_spans` pairs the entries and the layout
checks judge the headers, as without it), or a pair's compressed bytes at the data offsets this
process read. So it can only save reads: a region the child did not find equal, an answer that
is not whole and well-formed, a child that could not start, died, or is not done when asked,
leaves the bytes to the pool, which reads them as before. Nothing waits for the child.
"""

from __future__ import annotations

import subprocess
import threading
from array import array
from bisect import bisect_right

from k3diff.wheels.children import end_child, start_python
from k3diff.wheels.sniffchild import CHILD_NICE, nice_this_thread
from k3diff.zip.archive import ZipArchive

RUN_BYTES = 2 << 20
"""Most bytes of a run compared at once before its records are compared one by one: a run
that differs (a wheel built again, its headers' times changed) costs at most this much twice."""

_CHILD = """\
import ctypes, os, sys
from array import array
from operator import sub

def column(fixed, at, count):  # a 4-byte little-endian field of every 42-byte record
    packed = bytearray(4 * count)
    for byte in range(4):
        packed[byte::4] = fixed[at + byte :: 42]
    return memoryview(packed).cast("I").tolist()

def records(fixed, count, shift, end):  # (offsets, lengths, keys) in header-offset order
    offsets = column(fixed, 38, count)
    if shift:
        offsets = [offset + shift for offset in offsets]
    order = sorted(range(count), key=offsets.__getitem__)
    starts = list(map(offsets.__getitem__, order))
    lengths = list(map(sub, starts[1:] + [end], starts))
    firsts = range(6, 42 * count, 42)  # method, time, date, CRC-32, sizes
    declared = list(map(fixed.__getitem__, map(slice, firsts, range(24, 42 * count + 1, 42))))
    return starts, lengths, list(zip(map(declared.__getitem__, order), lengths))

def regions(fixed, counts, shifts, ends, fds, largest, run_bytes):
    starts_b, lengths_b, keys_b = records(fixed[: 42 * counts[0]], counts[0], shifts[0], ends[0])
    starts_p, _, keys_p = records(fixed[42 * counts[0] :], counts[1], shifts[1], ends[1])
    last = dict(zip(keys_p, range(len(keys_p))))
    first = dict(zip(reversed(keys_p), reversed(range(len(keys_p)))))
    size_b, size_p = os.fstat(fds[0]).st_size, os.fstat(fds[1]).st_size
    libc = ctypes.CDLL(None)
    memcmp = libc.memcmp
    memcmp.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
    memcmp.restype = ctypes.c_int
    window = run_bytes
    buffer_b, buffer_p = bytearray(window), bytearray(window)
    views = memoryview(buffer_b), memoryview(buffer_p)
    at_b = ctypes.addressof((ctypes.c_char * window).from_buffer(buffer_b))
    at_p = ctypes.addressof((ctypes.c_char * window).from_buffer(buffer_p))
    found = array("q")

    def keep(start_b, start_p, length):
        if found and found[-3] + found[-1] == start_b and found[-2] + found[-1] == start_p:
            found[-1] += length
        else:
            found.extend((start_b, start_p, length))

    def equal(start_b, start_p, length):  # read a window at a time into the buffers
        done = 0
        while done < length:
            size = min(window, length - done)
            if os.preadv(fds[0], [views[0][:size]], start_b + done) != size:
                return None  # the file is shorter than its directory said: nothing kept
            if os.preadv(fds[1], [views[1][:size]], start_p + done) != size:
                return None
            if memcmp(at_b, at_p, size):
                return False
            done += size
        return True

    def check(run):  # records back to back in both files
        start_b, start_p = run[0][0], run[0][1]
        length = run[-1][0] + run[-1][2] - start_b
        same = equal(start_b, start_p, length)
        if same:
            keep(start_b, start_p, length)
        elif same is False and len(run) > 1:  # the buffers hold the run: its records one by one
            for record_b, record_p, size in run:
                if memcmp(at_b + record_b - start_b, at_p + record_p - start_p, size) == 0:
                    keep(record_b, record_p, size)

    run, run_length, expected, count_p = [], 0, 0, len(keys_p)
    for start_b, length, key in zip(starts_b, lengths_b, keys_b):
        if expected < count_p and keys_p[expected] == key:
            number = expected
        elif expected + 1 < count_p and keys_p[expected + 1] == key:
            number = expected + 1
        else:
            number = last.get(key, -1)
            if number < 0 or first[key] != number:
                continue  # no patch record declares it, or more than one does
        if length <= 0 or length > largest:
            continue
        start_p = starts_p[number]
        expected = number + 1
        if start_b < 0 or start_p < 0 or start_b + length > size_b or start_p + length > size_p:
            continue
        follows = run and run[-1][0] + run[-1][2] == start_b
        follows = follows and run[-1][1] + run[-1][2] == start_p
        if run and (not follows or run_length + length > run_bytes):
            check(run)
            run, run_length = [], 0
        run.append((start_b, start_p, length))
        run_length += length
    if run:
        check(run)
    return found

try:
    os.nice(int(sys.argv[1]))
except OSError:
    pass
fds = tuple(map(int, sys.argv[2:4]))
counts, shifts, ends = (tuple(map(int, sys.argv[k : k + 2])) for k in (4, 6, 8))
largest, run_bytes = map(int, sys.argv[10:12])
fixed = sys.stdin.buffer.read(42 * sum(counts))
if len(fixed) != 42 * sum(counts):
    sys.exit(3)
sys.stdout.buffer.write(regions(fixed, counts, shifts, ends, fds, largest, run_bytes).tobytes())
"""
"""The comparing process. argv: niceness to add, both descriptors, both record counts, both
offset shifts, both directories' offsets (where the last record ends), the largest record
compared, `RUN_BYTES`; stdin: both directories' fixed parts, joined (42 bytes a record, base's
first); stdout: the equal regions as native 64-bit integers, three per region, each after the
one before it in the base. Records are paired in header-offset order: the patch's next (or the
one after) when it declares the same (method, time, date, CRC-32, sizes, record length), else
the one patch record that does; a run of paired records back to back in both files, inside
both, is read `RUN_BYTES` at a time into two buffers (`os.preadv`: no allocation per read) and
compared there. A read that comes up short (a file cut under it) keeps nothing of its run."""


class ProvenRegions:
    """The child's answer: regions of the base equal to regions of the patch, by base offset
    (ascending, none overlapping another)."""

    __slots__ = ("base_starts", "lengths", "patch_starts")

    def __init__(self, base_starts: list[int], patch_starts: list[int], lengths: list[int]) -> None:
        self.base_starts, self.patch_starts, self.lengths = base_starts, patch_starts, lengths

    def covers(self, base_start: int, patch_start: int, length: int) -> bool:
        """Whether the base's `length` bytes from `base_start` equal the patch's from
        `patch_start`, as the child found: both inside one region, at the same place in it."""
        number = bisect_right(self.base_starts, base_start) - 1
        if number < 0 or length < 0:
            return False
        start = self.base_starts[number]
        return (
            patch_start - base_start == self.patch_starts[number] - start
            and base_start + length <= start + self.lengths[number]
        )


def parse_answer(out: bytes, sizes: tuple[int, int]) -> ProvenRegions | None:
    """The regions in `out`, or None unless it is whole triples of a positive length, each
    inside both files (`sizes`: the base's and the patch's) and after the one before it in the
    base."""
    if len(out) % 24:
        return None
    numbers = array("q")
    numbers.frombytes(out)
    base_starts, patch_starts, lengths = numbers[0::3], numbers[1::3], numbers[2::3]
    if lengths and (min(lengths) <= 0 or min(base_starts) < 0 or min(patch_starts) < 0):
        return None
    ends = [start + length for start, length in zip(base_starts, lengths, strict=True)]
    patch_ends = map(int.__add__, patch_starts, lengths)
    if max(ends, default=0) > sizes[0] or max(patch_ends, default=0) > sizes[1]:
        return None
    if any(map(int.__gt__, ends, base_starts[1:])):
        return None
    return ProvenRegions(base_starts.tolist(), patch_starts.tolist(), lengths.tolist())


class RegionChild:
    """The comparing child for two wheels and a thread that starts it, hands it both
    directories and reads its answer (`answer`: None until it is in). `close` ends both; a
    child the thread has not started by then is never started."""

    def __init__(self, base: ZipArchive, patch: ZipArchive, largest: int) -> None:
        self._arguments = _arguments(base, patch, largest)
        self._fds = (base.fileno(), patch.fileno())
        self._sizes = (base.file_size, patch.file_size)
        self._question = (base.directory_fixed or b"") + (patch.directory_fixed or b"")
        self._answer: ProvenRegions | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._talk, name="k3diff-region-child", daemon=True)
        self._reader.start()

    def answer(self) -> ProvenRegions | None:
        """The child's whole answer when it is in; None while it runs, or when it failed."""
        return self._answer

    def wait(self, timeout: float | None = None) -> ProvenRegions | None:
        """`answer`, once the child is done or `timeout` seconds have passed (tests; a run
        never waits for the child)."""
        self._reader.join(timeout)
        return self._answer

    def _talk(self) -> None:
        applied = nice_this_thread(CHILD_NICE)
        arguments = [str(CHILD_NICE - applied), *self._arguments]
        with self._lock:  # `close` either comes first (no child) or finds this one
            if self._closed:
                return
            self._process = process = start_python(
                _CHILD, arguments, self._fds, stdin=subprocess.PIPE
            )
        if process is None:
            return
        assert process.stdin is not None and process.stdout is not None
        try:  # the child reads the whole question before it answers: no deadlock
            with process.stdin:
                process.stdin.write(self._question)
            out = process.stdout.read()
        except (OSError, ValueError):  # the child gone, or closed under us by `close`
            return
        if process.wait() == 0:
            self._answer = parse_answer(out, self._sizes)

    def close(self) -> None:
        """Kill the child if it still runs, reap it, and wait for the reader."""
        with self._lock:
            self._closed = True
        end_child(self._process)
        self._reader.join()
        if self._process is not None and self._process.stdout is not None:
            self._process.stdout.close()


def can_ask(base: ZipArchive, patch: ZipArchive) -> bool:
    """Whether both directories are plain (their fixed parts joined: `directory_fixed`)."""
    return base.directory_fixed is not None and patch.directory_fixed is not None


def _arguments(base: ZipArchive, patch: ZipArchive, largest: int) -> list[str]:
    sides = (base, patch)
    return [
        *(str(archive.fileno()) for archive in sides),
        *(str(len(archive.entries)) for archive in sides),
        *(str(archive.offset_shift) for archive in sides),
        *(str(archive.directory_offset) for archive in sides),
        str(largest),
        str(RUN_BYTES),
    ]
