"""A triage document's `sampled` checked against what decided it, and its distribution tests
against the document's own numbers (`triagecheck`; stop 59's forgery, review59a: a greedy mode
held `novel-undecided` made `sampled` with a distribution test pasted in from another run
passed `report` alone).

Each mode's `requests` records, per side, the sampling fields its requests sent as the samples
logged them (`shift.requests`), so `sampled` is recounted by triage's rule (`shift.sampled`):
both sides sent fields that sample, less the seeded modes whose repeats were one draw. Every
mode promises `requests` and each side's `errors` (`triagemodes.PROMISED`): a document without
them (written before `requests` was added within `k3diff.triage/1`, or with them deleted, which
made the stop-59 forgery pass again: forge60) is refused when read alone (`unpromised`), and
believed beside its comparison and logs only as far as triage run again on them agrees
(`bundle.rederive`). The distribution tests agree with their family (each `level` is α over
`distribution_tests`, which counts the tests the records carry) and with their mode's samples
(`moved` counts each side's successful samples). A document edited consistently in all of them
is still caught only by running triage again (`report` with the comparison and logs)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from k3diff.documents.triage import TriageDocument, TriageRecord
from k3diff.documents.triagemodes import TriageMode, TriageSide
from k3diff.sampling_params import RequestFields
from k3diff.triage.distribution import MMD_SAMPLES
from k3diff.triage.sampledlevel import judged_at, over_text

SIDES = ("base", "patch")


def unpromised(view: TriageDocument) -> str | None:
    """The first field every mode promises that the document lacks (`records[0].modes[1].
    requests`), None when it has them all."""
    for index, record in enumerate(view.records):
        for number, mode in enumerate(record.modes):
            if mode.unpromised:
                return f"records[{index}].modes[{number}].{mode.unpromised[0]}"
    return None


def unpromised_error(name: str, field: str) -> str:
    """The one line `report` refuses a document without a promised field with."""
    return (
        f"{name}: field {field!r} is missing: the document was written by a k3diff older than "
        "it (or the field was removed), so its sampled modes cannot be recounted from the "
        "requests its samples sent; re-run k3diff triage on the comparison and sample logs, or "
        "give report the comparison and sample logs with it (report then runs triage again)"
    )


def sampled_problems(view: TriageDocument) -> list[str]:
    """Every way the document's `sampled` words and distribution tests disagree with the
    numbers beside them (empty: none found)."""
    problems = []
    for index, record in enumerate(view.records):
        for number, mode in enumerate(record.modes):
            where = f"records[{index}].modes[{number}]"
            problems += _requests_problems(record, mode, where)
            problems += _moved_problems(mode, where)
    return problems + _family_problems(view)


def _requests_problems(record: TriageRecord, mode: TriageMode, where: str) -> list[str]:
    requests = mode.requests
    if requests is None:
        return []
    if set(requests) != set(SIDES):
        return [
            f"{where}.requests names {', '.join(sorted(requests)) or 'no side'}, not base and patch"
        ]
    problems = []
    for name in SIDES:
        side: TriageSide = getattr(mode, name)
        sent = sum(fields.count for fields in requests[name])
        errors = None if mode.errors is None else mode.errors[name]
        if any(fields.count < 1 for fields in requests[name]):
            problems.append(f"{where}.requests.{name} counts fewer than 1 request of some fields")
        elif errors is not None and sent != side.sampled + errors:
            problems.append(
                f"{where}.requests.{name} counts {sent:,} requests but its {name} has "
                f"{side.sampled:,} successful samples and {errors:,} failed"
            )
    expected = _expected_sampled(record, mode, requests)
    stated = mode.sampled
    if stated is None and mode.distribution is not None:
        stated = mode.distribution.sampled
    if expected is not None and stated is not None and stated != expected:
        problems.append(
            f"{where}.sampled is {_word(stated)} but its requests make it {_word(expected)} "
            f"({_requests_text(requests)})"
        )
    return problems


def _expected_sampled(
    record: TriageRecord, mode: TriageMode, requests: Mapping[str, tuple[RequestFields, ...]]
) -> bool | None:
    """`shift.sampled` from the recorded fields: both sides sent fields that sample, other than
    a seeded one draw (every request seeded, each side 2 or more successful samples of one
    text). None where the document's numbers cannot tell whether a side's samples were one
    text (its capture counted, two distinct outputs, no `captures` to say which)."""
    if not all(any(fields.samples for fields in requests[name]) for name in SIDES):
        return False
    if not all(fields.seed for name in SIDES for fields in requests[name]):
        return True
    one = [_one_text(record, mode, name) for name in SIDES]
    if None in one:
        return None if all(one_text is not False for one_text in one) else True
    return not all(one)


def _one_text(record: TriageRecord, mode: TriageMode, name: str) -> bool | None:
    """Whether the side's successful samples (the capture not among them) were 2 or more of
    one text."""
    side: TriageSide = getattr(mode, name)
    if side.sampled < 2:
        return False
    if not side.captured or side.distinct == 1:
        return side.distinct == 1
    if side.distinct > 2:
        return False
    reproduced = (record.captures or {}).get(name, {}).get(mode.mode)
    # Two distinct with the capture counted: the samples are one text only where none of them
    # gave the capture's.
    return None if reproduced is None else reproduced[0] == 0


def _moved_problems(mode: TriageMode, where: str) -> list[str]:
    """A distribution test runs on 2 or more successful samples a side, and its `moved`
    counts each side's (at most `MMD_SAMPLES` for the MMD test)."""
    test = mode.distribution
    if test is None:
        return []
    sides = {name: getattr(mode, name).sampled for name in SIDES}
    if min(sides.values()) < 2:
        return [
            f"{where}.distribution is a test, but its sides have {sides['base']:,} and "
            f"{sides['patch']:,} successful samples: no test runs on fewer than 2 a side"
        ]
    cap = MMD_SAMPLES if test.test == "mmd" else math.inf
    problems = []
    for number, moved in enumerate(test.moved):
        other = "base" if moved.side == "patch" else "patch"
        if moved.side not in SIDES:
            problems.append(f"{where}.distribution.moved[{number}].side is {moved.side!r}, no side")
            continue
        own, theirs = min(sides[moved.side], cap), min(sides[other], cap)
        if (moved.n, moved.other_n) != (own, theirs):
            problems.append(
                f"{where}.distribution.moved[{number}] counts {moved.n:,} {moved.side} and "
                f"{moved.other_n:,} {other} samples but the mode has {own:,} and {theirs:,}"
            )
        elif not (0 <= moved.count <= moved.n and 0 <= moved.other <= moved.other_n):
            problems.append(
                f"{where}.distribution.moved[{number}] counts {moved.count:,} of {moved.n:,} "
                f"and {moved.other:,} of {moved.other_n:,}"
            )
    return problems


def _family_problems(view: TriageDocument) -> list[str]:
    """`distribution_tests` recounted from the records' tests (`shift.family_size`), and each
    test's `level` α over it (`shift.distribution_tests`)."""
    tests = [
        (index, number, mode.mode, mode.distribution)
        for index, record in enumerate(view.records)
        for number, mode in enumerate(record.modes)
        if mode.distribution is not None
    ]
    pooled = {(test.test, name) for _, _, name, test in tests if test.pooled_p is not None}
    own = sum(1 for *_, test in tests for t in test.family_tests if not t.startswith("pooled:"))
    token_pooled = {
        (name, t)
        for _, _, name, test in tests
        for t in test.family_tests
        if t.startswith("pooled:")
    }
    family = len(tests) + len(pooled) + own + len(token_pooled)
    problems = []
    stated = view.distribution_tests
    if stated is not None and stated != family:
        problems.append(
            f"distribution_tests is {stated:,} but its records carry {family:,} distribution "
            f"test{'s' if family != 1 else ''} ({len(tests):,} of records and modes, "
            f"{len(pooled) + len(token_pooled):,} pooled, {own:,} first-token)"
        )
    for index, number, _, test in tests:
        level = test.level
        if level is None or not math.isfinite(level) or level <= 0:
            if level is not None:
                problems.append(f"records[{index}].modes[{number}].distribution.level is {level!r}")
            continue
        judged = judged_at(view.alpha, test.sampled)
        if not math.isclose(judged / level, family, rel_tol=1e-9):
            problems.append(
                f"records[{index}].modes[{number}].distribution.level is {level:g}, "
                f"{over_text(test.sampled)}{judged / level:.4g}, but the document's family "
                f"holds {family:,} distribution tests{_before_aa77(test.sampled, view.alpha / level, family)}"
            )
    return problems


def _before_aa77(sampled: bool, tests: float, family: int) -> str:
    """A sampled test at α over its family: the level a triage before aa77 wrote."""
    if not sampled or not math.isclose(tests, family, rel_tol=1e-9):
        return ""
    return (
        " (α over them, as triage wrote a sampled test before aa77 judged it at α / 2: "
        "run triage again)"
    )


def _requests_text(requests: Mapping[str, tuple[RequestFields, ...]]) -> str:
    """`base: 3 at temperature 0; patch: 3 at temperature 0, seed`."""
    return "; ".join(
        f"{name}: " + ", ".join(_fields_text(fields) for fields in requests[name])
        if requests[name]
        else f"{name}: none"
        for name in SIDES
    )


def _fields_text(fields: RequestFields) -> str:
    knobs = {
        "temperature": fields.temperature,
        "top_p": fields.top_p,
        "top_k": fields.top_k,
        "min_p": fields.min_p,
    }
    sent = [f"{name} {value:g}" for name, value in knobs.items() if value is not None]
    sent += ["seed"] if fields.seed else []
    return f"{fields.count:,} at {' '.join(sent) or 'no sampling field'}"


def _word(value: bool) -> str:
    return "true" if value else "false"
