"""Screens of every entry name of two wheels, the names they share tested once.

The installability and soundness checks first test all of a wheel's names at once (substring
searches of the names joined by NULs, ≈ 0.7 ms each on twelve thousand names): whether one may
need `normpath`, lies in a `.data` directory, is a directory, may be unsafe, may have a component
Windows cannot write (W619); and they take each name's first component. Each screen is "some
name has a property of one name alone" (no name holds a NUL, so no search matches across two
names), so a screen the base's names fail is failed by every patch name equal to one of them:
for the patch only its other names are tested. Its first components are the base's and its other names' when every base name is a
patch name. When some base name passes a screen, or is not a patch name, the patch's names are
screened on their own, as before.
"""

from __future__ import annotations

import operator
from itertools import filterfalse, repeat

from k3diff.lazyre import lazy
from k3diff.wheel.installed import NameScreens, _may_need_norm
from k3diff.wheel.soundness import names_may_be_unsafe
from k3diff.wheel.windowsnames import may_hold_windows_names
from k3diff.zip.directory import ZipEntry

_NAME = operator.itemgetter(0)
_HEAD = operator.itemgetter(0)
_SLASH_PAIR = lazy(r"/[/.\x00]")
"""`//` or `/.` in a name (`normpath` changes it), or a slash ending one (a directory)."""
_DOT_PAIR = lazy(r"\.[./\x00]")
"""`..` in a name (unsafe), or a dot ending a component (Windows drops it)."""


def screen_names(names: list[str]) -> NameScreens:
    """Every screen of `names` (each an entry's name, in directory order)."""
    joined = "\0".join(names)  # no name holds a NUL: zipfile cuts names there
    tops = frozenset(map(_HEAD, map(str.partition, names, repeat("/"))))
    has_data = any(map(str.endswith, tops, repeat(".data")))  # `_has_data_directory`
    if _plain(joined, tops):  # nearly every wheel
        return NameScreens(
            needs_norm=False,
            has_data=has_data,
            has_directory=False,
            may_be_unsafe=":" in joined,
            windows_names=may_hold_windows_names(joined, dot_ends=False),
            tops=tops,
        )
    return NameScreens(
        needs_norm=_may_need_norm(joined),
        has_data=has_data,
        has_directory="/\0" in joined or joined.endswith("/"),
        may_be_unsafe=names_may_be_unsafe(joined),
        windows_names=may_hold_windows_names(joined),
        tops=tops,
    )


def _plain(joined: str, tops: frozenset[str]) -> bool:
    """Whether no name of `joined` (names joined by NULs) holds `//`, `/.`, `..` or a dot
    ending a component, ends in a slash, or starts with a slash, a dot or a backslash (each
    name's first component, `tops`, tells; an empty one, a name that starts with a slash or is
    empty). Then `normpath` changes no name (`_may_need_norm`), none is a directory,
    `names_may_be_unsafe` is the colon's test alone and `may_hold_windows_names` needs no
    search for a dot ending a component: two searches of `joined` (each as costly as one
    substring search: a single character, then a class) in place of nine."""
    return (
        _SLASH_PAIR.search(joined) is None
        and _DOT_PAIR.search(joined) is None
        and not joined.endswith("/")
        and "" not in tops
        and not any(map(str.startswith, tops, repeat((".", "\\"))))
    )


def screen_pair(
    base: tuple[ZipEntry, ...], patch: tuple[ZipEntry, ...]
) -> tuple[NameScreens, NameScreens]:
    """`screen_names` of both wheels' entries, the patch's names equal to a base name (by
    value) not tested again where the base's screens are all false."""
    base_names = list(map(_NAME, base))
    patch_names = list(map(_NAME, patch))
    base_screens = screen_names(base_names)
    flags = base_screens[:5]  # every screen but `tops`
    known = set(base_names)
    if any(flags) or not known.issubset(patch_names):  # a base name gone: its top may go too
        return base_screens, screen_names(patch_names)
    # Every patch name is a base name or one of these: a property no base name has, a patch
    # name has only among them; its first components are the base's and theirs.
    others = screen_names(list(filterfalse(known.__contains__, patch_names)))
    return base_screens, others._replace(tops=base_screens.tops | others.tops)
