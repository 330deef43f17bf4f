"""Every reader checks a document against itself: its counts and its verdict are recomputed from
its own records, and a document whose summary disagrees with them is refused (exit 2), naming
each field and both numbers.

Refusing, rather than silently using the recomputed numbers, is deliberate: a summary that
disagrees with its records was edited or is corrupt, and a bundle that quietly repaired it would
hide that from the reviewer who signs it. Verdicts are checked in the direction that matters: a
document that says `ok` while its own records fail its policy is refused; one that fails while
its records would pass is left failing (that costs a second look, never a wrong pass).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from k3diff.documents import ids
from k3diff.errors import InputError
from k3diff.responses.results import DIFFERING
from k3diff.triage.model import Category

ONE_SIDED = ("only-base", "only-patch")
WHEEL_STATUSES = ("identical", "changed", "missing", "added")


def _records(body: Mapping[str, Any], name: str, field: str = "records") -> list[Mapping[str, Any]]:
    records = body.get(field)
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        raise InputError(f"{name}: '{field}' is not a list of objects")
    return records


def _compare(
    problems: list[str], summary: Mapping[str, Any], field: str, counted: int, where: str = ""
) -> None:
    """Note a disagreement when the summary states `field` and it is not `counted`."""
    if field not in summary:
        return
    stated = summary[field]
    if stated != counted:
        problems.append(f"{where}summary.{field} is {stated!r} but its records give {counted:,}")


def _verdict_ok(body: Mapping[str, Any]) -> bool:
    verdict = body.get("verdict")
    verdict = verdict if isinstance(verdict, Mapping) else {}
    return verdict.get("ok") is not False and verdict.get("exit_code") in (0, None)


def _raise(name: str, problems: Sequence[str]) -> None:
    if problems:
        raise InputError(
            f"{name}: the document disagrees with itself ({'; '.join(problems)}): it was edited "
            "or is corrupt; regenerate it with the command that wrote it"
        )


def check_responses(body: Mapping[str, Any], name: str) -> None:
    """`k3diff.responses/1`: record counts, statuses, exact matches and the verdict."""
    records = _records(body, name)
    summary = body.get("summary")
    summary = summary if isinstance(summary, Mapping) else {}
    statuses = Counter(str(r.get("status")) for r in records)
    paired = [r for r in records if r.get("status") not in ONE_SIDED]
    differing = sum(1 for r in paired if r.get("status") in DIFFERING)
    problems: list[str] = []
    _compare(problems, summary, "records", len(records))
    _compare(problems, summary, "paired", len(paired))
    for field, status in (("only_base", "only-base"), ("only_patch", "only-patch")):
        _compare(problems, summary, field, statuses.get(status, 0))
    _compare(
        problems, summary, "exact_match", sum(1 for r in paired if r.get("text_match") is True)
    )
    _compare(problems, summary, "differing", differing)
    _compare(problems, summary, "errors", statuses.get("error", 0))
    by_status = summary.get("by_status")
    if isinstance(by_status, Mapping):
        for status in sorted(set(by_status) | set(statuses)):
            stated = by_status.get(status, 0)
            if stated != statuses.get(status, 0):
                problems.append(
                    f"summary.by_status.{status} is {stated!r} but its records give "
                    f"{statuses.get(status, 0):,}"
                )
    one_sided = len(records) - len(paired)
    failing = differing or not paired or (one_sided and not summary.get("unpaired_allowed"))
    if failing and _verdict_ok(body):
        problems.append(
            f"verdict says ok but {differing:,} of {len(paired):,} paired records differ"
            + (f" and {one_sided:,} are on one side only" if one_sided else "")
        )
    _raise(name, problems)


def check_triage(body: Mapping[str, Any], name: str) -> None:
    """`k3diff.triage/1`: records per category, regression candidates and the verdict."""
    records = _records(body, name)
    summary = body.get("summary")
    summary = summary if isinstance(summary, Mapping) else {}
    categories = Counter(str(r.get("category")) for r in records)
    candidates = sum(1 for r in records if r.get("regression_candidate") is True)
    problems: list[str] = []
    _compare(problems, summary, "records", len(records))
    _compare(problems, summary, "regression_candidates", candidates)
    for category in Category:
        _compare(problems, summary, category.value, categories.get(category.value, 0))
    inconclusive = categories.get("inconclusive", 0)
    gated = inconclusive if body.get("fail_inconclusive") is True else 0
    if (candidates or gated) and _verdict_ok(body):
        problems.append(
            f"verdict says ok but {candidates:,} records are regression candidates"
            + (f" and {gated:,} inconclusive under fail_inconclusive" if gated else "")
        )
    vacuous = sum(1 for r in records if "vacuous" in (r.get("flags") or []))
    if "vacuous" in summary:
        _compare(problems, summary, "vacuous", vacuous)
    if vacuous and _verdict_ok(body):
        problems.append(f"verdict says ok but {vacuous:,} records rest on a vacuous control")
    _raise(name, problems)


def check_wheels(body: Mapping[str, Any], name: str, where: str = "") -> None:
    """`k3diff.wheels/1`: per-kind entry counts and the verdict against failing findings."""
    entries = _records(body, name, "entries")
    summary = body.get("summary")
    summary = summary if isinstance(summary, Mapping) else {}
    problems: list[str] = []
    for kind, stated in summary.items():
        if not isinstance(stated, Mapping):
            continue
        mine = [e for e in entries if e.get("kind") == kind]
        _compare(problems, stated, "total", len(mine), f"{where}{kind}: ")
        for status in WHEEL_STATUSES:
            counted = sum(1 for e in mine if e.get("status") == status)
            _compare(problems, stated, status, counted, f"{where}{kind}: ")
    errors = _failing_findings(body.get("findings"))
    if errors and _verdict_ok(body):
        problems.append(f"{where}verdict says ok but {errors:,} findings have severity error")
    _raise(name, problems)


def check_wheelset(body: Mapping[str, Any], name: str) -> None:
    """`k3diff.wheelset/1`: every pair's wheels document, and the set's verdict."""
    pairs = _records(body, name, "pairs")
    failing = 0
    for index, pair in enumerate(pairs):
        inner = pair.get("wheels") if isinstance(pair.get("wheels"), Mapping) else pair
        if isinstance(inner, Mapping) and "entries" in inner:
            check_wheels(inner, name, f"pairs[{index}] ")
            failing += not _verdict_ok(inner)
    if failing and _verdict_ok(body):
        _raise(name, [f"verdict says ok but {failing:,} pairs fail"])


def check_audit(body: Mapping[str, Any], name: str) -> None:
    """`k3diff.audit/2`: the verdict against findings of severity error."""
    artifacts = _records(body, name, "artifacts")
    findings = list(body.get("findings") or [])
    findings += [f for a in artifacts for f in a.get("findings") or []]
    errors = _failing_findings(findings)
    if errors and _verdict_ok(body):
        _raise(name, [f"verdict says ok but {errors:,} findings have severity error"])


def check_logs(body: Mapping[str, Any], name: str) -> None:
    """`k3diff.logs/1`: the summary's counts of new findings, and the verdict against error
    findings new on the patch (any error finding under `--strict`)."""
    findings = _records(body, name, "findings")
    new = [f for f in findings if f.get("side") == "patch" and f.get("new") is True]
    errors = [f for f in findings if f.get("severity") == "error"]
    new_errors = [f for f in new if f.get("severity") == "error"]
    summary = body.get("summary")
    summary = summary if isinstance(summary, Mapping) else {}
    problems: list[str] = []
    _compare(problems, summary, "new_on_patch", len(new))
    _compare(problems, summary, "new_errors_on_patch", len(new_errors))
    verdict = body.get("verdict")
    strict = isinstance(verdict, Mapping) and verdict.get("strict") is True
    if _verdict_ok(body) and (new_errors or (strict and errors)):
        failing = len(errors) if strict else len(new_errors)
        problems.append(f"verdict says ok but {failing:,} error findings fail it")
    _raise(name, problems)


def check_telemetry(body: Mapping[str, Any], name: str) -> None:
    """`k3diff.telemetry/1`: a verdict of ok while an expected axis was not exercised."""
    gaps = _records(body, name, "not_exercised")
    if gaps and _verdict_ok(body):
        _raise(name, [f"verdict says ok but {len(gaps):,} expected axes were not exercised"])


def _failing_findings(findings: object) -> int:
    if not isinstance(findings, list):
        return 0
    return sum(1 for f in findings if isinstance(f, Mapping) and f.get("severity") == "error")


CHECKS: Mapping[str, Callable[[Mapping[str, Any], str], None]] = {
    ids.RESPONSES: check_responses,
    ids.TRIAGE: check_triage,
    ids.WHEELS: check_wheels,
    ids.WHEELSET: check_wheelset,
    ids.AUDIT: check_audit,
    ids.LOGS: check_logs,
    ids.TELEMETRY: check_telemetry,
}
"""The self-check of each JSON document, by schema (samples logs are checked line by line by
`k3diff.documents.samples`)."""


def check_document(schema: str, body: Mapping[str, Any], name: str) -> bool:
    """Check `body` against itself; True when a check exists for its schema (it was
    cross-checked), InputError when it disagrees with itself."""
    check = CHECKS.get(schema)
    if check is None:
        return False
    check(body, name)
    return True
