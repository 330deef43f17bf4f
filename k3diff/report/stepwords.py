"""The words every command's next steps share (words73): the fix of a stale RECORD and of the
findings no waiver accepts, the waiver step and its stanzas, and the "Next steps" section that
holds them, in text or Markdown. `wheels` (`report.wheelfailing`) and `audit`
(`report.auditsteps`) say them alike, and the bundle (`bundle.nextsteps`) reads them for both,
so a finding's next step has one wording wherever it is shown. Loaded only when something
fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from k3diff import escape, shellwords
from k3diff.output import OutputFormat, plural
from k3diff.report.markdown import fenced
from k3diff.wheel.artifactglob import artifact_name, literal_glob
from k3diff.wheel.codes import (
    BY_TAGS_ALONE,
    NO_PYTHON,
    UNWAIVABLE,
    WAIVER_PLACEHOLDER_REASON,
    Code,
    Finding,
)
from k3diff.wheel.findingorder import Named, counted, implied, order_key

WAIVERS_SHOWN = 10  # waiver stanzas the next steps fill in; the rest are counted
REBUILD = ("python -m build --wheel", "pip wheel --no-deps -w dist .")
"""How a wheel is built anew from its source: the commands a step names (each runs the
project's build backend, which writes METADATA and RECORD)."""


def named(findings: Sequence[Finding]) -> list[Named]:
    """What `wheel.findingorder` reads of each finding."""
    return [(f.code.name, f.path, f.native) for f in findings]


def ordered(findings: Sequence[Finding]) -> list[Finding]:
    """The failing findings in the table's order (all of severity error: code, then path)."""
    return sorted(findings, key=lambda f: order_key("error", f.code.name, f.path))


DAMAGED = frozenset({Code.W604, Code.W609, Code.W610, Code.W611, Code.W613})
"""Unwaivable codes that say the archive is not as a zip writer wrote it (a stream failing its
own CRC-32, headers that disagree, bytes outside any entry, entries that overlap, end records
that name another directory): damaged by a download, a copy or a disk, or altered after the
build. No entry is misnamed, so their fix is a good copy, not a renamed entry."""


def unwaivable_step(
    failing: Sequence[Named],
    nowhere: str | None = None,
    then: str = "compare the rebuilt wheel",
    files: Sequence[str] = (),
    code: Callable[[str], str] = str,
) -> str | None:
    """The step for failing findings no waiver accepts (`UNWAIVABLE`), None where none fails:
    the wheel itself must change (newuser65: a wheel failing W619 alone, `pkg/aux.py`, got no
    next step at all, and neither `--explain` nor its detail said what to do). `nowhere`: one
    the detail of the W616 whose tags (`BY_TAGS_ALONE`), or tags and Requires-Python, admit no
    Python in common (`NO_PYTHON`), which the tags or Requires-Python fix, not a renamed entry
    (w408b; review68c: tags alone, the tags). `then`: what to do with the rebuilt wheel
    (`audit`'s steps audit it). A damaged archive (`DAMAGED`) gets its own step, first
    (`damaged_step`; newuser73: a stream failing its CRC-32 was told to rename or drop the
    entry), `files` the wheels it names, `code` how it shows its command."""
    damaged = damaged_step(failing, files, then, code)
    kept = [f for f in failing if Code[f[0]] in UNWAIVABLE and Code[f[0]] not in DAMAGED]
    if not kept:
        return damaged
    rest = _rebuild_step(kept, nowhere, then)
    return rest if damaged is None else f"{damaged}; {rest}"


def damaged_step(
    failing: Sequence[Named],
    files: Sequence[str] = (),
    then: str = "compare the rebuilt wheel",
    code: Callable[[str], str] = str,
) -> str | None:
    """The step for failing findings that say the archive is damaged or altered (`DAMAGED`),
    None where none fails: a fresh copy of the wheel, its hash checked against the one its
    build or index lists, and a rebuild where the fresh copy fails alike. `files`: the wheels
    to hash (`WHEEL.whl` where none is given); `then`'s verb says what to do with it."""
    kept = [f for f in failing if Code[f[0]] in DAMAGED]
    if not kept:
        return None
    them = "it" if len(kept) == 1 else "them"
    hashed = code(" ".join(["sha256sum", *map(shellwords.path, files or ["WHEEL.whl"])]))
    again = f"{then.split()[0]} it again"
    which = ("", "the") if len(files) == 1 else ("; the detail says which wheel", "that")
    return (
        f"{counted(kept, thousands=False)}: no waiver accepts {them} (the archive is not as "
        "its zip writer wrote it: damaged by a download, a copy or the disk, or altered after "
        f"the build{which[0]}): copy {which[1]} wheel again from where it was "
        f"built, check that {hashed} gives the hash the build or the index lists, and "
        f"{again}; where a fresh copy fails alike, rebuild it ({code(REBUILD[0])}) and find "
        "the step that alters it"
    )


def _rebuild_step(kept: Sequence[Named], nowhere: str | None, then: str) -> str:
    """The step for unwaivable findings a rebuilt wheel fixes (`unwaivable_step`)."""
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
            f"rebuild it with {tags}{named}, then {then}"
        )
    also = (
        f"; for the W616 that says {NO_PYTHON!r}, rebuild it with {tags} instead" if nowhere else ""
    )
    return (
        f"{counts}: no waiver accepts {them} (pip would not install the "
        f"wheel as it lists its entries, or not at all): rebuild it without {them}, renaming or "
        "dropping each entry named (its detail says what pip or Windows does with it)"
        f"{also}, then {then}"
    )


def record_step(
    failing: Sequence[Named],
    patch_path: str,
    code: Callable[[str], str] = str,
    codes: frozenset[Code] = frozenset({Code.W302}),
    then: str = "compare the new wheel",
) -> str | None:
    """The fix for failing W302 (RECORD does not describe the archive), None where none fails:
    a wheel whose RECORD is written anew, by its build or by `wheel pack` (words72: a stale
    RECORD's next step offered only a waiver). `wheel unpack` checks every file it extracts
    against RECORD, so it refuses this wheel: the step starts from the wheel the build wrote,
    which it unpacks into `DIR/NAME-VERSION`, the first two fields of the patch's file name.
    `codes`: the findings that say so (`audit`'s A103-A106, A110, A112); `then`: what to do
    with the new wheel. The rebuild names its commands (`REBUILD`; words73: "rebuild the wheel
    from its source" left the reader to find how)."""
    names = {c.name for c in codes}
    stale = [f for f in failing if f[0] in names]
    if not stale:
        return None
    files = plural(len({path for _, path, _ in stale}), "file")
    unpack = code("wheel unpack BUILT.whl -d DIR")
    pack = code(f"wheel pack {shellwords.quote(unpacked_dir(patch_path))}")
    build, pip = (code(command) for command in REBUILD)
    return (
        f"{counted(stale, thousands=False)} on {files}: RECORD does not describe the archive "
        "(its files or RECORD changed after the wheel was built, by a step that edits built "
        f"wheels or by someone else): rebuild the wheel from its source ({build}, or {pip}: "
        "its build backend writes RECORD), or start the editing step from the wheel the build "
        "wrote, with the "
        f"commands of the wheel package ({unpack}, which refuses a file that does not match "
        f"its RECORD hash), edit under DIR and repack with {pack}, which writes RECORD anew; "
        f"then {then}"
    )


def unpacked_dir(path: str) -> str:
    """Where `wheel unpack WHEEL -d DIR` puts the wheel at `path`: `DIR/NAME-VERSION`, the
    first two fields of its file name (`NAME-VERSION` where it is no wheel's name). A step
    shell-quotes it (words73: a file name holding `$(…)` made a `wheel pack` line that ran it)."""
    fields = artifact_name(path).split("-")  # as `wheel unpack` names it on POSIX
    return "DIR/" + ("-".join(fields[:2]) if len(fields) >= 5 else "NAME-VERSION")


def waiver_step(
    code: Callable[[str], str] = str,
    alone: bool = False,
    wide: Sequence[str] = (),
    artifact: bool = False,
    whole: str = "wheel",
) -> str:
    """The step that introduces the waiver stanzas: the last of the native steps (`or …`), or
    the only one when no native finding fails. `wide`: the codes of the findings among them
    about the wheel as a whole (W605, W630, …), whose path is `""`: a waiver's `path` is a
    glob on the finding's path, so `""` (or `*`) covers them, and `""` no entry's finding.
    `artifact`: each stanza names its artifact too (`audit`'s). `whole`: what those findings
    are about, `sdist` for an sdist's A137 (newuser76: it read "about the wheel as a whole")."""
    accept = "accept" if alone else "or accept"
    said = "each stanza below names one exact path" + (" and its artifact" if artifact else "")
    if wide:
        codes = list(dict.fromkeys(wide))  # each once, in order
        verb = "is" if len(codes) == 1 else "are"
        empty = code('path = ""')
        said = (
            f"{said}; {', '.join(codes)}, about the {whole} as a whole, {verb} waived by "
            f"{empty}, which covers no entry's finding"
        )
    noun = "finding" if wide else "file"
    return (
        f"{accept} each reviewed {noun} with a waiver, one {code('[[waiver]]')} per code and "
        f"path{' and artifact' if artifact else ''} in a TOML file given with "
        f"{code('--waivers FILE')} ({said}):"
    )


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


def waiver_stanza(finding: Finding, artifact: str | None = None) -> str:
    """`_waiver`, naming the artifact's file name where given (`audit`'s stanzas: a waiver
    without `artifact` covers the code and path in every artifact audited)."""
    return "\n".join(["[[waiver]]", *_waiver_keys(finding, artifact)])


def _waiver_keys(finding: Finding, artifact: str | None = None) -> list[str]:
    literal = ["literal = true"] if any(c in finding.path for c in "*?[") else []
    # `artifact` is a glob on the file name: each glob character of the name matched as itself
    name = literal_glob(artifact_name(artifact or ""))
    return [
        f'code = "{finding.code.name}"',
        f"path = {toml_string(finding.path)}",
        *literal,
        *([f"artifact = {toml_string(name)}"] if name else []),
        f'reason = "{WAIVER_PLACEHOLDER_REASON}"',
    ]


def waivers_inline(native: Sequence[Finding], artifacts: Sequence[str] | None = None) -> str:
    """`waiver_stanzas` as one TOML line, an array of inline tables (`waiver = [{code = …}]`:
    the same tables the stanzas make), for a report whose steps are one line each (the
    bundle's). `artifacts`: each finding's artifact, in order (`audit`'s, each stanza as
    `waiver_stanza` writes it, the findings already one per code, path and artifact)."""
    if artifacts is None:
        keys = [_waiver_keys(f) for f in _waived(native)]
    else:
        keys = [_waiver_keys(f, a) for f, a in zip(native, artifacts, strict=True)]
    tables = ", ".join("{" + ", ".join(k) + "}" for k in keys)
    return f"waiver = [{tables}]"


def toml_string(value: str) -> str:
    """`value` as a TOML basic string: quotes and backslashes escaped, and every character
    `escape.text` would show as an escape (C0 and DEL, which TOML allows none of raw, and C1,
    the line separators, bidirectional and invisible ones) as TOML's `\\uXXXX` or
    `\\UXXXXXXXX`, so that no renderer changes the string on its way out (review73c: a raw
    NEL, U+0085, in an entry name split the stanza over two lines in the text report, and in
    Markdown was shown as `\\x85`, an escape TOML refuses: either way the pasted waiver file
    did not load). Not `json.dumps`: a text report loads no `json`
    (tests/cli/test_startup_imports.py)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(map(_toml_char, escaped)) + '"'


def _toml_char(character: str) -> str:
    if escape.text(character) == character:
        return character
    code = ord(character)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def stanza_block(stanzas: Sequence[str], kind: str = "finding") -> str:
    """The waiver stanzas a section shows: the first `WAIVERS_SHOWN`, then the rest counted
    (`kind`: what each waives, `native finding` or `finding`)."""
    waiver = "\n".join(stanzas[:WAIVERS_SHOWN])
    if len(stanzas) > WAIVERS_SHOWN:
        more = len(stanzas) - WAIVERS_SHOWN
        waiver += (
            f"\n# … {plural(more, f'more failing {kind}', f'more failing {kind}s')}"
            ", one [[waiver]] each: --format json lists every finding's code and path"
        )
    return waiver


def section(
    title: str, steps: Sequence[str], waiver: str, fmt: OutputFormat, level: int = 3
) -> str:
    """The "Next steps" section: each step on its line (a bullet in Markdown, under a heading
    of `level`), then the waiver TOML (`waiver`, '' for none) indented, or fenced."""
    if fmt is OutputFormat.MARKDOWN:
        bullets = "\n".join(f"- {step}" for step in steps)
        fence = f"\n\n{fenced(waiver, 'toml')}" if waiver else ""
        return f"{'#' * level} {title}\n\n{bullets}{fence}"
    lines = [f"  {escape.text(step)}" for step in steps]
    # At newlines only: `str.splitlines` also breaks at NEL, U+2028 and the like.
    lines += [f"    {escape.text(line)}" for line in waiver.split("\n") if waiver]
    return "\n".join([title, *lines])
