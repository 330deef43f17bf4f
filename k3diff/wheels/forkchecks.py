"""Per-archive passes of `compare_wheels` run in a forked child, beside this process's.

A run on a wheel of many small entries is single-core Python for most of its life. Two of its
passes read the archives but no entry's result, and run on the main thread: the local header
scans (≈ 40 ms a wheel on torch's CPU wheel, before the pool can start) and the soundness and
layout checks (W607-W613..., while the pool proves the entries, holding the GIL its passes
need). A child forked right after both central directories are read (`forkchild`: no thread
runs yet) runs them on the other core, from the same open files and parsed directories, while
this process reads RECORD, checks installability and pairs the entries. It answers in two
messages:

1. each archive's data offsets as its local headers give them (`ZipArchive.header_scan`), taken
   before the pool (`adopt_offsets`) instead of reading the headers here;
2. the soundness and layout findings (`archivechecks.archive_soundness`: `soundness`), with
   the content bytes they inflated from each archive.

Each is taken where this process would compute it, and only when it is whole and well-typed;
the bytes the child inflated for (2) are charged to this process's inflate budgets
(`ZipArchive.charge`), as if the checks had read them here, and an answer whose charge does not
fit is not taken. Anything else (no fork, a child dead, killed, hung, exited early, a short or
garbled message, a budget it would spend) has this process compute it itself, as before: the
same findings, the same errors, in the same order. Neither is waited for long (`SCAN_WAIT`,
`SOUNDNESS_WAIT`): the child needs ≈ 0.15 s of a core for both, and is usually done long before
this process needs them; when it is not, computing them here costs less than waiting.

The archive checks (`check_archives`: surfaces, SBOMs, METADATA, abi3) stay here: they need
RECORD and the installability checks, which the child would have to compute again (≈ 0.28 s of
CPU, measured: it came in after the pool was done, on a loaded 2-core machine), and run beside
the pool in ≈ 55 ms of this process's CPU.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from time import monotonic
from typing import TypeGuard

from k3diff.wheel.codes import Finding
from k3diff.wheels.archivechecks import ArchiveChecks, archive_soundness
from k3diff.wheels.forkchild import ForkedChild, Send, can_fork
from k3diff.zip.archive import ZipArchive

FORK_ENTRIES = 4096
"""Fewest entries (both wheels together) for which a child is forked: below, the fork and the
pages it makes both processes copy cost more than the passes it takes off this one."""
WAIT = 5.0
"""Seconds after the fork past which no message of the child is waited for (it needs ≈ 0.1 s of
a core on a wheel of twelve thousand entries); it is then killed and the passes run here."""
SCAN_WAIT = 0.05
"""Seconds this process waits for the data offsets when it needs them (they are usually in long
before): later, each archive reads its own headers (≈ 40 ms each on torch's wheel)."""
SOUNDNESS_WAIT = 0.01
"""Seconds this process waits for the soundness findings when it needs them (usually in long
before): later, it computes them itself (≈ 20-30 ms beside the pool on torch's wheel). On a
loaded machine the child may wait for a core far longer than that: waiting for it then made the
run slower than not forking."""


class ForkedChecks:
    """The child's two messages, each taken once and in order; `close` ends the child."""

    def __init__(self, child: ForkedChild, base: ZipArchive, patch: ZipArchive) -> None:
        self._child = child
        self._archives = (base, patch)
        self._taken = 0

    def adopt_offsets(self) -> bool:
        """Both archives told every entry's data offset the child read from its local header
        (True), when in within `SCAN_WAIT` seconds and well-formed; else False: each archive
        then reads its own headers."""
        found = _offsets(self._next(1, until=monotonic() + SCAN_WAIT))
        if found is None:
            return False
        for archive, offsets in zip(self._archives, found, strict=True):
            archive.remember_data_offsets(offsets)
        return True

    def soundness(self) -> list[Finding] | None:
        """Both wheels' soundness and layout findings, or None: compute them here."""
        answer = self._charged(self._next(2, until=monotonic() + SOUNDNESS_WAIT))
        self.close()  # the last message: the child has nothing more to do
        return answer if _findings(answer) else None

    def _next(self, number: int, until: float | None = None) -> object:
        """Message `number`, those before it read past (waited for until the deadline); None
        when it was taken already, or is not in."""
        while self._taken < number - 1:
            if self._child.message() is None:
                return None
            self._taken += 1
        if self._taken >= number:
            return None
        answer = self._child.message(until)
        if answer is not None:
            self._taken = number
        return answer

    def _charged(self, answer: object) -> object:
        """The value of `(value, (base bytes, patch bytes))` once those inflated bytes are
        charged to the archives' budgets; None (nothing charged) when they would spend one."""
        if not (type(answer) is tuple and len(answer) == 2 and type(answer[1]) is tuple):
            return None
        value, spent = answer
        if not (len(spent) == 2 and all(type(n) is int and n >= 0 for n in spent)):
            return None
        base, patch = self._archives
        if not base.charge(spent[0]):
            return None
        if not patch.charge(spent[1]):
            base.refund(spent[0])
            return None
        return value

    def close(self) -> None:
        """Kill the child if it still runs, and reap it."""
        self._child.close()


def _offsets(answer: object) -> tuple[dict[int, int], dict[int, int]] | None:
    """The data offsets by position of both archives in `answer` (for each, positions then
    offsets, as native 64-bit integers); None when it is not two such pairs of equal length."""
    if not (type(answer) is tuple and len(answer) == 2):
        return None
    found: list[dict[int, int]] = []
    for pair in answer:
        if not (type(pair) is tuple and len(pair) == 2 and all(type(c) is bytes for c in pair)):
            return None
        positions, offsets = array("q"), array("q")
        if len(pair[0]) != len(pair[1]) or len(pair[0]) % positions.itemsize:
            return None
        positions.frombytes(pair[0])
        offsets.frombytes(pair[1])
        found.append(dict(zip(positions, offsets, strict=True)))
    return found[0], found[1]


def _findings(found: object) -> TypeGuard[list[Finding]]:
    """Whether `found` is a list of findings."""
    return type(found) is list and all(type(f) is Finding for f in found)


def meanwhile_checks(
    base: ZipArchive,
    patch: ZipArchive,
    forked: ForkedChecks | None,
    meanwhile: Callable[[], ArchiveChecks],
) -> tuple[list[Finding], ArchiveChecks | Exception]:
    """The soundness findings (the child's, or computed here: their error raised at once), then
    `meanwhile`'s answer or its error, returned (the caller raises it once the results are in,
    as when it ran after them: a comparison's error still comes first)."""
    unsound = None if forked is None else forked.soundness()
    if unsound is None:
        unsound = archive_soundness(base, patch)
    try:
        return unsound, meanwhile()
    except Exception as exc:
        return unsound, exc


def worth_forking(base: ZipArchive, patch: ZipArchive) -> bool:
    """`FORK_ENTRIES` entries, and a process that may fork (`forkchild.can_fork`)."""
    return len(base.entries) + len(patch.entries) >= FORK_ENTRIES and can_fork()


@contextmanager
def forked_checks(base: ZipArchive, patch: ZipArchive) -> Iterator[ForkedChecks | None]:
    """A child computing the passes when `worth_forking`, else None; ended on leaving."""
    child = None
    if worth_forking(base, patch):
        child = ForkedChild.fork(functools.partial(_work, base, patch), WAIT)
    checks = None if child is None else ForkedChecks(child, base, patch)
    try:
        yield checks
    finally:
        if checks is not None:
            checks.close()


def _work(base: ZipArchive, patch: ZipArchive, send: Send) -> None:
    """What the child runs: the two messages, in order."""
    send((_columns(base), _columns(patch)))
    before = (base.inflated(), patch.inflated())
    unsound = archive_soundness(base, patch)
    send((unsound, (base.inflated() - before[0], patch.inflated() - before[1])))


def _columns(archive: ZipArchive) -> tuple[bytes, bytes]:
    """`archive`'s local headers read (`header_scan`, as this process would read them), and the
    data offsets they gave, as two columns: positions, then offsets."""
    offsets = archive.header_scan().data_offsets
    return array("q", offsets).tobytes(), array("q", offsets.values()).tobytes()
