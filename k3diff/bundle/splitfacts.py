"""Where a side's outputs split, as the nondeterminism row says it, from `k3diff.triage/1`: how
many other outputs each side gave beside each record's reference output, and at which margins
they parted from it (near-ties are the signature of reduction order)."""

from __future__ import annotations

from k3diff.documents.triage import TriageDocument
from k3diff.output import plural


def split_branches(triage: TriageDocument) -> dict[str, list[tuple[int, float | None]]]:
    """Per side, (position, margin) of every split branch the triage document reports."""
    found: dict[str, list[tuple[int, float | None]]] = {"base": [], "patch": []}
    for record in triage.records:
        for mode in record.modes:
            for side, branches in mode.splits.items():
                if side in found:
                    found[side] += [(b.position, b.margin) for b in branches]
    return found


def split_sentence(triage: TriageDocument) -> str | None:
    """'the base gave 37 other outputs on 12 records besides each record's most common one; all
    parted from it at near-ties (margin < 0.1)', with the patch's wide-margin ones: whether the
    base's outputs split the way reduction order makes them split. It counts outputs (each other
    distinct output of a record and mode, a branch of its split tree), not the places they split
    at; polish63: it read '8 distinct base outputs split off the first sampled output'."""
    branches = split_branches(triage)
    near_tie = triage.near_tie
    base = branches["base"]
    if not base and not branches["patch"]:
        return None
    known = [m for _, m in base if m is not None]
    near = sum(1 for m in known if m < near_tie)
    if not base:
        sentence = "the base gave one output on every record"
    else:
        sentence = f"the base gave {_others(triage, 'base', len(base))}"
        if not known:
            sentence += "; margins where they parted from it unknown (no logprobs in the samples)"
        elif near == len(base):
            every = "all" if len(base) > 1 else "it"
            sentence += f"; {every} parted from it at near-ties (margin < {near_tie:g})"
        else:
            sentence += (
                f"; {near:,} parted from it at near-ties (margin < {near_tie:g}), "
                f"{len(known) - near:,} at wide margins"
            )
    wide = sum(1 for _, m in branches["patch"] if m is not None and m >= near_tie)
    if wide:
        sentence += (
            f"; the patch gave {_others(triage, 'patch', wide)}, parting from it at a wide margin"
        )
    return sentence


def _others(triage: TriageDocument, side: str, count: int) -> str:
    """'8 other outputs on 4 records besides each record's first sampled one (no output was more
    common than another)': what a side's outputs split off, the most common output, or, where no
    output repeated more than another (every output distinct, or the most common tie), only the
    first sampled."""
    ties = []
    records = set()
    for record in triage.records:
        for mode in record.modes:
            found = mode.splits.get(side, ())
            ties += [branch.from_tie for branch in found]
            if found:
                records.add(record.key)
    if not any(ties):
        source = "most common one"
    elif all(ties):
        source = "first sampled one (no output was more common than another)"
    else:
        source = "most common one (its first sampled where none was more common than another)"
    each = "each record's" if len(records) > 1 else "its"
    outputs = plural(count, "other output")
    return f"{outputs} on {plural(len(records), 'record')} besides {each} {source}"
