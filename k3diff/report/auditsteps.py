"""What to do about `k3diff audit`'s failing findings: its "Next steps" (words73: a stale
RECORD, a manifest line that does not match, an unsound archive or a missing file said what
was wrong and never what to do).

The mechanism is `wheels`' (`report.stepwords`): for each artifact in the order given, a fix
per kind of failing finding, each a command or an action (the archive pip refuses first, then
RECORD, the platform, the metadata), then the manifest's (A201-A203), then the waiver step with
a stanza per failing finding a waiver takes, naming its artifact. A manifest finding gets no
stanza: a waived pin is no pin. Text and Markdown show the section before the verdict line;
the bundle (`bundle.nextsteps`) says the same steps. Loaded only when something fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from k3diff import shellwords
from k3diff.output import OutputFormat, plural
from k3diff.report.manifeststeps import manifest_steps
from k3diff.report.markdown import inline_code
from k3diff.report.metadatasteps import (
    Fix,
    pypi_name,
    pypi_name_fix,
    refused_fix,
    refused_metadata,
)
from k3diff.report.refusedsteps import Style, bad_name, dist_info, misnamed, unreadable
from k3diff.report.sdiststeps import LAYOUT, layout, layout_fix, members, other_archive, unsound
from k3diff.report.stepwords import (
    REBUILD,
    record_step,
    section,
    stanza_block,
    unpacked_dir,
    unwaivable_step,
    waiver_stanza,
    waiver_step,
)
from k3diff.wheel.artifactglob import artifact_name
from k3diff.wheel.codes import NO_PYTHON, UNWAIVABLE, Code, Finding, refuses_name
from k3diff.wheel.findingorder import Named, counted, order_key

AUDITED = "audit the new wheel"
"""What a step says to do with the rebuilt or repacked wheel."""
STALE = frozenset({Code.A103, Code.A104, Code.A105, Code.A106, Code.A110, Code.A112})
"""RECORD does not describe the archive: a file or RECORD changed after the build."""
UNVOUCHED = frozenset({Code.A101, Code.A102, Code.A107, Code.A108, Code.A109, Code.A113, Code.A114})
"""What the build wrote vouches for no content pip checks: no RECORD or METADATA, rows
without a usable hash, an entry compressed by a method pip may not read. Repacking would
vouch for bytes no hash checked, so only a rebuild fixes them."""
MANIFEST_CODES = frozenset({Code.A201, Code.A202, Code.A203})


class Failing(NamedTuple):
    """A failing finding, located: what the steps read of it."""

    code: str
    """The W or A code."""
    path: str
    """The archive path ('' for the artifact; a manifest finding's artifact or name)."""
    artifact: str
    """The artifact it is about, as given (a manifest finding's name)."""
    detail: str = ""
    """What was observed (a W616's says whether pip installs it on no Python)."""
    native: bool = False
    """The finding's `native` flag."""


def steps(
    failing: Sequence[Failing],
    manifest: str | None,
    artifacts: Sequence[str],
    code: Style = str,
    unaudited: int = 0,
) -> list[str]:
    """The fixes for `failing`, one line each: per artifact (in the order first found), then
    the manifest's (`manifest`: the manifest as given; `artifacts`: the files audited, as
    given; `unaudited`: how many files it pins were not, `manifest_steps`). Where several were
    audited, each artifact's steps start with its name, as they do where several fail."""
    lines: list[str] = []
    own = dict.fromkeys(f.artifact for f in failing if Code[f.code] not in MANIFEST_CODES)
    for artifact in own:
        found = [f for f in failing if f.artifact == artifact]
        label = f"{code(artifact)}: " if len(artifacts) > 1 or len(own) > 1 else ""
        lines += [f"{label}{step}" for step in _artifact_steps(artifact, found, code)]
    if manifest is not None:
        pins = [f for f in failing if Code[f.code] in MANIFEST_CODES]
        named = [(f.code, f.path) for f in pins]
        lines += manifest_steps(named, manifest, code, artifacts, unaudited)
    return lines


def waivable(failing: Sequence[Failing]) -> list[Failing]:
    """The failing findings a waiver stanza is suggested for, one per code, path and artifact,
    in each artifact's table order: every one a waiver accepts but the manifest's."""
    order = list(dict.fromkeys(f.artifact for f in failing))
    shown: dict[tuple[str, str, str], Failing] = {}
    for f in sorted(
        failing, key=lambda f: (order.index(f.artifact), order_key("error", f.code, f.path))
    ):
        if Code[f.code] not in UNWAIVABLE | MANIFEST_CODES:
            shown.setdefault((f.code, f.path, f.artifact), f)
    return list(shown.values())


def as_finding(failing: Failing) -> Finding:
    """The finding a waiver stanza is written for."""
    return Finding(Code[failing.code], failing.path, failing.detail, failing.native)


def _said(
    failing: Sequence[Failing],
    manifest: str | None,
    code: Style,
    artifacts: Sequence[str],
    unaudited: int,
) -> tuple[list[str], str]:
    """The steps, the waiver step last where a waiver takes a failing finding, and the waiver
    stanzas it introduces (`stanza_block`, '' for none): what every format says."""
    lines = steps(failing, manifest, artifacts, code, unaudited)
    waived = waivable(failing)
    if not waived:
        return lines, ""
    wide = [f.code for f in waived if not f.path]
    kinds = {
        "wheel" if f.artifact.lower().endswith(".whl") else "sdist" for f in waived if not f.path
    }
    whole = kinds.pop() if len(kinds) == 1 else "artifact"
    lines.append(waiver_step(code, alone=not lines, wide=wide, artifact=True, whole=whole))
    return lines, stanza_block([waiver_stanza(as_finding(f), f.artifact) for f in waived])


def next_steps(
    failing: Sequence[Failing],
    manifest: str | None,
    fmt: OutputFormat,
    artifacts: Sequence[str],
    unaudited: int = 0,
) -> str:
    """The audit report's "Next steps" section ('' when nothing fails); `artifacts` and
    `unaudited` as `steps`."""
    code = inline_code if fmt is OutputFormat.MARKDOWN else str
    lines, stanzas = _said(failing, manifest, code, artifacts, unaudited)
    if not lines:
        return ""
    return section("Next steps", lines, stanzas, fmt, level=2)


def step_records(
    failing: Sequence[Failing],
    manifest: str | None,
    artifacts: Sequence[str],
    unaudited: int = 0,
) -> list[dict[str, str]]:
    """The steps as `audit --format json` records them (audit74: a CI job reading the JSON got
    none): `{"step": …}` each, as the text report says it, the waiver step with `"toml"`, the
    stanzas the text shows below it."""
    lines, stanzas = _said(failing, manifest, str, artifacts, unaudited)
    records = [{"step": line} for line in lines]
    if stanzas:
        records[-1]["toml"] = stanzas
    return records


def _named(found: Sequence[Failing], codes: frozenset[Code] | None = None) -> list[Named]:
    return [(f.code, f.path, f.native) for f in found if codes is None or Code[f.code] in codes]


def _artifact_steps(artifact: str, found: Sequence[Failing], code: Style) -> list[str]:
    """The fixes for one artifact's failing findings, the archive pip refuses first."""
    nowhere = next(
        (f.detail for f in found if f.code == Code.W616.name and f.detail.endswith(NO_PYTHON)),
        None,
    )
    renamed = [
        f for f in found if f.code == Code.W616.name and not f.path and refuses_name(f.detail)
    ]
    sound = [f for f in _named([f for f in found if f not in renamed]) if f[0].startswith("W")]
    steps = [
        *_fixes(REFUSED, found, artifact, code),
        bad_name(_counts(renamed, frozenset({Code.W616})), artifact, code),
        unwaivable_step(sound, nowhere, "audit the rebuilt wheel", (artifact,), code),
        record_step(_named(found), artifact, code, STALE, AUDITED),
        *_fixes(_fix_table(found), found, artifact, code),
    ]
    return [step for step in steps if step is not None]


def _fixes(
    table: Sequence[tuple[frozenset[Code], Fix]],
    found: Sequence[Failing],
    artifact: str,
    code: Style,
) -> list[str]:
    """Each fix of `table` whose codes are among `found`, in the table's order."""
    steps = []
    for codes, fix in table:
        counts = _counts(found, codes)
        if counts is not None:
            steps.append(fix(counts, artifact, code))
    return steps


def _fix_table(found: Sequence[Failing]) -> tuple[tuple[frozenset[Code], Fix], ...]:
    """`FIXES`, A122's and A141's fixes chosen by their details (`metadatasteps`), an sdist's
    layout's by the codes found (`sdiststeps.layout_fix`)."""
    chosen = {
        Code.A122: refused_fix([f.detail for f in found if f.code == Code.A122.name]),
        Code.A137: layout_fix([f.code for f in found]),
        Code.A141: pypi_name_fix([f.detail for f in found if f.code == Code.A141.name]),
    }
    return tuple(
        (codes, next((fix for c, fix in chosen.items() if c in codes), step))
        for codes, step in FIXES
    )


def _counts(found: Sequence[Failing], codes: frozenset[Code], noun: str = "file") -> str | None:
    """`2 × A103, 1 × A104 on 3 files` for the findings of `codes` (`noun`: what a path
    names), None where none is."""
    kept = _named(found, codes)
    if not kept:
        return None
    paths = {path for _, path, _ in kept if path}
    on = f" on {plural(len(paths), noun)}" if paths else ""
    return f"{counted(kept, thousands=False)}{on}"


def _unvouched(counts: str, artifact: str, code: Style) -> str:
    build, pip = (code(command) for command in REBUILD)
    return (
        f"{counts}: the wheel's RECORD or METADATA vouches for no content pip checks (missing, "
        "a row without a hash or with a weak, unknown or malformed one, or an entry compressed "
        f"by a method pip may not read): rebuild it from its source with a current build "
        f"backend ({build}, or {pip}), which writes METADATA and a RECORD of sha256 rows and "
        f"deflates every entry, then {AUDITED} (repacking these bytes would vouch for content "
        "no hash checked)"
    )


def _signed(counts: str, artifact: str, code: Style) -> str:
    unpacked = unpacked_dir(artifact)
    unpack = code(f"wheel unpack {shellwords.path(artifact)} -d DIR")
    pack = code(f"wheel pack {shellwords.quote(unpacked)}")
    return (
        f"{counts}: a RECORD signature pip no longer reads and k3diff cannot verify: rebuild "
        f"the wheel without the signing step, or {unpack}, delete the signature file under "
        f"{code(unpacked)} and repack with {pack}; publish a signature beside the wheel instead "
        f"(PyPI's attestations, or a detached .asc file), then {AUDITED}"
    )


def _tags(options: str, artifact: str) -> str:
    """`wheel tags` with `options` on `artifact`, `--remove`d (review73c: else the original
    stays beside the new file, fails the directory's audit as before, is uploaded by `dist/*`)."""
    return f"wheel tags --remove {options} {shellwords.path(artifact)}"


def _retag(artifact: str, code: Style) -> str:
    return code(_tags("--platform-tag manylinux_2_X_ARCH", artifact))


def _glibc(counts: str, artifact: str, code: Style) -> str:
    return (
        f"{counts}: pip installs the wheel on systems whose glibc or libstdc++ its natives "
        f"need newer: {code('auditwheel show ' + shellwords.path(artifact))} names the "
        "manylinux tag their symbols allow; build the natives in the manylinux image of the tag "
        f"the wheel is to promise (cibuildwheel does) and run {code('auditwheel repair')}, "
        "which refuses a tag they exceed, or retag the wheel with the one they need "
        f"({_retag(artifact, code)}, X as auditwheel shows), then {AUDITED}"
    )


def _architecture(counts: str, artifact: str, code: Style) -> str:
    return (
        f"{counts}: pip installs the wheel on machines that cannot load its natives: rebuild "
        f"them for the architecture its tags name (cibuildwheel's {code('--archs')}), or "
        f"retag the wheel for the one they are built for ({_retag(artifact, code)}), then "
        f"{AUDITED}"
    )


_ORIGIN_RPATH = "-Wl,-rpath,'$ORIGIN/../NAME.libs'"


def _search_path(counts: str, artifact: str, code: Style) -> str:
    """A139: relinked, or the search paths removed from the files named. `auditwheel repair`
    rewrites the search path only of a native it copies a library in for (newuser75: scipy
    1.17.1's repaired wheel kept a build machine's RUNPATH on `cython_special`, which needs
    none), so the step names `patchelf` on the unpacked wheel too."""
    unpacked = unpacked_dir(artifact)
    unpack = code(f"wheel unpack {shellwords.path(artifact)} -d DIR")
    return (
        f"{counts}: the loader searches a directory someone else may fill for the libraries "
        "these natives need: link them with search paths anchored at the library's own folder "
        f"({code(_ORIGIN_RPATH)}) or none and rebuild; {code('auditwheel repair')} drops the "
        "others only from a native it copies a library in for, so for the rest "
        f"{unpack}, run {code('patchelf --remove-rpath FILE')} on each file named under "
        f"{code(unpacked)} ({code('--set-rpath')} where it needs its {code('$ORIGIN')} paths) "
        f"and repack with {code('wheel pack ' + shellwords.quote(unpacked))}, then {AUDITED}"
    )


def _abi3(counts: str, artifact: str, code: Style) -> str:
    retag = code(_tags("--python-tag cp3X --abi-tag cp3X", artifact))
    return (
        f"{counts}: pip installs the extension on Pythons it may not import on: rebuild it "
        f"against the stable ABI its abi3 tag promises ({code('Py_LIMITED_API')} defined; "
        f"setuptools: {code('Extension(..., py_limited_api=True)')}), or retag the wheel for "
        f"the one Python it was built for ({retag}), then {AUDITED}"
    )


def _served_metadata(counts: str, artifact: str, code: Style) -> str:
    unzip = code(f"{dist_info(artifact, 'METADATA')} > {shellwords.path(artifact + '.metadata')}")
    return (
        f"{counts}: resolvers read a METADATA that is not the wheel's: write the file anew "
        f"from the wheel ({unzip}), audit it again and publish it with the wheel"
    )


def _misfiled(counts: str, artifact: str, code: Style) -> str:
    return (
        f"{counts}: entries pip installs otherwise than the archive lists them (a symbolic "
        "link, a backslash in a name, a directory entry carrying data): rebuild the wheel "
        "without them, renaming or dropping each entry named (its detail says what pip does "
        f"with it), then {AUDITED}"
    )


def _filename(counts: str, artifact: str, code: Style) -> str:
    return (
        f"{counts}: the file's name and the wheel's metadata disagree (the detail says where): "
        f"rebuild it ({code(REBUILD[0])}: the build names the file from its metadata), or "
        "rename the file to the name, version and tags its .dist-info gives "
        f"({code(dist_info(artifact, 'WHEEL'))} lists the tags), then audit it again"
    )


def _customize(counts: str, artifact: str, code: Style) -> str:
    return (
        f"{counts}: a sitecustomize or usercustomize module, which runs at every start of every "
        "program of the environment: drop it from the packages the build configuration lists "
        f"and rebuild ({code(REBUILD[0])}), then {AUDITED}"
    )


def _unimportable(counts: str, artifact: str, code: Style) -> str:
    retag = code(_tags("--python-tag cp3X --abi-tag cp3X", artifact))
    return (
        f"{counts}: pip installs an extension on Pythons that cannot import it: build one wheel "
        "per Python the extension is for (cibuildwheel does), or narrow the tags to the one it "
        f"imports on ({retag}), then {AUDITED}"
    )


def _same_wheel(counts: str, artifact: str, code: Style) -> str:
    built = len(artifact_name(artifact).split("-")) == 6  # has a build tag: 1 may be no higher
    build = "N" if built else "1"
    higher = ", N above its build number" if built else ""
    return (
        f"{counts}: another wheel of its directory is the same project, version and build to "
        "pip and shares a tag (the detail names it), so pip installs whichever it lists first: "
        "keep one of them in the release directory (remove the other), or give this one "
        f"a higher build number ({code(_tags(f'--build {build}', artifact))}{higher}: the "
        "wheel renamed, the original removed), which pip prefers, then audit the directory again"
    )


REFUSED: tuple[tuple[frozenset[Code], Fix], ...] = (
    (frozenset({Code.A001}), unreadable),
    (frozenset({Code.A126}), misnamed),
    (frozenset({Code.A002}), unsound),
    (frozenset({Code.A129, Code.A130, Code.A131, Code.A132}), members),
)
"""Files pip refuses whole (no waiver takes them): their fixes come first."""
FIXES: tuple[tuple[frozenset[Code], Fix], ...] = (
    (frozenset({Code.W602, Code.W607, Code.W617}), _misfiled),
    (frozenset({Code.W605}), _filename),
    (frozenset({Code.A128}), _same_wheel),
    (UNVOUCHED, _unvouched),
    (frozenset({Code.A111}), _signed),
    (frozenset({Code.A115}), _glibc),
    (frozenset({Code.A125}), _architecture),
    (frozenset({Code.A139}), _search_path),
    (frozenset({Code.A123}), _abi3),
    (frozenset({Code.W629}), _unimportable),
    (frozenset({Code.W702}), _customize),
    (frozenset({Code.A122}), refused_metadata),
    (frozenset({Code.A141}), pypi_name),
    (frozenset({Code.A124}), _served_metadata),
    (LAYOUT, layout),
    (frozenset({Code.A136}), other_archive),
)
"""The fixes after the archive's and RECORD's, in the order they are said: the entries and the
name pip reads otherwise, what the build wrote, the platform the wheel promises, then what runs
and the metadata. A failing code none names gets its waiver stanza alone."""
