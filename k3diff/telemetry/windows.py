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

The per-request engines' units are lost the same way (left66): a TensorRT-LLM request or an
SGLang sample whose speculation counts are no counts (accepted draft tokens above the drafted
ones) is INVALID, with its `source`; before, it was read as "not reported", and a patch whose
worst requests reported so passed the gate on the requests left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from k3diff.sample.linevalues import UNREAD
from k3diff.telemetry.engines import SOURCE_SGLANG, SOURCE_TRTLLM, SOURCE_VLLM

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
    source: str = SOURCE_VLLM
    """Whose unit was lost: a vLLM window, else a TensorRT-LLM or SGLang request (INVALID
    only), `window` naming the sample it came with."""

    def where(self) -> str:
        """The lost unit (`the window closed by KEY MODE repeat N`)."""
        if self.source == SOURCE_VLLM:
            return f"the window closed by {self.window}"
        return f"the {unit_name(self.source)} of {self.window}"

    def describe(self) -> str:
        """The finding's sentence (after `counter-reset, SIDE: `)."""
        if self.source != SOURCE_VLLM:
            return (
                f"{self.where()} reported counts no request gives ({self.reason}): an engine "
                "fault or an edited log; that request's counts are lost"
            )
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


def side_lost(resets: Sequence[CounterReset], side: str) -> str | None:
    """`12 vLLM windows lost to invalid counts`: the units `side` lost, and to what; None when
    it lost none (newuser66: a side whose every window was lost read `no engine sent draft
    counts`, though its engine sent them)."""
    lost = [r for r in resets if r.side == side and r.lost]
    return f"{lost_units(lost)} lost to {lost_to(lost)}" if lost else None


def lost_to_how(resets: Sequence[CounterReset]) -> str:
    """`lost_to`, with how each cause shows in parentheses (left open for the caller)."""
    found = _causes(resets)
    hows = [how for _, how in found]
    if hows[:2] == [_CAUSES[0][1], _CAUSES[1][1]]:  # one sentence: went down, changed, failed
        hows[:2] = ["a counter went down, its _created time changed, or " + hows[1]]
    return f"{lost_to(resets)} ({'; '.join(hows)}"


_UNITS = {
    SOURCE_VLLM: "vLLM window",
    SOURCE_TRTLLM: "TensorRT-LLM request",
    SOURCE_SGLANG: "SGLang request",
}
"""The unit each source's counts come in (what the gate permutes, and what is lost)."""


def unit_name(source: str) -> str:
    return _UNITS.get(source, "vLLM window")


def lost_units(resets: Sequence[CounterReset], counted: bool = True) -> str:
    """The lost units of `resets` by source: `3 vLLM windows`, `1 vLLM window and 2 SGLang
    requests`; without `counted`, their kinds (`vLLM windows and SGLang requests`)."""
    lost = [r for r in resets if r.lost]
    found = []
    for source in dict.fromkeys(r.source for r in lost):
        count = sum(1 for r in lost if r.source == source)
        plural = "s" if count != 1 or not counted else ""
        found.append((f"{count} " if counted else "") + f"{unit_name(source)}{plural}")
    return " and ".join(found)


GROUP_NAMED = 5
"""Units a grouped counter-reset line names besides its first (the rest counted)."""


def grouped(resets: Sequence[CounterReset]) -> list[tuple[str, str]]:
    """(side, sentence) per group of `resets` that say the same but for the unit they name:
    one sentence for a unit alone, else `in 12 vLLM windows: <the first's> (likewise: …)`
    (telem67: a server restarted under a run printed the same line once per window)."""
    groups: dict[tuple[str, str], list[CounterReset]] = {}
    for reset in resets:
        groups.setdefault((reset.side, replace(reset, window="").describe()), []).append(reset)
    found = []
    for (side, _), members in groups.items():
        first, others = members[0], [m.window for m in members[1:]]
        if not others:
            found.append((side, first.describe()))
            continue
        named = ", ".join(others[:GROUP_NAMED])
        if len(others) > GROUP_NAMED:
            named += f", and {len(others) - GROUP_NAMED:,} more"
        found.append(
            (
                side,
                f"in {len(members):,} {unit_name(first.source)}s: {first.describe()} "
                f"(likewise: {named})",
            )
        )
    return found
