"""The wheel's own files a `.pth` path line puts on `sys.path`, from which `site` imports
`sitecustomize` and `usercustomize` at every start as it does from site-packages' top.

`site.addpackage` strips a path line's trailing whitespace, joins it to site-packages and
normalises it (`site.makepath`), and appends it when it exists: a directory the wheel installs
files into, whose customize modules `site` then imports (`casereads.customize_module`, read from
there), or a file of the wheel, which `zipimport` reads as an archive whatever its name, so any
customize module it holds runs: k3diff does not read inside it and counts the file itself.

A line may leave site-packages: pip installs `.data/data/` under the scheme's data directory (the
prefix), `.data/scripts/` and `.data/headers/` in their own, so `../../../share/demo` in a venv's
`lib/python3.11/site-packages/demo.pth` names `share/demo` where the wheel's
`demo-1.0.data/data/share/demo/sitecustomize.py` lands (pth70: passed, exit 0; a venv's `python -c
pass` ran it). So a line is resolved in every layout (`_anchors`) the wheel installs with: the
install schemes of CPython's `sysconfig` pip 26 uses (`posix_prefix`, a venv's, `--user`'s
`posix_user`, and on a macOS framework build `osx_framework_user`; `nt`, a Windows venv's,
`nt_user`; Debian's `posix_local`, `lib/python3.11/dist-packages`; `lib64/python3.11/site-packages`
as site-packages too, a 64-bit Linux venv's link to `lib/` and Fedora's platlib), each Python
version the tags admit (where they admit every later one: those the line names, and one it does
not), free-threaded builds' `python3.Nt` from 3.13. A line that leaves the prefix names nothing the
wheel knows. An absolute line names a place the wheel cannot know: a directory of the wheel is
under it where the prefix is the line's head and the rest is where that layout installs the
directory (`/opt/venv/share/demo` and `share/demo`), so a customize module there is counted with
the prefix that runs it (the install shows it runs).
"""

from __future__ import annotations

import ntpath
import operator
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, count, repeat
from types import ModuleType
from typing import Any

from k3diff.escape import shortened
from k3diff.lazyre import lazy
from k3diff.wheel.casereads import CUSTOMIZE, customize_module
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.pth import PthLine
from k3diff.wheel.targets import TargetPythons, version_number

_VERSION_DIRECTORY = lazy(r"python3\.?(\d+)t?(?:-32|-arm64)?", re.IGNORECASE)
"""A directory a layout names for its Python (`python3.12`, `python3.13t`, `Python312-32`)."""
_WINDOWS_PLATFORMS = ("", "-32", "-arm64")
"""`sys.winver`'s suffix in `nt_user`'s `Python{py_version_nodot_plat}`: x64, x86, ARM64."""
_PATH = operator.itemgetter(2)
_SAID = 200  # characters of a path line said in a finding
_HOW = "/"  # `_tree`'s key of how a line names a place (no segment is `/`)
_DEEP = "//"  # `_tree`'s key where a line names a place `_DEEPEST` deep (no `where` is `//`)
_SCHEME_DEPTH = 3
_DEEPEST = 64
"""The most directories k3diff follows a line's place into (no wheel nests so): an absolute
line's cuts name no deeper one, and where a relative line names one, each customize module
deeper is counted whatever the lines (review70b: a 16 KiB absolute line beside one 30,000-deep
file was 2 s of CPU, a 16 KiB relative one over 12,000 files 500 deep 1 s, each of their
directories looked up)."""
"""The most segments of a scheme directory under the prefix (`lib/python3.11/site-packages`)."""

Anchor = tuple[bool, str]
"""A layout's site-packages as the prefix's subdirectory (`lib/python3.11/site-packages`), and
whether Windows reads the line (`ntpath`: both separators, drives)."""
Place = tuple[str, str]
"""Where a directory is: `data` (the prefix), `site-packages`, `scripts` or `headers`, and the
path below it."""
Spots = dict[Place, None]
"""A layout's scheme directories under the prefix, in order."""
_Index = dict[str, dict[str, None]]
"""Scheme directories by their path (folded where paths open in any case), each with where it
is (`site-packages`, `scripts`, `headers`)."""


def named_places(
    files: Sequence[InstalledFile], lines: Iterable[PthLine], case: CaseRule, targets: TargetPythons
) -> dict[Place, str]:
    """Each place the path lines `lines` put on `sys.path` in some layout (its path below
    folded where paths open in any case), and how."""
    fold = str.lower if case.path_blind else str
    # No place deeper than a file's directory under its deepest scheme directory can hold one
    # (a `.data/data/lib/python3.11/site-packages/` file's place is two segments past its path).
    slashes = max(map(str.count, map(_PATH, files), repeat("/")), default=0)
    depth = min(slashes + 2 + _SCHEME_DEPTH + 1, _DEEPEST)
    named: dict[Place, str] = {}
    for text in dict.fromkeys(line.text.rstrip() for line in lines if not line.executable):
        minors = _minors(targets, _version_names(text, depth))
        anchors = _anchors(targets, case, minors)
        places = [_relative(text, anchor, spots, fold) for anchor, spots in anchors.items()]
        for windows in dict.fromkeys(windows for windows, _ in anchors):
            spots = {
                spot: None for (w, _), each in anchors.items() if w == windows for spot in each
            }
            places.append(_absolute(text, windows, spots, depth, fold))
        for (where, below), how in chain.from_iterable(places):
            named.setdefault((where, fold(below)), how)
    return named


def on_pth_paths(
    files: Sequence[InstalledFile],
    named: dict[Place, str],
    case: CaseRule,
    unread: str | None = None,
) -> Iterator[tuple[InstalledFile, str]]:
    """Each file `site` may import a customize module from, by the places path lines name
    (`named_places`), and how; `unread`: the part of a `.pth` k3diff did not read (past its
    cap), whose lines `site` reads and which may name any directory (review70b: a kept 17 KiB
    `.pth` whose last line named `demo_extra`, and an added `demo_extra/sitecustomize.py`,
    passed, exit 0)."""
    fold = str.lower if case.path_blind else str
    leaves = {below.rpartition("/")[2] for _, below in named}  # a file a line names: its name
    tree = _tree(named)
    for file in files if named or unread else ():
        path = file.path
        if (
            "customize" in path
            or "customize" in file.entry
            or fold(path.rpartition("/")[2]) in leaves
        ):
            lands = places_of(file)
            runs = next(filter(None, (_runs(p, named, tree, fold, case) for p in lands)), None)
            if runs is None and unread is not None:  # any directory: a line not read may name it
                found = filter(None, (_runs(p, {}, None, fold, case) for p in lands))
                runs = next(
                    (f"{r} where a line of {unread} names its directory" for r in found), None
                )
            if runs is not None:
                yield file, runs


def unread_part(
    pths: Iterable[tuple[str, bool, Sequence[PthLine]]], windows: bool, cap: int
) -> str | None:
    """The lines of a `.pth` (its path, whether cut at `cap` bytes, its lines read) k3diff did
    not read as `site` does, which may name any directory: past the cap (`site` reads on), or a
    path line no UTF-8, which Python up to 3.12 (later, where UTF-8 fails) decodes in the
    locale's encoding, on Windows a code page (review70b: `demo_extr\\xe1` names `demo_extrá`
    in cp1252, and a Windows wheel's `demo_extrá/sitecustomize.py` passed, exit 0)."""
    for key, truncated, lines in pths:
        if truncated:
            return f"{key} past the {cap >> 10} KiB k3diff reads"
        if windows and any("\ufffd" in line.text for line in lines if not line.executable):
            return f"{key} that is not UTF-8 (Windows reads it in its code page)"
    return None


def _tree(named: dict[Place, str]) -> dict[str, Any]:
    """The places lines name as a tree of their folded segments, each named one's `_HOW` saying
    how, so that a file's directories are looked up as its path is walked (review70b: each of a
    600-deep path's directories joined and looked up was 56 s for 12,000 such files)."""
    tree: dict[str, Any] = {}
    for (where, below), how in named.items():
        if below.count("/") >= _DEEPEST:  # below it each file is counted (`_runs`)
            tree[_DEEP] = True
            continue
        node = tree.setdefault(where, {})
        for segment in below.split("/") if below else ():
            node = node.setdefault(segment, {})
        node.setdefault(_HOW, how)
    return tree


def _runs(
    place: Place,
    named: dict[Place, str],
    tree: dict[str, Any] | None,
    fold: Callable[[str], str],
    case: CaseRule,
) -> str | None:
    """How a file at `place` runs as a customize module by the places lines name (`tree`; None
    for any directory), if it does: a file of a package `sitecustomize/` in a named directory,
    or a module file there (the outermost such directory said)."""
    where, below = place
    zipped = named.get((where, fold(below)))
    if zipped is not None:
        return f"{zipped}: site imports sitecustomize from it as a zip (not read)"
    if "customize" not in below:
        return None
    deep = tree is not None and _DEEP in tree and below.count("/") >= _DEEPEST
    if tree is None or deep:  # any directory: its outermost package,
        package = next((s for s in CUSTOMIZE if f"/{s}/" in f"/{below}"), None)  # else the file
        leaf = below.rpartition("/")[2]
        if package is None and not customize_module(leaf, case):
            return None
        said = f"{package or leaf.split('.')[0]}: imported by site at every start"
        return f"{said} (a line names a directory {_DEEPEST}+ deep, not followed)" if deep else said
    segments = below.split("/")  # by segments: folding may change a name's length ('İ')
    node = tree.get(where)
    last = len(segments) - 1
    for at, segment in enumerate(segments):
        if node is None:
            return None
        on = node.get(_HOW)
        if on is not None and (
            segment in CUSTOMIZE if at < last else customize_module(segment, case)
        ):
            return f"{segment.split('.')[0]}: imported by site at every start" + (on and f" ({on})")
        node = node.get(fold(segment))
    return None


def places_of(file: InstalledFile) -> list[Place]:
    """Where pip writes the file, in any layout: site-packages, the scripts' or headers'
    directory (`NAME/x.h` below the include directory), or the prefix (`.data/data/`, as written
    in the archive); a `.data/data/lib/python3.11/site-packages/x` (or `Lib/site-packages/x`)
    is also site-packages' `x`, as the installed view places it where the tags admit that
    Python: on one version alone, but counted there on every one (a line naming `x` names it
    on 3.11; one naming `../../python3.12/site-packages/x` is counted too, failing)."""
    if file.scheme == "data":
        raw = ("data", posixpath.normpath(file.entry).split("/", 2)[2])
        if file.path.startswith("site-packages/"):
            return [raw, ("site-packages", file.path.partition("/")[2])]
        return [raw]
    if file.scheme == "scripts":
        return [("scripts", file.path.partition("/")[2])]
    if file.scheme == "headers":
        return [("headers", file.path.split("/", 3)[3])]
    return [("site-packages", file.path.partition("/")[2])]


def _anchors(targets: TargetPythons, case: CaseRule, minors: list[int]) -> dict[Anchor, Spots]:
    """Each layout's site-packages, with the scheme directories under the prefix in some layout
    of that site-packages (pip puts a venv's headers in `include/site/pythonX.Y/`)."""
    found: dict[Anchor, Spots] = {}
    for minor in minors:
        short = f"3.{minor}"
        for thread in ("", "t") if minor >= 13 else ("",):
            python = f"python{short}{thread}"
            site = f"lib/{python}/site-packages"
            include = (f"include/site/python{short}", f"include/{python}")
            if targets.elsewhere:  # `lib64/` is site-packages' too: a 64-bit Linux venv's
                # link to `lib/`, Fedora's platlib; Debian's `posix_local` (pip as root:
                # `/usr/local/lib/python3.11/dist-packages`, headers outside the prefix)
                _add(found, (False, site), "bin", include, f"lib64/{python}/site-packages")
                _add(found, (False, f"lib/{python}/dist-packages"), "bin", ())
                if case.path_blind:  # a macOS framework build's `--user`
                    _add(found, (False, "lib/python/site-packages"), "bin", include[1:])
            if targets.mingw:  # MinGW's: `..\\..\\..\\share\\demo` (review70b: one name)
                _add(found, (True, site), "bin", include)
            if targets.windows:
                venv = f"include/site/python{short}"
                _add(found, (True, "Lib/site-packages"), "Scripts", ("Include", venv))
                for platform in _WINDOWS_PLATFORMS:
                    user = f"Python3{minor}{thread}{platform}"
                    anchor = (True, f"{user}/site-packages")
                    _add(found, anchor, f"{user}/Scripts", (f"{user}/Include",))
    return found


def _add(
    found: dict[Anchor, Spots], anchor: Anchor, scripts: str, headers: Iterable[str], *sites: str
) -> None:
    """A layout of `anchor`'s site-packages, its scripts' and headers' directories, and
    `sites`, other site-packages of that layout (Fedora's purelib `lib/` beside `lib64/`)."""
    spots = found.setdefault(anchor, {})
    spots.update(dict.fromkeys([("site-packages", anchor[1]), ("scripts", scripts)]))
    spots.update(dict.fromkeys(("site-packages", other) for other in sites))
    spots.update(dict.fromkeys(("headers", include) for include in headers))


def _version_names(text: str, depth: int) -> list[str]:
    """The segments of a line that may stand where a layout names its Python: the first few of
    the directory it names under the prefix, or of an absolute line's last `depth` (a bounded
    few, whatever the line's length)."""
    found = []
    for path, site in ((posixpath, "a/b/c"), (ntpath, "a/b")):
        segments = path.normpath(path.join(site, text)).replace("\\", "/").split("/")
        found += segments[:_SCHEME_DEPTH]
        drive, rest = path.splitdrive(text)
        if drive or rest.startswith(("/", "\\") if path is ntpath else "/"):  # absolute: its
            found += segments[-depth:]  # tail may be a layout's (a relative line's is below it)
    return found


def _minors(targets: TargetPythons, names: list[str]) -> list[int]:
    """The Python 3 minor versions to lay the wheel out for: those its tags admit one by one,
    and where they admit every version from one on, those a line names (`names`: its segments
    that may) and one it does not (a version no segment names is laid out alike by each)."""
    exact = sorted({minor for major, minor in targets.exact if major == 3})
    if targets.open_from is None:
        return exact
    found = (_VERSION_DIRECTORY.fullmatch(name) for name in names)
    named = {version_number(match.group(1)) for match in found if match}
    admitted = sorted({*exact, *(m for m in named if targets.admits((3, m)))})
    return [*admitted, next(m for m in count(targets.open_from[1]) if m not in named)]


def _relative(
    text: str, anchor: Anchor, spots: Spots, fold: Callable[[str], str]
) -> Iterator[tuple[Place, str]]:
    """Each place a path line names below the prefix in one layout, and how it says so."""
    windows, site = anchor
    path = ntpath if windows else posixpath
    drive, rest = path.splitdrive(text)
    if rest.startswith(("/", "\\") if windows else "/") or drive[1:] not in ("", ":"):
        return  # absolute (`C:demo` is below site-packages where that is on drive C:)
    resolved = _normalised(path, path.join(site, rest))
    if resolved != ".." and not resolved.startswith("../"):  # else it leaves the prefix
        shown = "" if resolved == "." else resolved
        said = f"{shown or '.'} under the install prefix"
        yield from _named(shown, _index(spots, fold), fold, said)


def _absolute(
    text: str, windows: bool, spots: Spots, depth: int, fold: Callable[[str], str]
) -> Iterator[tuple[Place, str]]:
    """Each place an absolute line names where the prefix is its head, in the layouts of
    `spots` (those of one system), the last `depth` segments alone."""
    path = ntpath if windows else posixpath
    drive, rest = path.splitdrive(text)
    if not drive and not rest.startswith(("/", "\\") if windows else "/"):
        return
    segments = [s for s in _normalised(path, rest).split("/") if s]
    shown = shortened(text, _SAID)  # a line may be 16 KiB: said once, cut
    index = _index(spots, fold)
    for at in range(max(0, len(segments) - depth), len(segments) + 1):
        prefix = shortened(f"{drive}/{'/'.join(segments[:at])}", _SAID)
        after = f", where the wheel installs under {prefix}"
        yield from _named("/".join(segments[at:]), index, fold, shown, after)


def _normalised(path: ModuleType, text: str) -> str:
    """`text` normalised as `site.makepath` does on the system of `path`, with `/`: on Windows
    `abspath` is `GetFullPathNameW`, which also drops a segment's one trailing period and the
    last one's trailing periods and spaces (`demo_extra.` names `demo_extra`; review70b: it
    named none, and a Windows wheel's `demo_extra/sitecustomize.py` under it passed, exit 0)."""
    found: str = path.normpath(text).replace("\\", "/")
    if path is posixpath:
        return found
    *heads, last = found.split("/")
    heads = [s[:-1] if s.endswith(".") and not s.endswith("..") else s for s in heads]
    return "/".join([*heads, last if last in (".", "..") else last.rstrip(". ")])


def _named(
    directory: str, spots: _Index, fold: Callable[[str], str], shown: str, after: str = ""
) -> Iterator[tuple[Place, str]]:
    """The places of a directory under the prefix: the prefix's own, and below each scheme
    directory holding it (in any case where some system opens paths so: `BIN` is `bin` on
    macOS and Windows); `shown`: the directory as said. A scheme directory is its first few
    segments, looked up (a line's every cut against every layout's was 5 s of a 16 KiB line)."""
    yield ("data", directory), f"{shown} on sys.path by a .pth{after}"
    segments = directory.split("/")  # by segments: folding may change a name's length ('İ')
    for size in range(1, min(_SCHEME_DEPTH, len(segments)) + 1):
        for where in spots.get(fold("/".join(segments[:size])), ()):
            below = "/".join(segments[size:])
            said = f"site-packages/{below}" if where == "site-packages" and below else shown
            yield (where, below), f"{said} on sys.path by a .pth{after}"


def _index(spots: Iterable[Place], fold: Callable[[str], str]) -> _Index:
    """The scheme directories `spots` by their folded path, each with where it is."""
    found: _Index = {}
    for where, base in spots:
        found.setdefault(fold(base), {})[where] = None
    return found
