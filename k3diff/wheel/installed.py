"""The installed view of a wheel: every entry mapped to the file pip writes from it.

The unit of truth for `wheels` and `audit` is what lands on disk, not the archive listing. pip
(`pip._internal.operations.install.wheel._install_wheel`) writes, in this order: the root files
(in central-directory order) into purelib or platlib (`Root-Is-Purelib`), then the
`<x>.data/<scheme>/` files of the schemes other than `scripts`, then `.data/scripts/` files
(skipping those named like a console or GUI entry point, which it generates afterwards). Each
path goes through `os.path.normpath` first, so `pkg/./mod.py` and `pkg//mod.py` are `pkg/mod.py`;
directory entries (names ending in `/`) install nothing. Later writes replace earlier ones: the
last writer of a path wins.

Installed paths are spelt relative to the prefix of a virtual environment on a POSIX system,
where purelib and platlib are one directory: `site-packages/...`, `bin/...` (scripts),
`include/site/pythonX.Y/<name>/...` (headers), and the data scheme's paths as they are
(`share/...`), except that `bin/...` under `.data/data/` is the scripts' directory, and
`lib/pythonX.Y/site-packages/...` (Windows: `Lib/site-packages/...`) is site-packages where the
wheel's tags install on Python X.Y (on Windows); where they also install elsewhere, or not
there at all, the file is W627's (`k3diff.wheel.targets` reads the tags).
"""

from __future__ import annotations

import operator
import posixpath
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import count, repeat
from operator import add
from typing import TYPE_CHECKING, NamedTuple

from k3diff.lazyre import lazy
from k3diff.wheel.alikedirectories import alike_directories
from k3diff.wheel.directorytrie import lowered, needed
from k3diff.wheel.fileconflicts import file_directory_conflicts
from k3diff.wheel.schemepaths import scheme_path
from k3diff.wheel.targets import ANY, TargetPythons
from k3diff.zip.directory import ZipEntry

if TYPE_CHECKING:  # built only when two entries end as one file
    from k3diff.wheel.collision import Collision

SCHEMES = ("purelib", "platlib", "headers", "scripts", "data")
"""The `.data/` subdirectories pip knows (`pip._internal.models.scheme.SCHEME_KEYS`)."""

_WRAPPER_SUFFIXES = (".exe", "-script.py", ".pya")
_NAME = operator.itemgetter(0)
_HEAD = operator.itemgetter(0)
_DOT_END = lazy(r"\.[/\x00]")  # or a space, colon, tilde: a path Windows may read as another's


def on_command_path(path: str) -> bool:
    """An installed path in an environment's command directory: `bin/` (where `.data/scripts`
    and `.data/data/bin/` land) in any case, as pip writes `.data/data/BIN/x` to `PREFIX/BIN/x`,
    which the case-blind file systems of macOS (APFS's default) and Windows make `bin/x`; or
    `Scripts/`, a Windows environment's, where `.data/data/Scripts/x.exe` lands."""
    return path[:8].casefold().startswith(("bin/", "scripts/"))


class InstalledFile(NamedTuple):
    """One archive entry and the file pip writes from it (a named tuple: one per entry, and a
    wheel may hold tens of thousands)."""

    entry: str
    """The archive path."""
    scheme: str
    """purelib, platlib, headers, scripts or data (root files: the root scheme)."""
    path: str
    """The installed path, relative to a virtual environment's prefix (module docstring)."""
    order: int
    """Position in pip's write order (0 first)."""
    generated: bool = False
    """A console or GUI script pip writes from an entry point (`entry` then names it), after
    every file of the archive."""


class NameScreens(NamedTuple):
    """What tests of every entry name of one wheel said (`wheel.namescreens`: a pair tests its
    shared names once): each flag, whether some name has a property of one name alone."""

    needs_norm: bool
    """`_may_need_norm` of the names."""
    has_data: bool
    """`_has_data_directory` of the names."""
    has_directory: bool
    """Some name ends with a slash."""
    may_be_unsafe: bool
    """`soundness.names_may_be_unsafe` of the names."""
    windows_names: bool
    """`windowsnames.may_hold_windows_names` of the names (W619)."""
    tops: frozenset[str]
    """Each name's text before its first slash (the whole name when it has none)."""


@dataclass(frozen=True)
class InstalledView:
    """What pip installs from one wheel."""

    files: tuple[InstalledFile, ...]
    """Every installable file entry, in pip's write order."""
    collisions: tuple[Collision, ...]
    """Groups of entries that end as one file, by installed path."""
    problems: tuple[tuple[str, str], ...]
    """(archive path, reason) for entries pip refuses to install (the install aborts)."""
    generated_scripts: tuple[str, ...] = ()
    """`.data/scripts/` entries pip skips because it generates an entry point's script there."""
    partial: tuple[tuple[str, str], ...] = ()
    """(archive path, reason) for `.data/data/` files that are site-packages files on some of
    the wheel's Pythons or platforms only, or on none (W627)."""
    plain_keys: bool = False
    """No two paths are one file anywhere, each keyed by its fold alone (no name Windows may
    read as another's), and no file is where a directory is needed (`installedbeside`)."""
    alike: tuple[tuple[str, str], ...] = ()
    """(path, reason): files named as a needed directory on Windows/macOS (W615)."""

    def overwritten(self) -> frozenset[str]:
        """Entries whose file a later write of the same path replaces on every system."""
        if not self.collisions:
            return frozenset()
        from k3diff.wheel.collision import CollisionKind

        return frozenset(
            name
            for collision in self.collisions
            if collision.kind is CollisionKind.SAME_PATH
            for name in collision.entries[:-1]
            if name != collision.winner  # a name given twice: its last entry is on disk
        )


def installed_view(
    entries: Sequence[ZipEntry],
    *,
    root_is_purelib: bool,
    dist_name: str | None,
    entry_point_scripts: Iterable[str] = (),
    generated: Sequence[str | tuple[str, str]] = (),
    generated_from: str = "entry_points.txt",
    targets: TargetPythons = ANY,
    screens: NameScreens | None = None,
) -> InstalledView:
    """Map `entries` (central-directory order) to pip's installed files and find collisions.

    `dist_name` names the headers directory; `entry_point_scripts` are the console and GUI
    script names the entry points declare (their `.data/scripts/` namesakes are skipped, as pip
    does); `generated` the script files pip writes for them, last, into `bin/`, each a name or
    (name, what it is made for: `console script 'tool'`); `targets` the
    Pythons and platforms the wheel's tags admit (`k3diff.wheel.targets`).

    pip decides a `.data` file's phase from the path as written (`X.data/scripts/...` is a
    script, written last; `X.data/./scripts/...` is written with the other schemes) and its
    destination from the normalised path, so both spellings install to `bin/` but at different
    times. `screens`: `entries`' names screened already (`wheel.namescreens`)."""
    root_scheme = "purelib" if root_is_purelib else "platlib"
    names = list(map(_NAME, entries))
    joined = "\0".join(names) if screens is None else ""  # no name holds a NUL (zipfile's cut)
    if not (_has_data_directory(names, joined) if screens is None else screens.has_data):
        # Nearly every wheel: no `.data` directory, every file is a root file (the loop below
        # would take each the same way, one Python step per entry).
        if ("/\0" in joined or joined.endswith("/")) if screens is None else screens.has_directory:
            names = [name for name in names if name[-1:] != "/"]  # directories install nothing
        needs_norm = _may_need_norm(joined) if screens is None else screens.needs_norm
        normed = list(map(_norm, names)) if needs_norm else names
        paths = list(map(add, repeat("site-packages/"), normed))
        return _view(names, [root_scheme] * len(names), paths, generated, generated_from, ())
    declared = frozenset(entry_point_scripts)
    root: list[tuple[str, str, str]] = []
    other: list[tuple[str, str, str]] = []
    scripts: list[tuple[str, str, str]] = []
    problems: list[tuple[str, str]] = []
    partial: list[tuple[str, str]] = []
    skipped: list[str] = []
    for entry in entries:
        name = entry.name
        if name[-1:] == "/":
            continue
        slash = name.find("/")
        if not name.endswith(".data", 0, slash if slash >= 0 else len(name)):
            root.append((name, root_scheme, "site-packages/" + _norm(name)))
            continue
        parts = _norm(name).split("/", 2)
        if len(parts) < 3:
            problems.append((name, "a .data file outside any '<scheme>/' subdirectory"))
            continue
        _, scheme, rest = parts
        if scheme not in SCHEMES:
            problems.append(
                (name, f"unknown .data scheme {scheme!r} (pip knows {', '.join(SCHEMES)})")
            )
            continue
        path, reason = scheme_path(scheme, rest, dist_name, targets)
        if reason is not None:
            partial.append((name, reason))
        file = (name, scheme, path)
        if name.split("/", 2)[1:2] != ["scripts"]:  # pip's is_script_scheme_path, unnormalised
            other.append(file)
        elif _wrapper_name(rest.rsplit("/", 1)[-1]) in declared:
            skipped.append(name)
        else:
            scripts.append(file)
    written = [*root, *other, *scripts]
    return _view(
        [file[0] for file in written],
        [file[1] for file in written],
        [file[2] for file in written],
        generated,
        generated_from,
        problems,
        tuple(skipped),
        tuple(partial),
    )


def _view(
    names: list[str],
    schemes: list[str],
    paths: list[str],
    generated: Sequence[str | tuple[str, str]],
    generated_from: str,
    problems: Sequence[tuple[str, str]],
    skipped: tuple[str, ...] = (),
    partial: tuple[tuple[str, str], ...] = (),
) -> InstalledView:
    """The view of the files written from the archive (`names` with their schemes and paths,
    in pip's order), then the scripts pip generates."""
    made = [False] * len(names)
    for made_for in generated:
        script, label = (
            (made_for, f"console/GUI script {made_for!r}")
            if isinstance(made_for, str)
            else made_for
        )
        names.append(f"{label} ({generated_from})")
        schemes.append("scripts")
        paths.append(f"bin/{script}")
        made.append(True)
    # Built in C: tuple.__new__ makes each file without InstalledFile's Python __new__.
    files = tuple(
        map(
            tuple.__new__,
            repeat(InstalledFile),
            zip(names, schemes, paths, count(), made, strict=False),  # count() is endless
        )
    )
    needed_paths = needed(paths)
    conflicts = tuple(file_directory_conflicts(files, paths, needed_paths))
    collisions, keys, lower = _collisions(files, paths)
    needed_keys = lowered(needed_paths) if lower else needed(keys)
    alike = tuple(alike_directories(files, paths, keys, needed_keys, fold))
    plain = collisions is None and not conflicts and not alike
    found = (*problems, *conflicts)
    return InstalledView(files, collisions or (), found, skipped, partial, plain, alike)


def _has_data_directory(names: list[str], joined: str) -> bool:
    """Whether a name's first component (the whole name when it has no slash) ends in `.data`;
    `joined`: the names joined by NULs (substring tests in C first: a regular expression over
    every name cost more than the loop it spares)."""
    if ".data" not in joined:
        return False
    tops = set(map(_HEAD, map(str.partition, names, repeat("/"))))
    return any(top.endswith(".data") for top in tops)


def _may_need_norm(joined: str) -> bool:
    """Whether `_norm` may change a name of `joined` (names joined by NULs)."""
    return (
        "//" in joined
        or "/." in joined
        or "\0/" in joined
        or "\0." in joined
        or joined[:1] in ("/", ".")
    )


def _norm(path: str) -> str:
    """`os.path.normpath` on POSIX, which pip applies to every archive path (skipped for the
    paths it cannot change: no empty, `.` or `..` segment)."""
    if "//" in path or "/." in path or path[:1] in ("/", "."):
        return posixpath.normpath(path)
    return path


def _wrapper_name(name: str) -> str:
    """The entry-point name a setuptools-made wrapper script stands for (pip's rule)."""
    lowered = name.lower()
    for suffix in _WRAPPER_SUFFIXES:
        if lowered.endswith(suffix):
            return name[: -len(suffix)]
    return name


def fold(path: str) -> str:
    """The path as a case-insensitive, normalisation-insensitive file system compares it."""
    if path.isascii():
        return path.lower()  # casefold of ASCII is lower, and NFC leaves it alone
    return unicodedata.normalize("NFC", path).casefold()


def _collisions(
    files: tuple[InstalledFile, ...], paths: list[str]
) -> tuple[tuple[Collision, ...] | None, list[str], bool]:
    """(None: no two `paths` alike, each keyed by its fold alone; each path's key; whether
    each key is its path in lower case, the paths ASCII without a NUL: `directorytrie.lowered`)."""
    joined = "\0".join(paths)
    lower = joined.isascii() and joined.count("\0") == len(paths) - 1
    if lower:
        folded = joined.lower().split("\0") if paths else []  # `fold` of each, in one call
    else:
        folded = [fold(path) for path in paths]
    plain = folded
    if any(c in joined for c in " :~") or _DOT_END.search(joined) or joined.endswith("."):
        from k3diff.wheel.collision import windows_keys  # names Windows reads as another

        folded = windows_keys(folded)
        lower = lower and folded == plain  # a key Windows' rules changed is more than lowered
    if len(set(folded)) == len(folded):  # the common case: no two paths are one file anywhere
        return (None if folded is plain else ()), folded, lower
    by_path: dict[str, list[InstalledFile]] = defaultdict(list)
    by_fold: dict[str, list[tuple[InstalledFile, str]]] = defaultdict(list)
    for file, key, own in zip(files, folded, plain, strict=True):
        by_path[file.path].append(file)
        by_fold[key].append((file, own))
    from k3diff.wheel.collision import Collision, CollisionKind, kind_of  # only when one file

    # One archive name given twice is W608's (the last entry is the one compared), not W615's.
    found = [
        Collision(group[-1].path, CollisionKind.SAME_PATH, tuple(f.entry for f in group))
        for group in by_path.values()
        if len({f.entry for f in group}) > 1
    ]
    for pairs in by_fold.values():
        group = [file for file, _ in pairs]
        if len(paths_of := {file.path for file in group}) < 2:
            continue
        kind = kind_of(paths_of, {own for _, own in pairs})
        found.append(Collision(group[-1].path, kind, tuple(f.entry for f in group)))
    return tuple(sorted(found, key=lambda collision: collision.path)), folded, lower
