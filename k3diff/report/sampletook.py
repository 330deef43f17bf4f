"""What a sampled run took per record and side, as `k3diff sample`'s summary says it: a side
whose every request failed answered none (small71; before: "this run took 0 or more per record
and side", read as a run that merely took few)."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.sample.model import RecordStats


def took_clause(counted: Sequence[RecordStats], needed: int) -> str:
    """'; this run took 35 or more per record and side[, fewer than 60]', or, where a side
    answered none of its requests, '; the patch side answered none of its requests; the other
    side took 35 or more per record'."""
    mute = sorted({r.side for r in counted} - {r.side for r in counted if r.n})
    took = "".join(f"; the {side} side answered none of its requests" for side in mute)
    least = min((r.n for r in counted if r.side not in mute), default=None)
    if least is not None:  # the sides that answered
        who = "the other side took" if mute else "this run took"
        took += f"; {who} {least} or more per record{'' if mute else ' and side'}"
        took += f", fewer than {needed}" if least < needed else ""
    return took
