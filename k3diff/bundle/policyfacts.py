"""What a wheels document's policy left out or let pass, as the bundle's qualifications: a pass
under a relaxed policy is no pass of the default one, and the reviewer must read that."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from k3diff.documents.checks import NATIVE_CODES
from k3diff.documents.findingview import FindingView
from k3diff.documents.sourcecheck import STATUS_CODES
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.numbers import named
from k3diff.output import plural
from k3diff.responses.document import ResponsesDocument
from k3diff.wheel.codes import NATIVE_SURFACE_CODES


def relaxed_policy(wheels: WheelsDocument, label: str) -> list[str]:
    """What the run's policy left out or let pass: findings filtered by --select/--ignore
    (those that would have failed named first), findings of failing codes reported at info
    (--allow-native-changes, --allow-bytecode, --waivers), and streams of raw-identical pairs left unchecked
    (--no-file-hash). A pass they made is no pass of the default run."""
    quals = []
    failing = [f for f in wheels.filtered if f.would_fail]
    if failing:
        left = ", ".join(f"{f.count:,} × {f.code}" for f in failing)
        quals.append(
            f"{label}: --select/--ignore left out findings that would fail the run: {left}"
        )
    quiet = [f for f in wheels.filtered if not f.would_fail]
    if quiet:
        left = ", ".join(f"{f.count:,} × {f.code}" for f in quiet)
        quals.append(f"{label}: --select/--ignore left out findings that would not fail: {left}")
    quals += _let_pass(wheels, label)
    unverified = wheels.unverified_streams
    if unverified:
        entries = plural(unverified, "identical entry", "identical entries")
        quals.append(
            f"{label}: {entries} compared by their compressed bytes only, their streams' CRC-32 "
            "and size not checked (--no-file-hash): a corrupt stream both wheels carry, which "
            "pip refuses to install, would have passed"
        )
    return quals


def _let_pass(wheels: WheelsDocument, label: str) -> list[str]:
    """Findings of codes that fail by default reported at info: native changes allowed
    (--allow-native-changes), bytecode allowed (--allow-bytecode), and findings a waiver file
    covered (--waivers). The document does not record the options; its findings show them
    (`k3diff.documents.verdicts` refuses a document whose findings disagree on them)."""
    quals = []
    unwaived = [f for f in wheels.findings if not f.waived and f.severity != "error"]
    native = {code.name for code in NATIVE_SURFACE_CODES}  # a W708/W628 marked native
    for codes, option, what in (
        (set(NATIVE_CODES.values()), "--allow-native-changes", "native changes"),
        ({"W405"}, "--allow-bytecode", "bytecode that cannot be verified"),
    ):
        also = native if option == "--allow-native-changes" else set()
        allowed = Counter(
            f.code for f in unwaived if f.code in codes or (f.native and f.code in also)
        )
        if allowed:
            shown = ", ".join(f"{n:,} × {c}" for c, n in sorted(allowed.items()))
            quals.append(f"{label}: {what} were allowed ({option}): {shown} reported, not failed")
    recorded = wheels.rerun is not None and wheels.rerun.waiver_file is not None
    return quals + waived_findings(wheels.findings, label, recorded)


def source_policy(wheels: WheelsDocument, label: str) -> list[str]:
    """What let the source row's W4xx findings pass (`wheels` passes them so, and the row
    follows it): waived (--waivers), allowed (--allow-bytecode) or left out (--select/--ignore),
    each named with its count; the bottom line names the settings themselves (forge62)."""
    codes = set(STATUS_CODES.values())
    source = [f for f in wheels.findings if f.code in codes and f.severity != "error"]
    parts = []
    waived = Counter(f.code for f in source if f.waived)
    if waived:
        paths = named([f.path for f in source if f.waived], 3)
        parts.append(f"{_counted(waived)} waived (--waivers: {paths})")
    allowed = Counter(f.code for f in source if not f.waived)
    if allowed:
        parts.append(f"{_counted(allowed)} allowed (--allow-bytecode)")
    left = Counter({f.code: f.count for f in wheels.filtered if f.code in codes})
    if left:
        parts.append(f"{_counted(left)} left out (--select/--ignore)")
    if not parts:
        return []
    return [
        f"{label}: source findings that would fail the default run pass under the document's "
        f"policy: {'; '.join(parts)}: the source row follows that policy, as wheels did"
    ]


def _counted(codes: Counter[str]) -> str:
    return ", ".join(f"{n:,} × {c}" for c, n in sorted(codes.items()))


def waived_findings(
    findings: Sequence[FindingView], label: str, recorded: bool = False
) -> list[str]:
    """Findings a waiver file covered (a wheels run's or an audit's `--waivers`): they pass on
    the document's word, or (`recorded`: a wheels document that records its waivers, forge62)
    on waivers report applies again where it runs wheels again on the wheels."""
    waived = Counter(f.code for f in findings if f.waived)
    if not waived:
        return []
    shown = ", ".join(f"{n:,} × {c}" for c, n in sorted(waived.items()))
    if recorded:
        return [
            f"{label}: findings waived (--waivers): {shown} reported, not failed; the document "
            "records each waiver it applied, and report applies them again when given both "
            "wheels"
        ]
    return [
        f"{label}: findings waived (--waivers): {shown} reported, not failed; the waiver "
        "file is not in the bundle, so this rests on the document's word"
    ]


def normalized_matches(responses: ResponsesDocument) -> list[str]:
    """The records a comparison calls equal only after `--normalize`: a pass on them is no
    pass of the texts as captured."""
    names = [r.name for r in responses.records if r.normalized_match]
    if not names:
        return []
    records = plural(len(names), "record matches", "records match")
    their = "its texts differ" if len(names) == 1 else "their texts differ"
    rules = ", ".join(responses.normalize)
    return [f"{records} only after --normalize {rules} ({named(names)}): {their} as captured"]
