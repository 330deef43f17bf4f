"""Pairing built in C-level maps (`pairing.split_pairs`, `installedpairs.pair_installed`)
reaches the pairs of the per-entry loops it replaced: the same pairs, installed paths and moves,
in the same order, with names given twice, directories, versioned and vendored paths, files
overwritten in the installed view and files that moved into `.data/`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.paths import normalized_key
from k3diff.wheel.installed import InstalledView, installed_view
from k3diff.wheel.namescreens import screen_pair
from k3diff.wheels.installedpairs import is_move, pair_installed
from k3diff.wheels.pairing import EntryPair, pair_entries
from k3diff.zip.directory import ZipEntry

_NAMES = [
    "pkg/a.py", "pkg/b.py", "pkg/", "Pkg/a.py", "pkg/a.py/x",
    "demo-1.0.dist-info/RECORD", "demo-2.0.dist-info/RECORD",
    "pkg.libs/libz-1a2b3c4d.so.1", "pkg.libs/libz-9f8e7d6c.so.1",
    "lib.so.1.2.0", "lib.so.1.3.0", "demo-1.0.data/purelib/pkg/c.py", "pkg/c.py",
    "demo-1.0.data/purelib/pkg/a.py", "bin/", "x",
]  # fmt: skip


def _old_pair_entries(base: Sequence[ZipEntry], patch: Sequence[ZipEntry]) -> list[EntryPair]:
    base = [entry for entry in base if not entry.is_dir]
    patch = [entry for entry in patch if not entry.is_dir]
    patch_by_name = {entry.name: entry for entry in patch}
    pairs: list[EntryPair] = []
    unpaired: list[ZipEntry] = []
    for entry in base:
        other = patch_by_name.pop(entry.name, None)
        if other is None:
            unpaired.append(entry)
        else:
            pairs.append(EntryPair(entry, other))
    left = list(patch_by_name.values())
    base_keys = Counter(normalized_key(entry.name) for entry in unpaired)
    patch_keys = Counter(normalized_key(entry.name) for entry in left)
    patch_by_key = {normalized_key(entry.name): entry for entry in left}
    used: set[int] = set()
    for entry in unpaired:
        key = normalized_key(entry.name)
        if base_keys[key] == 1 and patch_keys[key] == 1:
            used.add(patch_by_key[key].position)
            pairs.append(EntryPair(entry, patch_by_key[key]))
        else:
            pairs.append(EntryPair(entry, None))
    pairs.extend(EntryPair(None, entry) for entry in left if entry.position not in used)
    pairs.sort(key=lambda pair: pair.path)
    return pairs


def _old_pair_installed(
    base: Sequence[ZipEntry], patch: Sequence[ZipEntry], bview: InstalledView, pview: InstalledView
) -> list[EntryPair]:
    base_lost, patch_lost = bview.overwritten(), pview.overwritten()
    pairs = _old_pair_entries(
        [entry for entry in base if entry.name not in base_lost],
        [entry for entry in patch if entry.name not in patch_lost],
    )
    base_paths = {file.entry: file.path for file in bview.files}
    patch_paths = {file.entry: file.path for file in pview.files}
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
    if joined:
        merged.sort(key=lambda pair: pair.path)
    return merged


def _entries(names: list[str]) -> list[ZipEntry]:
    return [ZipEntry(name, i, 8, 0, i, 1, 1, i * 100, 0, 3, name.encode()) for i, name in
            enumerate(names)]  # fmt: skip


def _installed_entries(entries: list[ZipEntry]) -> list[ZipEntry]:
    return list({entry.name: entry for entry in entries}.values())


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_NAMES), max_size=8), st.lists(st.sampled_from(_NAMES), max_size=8))
def test_pairs_are_the_per_entry_pairs(base_names: list[str], patch_names: list[str]) -> None:
    base, patch = _entries(base_names), _entries(patch_names)
    assert pair_entries(base, patch) == _old_pair_entries(base, patch)
    base, patch = _installed_entries(base), _installed_entries(patch)
    views = [installed_view(side, root_is_purelib=True, dist_name="demo") for side in (base, patch)]
    expected = _old_pair_installed(base, patch, *views)
    assert pair_installed(base, patch, views[0], views[1]) == expected
    # With each side's directory screen as `compare_wheels` hands it over (`screen_pair`).
    screens = screen_pair(tuple(base), tuple(patch))
    flags = (screens[0].has_directory, screens[1].has_directory)
    assert pair_installed(base, patch, views[0], views[1], flags) == expected
