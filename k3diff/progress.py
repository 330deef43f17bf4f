"""Progress of long work, as the library reports it: `(done, total)` calls, in bytes.

Library code never draws anything: it calls a `ProgressCallback` with how much of the phase's
work is done and how much there is in all, weighted by bytes (compressed bytes of zip entries,
bytes of files hashed or read, bytes of records read back). Work done on several threads at
once goes through one `Tally`, which serializes the calls. The CLI passes
`k3diff.cli.progress.TerminalProgress`, which draws the line on a terminal and nothing elsewhere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

ProgressCallback = Callable[[int, int], None]
"""`progress(done, total)`: `done` of `total` units of the phase's work are finished."""

STEPS = 1000
"""A `Tally` calls its `progress` about this many times a phase at most (a 100k-record load
makes 100k small additions; the line needs far fewer)."""


class Tally:
    """A running count of finished work, reported to `progress` as `(done, total)`.

    Safe to `add` to from several threads: calls to `progress` never overlap and `done` never
    goes back. Without a `progress` it does nothing (a pipe costs no counting)."""

    def __init__(
        self, total: int, progress: ProgressCallback | None, *, known: bool = True
    ) -> None:
        self.total = total
        self.done = 0
        self._progress = progress
        self._lock = threading.Lock()
        self._step = max(1, total // STEPS)
        self._reported = 0
        self._known = known
        """False until `grow` gives the rest of the total: work counted before is not shown."""

    def grow(self, amount: int) -> None:
        """Add `amount` to the total, which is now known (work can start before all of it is
        measured: a file's hash while the archives are still being opened)."""
        with self._lock:
            self.total += amount
            self._step = max(1, self.total // STEPS)
            self._known = True
        self.add(0, force=True)

    def add(self, amount: int, *, force: bool = False) -> None:
        """Count `amount` more units as finished (nothing at all without a `progress`)."""
        if self._progress is None or (amount <= 0 and not force):
            return
        with self._lock:
            self.done = min(self.total, self.done + amount)
            if not self._known:
                return
            if force or self.done - self._reported >= self._step or self.done == self.total:
                self._reported = self.done
                self._progress(self.done, self.total)

    def finish(self) -> None:
        """Count the rest as done (work estimated beforehand that turned out smaller)."""
        self.add(self.total - self.done)

    def share(self, weight: int, size: int) -> Share:
        """A `Share` of `weight` units for work that produces `size` bytes (a zip entry's
        compressed bytes, inflated to `size`), so one long entry moves the count as it goes."""
        return Share(self, weight, size) if self._progress is not None else _IDLE_SHARE

    @property
    def listened(self) -> bool:
        """Whether anyone listens: without a listener hot loops skip counting altogether."""
        return self._progress is not None

    def advance(self) -> Callable[[int], None]:
        """`add`, or a no-op when nobody listens (so hot loops can skip the call's cost)."""
        return self.add if self._progress is not None else _ignore


class Share:
    """`weight` units of a `Tally`, counted in proportion as `size` bytes are produced."""

    def __init__(self, tally: Tally, weight: int, size: int) -> None:
        self._tally = tally
        self._weight = weight
        self._size = max(1, size)
        self._produced = 0
        self._counted = 0

    def produced(self, amount: int) -> None:
        """`amount` more bytes were produced."""
        self._produced += amount
        counted = min(self._weight, self._weight * self._produced // self._size)
        self._tally.add(counted - self._counted)
        self._counted = counted

    def finish(self) -> None:
        """The work is over (done, or cut short by an error): count what is left."""
        self._tally.add(self._weight - self._counted)
        self._counted = self._weight


class _IdleShare(Share):
    """The `Share` of a `Tally` nobody listens to: counts nothing, costs no allocation."""

    def __init__(self) -> None:
        pass

    def produced(self, amount: int) -> None:
        return None

    def finish(self) -> None:
        return None


_IDLE_SHARE = _IdleShare()


def _ignore(_amount: int) -> None:
    return None
