"""What a `k3diff sample` run that stops part-way says it kept.

A run stops with exit 2 once its log is open for several reasons: a server that is no
completion server or does not stream (`k3diff.sample.unstreamed`), a cache flush that keeps
failing, a full disk, Ctrl-C. Whatever stopped it, the samples already written stay in the log
and `--resume` takes only the missing ones; so every such stop is one line that says what
stopped the run and how many samples the log keeps (`RunStopped`: '...; stopped, 37 samples kept
in out/samples.jsonl (--resume continues)'), counted from the log itself (`SampleLog.samples`:
the lines of a resumed log and every line appended since), not from the requests sent. A
problem found before the log is opened (a server that cannot be reached, a log that cannot be
resumed) touched no log and goes on as it is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from k3diff.errors import K3diffError, RunStopped
from k3diff.sample.log import SampleLog


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
        """Re-raise a K3diffError or Ctrl-C raised once the log is open as `RunStopped`, its
        cause followed by `note`; before that, as it is."""
        try:
            yield
        except K3diffError as exc:
            if self.log is None:
                raise
            raise RunStopped(f"{exc}; {self.note()}") from exc
        except KeyboardInterrupt as exc:
            if self.log is None:
                raise
            raise RunStopped(f"aborted (Ctrl-C); {self.note()}") from exc
