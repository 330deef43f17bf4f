"""A patch's installed view from its base's, for the files both write from the same names.

Every file of a wheel without a `.data` directory installs to `site-packages/` and its name
(normalised), in directory order: file i of the view is (name i, the root scheme, that path, i).
When the base's view says no two of its paths are one file anywhere and none is a file where
another needs a directory (`InstalledView.plain_keys`), and the patch's names up to some k are
the base's own name objects in the same places (`zip.besidenames` shares them), the patch's first
k files are the base's first k, the same objects, and among them nothing collides. What is left
to check is the patch's other files (a few) against each other (`installed`'s own checks) and
against those k paths: no key alike (ASCII paths, whose key is the lower-cased path), no file
where another needs a directory either way. Anything else (non-ASCII paths, names Windows reads
as others, more than `_FEW_OTHERS` other files, a collision or a conflict found) is None: the
view is built on its own, which finds and words it.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import repeat
from typing import Any

from k3diff.wheel.installed import (
    InstalledFile,
    InstalledView,
    NameScreens,
    _norm,
    _view,
    installed_view,
)
from k3diff.zip.directory import ZipEntry

_FEW_OTHERS = 32
"""Most files past the shared ones tested against them by substring searches."""
_ENTRY, _SCHEME, _PATH = operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)


def installed_view_beside(
    entries: Sequence[ZipEntry],
    beside: InstalledView,
    *,
    root_is_purelib: bool,
    generated: Sequence[str | tuple[str, str]] = (),
    generated_from: str = "entry_points.txt",
    screens: NameScreens | None = None,
    **options: Any,
) -> InstalledView:
    """`installed.installed_view` of `entries` (the same arguments), its files shared with
    `beside`'s where it can: a wheel without a `.data` directory, its names screened."""
    if screens is not None and not screens.has_data and beside.plain_keys:
        names = list(map(_ENTRY, entries))
        if screens.has_directory:
            names = [name for name in names if name[-1:] != "/"]
        scheme = "purelib" if root_is_purelib else "platlib"
        view = view_beside(names, screens.needs_norm, scheme, beside, generated, generated_from)
        if view is not None:
            return view
    return installed_view(
        entries,
        root_is_purelib=root_is_purelib,
        generated=generated,
        generated_from=generated_from,
        screens=screens,
        **options,
    )


def view_beside(
    names: list[str],
    needs_norm: bool,
    scheme: str,
    beside: InstalledView,
    generated: Sequence[str | tuple[str, str]],
    generated_from: str,
) -> InstalledView | None:
    """`installed._view` of the root files `names` (`needs_norm`: some may need `normpath`),
    in `scheme`, then the generated scripts, from `beside`'s files where it can (module
    docstring); None where it cannot."""
    base = beside.files
    least = max(len(names) - _FEW_OTHERS, 1)  # the shared files must reach this far
    if not beside.plain_keys or not names or least > len(base):
        return None
    if names[least - 1] is not base[least - 1][0]:
        return None
    same = list(map(operator.is_, names, map(_ENTRY, base)))
    shared = same.index(False) if False in same else len(same)
    if len(names) - shared > _FEW_OTHERS or not shared:
        return None
    if list(map(_SCHEME, base[:shared])).count(scheme) != shared:
        return None  # another scheme (a `.data` file's, or the other root)
    own = names[shared:]
    paths = [f"site-packages/{_norm(name) if needs_norm else name}" for name in own]
    rest = _view(own, [scheme] * len(own), paths, generated, generated_from, ())
    if rest.collisions or rest.problems or not rest.plain_keys:
        return None
    prefix = list(map(_PATH, base[:shared]))
    others = list(map(_PATH, rest.files))
    if not _apart(prefix, others):
        return None
    files = (*base[:shared], *map(_renumbered, rest.files, repeat(shared)))
    return InstalledView(files, (), (), plain_keys=True)


def _apart(prefix: list[str], others: list[str]) -> bool:
    """Whether no path of `others` is one file with a path of `prefix` on a case-blind file
    system, a directory a path of `prefix` needs, or under a path of `prefix` there (all
    ASCII)."""
    joined = "\0" + "\0".join(prefix) + "\0"
    if not joined.isascii() or not "".join(others).isascii():
        return False
    folded, paths = joined.lower(), frozenset[str]()
    for path in map(str.lower, others):
        if f"\0{path}\0" in folded or f"\0{path}/" in folded:
            return False
        cut = path.rfind("/")
        paths = paths or frozenset(folded.split("\0"))  # names78: `pkg/A` under `pkg/a/`
        while cut > 0:
            if path[:cut] in paths:
                return False
            cut = path.rfind("/", 0, cut)
    return True


def _renumbered(file: InstalledFile, by: int) -> InstalledFile:
    """`file` written `by` places later in pip's order."""
    return file._replace(order=file.order + by)
