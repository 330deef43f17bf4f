"""A sample's output is more than its text: its finish reason and its token ids decide too.

Triage tells outputs apart by their text. `k3diff responses` fails a record whose finish
reason or token ids alone changed (neither can be `--ignore-field`ed), and a client acts on
the finish reason (`stop`, `length`, a tool call). Ways a patch changed them that the tests on
texts never saw (hunt73: each passed, exit 0, the difference a flag at most):

- a greedy mode whose patch gave a text the base also gave, with a finish reason (or token
  ids) the base never gave that text with: base `A` and `stop` 4 of 4, patch `A` and `length`
  4 of 4 read as a `match`, as `base-nondeterminism` beside a flaky base;
- a mode whose finish reasons moved off the base's: at temperature 1, where every text is new
  and none is shared, the patch's answers all `length` against the base's all `stop` were
  `both-nondeterministic`, the MMD test on texts seeing nothing. Each mode with 2 or more
  answers a side and more than one finish reason among them gets the count test
  (`distribution.count_test`, exact on these few labels: one-sided, a patch settling on the
  base's most common finish reason gives p = 1), and each mode of 2 or more records so tested
  the pooled count test on their finish reasons (`pooled_counts`, stratified by record: a
  shift spread thinly over many prompts, review73d), corrected across every test so run
  (`--correction`); a rejection at `--alpha` holds the record;
- a comparison whose captured texts agree and whose token ids differ (`tokens-differ`), where
  no mode's samples log token ids on both sides: samples of texts cannot tell it.

A held record is inconclusive (flag `finish-reason-shift`, or `token-ids-differ` for the token
ids) and fails the run; a regression candidate stays one. Token ids are judged in greedy modes
only: sampling may draw another tokenization of a text.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from k3diff.responses.recordview import ResponsesRecord
from k3diff.responses.results import Status
from k3diff.sample.names import Mode
from k3diff.triage import distribution as dist
from k3diff.triage import pooled_counts, stats
from k3diff.triage.flags import Flag
from k3diff.triage.model import RecordVerdict
from k3diff.triage.rollup import held, ordered_modes
from k3diff.triage.samples import Sample
from k3diff.triage.settings import Correction, Settings
from k3diff.triage.streams import record_stream

_Modes = Mapping[str, Mapping[str, Sequence[Sample]]]
"""One key's samples: mode -> side -> samples."""
Shift = tuple[str, str]
"""(the mode it was found in, what was found in words)."""
_Labels = tuple[list[str], list[str]]
"""One record's finish reasons in a mode: (the patch's, the base's), one label a sample."""
_Tested = tuple[tuple[str, ...], str, float, str]
"""A count test of the finish-reason family: (the records a rejection holds, the mode, p, what
it compared in words)."""


def _finish(sample: Sample) -> str | None:
    """A finish reason as the label the tests count and the reasons name (`null` for none)."""
    return json.dumps(sample.finish_reason, ensure_ascii=True)


def _token_ids(sample: Sample) -> str | None:
    return sample.line.token_ids_xxh3


def _answered(samples: Sequence[Sample]) -> list[Sample]:
    return [s for s in samples if s.text_xxh3 is not None]


def same_text_other(
    sides: Mapping[str, Sequence[Sample]], value: Callable[[Sample], str | None]
) -> tuple[str, int, tuple[str, ...]] | None:
    """Where the patch gave a text the base also gave with a `value` (finish reason, token ids)
    the base never gave it with: (that value, the patch samples giving it, the base's values
    for that text); None where every shared text came as the base gave it (samples whose
    `value` is None are left out)."""
    given: dict[str, dict[str, set[str]]] = {"base": {}, "patch": {}}
    for side, found in given.items():
        for sample in _answered(sides.get(side, ())):
            if (said := value(sample)) is not None:
                found.setdefault(sample.text_xxh3 or "", set()).add(said)
    for text, patch in given["patch"].items():
        base = given["base"].get(text)
        if base is None or patch <= base:
            continue
        new = sorted(patch - base)
        times = sum(
            1 for s in _answered(sides.get("patch", ())) if s.text_xxh3 == text and value(s) in new
        )
        return new[0], times, tuple(sorted(base))
    return None


def _shares(labels: Sequence[str]) -> str:
    counts = Counter(labels)
    return ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items()))


def _greedy_finish(mode: str, sides: Mapping[str, Sequence[Sample]]) -> str | None:
    """A greedy mode's shared text with a new finish reason, in words."""
    ended = same_text_other(sides, _finish)
    if ended is None:
        return None
    said, times, base = ended
    return (
        f"{mode}: the patch gave a text the base also gave with finish reason {said} "
        f"({times:,} of its samples), which the base never gave it with (the base: "
        f"{', '.join(base)})"
    )


def token_shifts(
    grouped: Mapping[str, _Modes], sampled: frozenset[tuple[str, str]]
) -> dict[str, Shift]:
    """Per record key whose patch gave, in a greedy mode, a text the base also gave as token ids
    the base never gave it as, that mode and that in words."""
    found: dict[str, Shift] = {}
    for key, modes in grouped.items():
        for mode in ordered_modes(dict(modes)):
            if (key, mode) in sampled:
                continue
            tokens = same_text_other(modes[mode], _token_ids)
            if tokens is not None:
                _, times, base = tokens
                found[key] = (
                    mode,
                    f"{mode}: the patch gave a text the base also gave as token ids the base "
                    f"never gave it as ({times:,} of its samples; the base: {len(base):,} "
                    "token-id sequence(s))",
                )
                break
    return found


def finish_shifts(
    grouped: Mapping[str, _Modes], sampled: frozenset[tuple[str, str]], settings: Settings
) -> dict[str, Shift]:
    """Per record key whose patch's answers ended otherwise than the base's, why in words: a
    greedy mode's shared text with a new finish reason, or a mode whose finish reasons the count
    test finds moved, the record's own or its mode's pooled one (`_pooled`), `--correction`
    across every one of them, judged at `--alpha`."""
    found: dict[str, Shift] = {}
    tested: list[_Tested] = []
    pools: dict[str, list[tuple[str, _Labels]]] = {}
    for key, modes in grouped.items():
        for mode in ordered_modes(dict(modes)):
            sides = modes[mode]
            greedy = (key, mode) not in sampled and key not in found
            if greedy and (shift := _greedy_finish(mode, sides)) is not None:
                found[key] = (mode, shift)
            base, patch = _answered(sides.get("base", ())), _answered(sides.get("patch", ()))
            labels = {_finish(s) for s in (*base, *patch)}
            if len(base) < 2 or len(patch) < 2 or len(labels) < 2:
                continue
            table = ([_finish(s) or "" for s in patch], [_finish(s) or "" for s in base])
            _, p, _ = dist.count_test(*table)
            said = f"{mode}: base {_shares(table[1])}; patch {_shares(table[0])}"
            tested.append(((key,), mode, p, f"{said}; count test"))
            pools.setdefault(mode, []).append((key, table))
    tested += [_pooled(mode, members) for mode, members in pools.items() if len(members) > 1]
    family_wise = settings.correction == Correction.HOLM
    adjusted = stats.corrected([p for _, _, p, _ in tested], family_wise)
    for (keys, mode, p, said), p_adjusted in zip(tested, adjusted, strict=True):
        if p_adjusted > settings.alpha:
            continue
        for key in keys:
            found.setdefault(
                key,
                (
                    mode,
                    f"the finish reasons moved ({said} p = {p:.3g}, corrected "
                    f"{p_adjusted:.3g} <= alpha = {settings.alpha:g})",
                ),
            )
    return found


def _pooled(mode: str, members: Sequence[tuple[str, _Labels]]) -> _Tested:
    """The mode's pooled count test on the finish reasons of its records (`pooled_counts`:
    stratified by record, each keeping its own margins), as a test of the family. A shift
    spread thinly over many prompts (review73d: 5 of every prompt's 20 answers cut at `length`
    against the base's 2, twelve prompts) is one no record's own test reaches α with after
    correction. A rejection names the records whose patch ended answers otherwise than its
    base's most common finish reason (statistic above 0)."""
    tables = [table for _, table in members]
    streams = [record_stream(key, mode, "pooled finish reasons") for key, _ in members]
    _, p, _ = pooled_counts.pooled_count_test(tables, dist.PERMUTATIONS, streams)
    named = tuple(key for key, table in members if pooled_counts.observed(table) > 0)
    patch = [label for _, (mine, _) in members for label in mine]
    base = [label for _, (_, theirs) in members for label in theirs]
    said = (
        f"{mode}: pooled over the mode's {len(members):,} records, base {_shares(base)}; "
        f"patch {_shares(patch)}; pooled count test"
    )
    return named, mode, p, said


def _held(verdict: RecordVerdict, flag: Flag, shift: Shift, why: str) -> RecordVerdict:
    """`verdict` held with `flag`; found in serial mode, the patch no longer reproduces the
    base serially (the headline's parity counts outputs, not texts)."""
    found = held(verdict, flag, why)
    if shift[0] != Mode.SERIAL.value or not found.serial_parity:
        return found
    return dataclasses.replace(found, serial_parity=False)


def hold_finish_shift(verdict: RecordVerdict, shifts: Mapping[str, Shift]) -> RecordVerdict:
    """`verdict`, made inconclusive (flag finish-reason-shift) where its patch ended its answers
    otherwise than the base (`finish_shifts`); a regression candidate stays one."""
    shift = shifts.get(verdict.key)
    if shift is None or verdict.regression_candidate:
        return verdict
    return _held(
        verdict,
        Flag.FINISH_REASON_SHIFT,
        shift,
        f"finish-reason-shift: {shift[1]}: the finish reason is output the client acts on, and "
        "the texts the other tests compare do not hold it",
    )


def hold_token_ids(
    verdict: RecordVerdict, record: ResponsesRecord, modes: _Modes, shifts: Mapping[str, Shift]
) -> RecordVerdict:
    """`verdict`, made inconclusive (flag token-ids-differ) where a greedy mode's patch gave a
    text as token ids the base never gave it as (`token_shifts`), or where the comparison found
    the captured texts equal and their token ids differing and no mode's samples log token ids
    on both sides to judge them. A regression candidate stays one."""
    if verdict.regression_candidate:
        return verdict
    shift = shifts.get(verdict.key)
    if shift is not None:
        return _held(verdict, Flag.TOKEN_IDS_DIFFER, shift, f"token-ids-differ: {shift[1]}")
    if record.status != Status.TOKENS_DIFFER.value:
        return verdict
    for sides in modes.values():
        logged = [
            any(_token_ids(s) is not None for s in _answered(sides.get(side, ())))
            for side in ("base", "patch")
        ]
        if all(logged):
            return _unexplained_ids(verdict, record, modes)
    return held(
        verdict,
        Flag.TOKEN_IDS_DIFFER,
        "token-ids-differ: the captured texts agree but their token ids differ (the "
        "comparison's tokens-differ) and no mode's samples log token ids on both sides, so no "
        "sample clears it (sample again from servers that return token ids)",
        samples_decide=False,
    )


def _unexplained_ids(
    verdict: RecordVerdict, record: ResponsesRecord, modes: _Modes
) -> RecordVerdict:
    """`verdict`, held (token-ids-differ) where the patch's captured token ids are ones no sample
    gave (review73d: samples of both sides all giving the base's ids read as a `match`, exit 0):
    as `capture-unexplained` for texts, they speak of other output than the capture the user
    asked about. Samples that gave them too (a side that gives the text both ways) clear it."""
    captured = None if record.patch is None else record.patch.token_ids_xxh3
    given = [s for sides in modes.values() for side in sides.values() for s in _answered(side)]
    if captured is None or any(_token_ids(s) == captured for s in given):
        return verdict
    return held(
        verdict,
        Flag.TOKEN_IDS_DIFFER,
        "token-ids-differ: the captured texts agree but their token ids differ (the "
        f"comparison's tokens-differ), and the patch's captured token ids are ones none of the "
        f"{len(given):,} samples gave, so the samples do not explain the difference; they "
        "speak only of the outputs sampled",
    )


def hold_besides_text(
    verdicts: Sequence[RecordVerdict],
    records: Sequence[ResponsesRecord],
    grouped: Mapping[str, _Modes],
    sampled: frozenset[tuple[str, str]],
    settings: Settings,
) -> tuple[RecordVerdict, ...]:
    """Each verdict held where its patch's output differs besides its text: its finish
    reasons (`hold_finish_shift`), then its token ids (`hold_token_ids`)."""
    ended, tokens = finish_shifts(grouped, sampled, settings), token_shifts(grouped, sampled)
    return tuple(
        hold_token_ids(
            hold_finish_shift(verdict, ended), record, grouped.get(record.key, {}), tokens
        )
        for verdict, record in zip(verdicts, records, strict=True)
    )
