"""Pair the entries of two wheels by path.

Exact paths pair first. What is left pairs by a normalised key when it is unique on both sides:
`NAME-VERSION.dist-info/` and `NAME-VERSION.data/` lose their version, and libraries vendored by
auditwheel (`pkg.libs/libfoo-1a2b3c4d.so.1.2.3`) lose the 8-hex hash suffix that changes with
every build and the version after the SONAME's major number, as does any versioned library
(`libonnxruntime.so.1.20.0` and `.so.1.20.1` pair), so an upgraded library shows as changed (and
`--explain` covers it) rather than as one missing and one added.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from itertools import compress, repeat
from operator import add, itemgetter
from typing import NamedTuple

from k3diff.paths import normalized_key
from k3diff.zip.directory import ZipEntry

_NAME = operator.itemgetter(0)
"""`ZipEntry.name`, as a C-level key."""


class EntryPair(NamedTuple):
    """An archive path present on one side or both (a named tuple, as `ZipEntry`: two are
    built per entry, and a frozen dataclass cost three times as much to build)."""

    base: ZipEntry | None
    """The base wheel's entry, or None when the path was added by the patch."""
    patch: ZipEntry | None
    """The patch wheel's entry, or None when the path is missing from the patch."""
    installed_path: str | None = None
    """Where pip installs the patch's entry (the base's when missing); set by the installed
    view's pairing (`k3diff.wheels.installedpairs`)."""
    base_installed_path: str | None = None
    """Where pip installs the base's entry."""
    moved: bool = False
    """The entry moved inside the archive (root <-> `.data/`) and installs to the same path."""

    @property
    def path(self) -> str:
        """The patch's path when present (what ships), else the base's."""
        entry = self.patch if self.patch is not None else self.base
        assert entry is not None
        return entry.name


def pair_entries(base: Sequence[ZipEntry], patch: Sequence[ZipEntry]) -> list[EntryPair]:
    """Pairs sorted by path: exact matches, then normalised-key matches, then one-sided entries.

    Directory entries (names ending in '/') carry no content and install nothing: they are left
    out, so they are neither counted nor reported as changes."""
    split = split_pairs(base, patch)
    exact = exact_pairs(split)
    if not split.others:
        return exact
    return sorted_by_path([*exact, *split.others], [*split.names, *map(pair_path, split.others)])


class SplitPairs(NamedTuple):
    """Two sides' entries split into exact-path pairs and the others."""

    names: list[str]
    """The paths on both sides, sorted."""
    base: dict[str, ZipEntry]
    """The base's file entries by path."""
    patch: dict[str, ZipEntry]
    """The patch's file entries by path (the last of a name given twice)."""
    others: list[EntryPair]
    """Normalised-key pairs and one-sided entries, unsorted."""


def split_pairs(
    base: Sequence[ZipEntry],
    patch: Sequence[ZipEntry],
    has_directory: tuple[bool | None, bool | None] = (None, None),
) -> SplitPairs:
    """The exact-path pairs as sorted names, and the other pairs (`pair_entries`' rules).
    `has_directory`: whether each side's names hold a directory's, when told (`NameScreens`)."""
    base, patch = _files(base, has_directory[0]), _files(patch, has_directory[1])
    base_names = list(map(_NAME, base))
    patch_by_name = dict(zip(map(_NAME, patch), patch, strict=True))
    base_by_name = dict(zip(base_names, base, strict=True))
    if len(base_by_name) != len(base_names):  # a base name given twice: pair each in turn
        return _split_by_loop(base, patch_by_name)
    paired = list(map(patch_by_name.__contains__, base_names))
    names = list(compress(base_names, paired))  # in the base's order: nearly sorted already,
    names.sort()  # which the sort runs through in one pass (a set's order costs a full sort)
    unpaired_base = list(compress(base, map(operator.not_, paired)))
    unpaired_patch: list[ZipEntry] = []
    if len(names) < len(patch_by_name):
        common = set(names)
        unpaired_patch = [entry for name, entry in patch_by_name.items() if name not in common]
    others = _pair_by_key(unpaired_base, unpaired_patch) if unpaired_base or unpaired_patch else []
    return SplitPairs(names, base_by_name, patch_by_name, others)


def _split_by_loop(base: list[ZipEntry], patch_by_name: dict[str, ZipEntry]) -> SplitPairs:
    """`split_pairs` when a base name is given twice: its first entry pairs, the next do not."""
    patch_by_name = dict(patch_by_name)
    paired: dict[str, ZipEntry] = {}
    base_by_name: dict[str, ZipEntry] = {}
    unpaired_base: list[ZipEntry] = []
    for entry in base:
        other = patch_by_name.pop(entry.name, None)
        if other is None:
            unpaired_base.append(entry)
        else:
            paired[entry.name] = other
            base_by_name[entry.name] = entry
    others = _pair_by_key(unpaired_base, list(patch_by_name.values()))
    return SplitPairs(sorted(paired), base_by_name, paired, others)


def exact_pairs(split: SplitPairs) -> list[EntryPair]:
    """The exact-path pairs, in path order (built in C, without EntryPair's Python __new__)."""
    sides = zip(
        map(split.base.__getitem__, split.names),
        map(split.patch.__getitem__, split.names),
        repeat(None),  # installed_path
        repeat(None),  # base_installed_path
        repeat(False),  # moved
        strict=False,  # repeat() is endless
    )
    return list(map(tuple.__new__, repeat(EntryPair), sides))


def pair_path(pair: EntryPair) -> str:
    """`EntryPair.path`, as a function."""
    return pair.path


def sorted_by_path(pairs: list[EntryPair], paths: list[str]) -> list[EntryPair]:
    """`pairs` in the order of `paths` (each pair's path, none given twice)."""
    order = sorted(range(len(pairs)), key=paths.__getitem__)
    return list(map(pairs.__getitem__, order))


def _files(entries: Sequence[ZipEntry], has_directory: bool | None = None) -> list[ZipEntry]:
    """The entries but directories (names ending in a slash); `has_directory`: whether some name
    may be a directory's, when the caller's screens of these names (or of more) told it."""
    if has_directory is None:
        names = "\0".join(map(_NAME, entries))  # no name holds a NUL
        has_directory = "/\0" in names or names.endswith("/")
    if not has_directory:
        return list(entries)
    return [entry for entry in entries if not entry.is_dir]


def _pair_by_key(base: list[ZipEntry], patch: list[ZipEntry]) -> list[EntryPair]:
    base_keys = Counter(normalized_key(entry.name) for entry in base)
    patch_keys = Counter(normalized_key(entry.name) for entry in patch)
    patch_by_key = {normalized_key(entry.name): entry for entry in patch}
    pairs: list[EntryPair] = []
    used: set[int] = set()
    for entry in base:
        key = normalized_key(entry.name)
        if base_keys[key] == 1 and patch_keys[key] == 1:
            other = patch_by_key[key]
            used.add(other.position)
            pairs.append(EntryPair(entry, other))
        else:
            pairs.append(EntryPair(entry, None))
    pairs.extend(EntryPair(None, entry) for entry in patch if entry.position not in used)
    return pairs


def pair_weights(pairs: list[EntryPair]) -> list[int]:
    """Each pair's compressed bytes, both sides (the progress weight), by C-level maps (a
    missing side weighs nothing)."""
    bases, patches = list(map(_BASE, pairs)), list(map(_PATCH, pairs))
    if None in bases:
        bases = [_NOTHING if entry is None else entry for entry in bases]
    if None in patches:
        patches = [_NOTHING if entry is None else entry for entry in patches]
    return list(map(add, map(_COMPRESSED, bases), map(_COMPRESSED, patches)))


_BASE, _PATCH, _COMPRESSED = itemgetter(0), itemgetter(1), itemgetter(5)
"""`EntryPair.base`, `EntryPair.patch` and `ZipEntry.compressed_size`, as C-level getters."""
_NOTHING = ZipEntry("", -1, 0, 0, 0, 0, 0, 0, 0, 0, b"")
"""The missing side of a one-sided pair: no compressed bytes."""
