"""Pair the entries of two wheels by path.

Exact paths pair first. What is left pairs by a normalised key when it is unique on both sides:
`NAME-VERSION.dist-info/` and `NAME-VERSION.data/` lose their version, and libraries vendored by
auditwheel (`pkg.libs/libfoo-1a2b3c4d.so.1.2.3`) lose the 8-hex hash suffix that changes with
every build and the version after the SONAME's major number, as does any versioned library
(`libonnxruntime.so.1.20.0` and `.so.1.20.1` pair), so an upgraded library shows as changed (and
`--explain` covers it) rather than as one missing and one added.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from k3diff.paths import normalized_key
from k3diff.zip.directory import ZipEntry


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
    base = [entry for entry in base if not entry.is_dir]
    patch = [entry for entry in patch if not entry.is_dir]
    patch_by_name = {entry.name: entry for entry in patch}
    pairs: list[EntryPair] = []
    unpaired_base: list[ZipEntry] = []
    for entry in base:
        other = patch_by_name.pop(entry.name, None)
        if other is None:
            unpaired_base.append(entry)
        else:
            pairs.append(EntryPair(entry, other))
    pairs.extend(_pair_by_key(unpaired_base, list(patch_by_name.values())))
    pairs.sort(key=lambda pair: pair.path)
    return pairs


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
