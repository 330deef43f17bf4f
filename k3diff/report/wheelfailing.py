"""The failing findings of a `k3diff wheels` text or Markdown report and what to do about them
(stop 63, found by new-user trials at stop 62).

* **Order.** The table is sorted by severity (error first), then code, then path
  (`wheel.findingorder.order_key`); the JSON keeps the run's order.
* **One change, one row.** A rebuilt native executable pip copies into `bin/` is a W101 and a
  native W708 on one path (z3_solver's `bin/z3`): one row naming both codes and both reasons,
  counted once in the verdict line (`2 × W101 (1 also W708)`); JSON lists both findings.
* **Next steps.** When native findings fail, the report says what the reviewer can do: run
  with `--explain` (what changed in each changed native; only when there is one and it was
  not asked), pass `--allow-native-changes` (and what it lets pass, and what still fails), or
  accept each reviewed file with a waiver (its TOML: one stanza per failing native finding, in
  the table's order, then each other failing finding a waiver takes, ten at most and the rest
  counted; newuser63). When only other findings fail, "Next steps" gives their waivers alone
  (newuser64b). Imported only when something fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from k3diff import escape
from k3diff.output import OutputFormat, plural
from k3diff.report.markdown import fenced, inline_code
from k3diff.wheel.codes import (
    BY_TAGS_ALONE,
    NO_PYTHON,
    UNWAIVABLE,
    WAIVER_PLACEHOLDER_REASON,
    Code,
    Finding,
)
from k3diff.wheel.findingorder import Named, counted, implied, order_key
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.policy import Policy
from k3diff.wheels.model import WheelReport

FINDING_HEADERS = ["code", "path", "finding", "detail"]
WAIVERS_SHOWN = 10  # waiver stanzas the next steps fill in; the rest are counted


def named(findings: Sequence[Finding]) -> list[Named]:
    """What `wheel.findingorder` reads of each finding."""
    return [(f.code.name, f.path, f.native) for f in findings]


def ordered(findings: Sequence[Finding]) -> list[Finding]:
    """The failing findings in the table's order (all of severity error: code, then path)."""
    return sorted(findings, key=lambda f: order_key("error", f.code.name, f.path))


def finding_rows(findings: Sequence[Finding]) -> list[list[str]]:
    """One row per failing finding, in order; a W708 that the W101 on its path implies joins
    that W101's row (both codes, both reasons, both details)."""
    paths = implied(named(findings))
    joined = {f.path: f for f in findings if f.code is Code.W708 and f.native and f.path in paths}
    rows = []
    for f in ordered(findings):
        if f.code is Code.W708 and joined.get(f.path) is f:
            continue
        also = joined.get(f.path) if f.code is Code.W101 else None
        if also is None:
            rows.append([f.code.name, f.where, f.message, f.detail])
            continue
        rows.append(
            [
                f"{f.code.name}, {also.code.name}",
                f.path,
                f"{f.message}; {also.message}",
                f"{f.detail}; {also.detail}",
            ]
        )
    return rows


def verdict_counts(findings: Sequence[Finding]) -> str:
    """`2 × W101 (1 also W708), 1 × W102`: the verdict line's counts, without thousands
    separators, as it always gave them."""
    return counted(named(findings), thousands=False)


ALLOWING_NATIVE = Policy(allow_native_changes=True)
"""The policy `--allow-native-changes` adds: what the next steps say it lets pass."""


def _native(finding: Finding) -> bool:
    """A failing finding about native code: what `--allow-native-changes` relaxes."""
    return is_native_named((finding.code.name, finding.path, finding.native))


def is_native_named(finding: Named) -> bool:
    """A failing finding (code, path, native) about native code: what
    `--allow-native-changes` relaxes (`Policy.relaxed_by`)."""
    code, _, native = finding
    return ALLOWING_NATIVE.relaxed_by(Code[code], native) is not None


def still_failing(failing: Sequence[Named]) -> list[Named]:
    """Of a comparison's failing findings (code, path, native), every one, whichever row of
    the bundle it fails, those `--allow-native-changes` leaves failing: the one rule the
    wheels report, a release set's and the bundle say "then passes" by (left66: the bundle
    counted only the artifact-identity row's, and said a pair whose W401 still failed "then
    passes")."""
    return [f for f in failing if not is_native_named(f)]


def next_steps(
    report: WheelReport,
    failing: Sequence[Finding],
    fmt: OutputFormat,
    in_set: Sequence[str] | None = None,
) -> str:
    """What to do about the failing findings ('' when none can be waived): for native ones, the
    options that apply to them, each with what it does; for every finding a waiver accepts
    (not `UNWAIVABLE`), its stanza (newuser64b: a failing W717 or W620 was named nowhere in
    the next steps, and alone got none). `in_set`: a release set's pair (`native_steps`)."""
    native = [f for f in failing if _native(f)]
    waivable = [f for f in failing if f.code not in UNWAIVABLE]
    markdown = fmt is OutputFormat.MARKDOWN
    code = inline_code if markdown else str
    nowhere = next(
        (f.detail for f in failing if f.code is Code.W616 and f.detail.endswith(NO_PYTHON)), None
    )
    rebuild = unwaivable_step(named(failing), nowhere)
    repack = record_step(named(failing), report.patch.path, code)
    left_out = left_out_step(named(failing), code)
    if not waivable:  # native findings are all waivable
        if rebuild is None:
            return ""
        if markdown:
            return f"### Next steps\n\n- {rebuild}"
        return f"Next steps\n  {escape.text(rebuild)}"
    if native:
        steps = native_steps(
            report.summary[EntryKind.NATIVE].changed,
            report.explain,
            named(native),
            still_failing(named(failing)),
            code,
            in_set,
            _wide(waivable),
        )
    else:
        alone = repack is None and left_out is None
        steps = [waiver_step(code, alone=alone, wide=_wide(waivable))]
    for step in (left_out, repack):
        if step is not None:
            steps.insert(0, step)
    if rebuild is not None:
        steps.insert(0, rebuild)
    stanzas = waiver_stanzas(waivable)
    waiver = "\n".join(stanzas[:WAIVERS_SHOWN])
    if len(stanzas) > WAIVERS_SHOWN:
        more = len(stanzas) - WAIVERS_SHOWN
        kind = "native finding" if len(waivable) == len(native) else "finding"
        waiver += (
            f"\n# … {plural(more, f'more failing {kind}', f'more failing {kind}s')}"
            ", one [[waiver]] each: --format json lists every finding's code and path"
        )
    title = "Next steps (native code differs)" if native else "Next steps"
    if markdown:
        bullets = "\n".join(f"- {step}" for step in steps)
        return f"### {title}\n\n{bullets}\n\n{fenced(waiver, 'toml')}"
    lines = [f"  {escape.text(step)}" for step in steps]
    lines += [f"    {escape.text(line)}" for line in waiver.splitlines()]
    return "\n".join([title, *lines])


def unwaivable_step(failing: Sequence[Named], nowhere: str | None = None) -> str | None:
    """The step for failing findings no waiver accepts (`UNWAIVABLE`), None where none fails:
    the wheel itself must change (newuser65: a wheel failing W619 alone, `pkg/aux.py`, got no
    next step at all, and neither `--explain` nor its detail said what to do). `nowhere`: one
    the detail of the W616 whose tags (`BY_TAGS_ALONE`), or tags and Requires-Python, admit no
    Python in common (`NO_PYTHON`), which the tags or Requires-Python fix, not a renamed entry
    (w408b; review68c: tags alone, the tags)."""
    kept = [f for f in failing if Code[f[0]] in UNWAIVABLE]
    if not kept:
        return None
    them = "it" if len(kept) == 1 else "them"
    counts = counted(kept, thousands=False)
    alone = nowhere is not None and BY_TAGS_ALONE in nowhere
    tags = (
        "tags pip installs (an ABI with a platform's tag, or 'none' with 'any')"
        if alone
        else "its tags or its Requires-Python so that they admit the Pythons it is for"
    )
    if nowhere and len(kept) == 1:
        why = (
            "its tags pair an ABI with the platform 'any'"
            if alone
            else "its tags and Requires-Python admit none in common"
        )
        named = "" if alone else " (the detail names both)"
        return (
            f"{counts}: no waiver accepts it (pip installs the wheel on no Python: {why}): "
            f"rebuild it with {tags}{named}, then compare the rebuilt wheel"
        )
    also = (
        f"; for the W616 that says {NO_PYTHON!r}, rebuild it with {tags} instead" if nowhere else ""
    )
    return (
        f"{counts}: no waiver accepts {them} (pip would not install the "
        f"wheel as it lists its entries, or not at all): rebuild it without {them}, renaming or "
        "dropping each entry named (its detail says what pip or Windows does with it)"
        f"{also}, then compare the rebuilt wheel"
    )


def record_step(
    failing: Sequence[Named], patch_path: str, code: Callable[[str], str] = str
) -> str | None:
    """The fix for failing W302 (RECORD does not describe the archive), None where none fails:
    a wheel whose RECORD is written anew, by its build or by `wheel pack` (words72: a stale
    RECORD's next step offered only a waiver). `wheel unpack` checks every file it extracts
    against RECORD, so it refuses this wheel: the step starts from the wheel the build wrote,
    which it unpacks into `DIR/NAME-VERSION`, the first two fields of the patch's file name."""
    stale = [f for f in failing if f[0] == Code.W302.name]
    if not stale:
        return None
    files = plural(len({path for _, path, _ in stale}), "file")
    unpack = code("wheel unpack BUILT.whl -d DIR")
    fields = patch_path.replace("\\", "/").rpartition("/")[2].split("-")
    unpacked = "-".join(fields[:2]) if len(fields) >= 5 else "NAME-VERSION"
    pack = code(f"wheel pack DIR/{unpacked}")
    return (
        f"{counted(stale, thousands=False)} on {files}: RECORD does not describe the archive "
        "(its files or RECORD changed after the wheel was built, by a step that edits built "
        "wheels or by someone else): rebuild the wheel from its source (its build backend "
        "writes RECORD), or start the editing step from the wheel the build wrote, with the "
        f"commands of the wheel package ({unpack}, which refuses a file that does not match "
        f"its RECORD hash), edit under DIR and repack with {pack}, which writes RECORD anew; "
        "then compare the new wheel"
    )


def left_out_step(failing: Sequence[Named], code: Callable[[str], str] = str) -> str | None:
    """What to do about failing W412 (the patch ships a file its commit's build leaves out),
    None where none fails (newuser72: only a waiver was offered, and the source table beside
    it read `match` for the file)."""
    shipped = [f for f in failing if f[0] == Code.W412.name]
    if not shipped:
        return None
    files = plural(len({path for _, path, _ in shipped}), "file")
    compare = code("k3diff wheels BUILT.whl PATCH.whl")
    return (
        f"{counted(shipped, thousands=False)} on {files}: the patch wheel ships a file its "
        "commit's build configuration leaves out (its content is the commit's: 'left out' in "
        "the source table), so the wheel was not built from that commit as "
        "configured, or a step after the build added the file: build the wheel from the commit "
        f"and compare it with this one ({compare}, where the file reads as added), then drop "
        "the file from the release, or change the configuration at the commit if the wheel "
        "is meant to ship it"
    )


def _wide(findings: Sequence[Finding]) -> list[str]:
    """The codes of the findings about the wheel as a whole (path `""`), in order."""
    return [f.code.name for f in findings if not f.path]


def waiver_step(
    code: Callable[[str], str] = str, alone: bool = False, wide: Sequence[str] = ()
) -> str:
    """The step that introduces the waiver stanzas: the last of the native steps (`or …`), or
    the only one when no native finding fails. `wide`: the codes of the findings among them
    about the wheel as a whole (W605, W630, …), whose path is `""`: a waiver's `path` is a
    glob on the finding's path, so `""` (or `*`) covers them, and `""` no entry's finding."""
    accept = "accept" if alone else "or accept"
    said = "each stanza below names one exact path"
    if wide:
        codes = list(dict.fromkeys(wide))  # each once, in order
        whole = "is" if len(codes) == 1 else "are"
        empty = code('path = ""')
        said = (
            f"{said}; {', '.join(codes)}, about the wheel as a whole, {whole} waived by "
            f"{empty}, which covers no entry's finding"
        )
    noun = "finding" if wide else "file"
    return (
        f"{accept} each reviewed {noun} with a waiver, one {code('[[waiver]]')} per code and "
        f"path in a TOML file given with {code('--waivers FILE')} ({said}):"
    )


def native_steps(
    changed: int,
    explained: bool,
    native: Sequence[Named],
    still: Sequence[Named],
    code: Callable[[str], str] = str,
    in_set: Sequence[str] | None = None,
    wide: Sequence[str] = (),
) -> list[str]:
    """The next steps for failing native findings (`native`, with `still` failing under
    `--allow-native-changes`): `--explain` (where `changed` native entries were not explained),
    `--allow-native-changes` and the waiver file, each with what it does; the waiver stanzas
    follow the last. The wheels report's words, and the bundle's (`bundle.nextsteps`), which
    reads them from the document. `in_set`: the pair is one of a release set's, which still
    fails on these (`set_left`) once the pair passes (report66: "the pair then passes" was
    said of a pair whose set still failed on its unpaired wheels)."""
    steps = []
    if changed and not explained:
        steps.append(
            f"{code('--explain')}: what changed in each changed native entry (ELF sections, "
            f"dynamic symbols, build-id, the glibc/libstdc++ it needs): "
            f"{plural(changed, 'changed native entry', 'changed native entries')}"
        )
    if still:
        then = f"{counted(list(still), thousands=False)} still fail{'s' if len(still) == 1 else ''}"
    elif in_set is None:
        then = "nothing else fails, so the pair then passes"
    elif in_set:
        left = ", ".join(in_set[:-1]) + (" and " if len(in_set) > 1 else "") + in_set[-1]
        then = f"nothing else fails, so this pair then passes; the set still fails on {left}"
    else:
        then = "nothing else fails, so this pair then passes, and the set with it"
    steps.append(
        f"{code('--allow-native-changes')}: reports the native changes without failing on them "
        f"({counted(list(native), thousands=False)}); {then}"
    )
    steps.append(waiver_step(code, wide=wide))
    return steps


def set_left(unpaired: int, misnamed: int, other_pairs: int) -> list[str]:
    """What a release set still fails on, with `--allow-native-changes`, once one of its pairs
    passes: its unpaired wheels (where not allowed), its misnamed `.whl` files and its other
    pairs that still fail (`set_failures`' reasons, but for that pair)."""
    return [
        *([plural(unpaired, "unpaired wheel")] if unpaired else []),
        *([plural(misnamed, "misnamed .whl file")] if misnamed else []),
        *(
            [plural(other_pairs, "other pair") + " the option leaves failing"]
            if other_pairs
            else []
        ),
    ]


def waiver_stanzas(findings: Sequence[Finding]) -> list[str]:
    """A waiver stanza for each failing finding given, in the table's order."""
    return [_waiver(f) for f in _waived(findings)]


def _waived(native: Sequence[Finding]) -> list[Finding]:
    """The failing native findings a waiver stanza is shown for, in the table's order: a W708
    that joins its W101's row right after that W101 (each is waived on its own); one stanza per
    code and path, which waives every finding of that code on that path (newuser71: a stale
    RECORD's two W302 on one file got two identical stanzas, and the file pasted from them
    reported the second 'unused ... (stale?)')."""
    paths = implied(named(native))
    joined = {f.path: f for f in native if f.code is Code.W708 and f.native and f.path in paths}
    shown: dict[tuple[Code, str], Finding] = {}
    for f in ordered(native):
        if f.code is Code.W708 and joined.get(f.path) is f:
            continue
        shown.setdefault((f.code, f.path), f)
        if f.code is Code.W101 and f.path in joined:
            shown.setdefault((Code.W708, f.path), joined[f.path])
    return list(shown.values())


def _waiver(finding: Finding) -> str:
    """A waiver for `finding`, in the waiver file's TOML: `literal = true` where the path holds
    a glob character, `[` included (review63c: a W628 or W708 waiver is a glob, and the stanza
    for `lib[1].so` waived `lib1.so`, not the finding)."""
    return "\n".join(["[[waiver]]", *_waiver_keys(finding)])


def _waiver_keys(finding: Finding) -> list[str]:
    literal = ["literal = true"] if any(c in finding.path for c in "*?[") else []
    return [
        f'code = "{finding.code.name}"',
        f"path = {toml_string(finding.path)}",
        *literal,
        f'reason = "{WAIVER_PLACEHOLDER_REASON}"',
    ]


def waivers_inline(native: Sequence[Finding]) -> str:
    """`waiver_stanzas` as one TOML line, an array of inline tables (`waiver = [{code = …}]`:
    the same tables the stanzas make), for a report whose steps are one line each (the
    bundle's)."""
    tables = ", ".join("{" + ", ".join(_waiver_keys(f)) + "}" for f in _waived(native))
    return f"waiver = [{tables}]"


def toml_string(value: str) -> str:
    """`value` as a TOML basic string: quotes and backslashes escaped, and every control
    character (TOML allows none raw in a basic string) as `\\uXXXX`. Not `json.dumps`: a text
    report loads no `json` (tests/cli/test_startup_imports.py)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    shown = (f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in escaped)
    return '"' + "".join(shown) + '"'
