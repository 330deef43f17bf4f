"""The huge pairs' raw bytes compared in a child process, answers keyed by pair.

A CUDA wheel's few huge libraries (libtorch_cuda.so: 560 MB compressed a side) are compared
byte for byte when their compressed bytes are kept. In a thread of this process that comparison
copies every byte out of the page cache (`pread`, 1.5-2.3 GB/s on a small VM) and takes the GIL
back after every read, while the main thread runs its Python passes: each slowed the other. The
child (`_CHILD`, `python -I -S`: no site, no environment, nothing imported but `mmap` and
`ctypes`) maps both ranges a window at a time and compares them with the C library's `memcmp`:
no copy, no GIL shared with this process, and ≈ 0.6× the CPU (torch 2.5.1's four huge pairs,
877 MB a side: 0.25 s with the child's start-up, ≈ 25 ms, against 0.40 s on two threads).

The child is a fresh interpreter (`subprocess`: fork and exec in C, no Python run between
them), not a fork of this process, whose other threads (the pool's, other comparisons' in a
`wheelset` run) would be copied mid-step.

It reads the same open files (their descriptors passed down; no path is opened again) at the
data offsets and sizes this process found, and writes one line per pair, keyed by the pair's
entry positions: `<base position> <patch position> <1 or 0>`. Only a "1" for a pair asked about
is taken as "equal": anything else (a "0", a line that does not parse, a key not asked for, a
child that could not start, died, was killed or crashed on a file truncated under its mapping)
leaves the pair unanswered, and the caller compares it here (`proof.raw_equal`), which reads the
bytes itself and words any problem as it always did. So the child can only ever save work: it
never decides a pair is changed, and never turns an error into a pass.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from functools import partial

from k3diff.wheels.children import end_child, start_python
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

WINDOW = 16 << 20
"""Bytes of each side mapped at a time: the child's memory stays ≈ 2 × 16 MB above the
interpreter's, whatever the entry sizes."""

_CHILD = """\
import os, sys
try:
    os.nice(int(sys.argv[2]))
except OSError:
    pass
import ctypes, mmap
memcmp = ctypes.CDLL(None).memcmp
memcmp.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
memcmp.restype = ctypes.c_int
GRAIN = mmap.ALLOCATIONGRANULARITY
WINDOW = int(sys.argv[1])

def mapped(fd, at, n):
    skip = at % GRAIN
    return mmap.mmap(fd, skip + n, access=mmap.ACCESS_COPY, offset=at - skip), skip

def equal_window(fd_b, at_b, fd_p, at_p, n):
    (map_b, skip_b), (map_p, skip_p) = mapped(fd_b, at_b, n), mapped(fd_p, at_p, n)
    with map_b, map_p:
        view_b = (ctypes.c_char * len(map_b)).from_buffer(map_b)
        view_p = (ctypes.c_char * len(map_p)).from_buffer(map_p)
        at_b, at_p = ctypes.addressof(view_b) + skip_b, ctypes.addressof(view_p) + skip_p
        same = memcmp(at_b, at_p, n) == 0
        del view_b, view_p
    return same

for spec in sys.argv[3:]:
    key_b, key_p, fd_b, at_b, fd_p, at_p, size = map(int, spec.split(":"))
    ends = os.fstat(fd_b).st_size >= at_b + size and os.fstat(fd_p).st_size >= at_p + size
    done, equal = 0, ends and size > 0
    while equal and done < size:
        n = min(WINDOW, size - done)
        equal = equal_window(fd_b, at_b + done, fd_p, at_p + done, n)
        done += n
    os.write(1, f"{key_b} {key_p} {int(equal)}\\n".encode())
"""
"""The comparing process (its first step: the niceness asked for, `argv[2]`). Per pair (`base position:patch position:base fd:offset:patch fd:
offset:size`), in order: both ranges inside their files, then mapped `WINDOW` bytes at a time
(copy-on-write, never written: so that ctypes can take the address; nothing is copied) and
compared by `memcmp`. A file truncated under a mapping raises SIGBUS, which kills only the child.
`ctypes.CDLL(None)`: the C library the interpreter is linked with."""

CHILD_NICE = 10
"""The niceness added to a child started before the comparison's imports (`headstart`): it has
the core the imports leave idle to itself, and once the comparison starts it takes the CPU the
comparing thread leaves instead of half of that thread's core (case e: −4 to −9 % wall). One
started by the comparison itself (a release set's pairs, the library) keeps the run's niceness:
there, niced, it shares the spare core with the sniff child and its answers come late (case a:
+5 to +9 % wall)."""

_LINE = 64
"""Longest answer line read: a longer one is cut, fails to parse and ends the reading."""

Key = tuple[int, int]
"""(base entry position, patch entry position)."""


class RawChild:
    """The child process comparing `pairs`, and a thread reading its answers into one future
    per pair (True: the child read both ranges whole and found them equal; False: anything
    else, the child gone included). `close` ends both."""

    def __init__(
        self,
        base: ZipArchive,
        patch: ZipArchive,
        pairs: Sequence[tuple[ZipEntry, ZipEntry]],
        *,
        nice: int = 0,
    ) -> None:
        self.answers: dict[Key, Future[bool]] = {
            (b.position, p.position): Future() for b, p in pairs
        }
        self._process = _spawn(base, patch, pairs, nice)
        self._reader = threading.Thread(target=self._read, name="k3diff-raw-child", daemon=True)
        try:
            self._reader.start()
        except BaseException:  # no thread to spare: no child left behind either
            self._end_process()
            raise

    def _read(self) -> None:
        """Each well-formed answer line into its pair's future; at the end of the output (the
        child done, dead or never started), every pair still unanswered gets False."""
        stream = None if self._process is None else self._process.stdout
        try:
            for line in () if stream is None else iter(partial(stream.readline, _LINE), b""):
                key, equal = _parse(line)
                future = self.answers.get(key) if key is not None else None
                if future is None or future.done():
                    break  # not an answer to a pair asked about, once: trust nothing after it
                future.set_result(equal)
        except (OSError, ValueError):
            pass
        finally:
            for future in self.answers.values():
                if not future.done():
                    future.set_result(False)

    def close(self) -> None:
        """Kill the child if it still runs (an error before the pool: nobody waits for it),
        reap it, and wait for the reader, which then meets the end of the pipe."""
        self._end_process()
        self._reader.join()
        if self._process is not None and self._process.stdout is not None:
            self._process.stdout.close()

    def _end_process(self) -> None:
        end_child(self._process)


def _parse(line: bytes) -> tuple[Key | None, bool]:
    """`(key, equal)` of one answer line; key None when the line is not one."""
    fields = line.split(b" ")
    if len(fields) != 3 or fields[2] not in (b"0\n", b"1\n"):
        return None, False
    if not (fields[0].isdigit() and fields[1].isdigit()):
        return None, False
    return (int(fields[0]), int(fields[1])), fields[2] == b"1\n"


def _spawn(
    base: ZipArchive, patch: ZipArchive, pairs: Sequence[tuple[ZipEntry, ZipEntry]], nice: int = 0
) -> subprocess.Popen[bytes] | None:
    """The child for `pairs` (data offsets known: `early._candidates` read them), or None when
    none can be started: no interpreter to run (a frozen application's executable is not one),
    no process or descriptor to spare. `nice`: what the child adds to its niceness first."""
    fds = (base.fileno(), patch.fileno())
    specs = [
        f"{b.position}:{p.position}:{fds[0]}:{base.data_offset(b)}:{fds[1]}:"
        f"{patch.data_offset(p)}:{b.compressed_size}"
        for b, p in pairs
    ]
    return start_python(_CHILD, [str(WINDOW), str(nice), *specs], fds, stdin=subprocess.DEVNULL)
