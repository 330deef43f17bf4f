"""vLLM windows whose counts were lost, and restarts between windows: one list
(`counter_resets`), whatever lost them, so that every consumer (the gate, its re-run in
`report`, the bundle) holds on each alike.

A window's counts are lost when a counter went down across it or its `_created` time changed
(a restarted server: `sample` names the counter), when its `/metrics` reading before or after
it failed (`sample` writes UNREAD), or when the rise `sample` recorded is no set of counts one
server life can give (INVALID, found by `telemetry`: accepted tokens above drafted, drafts
reaching a position above the drafts or rising with the position, a field that is no count).
The last is what a restart its counters did not show leaves (a server without `_created`
series that counted past its old values), or an edited log; before telemetry66 such a window
was left out of the tests without a word, and the gate passed on the windows left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.sample.lines import UNREAD

INVALID = "counts not valid"
"""`metric` of a window whose recorded rise is no set of counts (`reason` says which)."""


@dataclass(frozen=True)
class CounterReset:
    """A vLLM window whose counts were lost (a counter that went down across it, a reading
    that failed, counts that are no counts), or a restart between two windows."""

    side: str
    metric: str
    """The counter, by its exposed name; UNREAD or INVALID."""
    window: str
    """The sample that closed the window (`key mode repeat N`)."""
    samples: int
    """The window's samples."""
    lost: bool = True
    """The window's counts are lost; False: the server restarted between this window and the
    one before (the counts stand)."""
    reason: str | None = None
    """INVALID: which counts are no counts (`accepted tokens 65 above draft tokens 60`)."""

    def describe(self) -> str:
        """The finding's sentence (after `counter-reset, SIDE: `)."""
        size = f"{self.samples} sample{'s' if self.samples != 1 else ''}"
        if self.metric == UNREAD:
            return (
                f"the window closed by {self.window} ({size}) was not read (its /metrics "
                "reading before or after it failed); that window's counts are lost"
            )
        if self.metric == INVALID:
            return (
                f"the window closed by {self.window} ({size}) rose by counts no server life "
                f"gives ({self.reason}): a restart its counters did not show, or an edited "
                "log; that window's counts are lost"
            )
        verb = "changed" if self.metric.endswith("_created") else "went down"
        if not self.lost:
            return (
                f"{self.metric} {verb} between the window closed by {self.window} and the one "
                "before: the server restarted between two windows (the run spans two server "
                "lives); the counts stand"
            )
        return (
            f"{self.metric} {verb} across the window closed by {self.window} ({size}): a "
            "restarted server; that window's counts are lost"
        )


_CAUSES = (
    ("a restarted server", "a counter went down or its _created time changed"),
    ("an unread /metrics", "a reading before or after the window failed"),
    ("invalid counts", "accepted tokens above drafted, or per-position counts above the drafts"),
)
"""What loses a window: (its name, how it shows)."""


def _causes(resets: Sequence[CounterReset]) -> list[tuple[str, str]]:
    metrics = {r.metric for r in resets if r.lost}
    kinds = {
        0 if metrics - {UNREAD, INVALID} or UNREAD in metrics else None,  # a failed read may be one
        1 if UNREAD in metrics else None,
        2 if INVALID in metrics else None,
    }
    return [cause for index, cause in enumerate(_CAUSES) if index in kinds]


def lost_to(resets: Sequence[CounterReset]) -> str:
    """What the lost windows of `resets` were lost to (`a restarted server or an unread
    /metrics`)."""
    return " or ".join(name for name, _ in _causes(resets))


def lost_to_how(resets: Sequence[CounterReset]) -> str:
    """`lost_to`, with how each cause shows in parentheses (left open for the caller)."""
    found = _causes(resets)
    hows = [how for _, how in found]
    if hows[:2] == [_CAUSES[0][1], _CAUSES[1][1]]:  # one sentence: went down, changed, failed
        hows[:2] = ["a counter went down, its _created time changed, or " + hows[1]]
    return f"{lost_to(resets)} ({'; '.join(hows)}"
