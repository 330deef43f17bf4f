"""The one finding model of `k3diff wheels` and `k3diff audit`: the codes and a finding. The
policy that decides which findings are reported and which fail the run is `wheel.policy`;
reviewed exceptions to it (`Waiver`, `WaiverSet`) are `wheel.waivers`, with their reader (issue
41: a run without `--waivers` defines neither frozen class, ≈ 1.3 ms of start-up).

One code family: W codes (what `wheels` finds; the archive-soundness W6xx codes are audit's too)
and A codes (what only `audit` finds: RECORD and manifest problems). The member name is the
stable code (`--select` / `--ignore` take it), written with its message. Codes are never
renumbered and never reused; new ones are only added.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, StrEnum

_ORDER = itertools.count(1)


class Code(Enum):
    """Stable finding codes (check-wheel-contents style: each is written with its message).

    A member's `message` is its text; its value is its place in the registry, so two codes of one
    message (W618 in `wheels`, A112 in `audit`) stay two codes rather than one an alias of the
    other, as members of equal values would be."""

    message: str
    """What a finding of this code says, generically."""

    def __new__(cls, message: str) -> Code:
        member = object.__new__(cls)
        member._value_ = next(_ORDER)
        return member

    def __init__(self, message: str) -> None:
        self.message = message

    W101 = "native entry changed"
    W102 = "native entry missing from the patch"
    W103 = "native entry added by the patch"
    W201 = "Python file changed"
    W202 = "Python file missing from the patch"
    W203 = "Python file added by the patch"
    W301 = "wheel metadata changed"
    W302 = "RECORD does not match the archive"
    W401 = "Python file does not match the source commit"
    W402 = "Python file absent at the source commit"
    W403 = "stale build: Python file matches an older commit than the range's head"
    W405 = "bytecode cannot be verified against the source commit"
    W406 = "source history rewritten by replace refs or grafts (ignored)"
    W407 = "source objects borrowed from another repository's object store (alternates)"
    W408 = "the commit the patch wheel states is not the source commit (or not in the repository)"
    W409 = "the commit the base wheel states is not the range's OLD (or not in the repository)"
    W410 = "Python module the base wheel shipped is at the source commit but missing from the patch"
    W411 = "the patch wheel says it was built from a dirty work tree (uncommitted changes)"
    W412 = "Python file the source commit's build leaves out of the wheel is in the patch"
    W413 = "the patch wheel's METADATA Version is not the version the source commit builds"
    W501 = "other entry changed, missing or added"
    W601 = "unsafe entry path (absolute or '..')"
    W602 = "symbolic link entry"
    W603 = "encrypted entry"
    W604 = "entry stream fails its own CRC-32 or size (corrupt archive)"
    W605 = "wheel filename contradicts its metadata"
    W606 = "base and patch are different distributions"
    W607 = "entry name with a backslash"
    W608 = "duplicate entry name"
    W609 = "local header disagrees with the central directory"
    W610 = "bytes outside any entry (prepended, appended or between entries)"
    W611 = "overlapping entries"
    W612 = "compression ratio of a bomb"
    W613 = "end records and central directory disagree (zipfile reads another archive)"
    W614 = "control character in an entry name"
    W615 = "entries that install to one file (the last pip writes wins)"
    W616 = "pip cannot install this wheel"
    W617 = "directory entry carrying data (pip installs nothing from it)"
    W618 = "RECORD lists a path more than once"
    W619 = "entry Windows cannot write as named (device name, colon, trailing dot or space)"
    W620 = "installed exec bit changed (pip installs the file executable on one side only)"
    W621 = "entry's file type changed (regular file, symbolic link)"
    W622 = "exec bits changed where pip installs both sides alike"
    W623 = "RECORD row uses a weak or unknown hash algorithm"
    W624 = "core metadata that PyPI refuses on upload (packaging.metadata, readme_renderer, its upload rules)"
    W625 = "extension breaks the wheel's abi3 (stable ABI) tag"
    W626 = "extension needs a newer stable ABI than in the base (--explain)"
    W627 = "data file that is site-packages on some of the wheel's Pythons or platforms only"
    W628 = "module shadowed or unshadowed: a file no longer runs, or one that never ran now does"
    W629 = "extension not importable on some Python its tags install it on"
    W630 = (
        "patch installs on fewer systems than the base (its tags drop Pythons or platforms, "
        "or its Requires-Python Pythons)"
    )
    W631 = "patch's long description too long for k3diff to render as twine does: unchecked"
    W632 = (
        "added or changed native whose RPATH/RUNPATH lets another party plant a library it "
        "loads (empty, relative, outside the system's directories, or above site-packages; "
        "--explain)"
    )
    W633 = (
        "added or changed native whose RPATH/RUNPATH names a build machine's directory only "
        "root creates (a leftover, no hijack; --explain)"
    )
    W701 = "executable .pth line added or changed (runs at every interpreter start)"
    W702 = (
        "sitecustomize/usercustomize or .pth-imported module added or changed (runs at every start)"
    )
    W703 = "script added or changed whose name shadows a common command"
    W704 = "entry point added or changed in a group other than console/GUI scripts"
    W705 = "bytecode added or changed whose source did not change the same way"
    W706 = ".pth path lines added or changed"
    W707 = "console or GUI script added or changed"
    W708 = "file pip copies into bin/ added or changed (.data/scripts, .data/data/bin)"
    W709 = "new top-level name in site-packages"
    W710 = "execution surface removed"
    W711 = "bytecode runs instead of its source (unchecked hash, or the source's own hash)"
    W712 = "bytecode changed together with its source"
    W713 = "native entry raises its required glibc/libstdc++ version, or its loader tables cannot be read (--explain)"
    W714 = "SBOM component added, removed or changed in version"
    W715 = "SBOM document that cannot be read"
    W716 = "timestamp bytecode changed beside its unchanged source (stale: Python recompiles it)"
    W717 = "file a tool of the environment runs or loads added or changed (Jupyter, IPython, pip, conda, bash)"
    A001 = "not a readable zip archive"
    A002 = (
        "sdist is not a sound gzip-compressed tar (cut short, a failed check, bytes after its end)"
    )
    A101 = "wheel has no RECORD"
    A102 = "malformed RECORD row"
    A103 = "entry content does not match its RECORD hash"
    A104 = "entry size does not match its RECORD size"
    A105 = "entry not listed in RECORD"
    A106 = "RECORD lists a file the archive does not hold"
    A107 = "RECORD row without a hash"
    A108 = "RECORD uses a weak hash algorithm (md5/sha1)"
    A109 = "RECORD uses an unknown hash algorithm"
    A110 = "RECORD does not list itself without a hash"
    A111 = "RECORD signature file present (not verified; no longer part of the wheel spec)"
    A112 = "RECORD lists a path more than once"
    A113 = "wheel has no .dist-info directory with METADATA"
    A114 = "entry uses a compression method k3diff does not read"
    A115 = "native needs a newer glibc, libstdc++ or libgcc/zlib than its manylinux/musllinux tag promises"
    A116 = "native's loader tables could not be read: its platform needs are unchecked"
    A120 = "exec bits pip ignores (a mode without a file type)"
    A121 = "ELF executable that pip installs not executable"
    A122 = "core metadata that PyPI refuses on upload (packaging.metadata, readme_renderer, its upload rules)"
    A123 = "extension breaks the wheel's abi3 (stable ABI) tag"
    A124 = "PEP 658 metadata file differs from the wheel's METADATA"
    A125 = "native built for an architecture none of the wheel's platform tags names"
    A126 = "file name is not a wheel filename"
    A127 = ".pth file with lines executed at every interpreter start"
    A128 = "wheels pip reads as one project, version and build share a tag (pip installs either)"
    A129 = "sdist member path leaves the tree it unpacks into (.., absolute, drive letter, NUL)"
    A130 = "sdist link out of the tree, one tarfile's data filter refuses, or a path through a link"
    A131 = "sdist member that is a device, FIFO or sparse file"
    A132 = (
        "sdist member name given more than once, or alike but for case or Unicode form "
        "(extraction keeps the last)"
    )
    A133 = "sdist member outside its one top directory NAME-VERSION/"
    A134 = "sdist has no readable PKG-INFO in its top directory"
    A135 = (
        "sdist PKG-INFO, pyproject.toml, setup.py or setup.cfg name or version is not the file "
        "name's (PEP 625)"
    )
    A136 = "source archive PyPI does not take (only .tar.gz sdists): not read"
    A137 = "sdist file name not normalised as PEP 625 asks (PyPI refuses it on upload)"
    A138 = "long description too long for k3diff to render as twine check does: unchecked"
    A139 = (
        "native's RPATH/RUNPATH lets another party plant a library it loads (empty, relative, "
        "outside the system's directories, or above site-packages)"
    )
    A140 = "native's RPATH/RUNPATH names a build machine's directory only root creates (a leftover)"
    A141 = "wheel file name or platform tag PyPI refuses on upload"
    A201 = "artifact SHA-256 does not match the manifest"
    A202 = "manifest names an artifact that was not audited"
    A203 = "artifact not in the manifest"


WHEELS_CODES = tuple(code for code in Code if code.name.startswith("W"))
"""The codes `k3diff wheels` reports, and so the ones its `--select` / `--ignore` take (A codes
are audit's only: a wheels run could never report one)."""

AUDIT_CODES = tuple(code for code in Code if code.name.startswith("A"))
"""The codes only `k3diff audit` reports."""


NATIVE_CODES = frozenset({Code.W101, Code.W102, Code.W103})
NATIVE_SURFACE_CODES = frozenset({Code.W628, Code.W708})
"""Execution-surface codes whose finding may be about native code (`Finding.native`): a
`.data/scripts` file that is a native executable rebuilt (W708: `bin/z3`, an ELF, Mach-O or PE
image in the base and in the patch, the one image the patch's platform loads), an extension added beside the module file it now shadows
(W628: Cython compiling its own `.py`). Such a finding is a native change, and
`--allow-native-changes` lets it pass; a text script, a binary script added or one that replaced
a text script (a new command on PATH), an `ar` archive or fatbin script (no program) or a new
`.py` never."""
UNVOUCHED_CODES = frozenset({Code.A102, Code.A105, Code.A107, Code.A108, Code.A109, Code.A114})
"""Codes that say RECORD does not vouch for an entry's content: not listed (A105), listed
without a hash (A107), with a weak (A108), unknown (A109) or malformed (A102) one, or content
k3diff does not read (A114: bzip2, lzma, which pip installs); audit checks no hash of such an
entry. Audit marks the finding `native` when the entry is a native (by name or content magic,
and an entry it cannot read may be one: `wheel.kinds.is_native_entry`): a waiver covers it by
its exact path only."""
FAILING_BY_DEFAULT = NATIVE_CODES | {
    Code.W302,
    Code.W401,
    Code.W402,
    Code.W403,
    Code.W405,
    Code.W408,
    Code.W410,
    Code.W411,
    Code.W412,
    Code.W413,
    Code.W601,
    Code.W602,
    Code.W603,
    Code.W604,
    Code.W605,
    Code.W606,
    Code.W607,
    Code.W608,
    Code.W609,
    Code.W610,
    Code.W611,
    Code.W612,
    Code.W613,
    Code.W614,
    Code.W615,
    Code.W616,
    Code.W617,
    Code.W618,
    Code.W619,
    Code.W620,
    Code.W621,
    Code.W623,
    Code.W625,
    Code.W627,
    Code.W628,
    Code.W629,
    Code.W630,
    Code.W632,
    Code.W701,
    Code.W702,
    Code.W703,
    Code.W704,
    Code.W705,
    Code.W708,
    Code.W711,
    Code.W713,
    Code.W717,
    *(
        code
        for code in AUDIT_CODES
        if code not in {Code.A120, Code.A121, Code.A127, Code.A138, Code.A140}
    ),
}
"""Codes whose findings fail the run unless an `--allow-*` option relaxes them. Every A code but
five fails: a long description too long to
render (A138: PyPI's upload renders it anyway), entry permissions that
install, but perhaps not as meant (A120, A121: k3diff cannot know whether a file should be
executable), a `.pth` file's executable lines (A127: setuptools, pywin32 and editable
installs ship them; `wheels` fails one added or changed, W701), and
an RPATH naming a build machine's directory only root creates (A140: `/opt/_internal/...`). A signature file (A111) fails, because k3diff cannot verify it and its content is
the one file RECORD never vouches for, and so does an sdist file name PEP 625 spells otherwise
(A137: PyPI refuses it on upload since October 2025, where it warned before; setuptools before
69.3 writes `demo-pkg-1.0.tar.gz`), and an ELF whose loader tables k3diff cannot read (A116;
elf76: a warning before, so a table made unreadable to k3diff but read by the loader hid a
RUNPATH of /tmp from A139, exit 0)."""


class Severity(StrEnum):
    """What a policy makes of a reported finding: `error` fails the run (exit 1), `info` is
    reported only."""

    ERROR = "error"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One observation with a stable code, about one archive path (or the artifact as a whole).
    Whether it fails the run is the policy's to say (`Policy.severity`), not the finding's."""

    code: Code
    """Stable code; its `message` is the generic message."""
    path: str
    """Archive path the finding is about ('' for the wheel or artifact as a whole; for a
    manifest finding, the artifact or name the manifest lists)."""
    detail: str
    """What exactly was observed."""
    native: bool = False
    """The finding is about native code, where that changes how it is judged: an execution
    surface that is a native change (`NATIVE_SURFACE_CODES`: `--allow-native-changes` lets it
    pass), or a native entry RECORD does not vouch for (`UNVOUCHED_CODES`, set by `audit`
    where a waiver file is given: a waiver covers it by its exact path only, and the verdict
    line names it). Written to JSON as `"native": true` when set."""

    @property
    def message(self) -> str:
        """The code's generic message."""
        return self.code.message

    @property
    def where(self) -> str:
        """Its path, or `WHOLE_WHEEL` for a finding about the wheel as a whole: how every table
        and list names it."""
        return self.path or WHOLE_WHEEL


WHOLE_WHEEL = "(wheel)"
"""How a finding about the whole wheel (path '') is named in place of a path: one word in the
failing table, the waived list and the bundle alike."""


def parse_codes(values: Iterable[str], family: Iterable[Code] = WHEELS_CODES) -> frozenset[Code]:
    """Codes of `family` from comma-separated option values; a prefix such as `W1` selects a
    family."""
    known_codes = tuple(family)
    codes: set[Code] = set()
    for value in values:
        for token in filter(None, (part.strip().upper() for part in value.split(","))):
            matched = {code for code in known_codes if code.name.startswith(token)}
            if not matched:
                known = ", ".join(code.name for code in known_codes)
                raise ValueError(f"unknown finding code {token!r} (known: {known})")
            codes |= matched
    return frozenset(codes)


NO_PYTHON = "pip installs it on no Python"
"""How the detail of a W616 whose tags and Requires-Python admit no Python in common ends
(`wheel.versionbound.installs_nowhere`): its next step is to fix those, not to rename entries."""
BY_TAGS_ALONE = "so pip refuses it everywhere"
"""What the detail of a `NO_PYTHON` W616 says where its tags alone admit no Python (an ABI
paired with the platform `any`, `cp313-cp313-any`): no Requires-Python fixes it (review68c:
the step said to change the tags or the Requires-Python, 'the detail names both')."""

BAD_NAME = "invalid wheel filename "
"""How the detail of a W616 for a filename pip's parser refuses starts (`wheel.refusals`):
its next step is to rename the file, not its entries (audit74)."""
NOT_LOWER_WHL = "pip does not take it for a wheel (it tries it as a source archive and fails)"
"""How the detail of a W616 for a `.whl` in another case (`x.WHL`) ends."""


def refuses_name(detail: str) -> bool:
    """Whether a W616's detail (its `in the … wheel: ` prefix dropped, as `audit` drops it) is
    a refusal of the wheel's file name, which renaming the file fixes."""
    return detail.startswith(BAD_NAME) or detail.endswith(NOT_LOWER_WHL)


WAIVER_PLACEHOLDER_REASON = "why this change is expected, and who reviewed it"
"""The reason a suggested waiver stanza carries (`report.wheelfailing`); a waiver file that
still holds it is refused (`wheel.waivers`): pasting the suggestion is not a review."""


UNWAIVABLE = frozenset(
    {
        Code.W601,  # unsafe entry path
        Code.W603,  # encrypted entry
        Code.W604,  # corrupt stream
        Code.W608,  # duplicate entry name
        Code.W609,  # local header disagrees with the central directory
        Code.W610,  # bytes outside any entry
        Code.W611,  # overlapping entries
        Code.W612,  # compression bomb
        Code.W613,  # zipfile reads another archive
        Code.W614,  # control character in a name
        Code.W615,  # entries that install to one file
        Code.W616,  # pip cannot install this wheel
        Code.W619,  # entry Windows cannot write as named
        Code.A001,  # not a zip archive: pip cannot read it
        Code.A126,  # not a wheel filename: pip refuses it (review66: both were waived, exit 0)
        Code.A002,  # not a sound gzip tar: pip may read another archive than the one checked
        Code.A129,  # sdist member path out of the tree
        Code.A130,  # sdist link out of the tree (or through a link)
        Code.A131,  # sdist device or FIFO
        Code.A132,  # sdist member name given twice
    }
)
"""Archive-soundness codes a waiver is refused for: each says the archive is not what pip reads
or installs (or cannot be installed at all), so the content a reviewer accepted is not what
would land on disk. Here, not in `wheel.waivers`, so a report that suggests waivers loads no
TOML reader."""
