"""Pair two wheels' entries by the files pip installs from them.

Archive paths pair first (`k3diff.wheels.pairing`); an entry overwritten by a later write of the
same installed path takes no part (the winner is what is on disk, W615 says what happened), and
what is left on one side only pairs by installed path when that is unique on both sides: a file
that moved between the root and `NAME.data/purelib|platlib/` (or `.data/data/lib/pythonX.Y/
site-packages/`) is one installed file, compared as such.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from itertools import repeat

from k3diff.paths import normalized_key
from k3diff.wheel.installed import InstalledView
from k3diff.wheels.pairing import EntryPair, pair_path, sorted_by_path, split_pairs
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry


def pair_installed(
    base: Sequence[ZipEntry],
    patch: Sequence[ZipEntry],
    base_view: InstalledView,
    patch_view: InstalledView,
    has_directory: tuple[bool | None, bool | None] = (None, None),
) -> list[EntryPair]:
    """Pairs sorted by path, as `pair_entries` returns them, over the entries whose files stay
    on disk, one-sided entries then joined by installed path; each pair carries its installed
    paths and whether it moved. `has_directory`: whether each side's archive names hold a
    directory's, when its name screens told (`NameScreens`: then not searched again)."""
    base_lost, patch_lost = base_view.overwritten(), patch_view.overwritten()
    split = split_pairs(
        [entry for entry in base if entry.name not in base_lost] if base_lost else base,
        [entry for entry in patch if entry.name not in patch_lost] if patch_lost else patch,
        has_directory,
    )
    base_paths = _paths(base_view)
    patch_paths = _paths(patch_view)
    # The pairs of one path (nearly all), built in C: the same path, so never a move.
    names = split.names
    base_installed = list(map(base_paths.get, names))
    patch_installed = list(map(patch_paths.get, names))
    if not all(patch_installed):  # no installed path (or an empty one): the base's
        patch_installed = [p or b for p, b in zip(patch_installed, base_installed, strict=True)]
    sides = zip(
        map(split.base.__getitem__, names),
        map(split.patch.__getitem__, names),
        patch_installed,
        base_installed,
        repeat(False),
        strict=False,  # repeat() is endless
    )
    exact = list(map(tuple.__new__, repeat(EntryPair), sides))
    if not split.others:
        return exact
    others = _join_others(split.others, base_paths, patch_paths)
    return sorted_by_path([*exact, *others], [*names, *map(pair_path, others)])


_ENTRY = operator.itemgetter(0)
_PATH = operator.itemgetter(2)
_NAME = operator.itemgetter(0)


def _paths(view: InstalledView) -> dict[str, str]:
    """Each file's installed path by archive path (the last write of a name given twice)."""
    return dict(zip(map(_ENTRY, view.files), map(_PATH, view.files), strict=True))


def _join_others(
    pairs: list[EntryPair], base_paths: dict[str, str], patch_paths: dict[str, str]
) -> list[EntryPair]:
    """The pairs of different paths and the one-sided entries, what is left on one side only
    joined by installed path when that is unique on both sides, with their installed paths."""
    only_base = [p.base for p in pairs if p.patch is None and p.base is not None]
    only_patch = [p.patch for p in pairs if p.base is None and p.patch is not None]
    base_keys = Counter(base_paths.get(entry.name) for entry in only_base)
    patch_keys = Counter(patch_paths.get(entry.name) for entry in only_patch)
    patch_by_key = {patch_paths.get(entry.name): entry for entry in only_patch}
    joined: dict[str, ZipEntry] = {}
    for entry in only_base:
        key = base_paths.get(entry.name)
        if key is not None and base_keys[key] == 1 and patch_keys[key] == 1:
            joined[entry.name] = patch_by_key[key]
    taken = {entry.name for entry in joined.values()}
    merged: list[EntryPair] = []
    for pair in pairs:
        if pair.base is not None and pair.patch is None and pair.base.name in joined:
            pair = EntryPair(pair.base, joined[pair.base.name])
        elif pair.base is None and pair.patch is not None and pair.patch.name in taken:
            continue
        base_path = base_paths.get(pair.base.name) if pair.base is not None else None
        patch_path = patch_paths.get(pair.patch.name) if pair.patch is not None else None
        merged.append(
            EntryPair(pair.base, pair.patch, patch_path or base_path, base_path, is_move(pair))
        )
    return merged


def is_move(pair: EntryPair) -> bool:
    """True when the two sides' archive paths differ beyond a version or vendoring hash: the
    file moved inside the archive (root <-> `.data/`) and installs to the same place."""
    if pair.base is None or pair.patch is None or pair.base.name == pair.patch.name:
        return False
    return normalized_key(pair.base.name) != normalized_key(pair.patch.name)


def installed_entries(archive: ZipArchive) -> tuple[ZipEntry, ...]:
    """One entry per name, the last in directory order: the one zipfile's name lookup returns
    and the one pip leaves on disk (it extracts in order, a later file overwriting an earlier
    one). A name given twice is W608 either way."""
    names = list(map(_NAME, archive.entries))
    if len(set(names)) == len(names):
        return archive.entries
    return tuple(dict(zip(names, archive.entries, strict=True)).values())
