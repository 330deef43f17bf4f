"""The distribution verdict of a triage, as the bundle states it: how many nondeterministic
records were judged by their output distribution, which moved, and what the run could have
detected where none did."""

from __future__ import annotations

from k3diff.documents.triage import TriageDocument, TriageRecord


def untested_nondeterminism(record: TriageRecord) -> bool:
    """A mode of the record where a side gave several outputs (or the requests sampled) has no
    distribution test: its difference is not explained, whatever its category (a document
    written before the test existed, or a mode too thin to test)."""
    return any(
        mode.distribution is None and (mode.base.distinct >= 2 or mode.patch.distinct >= 2)
        for mode in record.modes
    )


def distribution_sentence(triage: TriageDocument) -> str | None:
    """'distribution tests on 3 records (3 sampled, judged at --shift 35 %): 1 shifted (q2);
    1 held no-power (q3: its test could not have detected 35 %); the least sensitive test that
    passed had 80 % power against 30 % of the answers moved to one new answer' (None when no
    record was tested)."""
    found = [
        (record, mode, mode.distribution)
        for record in triage.records
        for mode in record.modes
        if mode.distribution is not None
    ]
    tested = [(record, test) for record, _, test in found]
    if not tested:
        return None
    keys = list(dict.fromkeys(record.key for record, _ in tested))
    sampled = len({record.key for record, test in tested if test.sampled})
    shifted = list(dict.fromkeys(record.key for record, test in tested if test.rejects))
    judged = "" if triage.shift is None else f", judged at --shift {100 * triage.shift:.3g} %"
    sentence = f"distribution tests on {len(keys):,} record{'s' if len(keys) != 1 else ''}"
    sentence += f" ({sampled:,} sampled{judged})" if sampled else ""
    if shifted:
        sentence += f": {len(shifted):,} shifted ({', '.join(shifted[:5])})"
    else:
        sentence += ": none shifted"
    held = list(
        dict.fromkeys(
            record.key
            for record, mode, test in found
            if test.sampled and not test.rejects and "no-power" in mode.flags
        )
    )
    if held:
        sentence += (
            f"; {len(held):,} held no-power ({', '.join(held[:5])}: "
            f"{'its test' if len(held) == 1 else 'their tests'} could not have detected "
            f"{'--shift' if triage.shift is None else f'{100 * triage.shift:.3g} %'})"
        )
    passed = [
        test.detectable_shift
        for _, mode, test in found
        if not test.rejects and not (test.sampled and "no-power" in mode.flags)
    ]
    if passed and triage.power is not None:
        power = f"{100 * triage.power:.3g} % power"
        if any(shift is None for shift in passed):
            sentence += f"; at least one could not detect any shift to a new answer with {power}"
        else:
            worst = max(shift for shift in passed if shift is not None)
            sentence += (
                f"; the least sensitive test that passed had {power} against {100 * worst:.3g} % "
                "of the answers moved to one new answer"
            )
    return sentence
