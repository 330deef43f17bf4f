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
    """'distribution tests on 3 records (3 sampled): 1 shifted (q2); the least sensitive
    test that passed had 80 % power against 42 % of the answers moved to one new answer'
    (None when no record was tested)."""
    tested = [
        (record, mode.distribution)
        for record in triage.records
        for mode in record.modes
        if mode.distribution is not None
    ]
    if not tested:
        return None
    keys = list(dict.fromkeys(record.key for record, _ in tested))
    sampled = len({record.key for record, test in tested if test.sampled})
    shifted = list(dict.fromkeys(record.key for record, test in tested if test.rejects))
    sentence = f"distribution tests on {len(keys):,} record{'s' if len(keys) != 1 else ''}"
    sentence += f" ({sampled:,} sampled)" if sampled else ""
    if shifted:
        sentence += f": {len(shifted):,} shifted ({', '.join(shifted[:5])})"
    else:
        sentence += ": none shifted"
    passed = [test.detectable_shift for _, test in tested if not test.rejects]
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
