"""What each benchmark case's `k3diff wheels` JSON must say, so a fast wrong answer never passes.

Each check returns a list of problems; an empty list means the report is right.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from bench_wheel_cases import Case, EditPlan, compressed_layouts

Report = dict[str, Any]

CUBLAS_LIBRARIES = frozenset(
    f"nvidia/cublas/lib/{name}"
    for name in ("libcublas.so.12", "libcublasLt.so.12", "libnvblas.so.12")
)

EXPECTED_CODES = frozenset({"W201", "W203"})
"""The findings of cases a and b: the edit's Python files changed (W201) and added (W203), which
are reported, not failed (the base's WHEEL tag lines are no W605 since stop 59)."""


def check_report(case: Case, report: Report) -> list[str]:
    """Problems with `report` for `case`, in the order found."""
    problems = []
    if report.get("schema") != "k3diff.wheels/1":
        problems.append(f"schema is {report.get('schema')!r}, not 'k3diff.wheels/1'")
    verdict_exit = report.get("verdict", {}).get("exit_code")
    if verdict_exit != case.expected_exit:
        problems.append(f"verdict exit_code {verdict_exit}, expected {case.expected_exit}")
    if case.key in ("a", "b"):
        codes = {finding["code"] for finding in report.get("findings", [])}
        if codes != EXPECTED_CODES:
            problems.append(f"findings {sorted(codes)}, expected only {sorted(EXPECTED_CODES)}")
    return problems + CHECKS[case.key](case, report)


def how_counts(report: Report) -> Counter[str]:
    """How many entries each kind of evidence decided."""
    return Counter(entry["how"] for entry in report["entries"])


def _by_status(report: Report, status: str) -> set[str]:
    return {entry["path"] for entry in report["entries"] if entry["status"] == status}


def _edit_problems(plan: EditPlan, report: Report) -> list[str]:
    """The patch changes exactly the edited files and RECORD, adds one file, removes none."""
    problems = []
    changed = _by_status(report, "changed")
    if changed != {*plan.edited, plan.record}:
        problems.append(f"changed entries {sorted(changed)[:5]}… are not the 12 edits + RECORD")
    if _by_status(report, "added") != {plan.added}:
        problems.append(f"added entries are not exactly {plan.added}")
    if _by_status(report, "missing"):
        problems.append("entries reported missing")
    python = report["summary"]["python"]
    if (python["changed"], python["added"]) != (len(plan.edited), 1):
        problems.append(f"python summary {python}, expected 12 changed and 1 added")
    return problems


def _check_kept_bytes(case: Case, report: Report) -> list[str]:
    assert case.plan is not None
    problems = _edit_problems(case.plan, report)
    not_raw = [
        entry["path"]
        for entry in report["entries"]
        if entry["path"] not in case.plan.touched
        and (entry["status"], entry["how"]) != ("identical", "raw-bytes")
    ]
    if not_raw:
        problems.append(f"{len(not_raw)} unchanged entries not proven by raw-bytes: {not_raw[:3]}")
    if report["summary"]["native"]["total"] == 0:
        problems.append("no native entries found")
    return problems


def _check_recompressed(case: Case, report: Report) -> list[str]:
    """Identical entries whose compressed layout differs must have been inflated."""
    assert case.plan is not None
    problems = _edit_problems(case.plan, report)
    base, patch = compressed_layouts(case.base), compressed_layouts(case.patch)
    wrong = []
    for entry in report["entries"]:
        if entry["status"] != "identical":
            continue
        same_layout = base[entry["base_path"]] == patch[entry["patch_path"]]
        proven = entry["how"] == "content" and entry["recompressed"]
        if not proven and not (same_layout and entry["how"] == "raw-bytes"):
            wrong.append(entry["path"])
    if wrong:
        problems.append(f"{len(wrong)} recompressed entries not proven by content: {wrong[:3]}")
    return problems


def _paired_metadata(report: Report) -> list[str]:
    """dist-info entries pair across the version change instead of showing as missing/added."""
    one_sided = [
        entry["path"]
        for entry in report["entries"]
        if entry["kind"] == "metadata" and entry["status"] in ("missing", "added")
    ]
    renamed = [
        entry
        for entry in report["entries"]
        if entry["kind"] == "metadata" and entry["base_path"] != entry["patch_path"]
    ]
    problems = [f"dist-info entries not paired: {one_sided[:3]}"] if one_sided else []
    if not renamed:
        problems.append("no dist-info entry paired across the version change")
    return problems


def _check_cublas(case: Case, report: Report) -> list[str]:
    problems = _paired_metadata(report)
    changed_natives = {
        entry["path"]
        for entry in report["entries"]
        if entry["kind"] == "native" and entry["status"] == "changed"
    }
    if changed_natives != CUBLAS_LIBRARIES:
        problems.append(f"changed natives {sorted(changed_natives)}, expected the 3 libraries")
    return problems


def _check_torch_releases(case: Case, report: Report) -> list[str]:
    problems = _paired_metadata(report)
    if report["summary"]["native"]["changed"] == 0:
        problems.append("no native entry reported changed between torch 2.5.0 and 2.5.1")
    return problems


CHECKS: dict[str, Callable[[Case, Report], list[str]]] = {
    "a": _check_kept_bytes,
    "b": _check_recompressed,
    "c": _check_cublas,
    "d": _check_torch_releases,
    "e": _check_kept_bytes,
    "f": _check_recompressed,
}
