"""A128: wheels of one directory that pip reads as the same distribution, version and build
sharing a tag, so that which one installs depends on the order pip lists them in.

pip reads a wheel by its filename, as `packaging.utils.parse_wheel_filename` does: the name
PEP 503-normalised (`Demo`, `demo`, `demo_pkg` and `demo.pkg` are one project), the version
under PEP 440 (`1.0` is `1.0.0`), the build number as a number and its suffix (`01` is `1`),
and the tags as a set (`py2.py3-none-any` is `py3.py2-none-any`, in any case). Two wheels
alike in all of those but the tags, whose tags share one, are two candidates pip ranks equal on
a system that takes that tag (its sort key is the version, the tag's priority and the build),
so it installs whichever its listing gives first: not the one the audit vouched for. Where the
two filenames differ in case alone, they are one file on a case-insensitive filesystem (macOS,
Windows), where copying the release over writes one with the other. Wheels of other versions or
build numbers, or sharing no tag, are a release's usual set (the build number is how a wheel is
rebuilt: pip takes the higher one). Only wheels of one directory are held together (a release
directory: what `twine upload dist/*` takes, what `pip --find-links` lists): the base and the
patch wheel of one project, audited in one run from their own directories, are no A128.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Hashable, Sequence
from pathlib import PurePath

from packaging.utils import canonicalize_name
from packaging.version import Version

from k3diff.errors import InputError
from k3diff.numbers import NAMED, named
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.filename import wheel_filename_parts
from k3diff.wheel.refusals import doubled_suffix
from k3diff.wheel.tagsharing import MAX_SAME, Keyed, Parts, shared_tag, sharing_masks, tag_parts
from k3diff.wheel.tagsharing import positions as bit_positions


def same_wheel_findings(paths: Sequence[str], resolve: bool = True) -> dict[int, Finding]:
    """A128 for each of `paths` (as given) that another of its directory shares name, version,
    build and a tag with (see the module), keyed by its position in `paths`. A path whose name
    is no wheel filename is not one pip reads at all (A126). `resolve`: directories are told
    apart with their links resolved (`audit`), else as spelled (`report`'s check of a document,
    whose paths need not exist where it runs: it groups no more wheels than audit did). The
    wheels are grouped by directory, project, version and build first, and tags compared within
    a group only (audit74: one group's lookup made each wheel's set of all the others); a group
    over `MAX_SAME` is refused, InputError naming its directory. Each wheel's detail names the
    first few others and counts the rest, read from a bit mask of them without listing it
    (review73a: 8,000 names sharing a tag, each list made whole and kept, took 570 MB and
    25 s where the audit took 2 s)."""
    groups: dict[Hashable, list[tuple[int, Parts]]] = defaultdict(list)
    directories: dict[str, str] = {}  # each resolved once, not once a wheel
    for position, path in enumerate(paths):
        read = _keyed(path, resolve, directories)
        if read is not None:
            groups[read[0]].append((position, read[1]))
    for group in groups.values():
        if len(group) > MAX_SAME:
            raise InputError(_too_many(paths[group[0][0]], len(group)))
    found: dict[int, Finding] = {}
    for group in groups.values():
        if len(group) > 1:
            found.update(_group_findings(paths, group))
    return found


def _too_many(path: str, count: int) -> str:
    """The refusal of a group over `MAX_SAME`, named by its first wheel's directory."""
    directory = os.path.dirname(path) or "."
    return (
        f"{directory}: {count:,} wheels of one project, version and build (as pip reads "
        f"{PurePath(path).name}), over k3diff's cap of {MAX_SAME:,}: a release holds one per "
        "platform and Python; audit the wheels of one release directory"
    )


def _group_findings(paths: Sequence[str], group: Sequence[tuple[int, Parts]]) -> dict[int, Finding]:
    """A128 for each wheel of one group (positions in `paths`, tag parts) whose tags share one
    with another's, keyed by its position in `paths`: each wheel's others a bit mask of the
    group's positions (`tagsharing.sharing_masks`), its first few named and the rest counted."""
    where = [position for position, _ in group]
    parts = [tag_parts for _, tag_parts in group]
    folded: dict[str, int] = defaultdict(int)  # names alike but for case, a mask of each
    for mine, position in enumerate(where):
        folded[PurePath(paths[position]).name.casefold()] |= 1 << mine
    found: dict[int, Finding] = {}
    for mine, others in enumerate(sharing_masks(parts)):
        others &= ~(1 << mine)
        if not others:
            continue
        position = where[mine]
        first = bit_positions(others, NAMED)
        tag = shared_tag(parts[mine], parts[first[0]])
        detail = (
            f"the same project, version and build to pip as {_named(paths, where, others)}, "
            f"with tag {tag} in common: pip installs whichever it lists first"
        )
        alike = folded[PurePath(paths[position]).name.casefold()] & others
        if alike:
            detail += (
                f"; {_named(paths, where, alike)}: this name but for case, one file on a "
                "case-insensitive filesystem (macOS, Windows)"
            )
        found[position] = Finding(Code.A128, "", detail)
    return found


def _named(paths: Sequence[str], where: Sequence[int], mask: int) -> str:
    """The paths of the group's first positions in `mask` named (`where`: each position's in
    `paths`), the rest counted."""
    first = [paths[where[other]] for other in bit_positions(mask, NAMED)]
    return named(first, total=mask.bit_count())


def _keyed(path: str, resolve: bool, directories: dict[str, str]) -> Keyed | None:
    """(directory, name, version, build) as pip compares them, and the tag set's parts; None
    for a name that is no wheel filename. `directories`: each directory as given, resolved
    (`resolve`) or normalised, filled as they are met."""
    filename = PurePath(path).name
    stated = wheel_filename_parts(filename)
    if stated is None or doubled_suffix(filename):
        return None
    name, version, tag_set = stated
    pieces = filename.split("-")
    build = _build(pieces[2]) if len(pieces) == 6 else ()
    given = os.path.dirname(path) or "."
    directory = directories.get(given)
    if directory is None:
        directory = os.path.realpath(given) if resolve else os.path.normpath(given)
        directories[given] = directory
    key: Hashable = (directory, canonicalize_name(name), _version(version), build)
    return key, tag_parts(tag_set)


def _version(text: str) -> Hashable:
    """The version as PEP 440 compares it (`1.0` is `1.0.0`), or, when it is none, as text with
    `-`/`_` and case ignored (`wheel.filename.same_version`)."""
    try:
        return Version(text)
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return text.replace("-", "_").lower()


def _build(text: str) -> Hashable:
    """A build tag as packaging reads it, its leading number and the rest (`01` is `1`,
    `2abc` is 2 and `abc`); as text when it does not start with a digit (pip refuses that
    name: W616)."""
    digits = len(text) - len(text.lstrip("0123456789"))
    return (int(text[:digits]), text[digits:]) if digits else text
