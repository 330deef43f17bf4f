"""Every setting a wheels document recorded (`rerun`, forge62) that loosens `wheels`' default
policy, named beside the verdict it affects as a non-default α is (`alphanotes`). `report` runs
`wheels` again with the settings the document records, so a forger who edits them (adds
`--allow-native-changes`, an `--ignore`, a waiver; drops a protected command) instead of the
findings gets a document the rerun reproduces: the settings are the user's decisions, and the
bundle shows them rather than refusing them. A document written before `rerun` shows its policy
by its findings only (`policyfacts`)."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from k3diff.documents.wheelsrerun import WheelsRerun
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.numbers import named
from k3diff.output import plural
from k3diff.wheel.codes import WHOLE_WHEEL
from k3diff.wheels.surfaces import COMMON_COMMANDS

SHOWN = 3
"""Waived findings named one by one beside the verdict; the rest are counted."""


def loosened_settings(name: str, wheels: WheelsDocument) -> list[str]:
    """One sentence for each recorded setting that loosens the default policy, with what it
    let pass where the document shows it ('w.json ran with --ignore W302: 1 finding left out
    that would fail the run')."""
    rerun = wheels.rerun
    if rerun is None:
        return []
    notes = [f"{name} ran with {note}" for note in _policy(rerun, wheels)]
    dropped = sorted(COMMON_COMMANDS - set(rerun.protected_commands))
    if dropped:
        commands = plural(len(dropped), "default protected command")
        notes.append(
            f"{name} ran with --protected-commands leaving {commands} unprotected "
            f"({named(dropped)}): a script taking one over is not W703"
        )
    if not rerun.file_hash:
        notes.append(
            f"{name} ran with --no-file-hash: the wheel files were not hashed, and entries "
            "proven identical by their compressed bytes were not read to check their streams"
        )
    waived = _waived(name, rerun, wheels)
    return notes + ([waived] if waived else [])


def _policy(rerun: WheelsRerun, wheels: WheelsDocument) -> list[str]:
    info = Counter(f.code for f in wheels.findings if f.severity == "info" and not f.waived)
    notes = []
    if rerun.allow_native_changes:
        let = _counted(info, ("W101", "W102", "W103", "W708", "W628"))
        notes.append(
            "--allow-native-changes: a native entry changed, missing or added does not fail it"
            + (f" ({let} reported, not failed)" if let else "")
        )
    if rerun.allow_bytecode:
        let = _counted(info, ("W405",))
        notes.append(
            "--allow-bytecode: bytecode that cannot be verified against the source does not "
            "fail it" + (f" ({let} reported, not failed)" if let else "")
        )
    failing = sum(f.count for f in wheels.filtered if f.would_fail)
    left = f": {plural(failing, 'finding')} left out that would fail the run" if failing else ""
    if rerun.select == ():  # `--select ''`: no code selected, so nothing can fail the run
        notes.append(f"--select '' (no code): every finding code left out{left}")
    elif rerun.select is not None:
        notes.append(f"--select {','.join(rerun.select)}: every other finding code left out{left}")
    if rerun.ignore:
        notes.append(f"--ignore {','.join(rerun.ignore)}: those findings left out{left}")
    return notes


def _counted(info: Counter[str], codes: tuple[str, ...]) -> str:
    return ", ".join(f"{info[c]:,} × {c}" for c in codes if info[c])


def _waived(name: str, rerun: WheelsRerun, wheels: WheelsDocument) -> str | None:
    """The waivers that passed a finding, each with its reason (the rest counted)."""
    if rerun.waiver_file is None:
        return None
    waived = [f for f in wheels.findings if f.waived]
    head = (
        f"{name} ran with --waivers {rerun.waiver_file} "
        f"({plural(len(rerun.waivers), 'waiver')}, expiry judged on {rerun.judged_on})"
    )
    listed, judged = wheels.waivers_listed or frozenset(), rerun.judged_on or ""
    gone = "".join(  # as `wheels` says them (polish62b: the bundle said "no finding waived")
        f"; waiver {w.number} expired on {w.expires}"
        for w in rerun.waivers
        if w.number in listed and w.expires and w.expires < judged
    )
    if not waived:
        return f"{head}: no finding waived{gone}"
    reasons = {w.number: w.reason for w in rerun.waivers}
    shown = []
    for finding in waived[:SHOWN]:
        said = f"{finding.code} {finding.path or WHOLE_WHEEL}"
        reason = reasons.get(finding.waiver_number) if finding.waiver_number else None
        shown.append(f"{said} (waiver {finding.waiver_number}: {reason})" if reason else said)
    more = f" (and {len(waived) - SHOWN:,} more)" if len(waived) > SHOWN else ""
    said = f"{head}: {plural(len(waived), 'finding')} waived: {'; '.join(shown)}{more}{gone}"
    used = {f.waiver_number for f in waived}
    today = dt.date.today().isoformat()
    lapsed = [w for w in rerun.waivers if w.number in used and w.expires and w.expires < today]
    if lapsed:
        dates = ", ".join(f"waiver {w.number} on {w.expires}" for w in lapsed)
        said += f"; expired since: {dates} (applied as of the day recorded)"
    return said
