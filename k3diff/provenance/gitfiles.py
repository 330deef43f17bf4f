"""The git directory's small files, checked before git runs: each a regular file within a cap.

git opens ``HEAD``, the ref files, ``packed-refs``, ``objects/info/alternates`` and each pack's
``.idx`` (and the ``.pack`` beside it) with a plain blocking ``open``: a FIFO in any of those
places held ``git rev-parse`` until its 600 s deadline (left67b), and a device such as
``/dev/zero`` behind a symbolic link would be read without end. Each is looked at here with
``stat`` only (which never waits on a FIFO) and refused at once, in one line naming the file.
Loose objects are not listed (there can be millions); `gitpipe`'s deadline covers them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from k3diff.bounded import size_text
from k3diff.errors import SourceError

SMALL_FILE_BYTES = 1 << 20
"""Most bytes of ``HEAD``, a ref file, ``commondir``, a ``.git`` file or an alternates file
(each is a line or a few)."""

PACKED_REFS_BYTES = 1 << 30
"""Most bytes of ``packed-refs`` (one line per ref: a million refs are about 100 MB)."""

_MAX_DEPTH = 5
"""Alternates of alternates followed this deep, as git does (`objectstore`)."""


def check_git_files(label: str, repo: Path) -> None:
    """Refuse `repo` when a file git or k3diff will open in its git directory (or in an object
    store it borrows from) is not a regular file, or is larger than its cap."""
    git_dir = _git_dir(label, repo)
    if git_dir is None:
        return  # not a repository: git says so in its own words
    common = git_dir
    pointer = git_dir / "commondir"
    if _exists(pointer):
        _check(label, pointer, SMALL_FILE_BYTES, repo)
        text = pointer.read_text("utf-8", "surrogateescape").strip()
        common = Path(os.path.normpath(git_dir / text)) if text else git_dir
    for path, cap in _files(git_dir, common):
        _check(label, path, cap, repo)


def _git_dir(label: str, repo: Path) -> Path | None:
    dot = repo / ".git"
    if not _exists(dot):
        return repo if _exists(repo / "HEAD") else None  # a bare repository, or none
    if dot.is_dir():
        return dot
    _check(label, dot, SMALL_FILE_BYTES, repo)
    text = dot.read_text("utf-8", "surrogateescape").strip()
    if not text.startswith("gitdir:"):
        return None
    target = Path(text.removeprefix("gitdir:").strip())
    return target if target.is_absolute() else repo / target


def _files(git_dir: Path, common: Path) -> Iterator[tuple[Path, int | None]]:
    """(file, its cap in bytes or None) for each file of the git directory git will open."""
    yield git_dir / "HEAD", SMALL_FILE_BYTES
    yield common / "packed-refs", PACKED_REFS_BYTES
    yield from _refs(common / "refs")
    if git_dir != common:
        yield from _refs(git_dir / "refs")
    stores, seen = [common / "objects"], set()
    for depth in range(_MAX_DEPTH + 1):
        following = []
        for store in stores:
            key = os.path.realpath(store)
            if key in seen or not store.is_dir():
                continue
            seen.add(key)
            alternates = store / "info" / "alternates"
            yield alternates, SMALL_FILE_BYTES
            yield from _packs(store / "pack")
            if depth < _MAX_DEPTH and _exists(alternates):
                following += _alternates(store, alternates)
        stores = following


def _refs(top: Path) -> Iterator[tuple[Path, int | None]]:
    for folder, _dirs, names in os.walk(top):  # symbolic links to folders are not followed
        for name in names:
            yield Path(folder) / name, SMALL_FILE_BYTES


def _packs(folder: Path) -> Iterator[tuple[Path, int | None]]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if name.endswith(".idx") and name[:-4] + ".pack" in names:
            yield folder / name, None
            yield folder / (name[:-4] + ".pack"), None


def _alternates(store: Path, alternates: Path) -> list[Path]:
    """The stores an alternates file (already checked) names (`objectstore` reads them so)."""
    found = []
    for line in alternates.read_text("utf-8", "surrogateescape").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            if line.startswith('"') and line.endswith('"'):
                line = line[1:-1].encode("latin-1", "replace").decode("unicode_escape")
            found.append(Path(line) if os.path.isabs(line) else store / line)
    return found


def _exists(path: Path) -> bool:
    return os.path.lexists(path)


def _check(label: str, path: Path, cap: int | None, repo: Path) -> None:
    """Refuse `path` when it exists and is not a regular file within `cap` bytes."""
    shown = path.relative_to(repo) if path.is_relative_to(repo) else path
    try:
        info = path.stat()
    except FileNotFoundError:  # absent, or a symbolic link to nothing: git opens nothing
        return
    except OSError as exc:
        raise SourceError(f"{label}: {shown}: cannot read it ({exc.strerror or exc})") from exc
    if stat.S_ISFIFO(info.st_mode):
        raise SourceError(
            f"{label}: {shown} is a FIFO, not a regular file: git would wait on it (refused)"
        )
    if not stat.S_ISREG(info.st_mode):
        raise SourceError(f"{label}: {shown} is not a regular file, where git reads one (refused)")
    if cap is not None and info.st_size > cap:
        raise SourceError(
            f"{label}: {shown} is {size_text(info.st_size)}, past the {size_text(cap)} k3diff "
            "lets git read there (refused)"
        )
