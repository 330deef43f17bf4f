"""What a wheel's filename claims (PEP 427: NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl), checked
against what its `.dist-info/` says, and whether base and patch are the same distribution.

A filename that is not a wheel filename (`base.whl`) claims nothing and is not checked. Names
compare PEP 503-normalised; versions compare under PEP 440 (`3.4.1.0` is `3.4.1`; a version
PEP 440 cannot read compares as text, `-` and `_` taken as the same, case ignored); tags compare
as expanded sets (`k3diff.wheel.tags`), and a filename naming a subset of the WHEEL file's tags
is no contradiction (a builder may name the wheel after some of the tags it declares). Nor is
any filename tag that changes nothing pip 26 does: pip installs by the filename's tags, and
only `pip check` reads WHEEL's (it says a project is unsupported when none of them is), so a
tag WHEEL covers with one supported wherever it is (`manylinux2014_x86_64` named,
`linux_x86_64` or, for the `none` ABI, `any` declared), or a Python 2 tag pip 26 never
selects, is not one. A patch whose tags or Requires-Python install it on fewer systems than
the base's is W630 (`narrowing_findings`, decided by `k3diff.wheel.systems`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import PurePath
from typing import NamedTuple, Protocol

from packaging.utils import canonicalize_name
from packaging.version import Version

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.metadata import WheelIdentity
from k3diff.wheel.tags import (
    compress,
    expand,
    expand_all,
    never_selected,
    wheel_image_formats,
    wider_tags,
)


class NamedWheel(Protocol):
    """A wheel as the filename checks need it: where it is and what it says about itself."""

    @property
    def path(self) -> str: ...
    @property
    def identity(self) -> WheelIdentity: ...


class WheelFilename(NamedTuple):
    """The parts of a PEP 427 wheel filename. (A NamedTuple, as immutable: every `wheels` and
    `audit` run defines it, where a frozen dataclass's generated methods cost ≈ 0.6 ms to
    compile; issue 41.)"""

    name: str
    """The project name as the filename spells it."""
    version: str
    """The version as the filename spells it."""
    tags: frozenset[str]
    """The expanded tag set (`py2.py3-none-any` is two tags)."""


def parse_wheel_filename(path: str) -> WheelFilename | None:
    """The filename's claims, or None when it is not a wheel filename.

    A name in five or six parts is read so, whether or not packaging takes it (a version PEP
    440 cannot read), so its claims are checked all the same. Its tags are packaging's
    (`parse_tag` of the last three parts, as `parse_wheel_filename` reads them), expanded as
    `wheel.tags.expand` expands them: at most `MAX_TAGS` (hunt72: packaging expanded a 255-byte
    name to 46,000 tags, and a release directory of 400 such names took 2 GB and 70 s)."""
    parts = wheel_filename_parts(path)
    if parts is None:
        return None
    name, version, tag_set = parts
    return WheelFilename(name, version, expand(tag_set))


def wheel_filename_parts(path: str) -> tuple[str, str, str] | None:
    """(name, version, compressed tag set) as a wheel filename states them, the tag set not
    expanded (`py2.py3-none-any`); None when the name is not in five or six parts."""
    filename = PurePath(path).name
    if not filename.endswith(".whl"):
        return None
    parts = filename[: -len(".whl")].split("-")
    if len(parts) not in (5, 6) or not all(parts):
        return None
    return parts[0], parts[1], "-".join(parts[-3:])


def loaded_formats(path: str, wheel_tags: Iterable[str]) -> frozenset[str]:
    """The image formats the platforms of the wheel at `path` load (`wheel.tags.image_formats`
    of its filename's tags and its WHEEL `Tag:` lines)."""
    named = parse_wheel_filename(path)
    return wheel_image_formats(named.tags if named is not None else (), wheel_tags)


def normalized_name(name: str) -> str:
    """PEP 503 normalisation: runs of `-`, `_`, `.` become one `-`, lower case."""
    return canonicalize_name(name)


def same_version(left: str, right: str) -> bool:
    """True when two versions are equal under PEP 440 (`3.4.1.0` == `3.4.1`), or, when either
    is not a PEP 440 version, equal as text with `-`/`_` and case ignored."""
    try:
        return Version(left) == Version(right)
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return left.replace("-", "_").lower() == right.replace("-", "_").lower()


def contradictions(path: str, identity: WheelIdentity) -> Iterator[tuple[str, str]]:
    """(field, plain-words sentence) for each field the filename contradicts."""
    claimed = parse_wheel_filename(path)
    if claimed is None or identity.dist_info is None:
        return
    other_name = identity.name is not None and normalized_name(claimed.name) != normalized_name(
        identity.name
    )
    if other_name:
        yield "name", f"the filename names project {claimed.name}, METADATA {identity.name}"
    other_version = identity.version is not None and not same_version(
        claimed.version, identity.version
    )
    if other_version:
        yield (
            "version",
            f"the filename says version {claimed.version}, METADATA says {identity.version}",
        )
    # A field METADATA already contradicts is said once: a renamed file, not two findings.
    yield from _dist_info_contradictions(claimed, identity.dist_info, other_name, other_version)
    declared = expand_all(identity.tags)
    # pip 26 installs by the filename's tags; only `pip check` reads the Tag lines, and says a
    # project is unsupported when none of them is: a filename tag is contradicted only when
    # pip 26 could select it and WHEEL declares no tag supported wherever it is (ray, torch:
    # named manylinux after the build, WHEEL left at `linux_x86_64`).
    unlisted = {
        tag
        for tag in claimed.tags - declared
        if not never_selected(tag) and wider_tags(tag).isdisjoint(declared)
    }
    if identity.tags and unlisted:
        yield (
            "tags",
            f"the filename names tags {compress(unlisted)} that WHEEL does not declare "
            f"(its Tag lines: {compress(declared)})",
        )


def _dist_info_contradictions(
    claimed: WheelFilename, dist_info: str, name_said: bool, version_said: bool
) -> Iterator[tuple[str, str]]:
    """The `.dist-info` directory against the filename, read as pip 26 reads an installed one
    (`parse_name_and_version_from_info_directory`): the name before its first `-`, the version
    after it (`pkg-1.0-1.dist-info` is project pkg, version `1.0-1`, which PEP 440 reads as
    1.0.post1); without a `-`, pip takes both from METADATA (checked above), and with nothing
    after it (`demo-.dist-info`) the version. pip 26 takes a directory whose normalised name
    only starts with the project's (`demo` installs `demox-1.0.dist-info`, `py` would install
    `pytest-8.0.dist-info` over pytest's metadata and entry points), and never compares its
    version with the filename's; but its resolver knows the installed project by what the
    directory says (pip 26 installs `pkg-1.0-1.dist-info` from `pkg-1.0-….whl` as
    "pkg-1.0.post1", and `pip install pkg==1.0` then reinstalls). So a directory pip reads as
    the filename's project and version is no contradiction, however odd (`pkg-1.0-1.dist-info`
    in `pkg-1.0.post1-….whl`); one of another project or version is, and so is a version pip
    cannot read (it installs, then fails with InvalidVersion)."""
    stem = dist_info.removesuffix(".dist-info")
    name, dash, version = stem.partition("-")
    if not version:  # `demo-.dist-info`: pip reads no version there and takes METADATA's
        dash = ""
    if dash and _invalid(version) and not _invalid(claimed.version):
        # (a filename version PEP 440 cannot read is refused before pip opens the archive: W616)
        yield (
            "dist-info",
            f"the .dist-info directory {dist_info} says version {version!r} (pip reads the "
            "name before its first '-', the version after it), which is no PEP 440 version: "
            "pip 26 fails when it reads the installed project back (InvalidVersion)",
        )
    elif normalized_name(name) != normalized_name(claimed.name):
        if name_said:
            return
        yield (
            "dist-info",
            f"the .dist-info directory {dist_info} is for project {name}, the filename names "
            f"{claimed.name}: pip installs it, with another project's metadata",
        )
    elif dash and not version_said and not same_version(claimed.version, version):
        read = version if _invalid(version) else str(Version(version))
        pip_reads = f" (pip reads {read})" if read != version else ""
        yield (
            "dist-info",
            f"the .dist-info directory {dist_info} says version {version}{pip_reads}, the "
            f"filename {claimed.version}: pip installs it, and knows the installed project by "
            "that other version",
        )


def _invalid(version: str) -> bool:
    try:
        Version(version)
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return True
    return False


def different_distributions(base: WheelIdentity, patch: WheelIdentity) -> bool:
    """True when both wheels name their project and the names differ once normalised."""
    if base.name is None or patch.name is None:
        return False
    return normalized_name(base.name) != normalized_name(patch.name)


def filename_findings(base: NamedWheel, patch: NamedWheel) -> Iterator[Finding]:
    """W605 for each field a filename contradicts, W606 when the distributions differ."""
    for label, side in (("base", base), ("patch", patch)):
        filename = PurePath(side.path).name
        for _field, sentence in contradictions(side.path, side.identity):
            yield Finding(Code.W605, "", f"{label} wheel {filename}: {sentence}")
    if different_distributions(base.identity, patch.identity):
        yield Finding(
            Code.W606,
            "",
            f"base is {base.identity.name}, patch is {patch.identity.name}",
        )
    yield from narrowing_findings(base, patch)


FILENAME = "filename"
TAG_LINES = "WHEEL Tag lines"


class InstallingTags(NamedTuple):
    """The tags pip installs a wheel by, where they were read, and as written there."""

    tags: frozenset[str]
    """The expanded tag set."""
    source: str
    """`FILENAME` or `TAG_LINES`."""
    written: str
    """As written there: the filename's three tag parts, or the `Tag:` lines joined by `, `."""


def installing_tags(path: str, tag_lines: Sequence[str]) -> InstallingTags:
    """The tags pip installs the wheel at `path`, whose WHEEL file holds `tag_lines`, by: its
    filename's (pip 26 selects a wheel by them and never reads the `Tag:` lines while
    installing), else (a file not named as a wheel, which pip refuses: W616) its WHEEL file's
    `Tag:` lines, each a compressed tag set. The one rule for W630 (from a wheel's identity)
    and the installed view (W627-W629 and the systems' case rules, from the archive's WHEEL)."""
    named = parse_wheel_filename(path)
    if named is not None:
        written = "-".join(PurePath(path).name.removesuffix(".whl").split("-")[-3:])
        return InstallingTags(named.tags, FILENAME, written)
    return InstallingTags(expand_all(tag_lines), TAG_LINES, ", ".join(tag_lines))


def narrowing_findings(base: NamedWheel, patch: NamedWheel) -> Iterator[Finding]:
    """W630 when some system the base's tags and Requires-Python install on is not one the
    patch's do (`k3diff.wheel.systems`); a patch whose tags hold every base tag and whose
    Requires-Python is the base's only widens. The tags are said as the filename (or WHEEL)
    writes them, in its order, each side's Requires-Python where they differ (narrow77: a
    narrowed one passed, exit 0)."""
    (base_tags, source, base_text), (patch_tags, patch_source, patch_text) = (
        installing_tags(side.path, side.identity.tags) for side in (base, patch)
    )
    base_python, patch_python = base.identity.requires_python, patch.identity.requires_python
    same_python = (base_python or "") == (patch_python or "")
    if not base_tags or not patch_tags or (base_tags <= patch_tags and same_python):
        return
    from k3diff.wheel.systems import dropped  # only for a pair whose tags or Pythons differ
    from k3diff.wheel.systemtext import describe

    lost = dropped(base_tags, patch_tags, base_python, patch_python)
    if lost.systems:
        read = source
        if source != patch_source:
            read = f"base's {source}, the patch's {patch_source}"
        if not same_python:
            base_text += f"; Requires-Python {base_python or 'none'}"
            patch_text += f"; Requires-Python {patch_python or 'none'}"
        yield Finding(
            Code.W630,
            "",
            f"pip installs the base ({base_text}) and not the patch ({patch_text}) on "
            f"{describe(lost, tags_name_no_platform=_platformless(base_tags | patch_tags))} "
            f"(tags read from the {read})",
        )


def _platformless(tags: Iterable[str]) -> bool:
    """Whether no tag names a platform (each ends `-any`): then `any` is every platform."""
    return all(tag.rpartition("-")[2] == "any" for tag in tags)
