"""What ties a logs document's sides to the files given to `report` (rerun63): a side given as
one file by the SHA-256 it records (stop 62), a side given as several files by each file's
SHA-256, and a side given as a directory by a directory among report's inputs whose listing
shares files with the one it records (`read`: each file's name relative to the directory,
SHA-256 and size, in the order read).

A directory is tied by what it holds, not by its path: one holding a file of a name recorded
(or given under the directory's recorded name or path), the best of several by the files of
the names and sizes recorded, then of the names. Whether it holds exactly the files `logs` read is then decided by
running `logs` again on it (`k3diff.bundle.logsrederive`), which names a file added, missing
or changed."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError

Read = tuple[tuple[str, str, int], ...]
"""Each file read: its name, SHA-256 and size."""


@dataclass(frozen=True)
class SideTie:
    """How one side of a logs document names what it read."""

    side: str
    """base or patch."""
    recorded: tuple[str, ...]
    """The paths given to `logs`, as it names them."""
    read: Read
    """Every file read, in the order read (one entry for a side given as one file)."""
    directory: bool
    """The side was one directory (`read` names relative to it); else files given by name."""


def side_ties(body: Mapping[str, Any]) -> tuple[SideTie, SideTie] | None:
    """The two sides' ties, None where the document records none (written before stop 62, a
    side given as a directory before rerun63, or one given as a mix `report` cannot tie)."""
    if not isinstance(body.get("rerun"), dict):
        return None
    ties = [_side_tie(body, side) for side in ("base", "patch")]
    if ties[0] is None or ties[1] is None:
        return None
    return ties[0], ties[1]


def _side_tie(body: Mapping[str, Any], side: str) -> SideTie | None:
    recorded = body.get(side, {}).get("paths") if isinstance(body.get(side), dict) else None
    if not isinstance(recorded, list) or not all(isinstance(p, str) for p in recorded):
        return None
    paths = tuple(recorded)
    data = body[side]
    if isinstance(data.get("sha256"), str) and isinstance(data.get("size"), int):
        if len(paths) != 1:
            return None
        return SideTie(side, paths, ((paths[0], data["sha256"], data["size"]),), False)
    read = _read(data.get("read"))
    if not read or not paths:
        return None
    files = body.get("files")
    shown = (
        [f.get("path") for f in files if isinstance(f, dict) and f.get("side") == side]
        if isinstance(files, list)
        else []
    )
    names = [name for name, _, _ in read]
    if shown == names and set(names) == set(paths):
        return SideTie(side, paths, read, False)
    if len(paths) == 1:
        return SideTie(side, paths, read, True)
    return None


def _read(value: object) -> Read | None:
    if not isinstance(value, list):
        return None
    entries = []
    for entry in value:
        if not isinstance(entry, dict):
            return None
        name, digest, size = entry.get("name"), entry.get("sha256"), entry.get("size")
        if not (isinstance(name, str) and isinstance(digest, str) and type(size) is int):
            return None
        entries.append((name, digest, size))
    return tuple(entries)


def listing(directory: Path) -> dict[str, int]:
    """The regular files under `directory` as `logs` lists them, by name relative to it, with
    their sizes (empty where it cannot be listed)."""
    from k3diff.logs.files import log_files

    try:
        found = log_files(directory).files
        return {full.relative_to(directory).as_posix(): os.lstat(full).st_size for full, _ in found}
    except (InputError, OSError):
        return {}


def logs_directories(
    documents: Sequence[Document], directories: Sequence[Path]
) -> dict[tuple[str, str], Path]:
    """For each directory side of a logs document given (by document name and side), the
    directory among `directories` tied to it: the one holding the most files of the names and
    sizes recorded (then of the names, then given under the recorded path or name; one sharing
    none of these is not tied); a side of the same document never gets the other side's, unless
    both record the same directory. Sides no directory ties are left out."""
    tied: dict[tuple[str, str], Path] = {}
    listings: dict[Path, dict[str, int]] = {}
    for doc in documents:
        if doc.kind is not Kind.LOGS or not directories:
            continue
        ties = side_ties(doc.body_again("logs document"))
        if ties is None:
            continue
        scored = []
        for tie in ties:
            if not tie.directory:
                continue
            for directory in directories:
                if directory not in listings:
                    listings[directory] = listing(directory)
                score = _score(tie, directory, listings[directory])
                if score is not None:
                    scored.append((score, tie.side, directory))
        scored = _by_content(scored, ties, listings)
        # One directory read as both sides (`logs d d`) is both sides' (review63b: refused).
        one = ties[0].directory and ties[0].recorded == ties[1].recorded
        taken: set[Path] = set()
        for _, side, directory in sorted(scored, key=lambda s: s[0], reverse=True):
            if (doc.name, side) not in tied and (one or directory not in taken):
                tied[doc.name, side] = directory
                taken.add(directory)
    return tied


Scored = list[tuple[tuple[int, ...], str, Path]]
"""Each directory that may be a side's: its score, the side and the directory."""


def _by_content(
    scored: Scored, ties: Sequence[SideTie], listings: Mapping[Path, Mapping[str, int]]
) -> Scored:
    """`scored`, where several directories tie for a side's best score (the same names and
    sizes: a side's two directories moved elsewhere), each of those scored on by how many of its
    files have the SHA-256 recorded, so the order they were given in decides nothing
    (review63b: the patch's given first was tied to the base, and refused)."""
    best = {
        tie.side: max((s for s, side, _ in scored if side == tie.side), default=()) for tie in ties
    }
    alike = {
        side for side, top in best.items() if [s for s, d, _ in scored if d == side].count(top) > 1
    }
    by_side = {tie.side: tie for tie in ties}
    return [
        (
            (
                *score,
                _same_digests(by_side[side], directory, listings[directory])
                if side in alike and score == best[side]
                else 0,
            ),
            side,
            directory,
        )
        for score, side, directory in scored
    ]


def _same_digests(tie: SideTie, directory: Path, listed: Mapping[str, int]) -> int:
    """How many of the files the side read `directory` holds with the SHA-256 recorded (only
    files it lists are read: a name recorded is never a path out of it)."""
    from k3diff.filehash import file_sha256

    same = 0
    for name, digest, size in tie.read:
        if listed.get(name) != size:
            continue
        try:
            same += file_sha256(directory / name)[0] == digest
        except (InputError, OSError):
            continue
    return same


def _score(tie: SideTie, directory: Path, listed: Mapping[str, int]) -> tuple[int, ...] | None:
    """How well `directory` matches the side (None: not at all)."""
    same_size = sum(1 for name, _, size in tie.read if listed.get(name) == size)
    same_name = sum(1 for name, _, _ in tie.read if name in listed)
    recorded = Path(tie.recorded[0])
    at_path = int(directory == recorded or directory.absolute() == recorded.absolute())
    by_name = int(directory.absolute().name == recorded.absolute().name)
    if not (same_size or same_name or at_path or by_name):
        return None
    return same_size, same_name, at_path, by_name
