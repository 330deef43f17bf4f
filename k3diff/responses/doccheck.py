"""The self-check of a `k3diff.responses/1` comparison read back (`check_responses`): its counts,
statuses, texts, ignored fields and verdict against its records, so that an edited document is
refused alike by `report` and `triage` (`parse_comparison`, the reader that checks)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.docbody import Kind, parse_body
from k3diff.errors import InputError
from k3diff.exitcodes import verdict_problems
from k3diff.responses.document import ResponsesDocument, read, records_read
from k3diff.responses.epochs import EPOCH_KEY_FIELD
from k3diff.responses.gateview import gate_problems
from k3diff.responses.ignore import why_deciding
from k3diff.responses.lmeval import LmEvalShape
from k3diff.responses.recordview import ONE_SIDED, ResponsesRecord
from k3diff.responses.results import DIFFERING, Status
from k3diff.responses.scorecount import recount_problems
from k3diff.responses.scoresview import score_problems


def parse_comparison(data: bytes | str, path: Path) -> ResponsesDocument:
    """A comparison's bytes (or text), parsed (`k3diff.docbody`), its records read one by one
    (`records_read`), read and checked against itself, as
    `k3diff.documents.read.read_document` reads one; another kind of document is refused."""
    kind, body = parse_body(data, path, {Kind.RESPONSES: records_read(str(path))})
    if kind is not Kind.RESPONSES:
        raise InputError(
            f"{path}: a {kind.value} document, not a {Kind.RESPONSES.value} comparison (give "
            "the output of k3diff responses BASE PATCH --format json)"
        )
    view = read(body, str(path))
    check_responses(view, str(path))
    return view


def _compare(problems: list[str], summary: Mapping[str, Any], field: str, counted: int) -> None:
    """Note a disagreement when the summary states `field` and it is not `counted`."""
    if field in summary and summary[field] != counted:
        problems.append(f"summary.{field} is {summary[field]!r} but its records give {counted:,}")


def refuse_disagreement(name: str, problems: Sequence[str]) -> None:
    """InputError naming every way a document disagrees with itself (none: nothing)."""
    if problems:
        raise InputError(
            f"{name}: the document disagrees with itself ({'; '.join(problems)}): it was edited "
            "or is corrupt; regenerate it with the command that wrote it"
        )


def check_responses(view: ResponsesDocument, name: str) -> None:
    """`k3diff.responses/1` against itself: each key once, the record counts, statuses and
    exact matches, the score tests and the verdict."""
    records, summary = view.records, view.summary
    statuses = Counter(r.status for r in records)
    paired = [r for r in records if r.status not in ONE_SIDED]
    differing = sum(1 for r in paired if r.status in DIFFERING)
    problems = [
        f"record {key!r} appears {count} times"
        for key, count in Counter(r.key for r in records).items()
        if count > 1
    ]
    _compare(problems, summary, "records", len(records))
    _compare(problems, summary, "paired", len(paired))
    for field, status in (("only_base", "only-base"), ("only_patch", "only-patch")):
        _compare(problems, summary, field, statuses.get(status, 0))
    _compare(problems, summary, "exact_match", sum(1 for r in paired if r.text_match is True))
    _compare(problems, summary, "differing", differing)
    _compare(problems, summary, "errors", statuses.get("error", 0))
    normalized = sum(1 for r in paired if r.normalized_match)
    _compare(problems, summary, "normalized_match", normalized)
    by_status = summary.get("by_status")
    if isinstance(by_status, Mapping):
        for status in sorted(set(by_status) | set(statuses)):
            stated, counted = by_status.get(status, 0), statuses.get(status, 0)
            if stated != counted:
                problems.append(
                    f"summary.by_status.{status} is {stated!r} but its records give {counted:,}"
                )
    problems += _status_problems(records)
    problems += _record_problems(paired, bool(view.normalize))
    problems += _ignored_problems(paired, view.ignore_fields)
    if view.scores is not None:
        problems += score_problems(view.scores)
        comparable = [r for r in paired if r.status != Status.NOT_COMPARABLE.value]
        lm_eval = bool(view.formats) and all(name == LM_EVAL for name in view.formats)
        epochs = view.pairing_field == EPOCH_KEY_FIELD
        problems += recount_problems(view.scores, comparable, lm_eval, epochs)
    gate_failing, gate_inconsistent = gate_problems(
        view.score_gate, view.fail_on, view.scores, statuses.get("only-base", 0)
    )
    problems += gate_inconsistent
    failing = _failing(view, paired, gate_failing)
    problems += verdict_problems(view.ok, view.exit_code, failing, "its records")
    refuse_disagreement(name, problems)


def _failing(
    view: ResponsesDocument, paired: Sequence[ResponsesRecord], gate_failing: list[str]
) -> list[str]:
    """Why the records fail the comparison: `ComparisonOverview.failures`' rule (nothing
    paired; unpaired records unless allowed; pairs not comparable; a score significantly worse;
    paired records that differ). Under `--fail-on score-drop`: failed requests and the gate's
    own findings (`gate_failing`, recomputed) in place of the last two."""
    one_sided = len(view.records) - len(paired)
    statuses = Counter(r.status for r in paired)
    differing = sum(statuses[status.value] for status in DIFFERING)
    failing = []
    if not paired:
        failing.append("nothing paired")
    elif one_sided and not view.summary.get("unpaired_allowed"):
        failing.append(f"{one_sided:,} on one side only")
    if statuses[Status.NOT_COMPARABLE.value]:
        failing.append(f"{statuses[Status.NOT_COMPARABLE.value]:,} not comparable")
    if view.score_gate is not None:
        if statuses[Status.ERROR.value]:
            failing.append(f"{statuses[Status.ERROR.value]:,} failed requests")
        return failing + gate_failing
    if view.scores is not None:
        failing += [f"{test.label!r} significantly worse" for test in view.scores.failing]
    if differing:
        failing.append(f"{differing:,} of {len(paired):,} paired records differ")
    return failing


LM_EVAL = LmEvalShape.name
_STATUSES = frozenset(status.value for status in Status)


def _status_problems(records: Sequence[ResponsesRecord], shown: int = 3) -> list[str]:
    """Statuses no run of `responses` writes, and one-sided records that hold the other side's
    answer (a difference relabelled out of the verdict); the first `shown`, and how many more."""
    problems = []
    for record in records:
        key, status = record.key, record.status
        if status not in _STATUSES:
            problems.append(
                f"record {key!r} has the status {status!r}, which no run of responses writes"
            )
        elif status == "only-base" and record.patch is not None:
            problems.append(f"record {key!r} is only-base but holds the patch's answer")
        elif status == "only-patch" and record.base is not None:
            problems.append(f"record {key!r} is only-patch but holds the base's answer")
    if len(problems) > shown:
        problems[shown:] = [f"{len(problems) - shown:,} more such records"]
    return problems


def _record_problems(paired: Sequence[ResponsesRecord], normalized: bool) -> list[str]:
    """Each record's texts against its status: `responses` compares the texts of every
    record it calls a match, and a match after `--normalize` needs a run that normalised."""
    problems = []
    for record in paired:
        if record.status == "match" and record.text_match is None:
            problems.append(
                f"record {record.key!r} is a match that compares no texts (text_match null)"
            )
        if record.normalized_match and not normalized:
            problems.append(
                f"record {record.key!r} matches only after --normalize, but the run normalised "
                "nothing"
            )
        base, patch = record.base_xxh3, record.patch_xxh3
        if record.text_match is True and base is not None and patch is not None and base != patch:
            problems.append(
                f"record {record.key!r} says its texts are equal but their digests differ"
            )
        if record.status == "match" and record.text_match is False and not record.normalized_match:
            problems.append(f"record {record.key!r} is a match whose texts differ")
        if record.status == "match" and record.differs_in:
            problems.append(
                f"record {record.key!r} is a match, but its own evidence differs "
                f"({', '.join(record.differs_in)})"
            )
    return problems


def _ignored_problems(paired: Sequence[ResponsesRecord], ignored: Sequence[str]) -> list[str]:
    """Records that list a change of a top-level field the run says it left out
    (`--ignore-field model`), and a field left out that no run leaves out (what decides a
    record). A change path is dotted as the field names run, so below the top level it cannot
    tell `x`'s `y` from a field named "x.y" (which the run compared): no refusal there."""
    problems = [
        f"ignore_fields lists {path}, which no run leaves out ({why})"
        for path in ignored
        if (why := why_deciding(path)) is not None
    ]
    for record in paired:
        for path in record.field_paths:
            hit = next((i for i in ignored if path == i and "." not in i), None)
            if hit is not None:
                problems.append(
                    f"record {record.key!r} lists a change of {path}, which the run left out "
                    f"(--ignore-field {hit})"
                )
                break
    return problems
