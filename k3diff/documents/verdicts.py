"""A document's verdict judged again from its own contents, by the rule of the command that
wrote it, so that an edited `ok` or `exit_code` is refused rather than believed.

Every command's exit code is 1 when anything fails its policy, else 0; what fails is each
command's own rule, called here where the document holds its inputs: a finding's severity is
`Policy.severity` of its code (error when the code fails the run, info when a waiver covers it
or the run's `--allow-*` let it pass), and a release set's verdict is `set_failures`, the
function `k3diff wheels` judges the set by. The policy a wheels run was given is not written
down; it shows in its findings (a native finding at info is `--allow-native-changes`), so it
is read from them, must be the same for every finding of a code, and the bundle names it: a
relabelled finding is no silent pass, it is a stated relaxed policy.
"""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.documents.findingview import FindingView
from k3diff.documents.triage import TriageRecord
from k3diff.documents.wheelset import WheelsetDocument, WheelsetPair
from k3diff.documents.wheelsview import FilteredView, WheelsDocument
from k3diff.exitcodes import ExitCode, verdict_problems
from k3diff.responses.results import Status
from k3diff.wheel.codes import NATIVE_CODES, NATIVE_SURFACE_CODES, WHEELS_CODES, Code, Severity
from k3diff.wheel.filename import different_distributions, parse_wheel_filename
from k3diff.wheel.metadata import WheelIdentity
from k3diff.wheel.policy import AUDIT_POLICY, Policy
from k3diff.wheels.releaseset import set_failures


def _code(name: str, family: Sequence[Code]) -> Code | None:
    code = Code.__members__.get(name)
    return code if code in family else None


def wheels_policy(view: WheelsDocument) -> Policy:
    """The `--allow-*` policy the document records (`rerun`, forge62), or, in a document written
    before, the one its findings show: a native finding (or a native code filtered out), or a
    W708/W628 about native code, that does not fail is `--allow-native-changes`; a W405 one
    `--allow-bytecode`."""
    if view.rerun is not None:
        return Policy(
            allow_native_changes=view.rerun.allow_native_changes,
            allow_bytecode=view.rerun.allow_bytecode,
        )

    def let_pass(codes: frozenset[Code] | set[Code], native: frozenset[Code] = frozenset()) -> bool:
        names = {code.name for code in codes}
        native_names = {code.name for code in native}  # only a finding marked native counts
        found = any(
            (f.code in names or (f.native and f.code in native_names))
            and not f.waived
            and f.severity != "error"
            for f in view.findings
        )
        return found or any(f.code in names and not f.would_fail for f in view.filtered)

    return Policy(
        allow_native_changes=let_pass(NATIVE_CODES, NATIVE_SURFACE_CODES),
        allow_bytecode=let_pass({Code.W405}),
    )


def finding_problems(
    findings: Sequence[FindingView],
    policy: Policy,
    family: Sequence[Code],
    where: str = "",
) -> list[str]:
    """Each finding's severity against its code under `policy` (info when waived)."""
    problems = []
    for index, finding in enumerate(findings):
        label = f"{where}findings[{index}] {finding.label()}"
        code = _code(finding.code, family)
        if code is None:
            problems.append(f"{label}: no k3diff run writes the code {finding.code!r} here")
            continue
        expected = Severity.INFO if finding.waived else policy.severity(code, finding.native)
        if finding.severity != expected.value:
            problems.append(
                f"{label} has severity {finding.severity!r} {_why(code, finding, expected)}"
            )
    return problems


def waiver_problems(findings: Sequence[FindingView], stated: int, where: str = "") -> list[str]:
    """`waivers.waived` against the findings that carry a `waiver` (a waiver added to a
    finding by hand is counted by no waiver file), and no waived finding of a code no waiver
    file may waive (`codes.UNWAIVABLE`: the archive is not what pip reads)."""
    from k3diff.wheel.codes import UNWAIVABLE

    unwaivable = {code.name for code in UNWAIVABLE}
    problems = [
        f"{where}findings[{i}] {f.label()} carries a waiver, but {f.code} cannot be waived"
        for i, f in enumerate(findings)
        if f.waived and f.code in unwaivable
    ]
    carried = sum(1 for f in findings if f.waived)
    if carried == stated:
        return problems
    return [
        *problems,
        f"{where}waivers.waived is {stated:,} but {carried:,} findings carry a waiver",
    ]


def _why(code: Code, finding: FindingView, expected: Severity) -> str:
    """Why `finding` cannot carry its severity (its reader refuses a word but these two)."""
    if finding.waived:
        return "but a waived finding is 'info'"
    native = code in NATIVE_CODES or (finding.native and code in NATIVE_SURFACE_CODES)
    if expected is Severity.INFO and (native or code is Code.W405):
        kind, option = (
            ("native", "--allow-native-changes") if native else ("W405", "--allow-bytecode")
        )
        return f"unlike its other {kind} findings ({option} lets all of them pass or none)"
    if expected is Severity.ERROR:
        return f"but {code.name} fails every run that does not waive it"
    return f"but {code.name} never fails a run"


def _filtered_problems(filtered: Sequence[FilteredView], policy: Policy, where: str) -> list[str]:
    """`verdict.filtered`: each code's `would_fail` is `Policy.fails` of it."""
    problems = []
    for index, item in enumerate(filtered):
        code = _code(item.code, WHEELS_CODES)
        if code is None:
            problems.append(
                f"{where}verdict.filtered[{index}]: no k3diff run filters {item.code!r}"
            )
        elif item.would_fail != policy.fails(code):
            problems.append(
                f"{where}verdict.filtered[{index}] {item.code}: would_fail "
                f"{str(item.would_fail).lower()} does not follow from the run's policy"
            )
    return problems


def _settings_problems(view: WheelsDocument, where: str) -> list[str]:
    """The findings and filtered codes against the `--select`/`--ignore` the document records,
    and each waived finding against the waivers it records (forge62; none before `rerun`)."""
    rerun = view.rerun
    if rerun is None:
        return []

    def reported(code: str) -> bool:
        return code not in rerun.ignore and (rerun.select is None or code in rerun.select)

    problems = [
        f"{where}findings[{i}] {f.label()} is reported, but the run's --select/--ignore "
        "(rerun) leaves its code out"
        for i, f in enumerate(view.findings)
        if not reported(f.code)
    ]
    problems += [
        f"{where}verdict.filtered[{i}] {f.code} is left out, but the run's --select/--ignore "
        "(rerun) reports its code"
        for i, f in enumerate(view.filtered)
        if reported(f.code)
    ]
    numbers = {w.number for w in rerun.waivers}
    problems += [
        f"{where}findings[{i}] {f.label()} is waived by waiver {f.waiver_number}, which the "
        "run's waivers (rerun.waivers) do not hold"
        for i, f in enumerate(view.findings)
        if f.waived and f.waiver_number not in numbers
    ]
    return problems


def _distribution_problems(view: WheelsDocument, where: str) -> list[str]:
    """`verdict.different_distributions` is `different_distributions` of the two names the
    document gives, and when true a W606 finding (or W606 filtered out) says so."""
    found = different_distributions(_identity(view.base.name), _identity(view.patch.name))
    if view.different_distributions != found:
        return [
            f"{where}verdict.different_distributions is "
            f"{str(view.different_distributions).lower()} but the wheels are named "
            f"{view.base.name!r} and {view.patch.name!r}"
        ]
    codes = {f.code for f in view.findings} | {f.code for f in view.filtered}
    if found and Code.W606.name not in codes:
        return [f"{where}the wheels are different distributions but no W606 finding says so"]
    return []


def _identity(name: str | None) -> WheelIdentity:
    return WheelIdentity(None, name, None, (), (), None)


def native_mark_problems(view: WheelsDocument, where: str = "") -> list[str]:
    """Each `native: true` against what the document says of the entry it names: a `wheels`
    run marks only W628 (its path the extension, native by name) and W708 (a native executable,
    native by its magic whatever its name, rebuilt: never one added), and only about an entry of
    kind native. A mark forged onto a text script, an added binary or a new `.py` would let
    `--allow-native-changes` pass it."""
    kinds = {entry.path: entry.kind for entry in view.entries}
    added = {entry.path for entry in view.entries if entry.status == "added"}
    marked = {code.name for code in NATIVE_SURFACE_CODES}
    problems = []
    for index, finding in enumerate(view.findings):
        if not finding.native:
            continue
        label = f"{where}findings[{index}] {finding.label()}"
        kind = kinds.get(finding.path)
        if finding.code not in marked:
            problems.append(f"{label} is marked native, which no wheels run marks {finding.code}")
        elif kind != "native":
            said = f"an entry of kind {kind}" if kind is not None else "no entry of the document"
            problems.append(f"{label} is marked native but names {said}")
        elif finding.code == Code.W708.name and finding.path in added:
            problems.append(f"{label} is marked native but its script is added, not rebuilt")
        elif finding.code == Code.W708.name:
            problems += _unloaded_image(view, finding.path, label)
    return problems


def _unloaded_image(view: WheelsDocument, path: str, label: str) -> list[str]:
    """A W708 marked native whose script is no image of the one format the patch's platform
    tags load (`wheel.tags.image_formats`): no run marks it (`wheels.surfaces._rebuilt_native`)."""
    from k3diff.native.sniff import image_format
    from k3diff.wheel.filename import loaded_formats
    from k3diff.wheel.tags import expand_all

    image = view.script_images.get(path)
    if image is None:
        return [f"{label} is marked native but the document gives no image for its script"]
    loads = loaded_formats(view.patch.path, view.patch.tags)
    if loads == {image_format(image)}:
        return []
    named = parse_wheel_filename(view.patch.path)
    tags = {*(named.tags if named is not None else ()), *expand_all(view.patch.tags)}
    platforms = sorted({tag.rpartition("-")[2] for tag in tags}) or ["untagged"]
    return [
        f"{label} is marked native but its script's image ({image}) is none a "
        f"{'.'.join(platforms)} wheel's platform loads"
    ]


def wheels_verdict_problems(view: WheelsDocument, where: str = "") -> list[str]:
    """A wheels document's findings, filtered codes and verdict, judged again."""
    policy = wheels_policy(view)
    problems = native_mark_problems(view, where)
    problems += finding_problems(view.findings, policy, WHEELS_CODES, where)
    problems += _filtered_problems(view.filtered, policy, where)
    problems += waiver_problems(view.findings, view.waived, where)
    problems += _settings_problems(view, where)
    problems += _distribution_problems(view, where)
    failing = [f.label() for f in view.findings if f.severity == "error"]
    return problems + verdict_problems(view.ok, view.exit_code, failing, "its findings", where)


def audit_verdict_problems(
    findings: Sequence[FindingView], ok: bool, exit_code: int, waived: int
) -> list[str]:
    """An audit's findings (audit's fixed policy: no `--allow-*`, no filter) and verdict."""
    problems = finding_problems(findings, AUDIT_POLICY, tuple(Code))
    problems += waiver_problems(findings, waived)
    failing = [f.label() for f in findings if f.severity == "error"]
    return problems + verdict_problems(ok, exit_code, failing, "its findings")


def wheelset_verdict_problems(view: WheelsetDocument) -> list[str]:
    """A release set's lists against its summary and verdict, and its verdict by
    `set_failures`, the rule `k3diff wheels` judged the set by."""
    failing_pairs = [p.patch for p in view.pairs if p.wheels.exit_code != ExitCode.OK]
    unpaired = len(view.only_base) + len(view.only_patch)
    problems = []
    counted = {
        "pairs": len(view.pairs),
        "failing_pairs": len(failing_pairs),
        "only_base": len(view.only_base),
        "only_patch": len(view.only_patch),
        "ignored": view.ignored,
    }
    for field, count in counted.items():
        if view.summary.get(field, count) != count:
            problems.append(
                f"summary.{field} is {view.summary[field]!r} but its lists give {count:,}"
            )
    if list(view.failing_pairs) != failing_pairs:
        problems.append(
            f"verdict.failing_pairs names {len(view.failing_pairs):,} pairs but "
            f"{len(failing_pairs):,} of its pairs fail"
        )
    for side, found, alone in (
        ("base", view.wheel_counts[0], view.only_base),
        ("patch", view.wheel_counts[1], view.only_patch),
    ):
        if found != len(view.pairs) + len(alone):
            problems.append(
                f"{side}.wheels is {found:,} but its pairs and only_{side} give "
                f"{len(view.pairs) + len(alone):,}"
            )
    if view.unpaired != unpaired:
        problems.append(f"verdict.unpaired is {view.unpaired:,} but its lists give {unpaired:,}")
    for index, pair in enumerate(view.pairs):
        problems += _row_problems(pair, f"pairs[{index}] ")
    failures = set_failures(
        len(view.pairs), unpaired, view.allow_unpaired, len(view.misnamed), len(failing_pairs)
    )
    if len(view.failures) != len(failures):  # counted: the wording is no contract
        problems.append(
            f"verdict.failures gives {len(view.failures):,} reasons but its pairs and lists "
            f"give {len(failures):,}"
        )
    return problems + verdict_problems(
        view.ok, view.exit_code, failures, "its pairs and unpaired wheels"
    )


def _row_problems(pair: WheelsetPair, where: str) -> list[str]:
    """A pair's summary row against its own wheels document (`verdict`, `exit_code`,
    `failing_codes`: what `wheelset.pair_row` writes of it)."""
    wheels = pair.wheels
    codes = sorted({f.code for f in wheels.findings if f.severity == "error"})
    word = "OK" if wheels.exit_code == ExitCode.OK else "FAIL"
    problems = []
    if pair.exit_code != wheels.exit_code or pair.verdict != word:
        problems.append(
            f"{where}says {pair.verdict} (exit_code {pair.exit_code}) but its wheels document "
            f"says exit_code {wheels.exit_code}"
        )
    if list(pair.failing_codes) != codes:
        problems.append(
            f"{where}failing_codes {list(pair.failing_codes)} but its wheels document's "
            f"failing findings give {codes}"
        )
    return problems


_EQUAL_TEXTS = frozenset({"match", "tokens-differ", "logprobs-differ", "fields-differ"})
"""Comparison statuses whose captured texts are equal: such a record without samples is a
match to triage (only a vacuous control, or a log that cannot show it holds every line its run
owed, `unlogged`, holds it back)."""


def status_problems(records: Sequence[TriageRecord]) -> list[str]:
    """Records whose comparison status hides what triage's rules would have said: a status no
    comparison writes, or captured texts called equal on a record left undecided without a
    single sample (triage calls such a record a match)."""
    known = {status.value for status in Status}
    problems = []
    for record in records:
        status = record.comparison_status
        if status not in known:
            problems.append(
                f"record {record.key!r}: comparison_status {status!r} is none a comparison writes"
            )
        elif (
            status in _EQUAL_TEXTS
            and record.category == "inconclusive"
            and not record.modes
            and not {"vacuous", "unlogged"} & set(record.flags)
        ):
            problems.append(
                f"record {record.key!r} is {status!r} but undecided without samples although its "
                "captured texts are equal (triage calls such a record a match)"
            )
    return problems
