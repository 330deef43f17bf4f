"""The background load of `--mode loaded`, and what became of it while each target was in flight.

A loaded target is judged by what overlapped it at the server (`k3diff.sample.proof`); the load
is only the condition the run claims. So the load is counted too: every background request that
ended (answered, failed after its retries, or answered with a body that is no completion) is
counted per side, and each loaded sample records how many ended while it was in flight and how
many of those failed (`LoadWindow`, the line's `load_ended`, `load_failed`, `load_error`). A
target whose background requests all failed was not sent under the load the run claims: its
batch is unproven, whatever a gauge read (`proof.batch_overlap`), and the summary says so.

A background request answered with a body that is no completion (a page, a proxy's notice), or
with one whole completion where a stream was asked for, is a `ServerError` for a sample, which
stops the run; for the load it is one more failed request, recorded with that error: the
targets themselves say whether the server can be sampled. A target during which no background
request ended at all (`load_ended` 0) shows no load overlapped it (`proof.Overlap.load_idle`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from k3diff.sample.lines import SampleLine
from k3diff.sample.model import LoadSummary, most_common_error
from k3diff.sample.names import Mode


@dataclass(frozen=True)
class LoadWindow:
    """The background requests to one side that ended while one target was in flight."""

    ended: int
    """Background requests that ended (answered or failed)."""
    failed: int
    """Of those, the ones that failed."""
    error: str | None
    """The last failed one's error; None when none failed."""

    @property
    def all_failed(self) -> bool:
        """Some ended and every one of them failed: the load the run claims did not run."""
        return self.ended > 0 and self.failed == self.ended


class LoadTally:
    """Background requests per side so far: ended, failed, and the last error."""

    def __init__(self) -> None:
        self._ended: dict[str, int] = {}
        self._failed: dict[str, int] = {}
        self._error: dict[str, str] = {}

    def ended(self, side: str, error: str | None) -> None:
        """One background request to `side` ended, with `error` (None: answered)."""
        self._ended[side] = self._ended.get(side, 0) + 1
        if error is not None:
            self._failed[side] = self._failed.get(side, 0) + 1
            self._error[side] = error

    def mark(self, side: str) -> tuple[int, int]:
        """Where `side`'s counts stand now (ended, failed), for `since`."""
        return self._ended.get(side, 0), self._failed.get(side, 0)

    def since(self, side: str, mark: tuple[int, int]) -> LoadWindow:
        """The background requests to `side` that ended after `mark`."""
        ended, failed = self.mark(side)
        failed_since = failed - mark[1]
        return LoadWindow(
            ended=ended - mark[0],
            failed=failed_since,
            error=self._error.get(side) if failed_since else None,
        )


def load_summary(samples: Iterable[SampleLine]) -> LoadSummary:
    """The background load of loaded mode, summed over a log's loaded samples."""
    loaded = [s for s in samples if s.mode == Mode.LOADED.value]
    found = most_common_error(s.load_error for s in loaded)
    return LoadSummary(
        requests=sum(s.load_ended or 0 for s in loaded),
        failed=sum(s.load_failed or 0 for s in loaded),
        common_error=None if found is None else found[0],
    )
