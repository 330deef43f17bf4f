"""What a `k3diff sample` run that stops part-way says it kept.

A run stops with exit 2 once its log is open for several reasons: a server that is no
completion server or does not stream (`k3diff.sample.unstreamed`), one that stopped answering
(`k3diff.sample.alive`), a cache flush that keeps failing, a full disk, Ctrl-C, SIGTERM (a cancelled CI job, `timeout`: `Terminated`, which
stops the run as Ctrl-C does instead of killing it without a word). Whatever stopped it, the samples already written stay in the log
and `--resume` takes only the missing ones; so every such stop is one line that says what
stopped the run and how many samples the log keeps (`RunStopped`: '...; stopped, 37 samples kept
in out/samples.jsonl (--resume continues)'), counted from the log itself (`SampleLog.samples`:
the lines of a resumed log and every line appended since), not from the requests sent. A
problem found before the log is opened (a server that cannot be reached, a log that cannot be
resumed) touched no log and goes on as it is; Ctrl-C or SIGTERM then says that no sample was
written.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from k3diff.errors import K3diffError, RunStopped
from k3diff.sample.log import SampleLog


class Terminated(KeyboardInterrupt):
    """SIGTERM during a run: raised where Ctrl-C's KeyboardInterrupt would be, and handled alike
    (asyncio cancels the run's tasks, the lines already handed to the log are written)."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def sigterm_stops() -> Iterator[None]:
    """While the block runs, SIGTERM raises `Terminated`: only in the main thread and only where
    SIGTERM has its default action (a caller's own handler, or an ignored SIGTERM, is left as it
    is); the previous action comes back after."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _how(exc: KeyboardInterrupt) -> str:
    return "terminated (SIGTERM)" if isinstance(exc, Terminated) else "aborted (Ctrl-C)"


class Kept:
    """The log a run opened (None until it is open), to say what a stop kept."""

    def __init__(self) -> None:
        self.log: SampleLog | None = None

    def note(self) -> str:
        """'stopped, 37 samples kept in OUT/samples.jsonl (--resume continues)'."""
        assert self.log is not None
        count = self.log.samples
        return (
            f"stopped, {count} sample{'s' if count != 1 else ''} kept in {self.log.path} "
            "(--resume continues)"
        )

    @contextlib.contextmanager
    def stops(self) -> Iterator[None]:
        """Re-raise a K3diffError, Ctrl-C or SIGTERM raised once the log is open as
        `RunStopped`, its cause followed by `note`; before that, a K3diffError as it is, and
        Ctrl-C or SIGTERM as a RunStopped saying no sample was written."""
        try:
            with sigterm_stops():
                yield
        except K3diffError as exc:
            if self.log is None:
                raise
            raise RunStopped(f"{exc}; {self.note()}") from exc
        except KeyboardInterrupt as exc:
            if self.log is None:
                raise RunStopped(
                    f"{_how(exc)} before the log was opened: no sample written"
                ) from exc
            raise RunStopped(f"{_how(exc)}; {self.note()}") from exc
