"""A wheels document's source claims and waiver list against themselves (source62).

Two edits a verdict check alone would not see: a failing W401 deleted and the verdict set to
pass, leaving `provenance.summary` and the entry's `source.status` saying "mismatch"; and a
waiver in `rerun.waivers` that the `waivers` section neither applied nor lists (the bundle then
counted it and named none). No run of `wheels` writes either.
"""

from __future__ import annotations

from collections import Counter

from k3diff.documents.wheelsview import WheelsDocument
from k3diff.output import plural

STATUS_CODES = {"mismatch": "W401", "absent": "W402", "stale": "W403", "unverifiable": "W405"}
"""The finding `wheels` writes for every file of each source status (`wheels.findings`): at
severity error, at info when waived or allowed, or counted in `verdict.filtered`."""


def source_problems(view: WheelsDocument, where: str = "") -> list[str]:
    """`provenance.summary` against the entries' source statuses, and each entry of a failing
    status against the finding of its code on its path (or that code filtered out)."""
    if view.provenance is None:
        checked = [e.path for e in view.entries if e.source is not None]
        if checked:
            return [f"{where}{named_entries(checked)} a source status but there is no provenance"]
        return []
    problems = []
    counted = Counter(e.source for e in view.entries if e.source is not None)
    stated = view.provenance.summary
    for status in sorted(set(stated) | set(counted)):
        if stated.get(status, 0) != counted[status]:
            problems.append(
                f"{where}provenance.summary.{status} is {stated.get(status, 0):,} but "
                f"{plural(counted[status], 'entry has', 'entries have')} source status {status}"
            )
    reported = {(f.code, f.path) for f in view.findings}
    filtered = Counter({f.code: f.count for f in view.filtered})
    for status, code in STATUS_CODES.items():
        bare = [
            e.path for e in view.entries if e.source == status and (code, e.path) not in reported
        ]
        if len(bare) > filtered[code]:
            problems.append(
                f"{where}{named_entries(bare)} source status {status} but no {code} finding "
                f"(failing, waived or filtered out: {filtered[code]:,} filtered)"
            )
    return problems


def named_entries(paths: list[str], shown: int = 3) -> str:
    """`entry a.py has` / `3 entries (a.py, b.py, c.py) have`, the first `shown` named."""
    if len(paths) == 1:
        return f"entry {paths[0]} has"
    more = f" and {len(paths) - shown:,} more" if len(paths) > shown else ""
    return f"{len(paths):,} entries ({', '.join(paths[:shown])}{more}) have"


def waiver_list_problems(view: WheelsDocument, where: str = "") -> list[str]:
    """Every waiver the run recorded (`rerun.waivers`) is applied to a finding or listed as
    expired or unused in `waivers`, and `waivers` names no other: the two agree exactly."""
    rerun = view.rerun
    if rerun is None:
        return []
    recorded = {w.number for w in rerun.waivers}
    if view.waivers_listed is None:
        if rerun.waiver_file is None:
            return []
        return [f"{where}rerun.waivers records a waiver file but there is no waivers section"]
    if rerun.waiver_file is None:
        return [f"{where}a waivers section but rerun.waivers records no waiver file"]
    accounted = view.waivers_listed | {f.waiver_number for f in view.findings if f.waived}
    problems = []
    silent = sorted(recorded - accounted)
    if silent:
        problems.append(
            f"{where}rerun.waivers records {plural(len(silent), 'waiver')} "
            f"({', '.join(str(n) for n in silent)}) that the waivers section neither applies "
            "nor lists as expired or unused"
        )
    unknown = sorted(n for n in view.waivers_listed - recorded)
    if unknown:
        problems.append(
            f"{where}waivers lists {plural(len(unknown), 'waiver')} "
            f"({', '.join(str(n) for n in unknown)}) that rerun.waivers does not record"
        )
    return problems
