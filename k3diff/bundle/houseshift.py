"""A triage document's sampled non-rejections held to the house `--shift` and `--power`
(hunt76): a document made (or edited) at a laxer `--shift` or a smaller `--power` clears a
sampled mode whose test could not have detected 35 % of the answers moved with 80 % power,
so `report` holds it no-power, as triage at the defaults does, whatever the document says.
The house α's counterpart is `housealpha`; this one needs no rerun: the test's
`detectable_shift` at the document's power is in the document, and a smaller power only
shrinks it."""

from __future__ import annotations

from k3diff.bundle.housealpha import rejudge
from k3diff.documents.triage import TriageDocument, TriageRecord
from k3diff.documents.triagemodes import TriageMode
from k3diff.numbers import named
from k3diff.output import plural
from k3diff.triage.model import HELD_FLAGS
from k3diff.triage.settings import Settings
from k3diff.triage.shiftverdict import beyond_shift

HOUSE_SHIFT = Settings.shift
"""`triage --shift`'s default, 0.35."""
HOUSE_POWER = Settings.power
"""`triage --power`'s default, 0.8."""


def _cleared_laxly(mode: TriageMode, lax_power: bool) -> bool:
    """A sampled mode whose distribution test did not reject, no match, that the house
    settings would hold: its test could not have detected the house shift, or its figure is at
    a power below the house's (so says nothing of the house's)."""
    test = mode.distribution
    if test is None or not test.sampled or test.rejects:
        return False
    stable = all(s.distinct == 1 and s.n >= 2 for s in (mode.base, mode.patch))
    if mode.category == "match" and not mode.novelty and stable:
        return False
    return lax_power or beyond_shift(test.detectable_shift, HOUSE_SHIFT)


def _cleared(record: TriageRecord) -> bool:
    return not record.regression_candidate and not HELD_FLAGS & set(record.flags)


def house_held(triage: TriageDocument) -> tuple[str, ...]:
    """The records (named) the document clears only by its laxer `shift` or smaller `power`. A
    document without `power` (which triage has written since before `shift`, and which no
    sampled non-rejection is read without) states no power its tests' figures hold at."""
    shift = HOUSE_SHIFT if triage.shift is None else triage.shift
    lax_power = triage.power is None or triage.power < HOUSE_POWER
    if shift <= HOUSE_SHIFT and not lax_power:
        return ()
    return tuple(
        record.name
        for record in triage.records
        if _cleared(record) and any(_cleared_laxly(m, lax_power) for m in record.modes)
    )


def fails_at_house(name: str, triage: TriageDocument, house: TriageDocument | None) -> bool:
    """Whether the house α (`housealpha.rejudge`, `house`: triage run again at it), `--shift`
    or `--power` fails a record the document clears: such a triage explains no comparison."""
    return bool(rejudge(name, triage, house)) or bool(house_held(triage))


def house_held_sentence(triage: TriageDocument, held: tuple[str, ...]) -> str:
    """'at the house --shift 35 % and --power 80 % (the document's 100 % and 80 %), 1 record
    held no-power: p1 (a sampled test that did not reject could not have detected 35 % …)'."""
    shift = HOUSE_SHIFT if triage.shift is None else triage.shift
    power = "no power" if triage.power is None else f"{100 * triage.power:.3g} %"
    house = f"{100 * HOUSE_SHIFT:.3g} %"
    return (
        f"at the house --shift {house} and --power {100 * HOUSE_POWER:.3g} % (the document's "
        f"{100 * shift:.3g} % and {power}), {plural(len(held), 'record')} held no-power: "
        f"{named(held)} (a sampled test that did not reject could not have detected {house} of "
        f"the answers moved with {100 * HOUSE_POWER:.3g} % power: sample more, and triage at "
        "the defaults)"
    )
