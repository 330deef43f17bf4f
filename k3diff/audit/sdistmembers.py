"""What an sdist's member headers say pip would write (A129-A133), judged as pip unpacks it.

pip (`_internal/utils/unpacking.untar_file`) strips the one leading directory every member
shares (from hardlink targets too, where theirs is the same), then extracts each member through
`tarfile.data_filter` and refuses the sdist at the first member the filter refuses. The filter is
the oracle here: a member it refuses is a finding by the exception's kind (a path out of the tree:
A129; a link: A130; a device or FIFO: A131; a sparse file, which the filter passes and PyPI
refuses, is A131 too). Stricter than the filter, as a release archive should be: any `..` component, an absolute path (which the filter only strips), a drive letter
or a NUL in a name (A129), and a member or link that goes through a symbolic link of the archive
(A130: the filter resolves links already extracted on disk, which a check of headers alone cannot
follow, so a tree that needs them is not vouched for; a link written later counts too, as
`l -> sub/../..` then `sub -> .` leaves `l` pointing above the tree though the filter passed
both), and a hard link to no member written before it (tarfile, and so pip, cannot make it).
A name given twice for anything but a
directory is A132 (extraction writes each in turn: the last wins), as are names that differ but
are one file where pip runs on macOS or Windows (`pkg/Mod.py` and `pkg/mod.py`, NFC and NFD of
one name: case-insensitive, normalising file systems; a trailing dot, which Windows drops; the
wheel's W615 rule, `wheel.installed.fold`), and a file where other
members need a directory of its name, or of a name one with it there (`pkg/Data` beside
`pkg/data/`), and a member outside the one
top directory `NAME-VERSION/` is A133 (PEP 625; pip then strips no directory at all), as is a
directory above it that pip strips instead (`./demo-1.0/...`: pip then finds no project).
"""

from __future__ import annotations

import posixpath
import re
import tarfile
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence

from k3diff.output import plural
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.collision import kind_of, where_one_file, windows_keys
from k3diff.wheel.installed import fold

_DESTINATION = "/k3diff-sdist-destination"
"""Where the filter is told the members land: a path that does not exist, so nothing of this
machine's filesystem is resolved into the answer."""
_DRIVE = re.compile(r"^[A-Za-z]:")
_SPECIAL = "a device or FIFO: tarfile's data filter refuses it, and so pip"
_SPARSE = (
    "a sparse file (GNU sparse, in a GNU or pax header): PyPI refuses the upload (`tar archive "
    "not accepted: Sparse members are not allowed`, since August 2026), and a tar reader "
    "without the GNU extension writes its map as the file's bytes"
)


def member_findings(members: Sequence[tarfile.TarInfo], top: str) -> list[Finding]:
    """A129-A133 of `members` (archive order) in an sdist whose top directory should be
    `top`."""
    found: list[Finding] = []
    stripped = _as_pip_strips(members)
    links = {  # every symbolic link: one written later still redirects a link made before it
        posixpath.normpath(view.name): member.name
        for member, view in zip(members, stripped, strict=True)
        if view.issym()
    }
    written: set[str] = set()
    for member, view in zip(members, stripped, strict=True):
        before = len(found)
        escape = _escape(member.name) or _escape(view.name)  # as named, and as pip strips it
        if escape is not None:
            found.append(Finding(Code.A129, member.name, escape))
        else:
            found += _filtered(member, view)
        through = _through_link(view, links)
        if through is not None:
            found.append(Finding(Code.A130, member.name, through))
        if len(found) == before and member.islnk():
            found += _unmade(member, written)
        if member.issparse():  # sdist76: pip unpacks it, PyPI refuses it; it passed, exit 0
            found.append(Finding(Code.A131, member.name, _SPARSE))
        written.add(posixpath.normpath(member.name))
    found += _duplicates(members)
    found += _outside_top(members, top)
    stripped_top = pip_top(members)
    if stripped_top not in ("", top):
        found.append(
            Finding(
                Code.A133,
                stripped_top,
                f"every member lies under {stripped_top!r}, the directory pip strips as the "
                f"top one: {top}/ then lies a level down, where pip looks for no pyproject.toml "
                "or setup.py (the build fails)",
            )
        )
    return found


def _escape(name: str) -> str | None:
    """Why a name leaves the tree it unpacks into, by its spelling alone."""
    if "\0" in name:
        return "a NUL in the name"
    if name.startswith(("/", "\\")):
        return "an absolute path (tarfile's data filter strips the '/'; other tools do not)"
    if _DRIVE.match(name):
        return "a drive letter: an absolute path on Windows (pip strips the top directory first)"
    if ".." in re.split(r"[/\\]", name):
        return "a '..' component"
    return None


def _filtered(member: tarfile.TarInfo, view: tarfile.TarInfo) -> list[Finding]:
    """The data filter's refusal of the member as pip hands it over (`view`), as a finding."""
    try:
        tarfile.data_filter(view, _DESTINATION)
    except tarfile.SpecialFileError:
        return [Finding(Code.A131, member.name, _SPECIAL)]
    except (tarfile.AbsoluteLinkError, tarfile.LinkOutsideDestinationError) as exc:
        return [Finding(Code.A130, member.name, _link_words(member, exc))]
    except tarfile.FilterError as exc:
        return [Finding(Code.A129, member.name, f"tarfile's data filter refuses it: {exc}")]
    except ValueError as exc:  # a NUL in a link target: realpath refuses it
        return [Finding(Code.A130, member.name, f"tarfile's data filter cannot read it: {exc}")]
    return []


def _link_words(member: tarfile.TarInfo, exc: tarfile.FilterError) -> str:
    kind = "symbolic link" if member.issym() else "hard link"
    if isinstance(exc, tarfile.AbsoluteLinkError):
        where = "an absolute path"
    else:
        where = "outside the tree pip unpacks"
    return f"{kind} to {member.linkname!r}, {where}: tarfile's data filter refuses it, and so pip"


def _unmade(member: tarfile.TarInfo, written: set[str]) -> list[Finding]:
    """A130 where tarfile cannot make the hard link `member`: its target is no member written
    before it (`written`, names as `normpath` writes them), where tarfile looks for it, so pip
    stops there (`KeyError`, pip 26)."""
    if posixpath.normpath(member.linkname) in written:
        return []
    detail = (
        f"hard link to {member.linkname!r}, which no member before it writes: tarfile cannot "
        "make it, and pip stops unpacking there"
    )
    return [Finding(Code.A130, member.name, detail)]


def _through_link(view: tarfile.TarInfo, links: dict[str, str]) -> str | None:
    """Where the member's path, or a link's target, passes through a symbolic link member
    (`links`: each by its path as pip strips it, to its name in the archive; one written after
    the member as well: the link on disk then resolves through it): pip's
    extraction follows it on disk, and `realpath` there resolves what a header check reads as
    text. Walked component by component as `realpath` walks it (`a/../b` goes through `a`). A
    symbolic link to another is no finding (each is checked where it lies); a hard link to one
    is (the link is made to whatever it points at)."""
    if not links:
        return None
    walks = [(view.name, False)]
    if view.issym():
        walks.append((posixpath.join(posixpath.dirname(view.name), view.linkname), False))
    elif view.islnk():
        walks.append((view.linkname, True))
    for walk, whole in walks:
        parts = [part for part in walk.split("/") if part not in ("", ".")]
        stack: list[str] = []
        for part in parts if whole else parts[:-1]:
            if part == "..":
                del stack[-1:]
                continue
            stack.append(part)
            through = links.get("/".join(stack))
            if through is not None:
                return (
                    f"goes through the symbolic link {through!r} of the archive: where pip "
                    "writes it depends on that link"
                )
    return None


def _as_pip_strips(members: Sequence[tarfile.TarInfo]) -> list[tarfile.TarInfo]:
    """The members as pip hands them to the filter: the one leading directory every name shares
    stripped from names, and from a hardlink's target where its lead is the same."""
    first = pip_top(members)
    if not first:
        return list(members)
    leads = [_split_leading(member.name) for member in members]
    views = []
    for member, (_, rest) in zip(members, leads, strict=True):
        linkname = member.linkname
        if member.islnk():
            link_lead, link_rest = _split_leading(linkname)
            linkname = link_rest if link_lead == first else linkname
        views.append(member.replace(name=rest, linkname=linkname, deep=False))
    return views


def pip_top(members: Sequence[tarfile.TarInfo]) -> str:
    """The one leading directory pip strips from every member's name (`./` of
    `./demo-1.0/PKG-INFO` too), or '' where they share none."""
    leads = [_split_leading(member.name)[0] for member in members]
    first = leads[0] if leads else ""
    return first if first and all(lead == first for lead in leads) else ""


def _split_leading(path: str) -> tuple[str, str]:
    """pip's `split_leading_dir`: the first component and the rest ('/' or '\\', whichever
    comes first), leading separators dropped."""
    path = path.lstrip("/").lstrip("\\")
    slash, backslash = path.find("/"), path.find("\\")
    if slash >= 0 and (backslash < 0 or slash < backslash):
        lead, _, rest = path.partition("/")
    elif backslash >= 0:
        lead, _, rest = path.partition("\\")
    else:
        lead, rest = path, ""
    return lead, rest


def _duplicates(members: Sequence[tarfile.TarInfo]) -> list[Finding]:
    """A132 per name (as `normpath` writes it) that more than one member writes, unless every
    one of them is a directory (a tar may list a directory again)."""
    named: dict[str, list[tarfile.TarInfo]] = {}
    for member in members:
        named.setdefault(posixpath.normpath(member.name), []).append(member)
    return (
        [
            Finding(
                Code.A132,
                same[-1].name,
                f"{len(same)} members write it: extraction writes each in turn, the last "
                f"({_kind(same[-1])}) is what pip builds from; other tools may keep the first",
            )
            for same in named.values()
            if len(same) > 1 and not all(member.isdir() for member in same)
        ]
        + _files_over_directories(named)
        + _alike(named)
        + _alike_directories(named)
    )


def _alike(named: dict[str, list[tarfile.TarInfo]]) -> list[Finding]:
    """A132 per group of names (`named`'s, each written by a file, link or device) that differ
    but are one file on macOS or Windows: extraction there writes each into the file the first
    made, the last member's bytes kept (pip raises nothing), so what the build gets depends on
    the system pip runs on (sdist76: `pkg/Mod.py` beside `pkg/mod.py` passed, exit 0)."""
    files = [name for name, same in named.items() if not all(m.isdir() for m in same)]
    folded = [fold(name) for name in files]
    groups: dict[str, list[str]] = {}
    for name, key in zip(files, windows_keys(folded), strict=True):
        groups.setdefault(key, []).append(name)
    found = []
    for names in groups.values():
        if len(names) < 2:
            continue
        names.sort(key=lambda name: named[name][-1].offset)  # in the order extraction writes
        last = named[names[-1]][-1]
        kind = kind_of(set(names), {fold(name) for name in names})
        shown = ", ".join(repr(name) for name in names)
        detail = (
            f"{shown} are one file{where_one_file(kind)}: extraction there writes each in "
            f"turn, the last ({_kind(last)}) is what pip builds from"
        )
        found.append(Finding(Code.A132, last.name, detail))
    return found


def _alike_directories(named: dict[str, list[tarfile.TarInfo]]) -> list[Finding]:
    """A132 per name written by a file (link, device) that differs from a directory's name (a
    directory member's, or one other members lie under) but is one name on macOS or Windows:
    `pkg/Data` beside `pkg/data/`; extraction there cannot write both (docs77: it passed,
    exit 0, where `_files_over_directories` sees the same name only)."""
    directories = {name for name, same in named.items() if all(m.isdir() for m in same)}
    for name in named:
        parent = posixpath.dirname(name)
        while parent and parent not in directories:
            directories.add(parent)
            parent = posixpath.dirname(parent)
    files = [name for name in named if name not in directories]
    if not files or not directories:
        return []
    shown = sorted(directories)
    keys = windows_keys([fold(name) for name in (*files, *shown)])
    by_key = dict(zip(keys[len(files) :], shown, strict=True))
    found = []
    for name, key in zip(files, keys[: len(files)], strict=True):
        directory = by_key.get(key)
        if directory is None or directory == name:
            continue
        kind = kind_of({name, directory}, {fold(name), fold(directory)})
        detail = (
            f"{_kind(named[name][-1])} named {name!r} beside the directory {directory!r}: one "
            f"name{where_one_file(kind)}, where extraction cannot write both (pip stops, or "
            "one of them is lost)"
        )
        found.append(Finding(Code.A132, named[name][-1].name, detail))
    return found


def _files_over_directories(named: dict[str, list[tarfile.TarInfo]]) -> list[Finding]:
    """A132 per name written once as a file (or hard link, device) where another member's path
    needs a directory of that name: extraction fails either way round (pip 26:
    NotADirectoryError or IsADirectoryError). A symbolic link there is A130, not this."""
    ordered = sorted(named)
    return [
        Finding(
            Code.A132,
            same[-1].name,
            f"{_kind(same[-1])} where other members lie under a directory of this name: "
            "extraction cannot write both (pip stops there)",
        )
        for name, same in named.items()
        if len(same) == 1
        and not (same[0].isdir() or same[0].issym())
        and _holds_others(ordered, name)
    ]


def _holds_others(ordered: list[str], name: str) -> bool:
    """Whether a name of `ordered` (sorted) lies under `name` as a directory."""
    index = bisect_left(ordered, name + "/")
    return index < len(ordered) and ordered[index].startswith(name + "/")


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return f"a symbolic link to {member.linkname!r}"
    if member.islnk():
        return f"a hard link to {member.linkname!r}"
    if member.isdir():
        return "a directory"
    return plural(member.size, "byte") if member.isreg() else "a special file"


def _outside_top(members: Sequence[tarfile.TarInfo], top: str) -> list[Finding]:
    """One A133 per top-level name other than `top`, naming how many members it holds."""
    outside = Counter(
        first
        for first in (posixpath.normpath(m.name).partition("/")[0] for m in members)
        if first != top
    )
    return [
        Finding(
            Code.A133,
            name,
            f"{count} member{'s' if count > 1 else ''} outside {top}/, the one top directory "
            "of an sdist (PEP 625): pip then strips no directory, and unpacks every member "
            "where it lies",
        )
        for name, count in outside.items()
    ]
