"""Where a repository's objects come from: its own store, or another's through alternates.

``objects/info/alternates`` lets a repository read objects from other object directories (a
``git clone --shared`` or ``--reference``). k3diff reads such a repository, since an object id is
a hash of its content wherever the bytes are stored, but it names the borrowing in the report,
and for each compared commit found only in a borrowed store it names that store: that is how a
``--shared`` clone holds its origin's history, and also how a commit REPO never had would reach
the report, so the reader is told which store the compared commit was read from.

The lookups read the store's files directly (a loose object's file, the sorted name table of
each pack's ``.idx``), never through git, so they can tell the stores apart.
"""

from __future__ import annotations

import mmap
import os
import stat
from dataclasses import dataclass
from pathlib import Path

_MAX_ALTERNATES_BYTES = 1 << 20
"""Largest ``info/alternates`` file read (git's own files are a few lines)."""

_MAX_DEPTH = 5
"""Alternates of alternates followed this deep, as git does."""

_IDX_V2 = b"\377tOc\0\0\0\2"


@dataclass(frozen=True)
class ObjectStores:
    """A repository's own object directory and the ones it borrows from, in git's order."""

    own: Path
    """``objects/`` of the repository (its common directory's, for a worktree)."""
    borrowed: tuple[Path, ...]
    """Directories named by ``info/alternates``, recursively, each resolved (a relative line
    names its store by where it is, whatever path reached the repository); empty for a
    self-contained one."""

    @classmethod
    def of(cls, objects: Path) -> ObjectStores:
        """Read the alternates chain that starts at `objects`."""
        borrowed: list[Path] = []
        _collect(objects, borrowed, depth=0, seen={objects.resolve()})
        return cls(objects, tuple(borrowed))

    def store_of(self, oid: str) -> Path | None:
        """The first store, own first, that holds object `oid`; None when none does."""
        raw = bytes.fromhex(oid)
        return next((s for s in (self.own, *self.borrowed) if _holds(s, oid, raw)), None)


def _collect(objects: Path, out: list[Path], *, depth: int, seen: set[Path]) -> None:
    if depth >= _MAX_DEPTH:
        return
    for line in _read_small_file(objects / "info" / "alternates").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"') and line.endswith('"'):  # git's C-quoted form, plain cases
            line = line[1:-1].encode("latin-1").decode("unicode_escape")
        store = Path(line) if os.path.isabs(line) else objects / line
        if not store.is_dir():  # missing, not a directory, or a symbolic link loop (review67:
            continue  # resolving one raised, "internal error"): git skips it too
        resolved = store.resolve()  # named as itself, not as ``objects/../../other/objects``
        if resolved in seen:
            continue
        seen.add(resolved)
        out.append(resolved)
        _collect(resolved, out, depth=depth + 1, seen=seen)


def _read_small_file(path: Path) -> str:
    """The text of a regular file of at most `_MAX_ALTERNATES_BYTES`, else ''. A FIFO or a
    device is never opened (it could block or never end)."""
    try:
        info = path.stat()
    except OSError:
        return ""
    if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_ALTERNATES_BYTES:
        return ""
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return ""


def _holds(store: Path, oid: str, raw: bytes) -> bool:
    if (store / oid[:2] / oid[2:]).is_file():
        return True
    try:
        indexes = sorted((store / "pack").glob("*.idx"))
    except OSError:
        return False
    return any(_index_holds(idx, raw) for idx in indexes)


def _index_holds(idx: Path, raw: bytes) -> bool:
    """Binary search of a pack index's sorted names (version 2, or the original version 1).
    Only a regular file is read: opened without waiting (a FIFO named ``*.idx`` held the run
    forever, review67), then checked to be one."""
    try:
        fd = os.open(idx, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as m:
            return _search(m, raw)
    except (OSError, ValueError):  # unreadable or empty: git could not use it either
        return False
    finally:
        os.close(fd)


def _search(table: mmap.mmap, raw: bytes) -> bool:
    width = len(raw)
    if table[:8] == _IDX_V2:
        fanout, names, stride, skip = 8, 8 + 1024, width, 0
    else:
        fanout, names, stride, skip = 0, 1024, width + 4, 4
    if len(table) < fanout + 1024:
        return False

    def count_below(byte: int) -> int:
        return 0 if byte < 0 else int.from_bytes(table[fanout + 4 * byte : fanout + 4 * byte + 4])

    low, high = count_below(raw[0] - 1), count_below(raw[0])
    if names + high * stride > len(table):
        return False
    while low < high:
        middle = (low + high) // 2
        start = names + middle * stride + skip
        name = table[start : start + width]
        if name == raw:
            return True
        if name < raw:
            low = middle + 1
        else:
            high = middle
    return False
