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

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from k3diff import shellwords
from k3diff.output import OutputFormat, plural
from k3diff.report.markdown import inline_code
from k3diff.report.refusedsteps import sided_renames
from k3diff.report.stepwords import (
    REBUILD,
    named,
    ordered,
    record_step,
    section,
    stanza_block,
    unwaivable_step,
    waiver_stanzas,
    waiver_step,
)
from k3diff.wheel.codes import NO_PYTHON, UNWAIVABLE, Code, Finding
from k3diff.wheel.findingorder import Named, counted, implied
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.policy import Policy
from k3diff.wheels.model import WheelReport

FINDING_HEADERS = ["code", "path", "finding", "detail"]
PROGRAM = "k3diff"
_OLDER = " at older commit "
"""What a W403's detail says before the commit its file matches (`wheels.findings`)."""
_HEX = re.compile(r"[0-9a-f]{4,64}")


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
    wheels = (report.base.path, report.patch.path)
    said = [(f.code.name, f.path, f.detail) for f in failing]
    renames, renamed = sided_renames(said, wheels, code)
    rest = [f for position, f in enumerate(failing) if position not in renamed]
    rebuild = unwaivable_step(named(rest), nowhere, files=wheels, code=code)
    repack = record_step(named(failing), report.patch.path, code)
    left_out = left_out_step(named(failing), code)
    stale = [f.detail for f in failing if f.code is Code.W403]
    sourced = [
        step for _, step in source_steps(named(failing), report.provenance, wheels, code, stale)
    ]
    if not waivable:  # native findings are all waivable
        first = [*renames, *([] if rebuild is None else [rebuild])]
        return section("Next steps", first, "", fmt) if first else ""
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
        alone = repack is None and left_out is None and not sourced
        steps = [waiver_step(code, alone=alone, wide=_wide(waivable))]
    steps[:0] = sourced
    for step in (left_out, repack):
        if step is not None:
            steps.insert(0, step)
    if rebuild is not None:
        steps.insert(0, rebuild)
    steps[:0] = renames
    kind = "native finding" if len(waivable) == len(native) else "finding"
    waiver = stanza_block(waiver_stanzas(waivable), kind)
    title = "Next steps (native code differs)" if native else "Next steps"
    return section(title, steps, waiver, fmt)


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


class Source(Protocol):
    """What the source steps read of a source check: a report's (`ProvenanceReport`) or a
    document's (`WheelsProvenance`)."""

    @property
    def repo(self) -> str: ...
    @property
    def rev(self) -> str | None: ...
    @property
    def range(self) -> str | None: ...
    @property
    def commit(self) -> str: ...
    @property
    def head_commit(self) -> str | None: ...


def source_steps(
    failing: Sequence[Named],
    source: Source | None,
    wheels: tuple[str, str],
    code: Callable[[str], str] = str,
    details: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """What to do about failing W401 (a Python file that is not the source commit's) and W403
    (one that is only an older commit's than the range's head): (code, step) for each that
    fails (newuser73: a wheel checked against the commit before the one it was built from, or
    built before the range's last change, was offered only a waiver). W401 with `--commit`:
    check the commits it may come from with `--commits` (its command filled in but for the
    range); with `--commits`: no commit of the range holds the file. Either way, or build the
    wheel from the commit and compare. `wheels`: the base's and the patch's paths as given.
    `details`: the failing W403s' details, whose older commit the W403 step's command checks
    against where they name one (steps74: it said `--commit COMMIT`)."""
    if source is None:
        return []
    build = code(REBUILD[0])
    compare = code("k3diff wheels BUILT.whl " + shellwords.path(wheels[1]))
    steps = []
    wrong = [f for f in failing if f[0] == Code.W401.name]
    if wrong:
        counts = f"{counted(wrong, thousands=False)} on {_files(wrong)}"
        rebuilt = (
            f"build the wheel from the commit ({build}) and compare it with this one ({compare})"
        )
        if source.range is not None:
            step = (
                f"{counts}: no commit of {code(source.range)} holds the wheel's file (the "
                "report's source diff is against the range's head): widen the range to the "
                f"commits the wheel may come from, or {rebuilt}"
            )
        else:
            base, patch, repo = map(shellwords.path, (*wheels, source.repo))
            checked = source.rev or source.commit
            span, which = _commits_range(source)
            words = [PROGRAM, "wheels", base, patch, "--source", repo, "--commits", span]
            command = code(" ".join(words))
            step = (
                f"{counts}: the wheel's file is not the one at {code(checked)} (the report's "
                "source diff shows how): where the wheel may have been built from another "
                f"commit, check it against the commits it may come from ({command}: {which}; "
                "each file is matched with its newest matching commit, and one matching only an "
                "older commit than the range's last fails as a stale build, W403, naming it); "
                f"else {rebuilt}"
            )
        steps.append((Code.W401.name, step))
    stale = [f for f in failing if f[0] == Code.W403.name]
    if stale:
        base, patch, repo = map(shellwords.path, (*wheels, source.repo))
        commit = _older_commit(details) or "COMMIT"
        against = " ".join([PROGRAM, "wheels", base, patch, "--source", repo, "--commit", commit])
        steps.append(
            (
                Code.W403.name,
                f"{counted(stale, thousands=False)} on {_files(stale)}: the wheel's file is the one "
                "an older commit than the range's head holds (the detail names it), so the wheel was "
                f"built before the range's last change to it: build it from the head ({build}) and "
                f"compare it with this one ({compare}), or, where that older build is the one meant, "
                f"check the wheel against its commit ({code(against)})",
            )
        )
    return steps


def _commits_range(source: Source) -> tuple[str, str]:
    """The range the W401 step checks (cleanup75: it said `OLD..NEW`), and what it is: from
    the commit checked to the repository's HEAD (a wheel built after it, newuser73's case); up
    to it where it was given as HEAD or is HEAD (setupstop76: its id gave ``ID..HEAD``, which
    holds no commit), from OLD, which the report does not know; OLD..NEW where
    the commit is not a commit's hex (a document is hostile: only hex reaches the command)."""
    commit = source.commit
    if not _HEX.fullmatch(commit):
        return "OLD..NEW", "OLD and NEW the first and the last commit it may come from"
    if (source.rev or "").strip() == "HEAD" or source.head_commit == commit:
        return f"OLD..{commit}", (
            f"OLD the first commit it may come from, which the report does not know, {commit} "
            "the one checked"
        )
    return f"{commit}..HEAD", (
        f"from {commit}, the one checked, to the repository's HEAD; start it earlier (the "
        "report does not know where) where the wheel may be older"
    )


def _older_commit(details: Sequence[str]) -> str | None:
    """The one older commit the W403 `details` name (`… at older commit HEX`); None where
    they name none, several, or one that is not a commit's hex (a document's detail is
    hostile: only hex reaches the command)."""
    commits = {detail.rpartition(_OLDER)[2] for detail in details if _OLDER in detail}
    if len(commits) != 1:
        return None
    (commit,) = commits
    return commit if _HEX.fullmatch(commit) else None


def _files(findings: Sequence[Named]) -> str:
    """`2 files`: the paths `findings` name."""
    return plural(len({path for _, path, _ in findings}), "file")


def _wide(findings: Sequence[Finding]) -> list[str]:
    """The codes of the findings about the wheel as a whole (path `""`), in order."""
    return [f.code.name for f in findings if not f.path]


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
