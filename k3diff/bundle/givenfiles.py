"""The files given to `report` that are no k3diff document, by their bytes: what a responses or
logs document ties its inputs by (their SHA-256, recorded in the document), every copy of the
same bytes kept apart, and how the bundle lists the files a document was run again on."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from k3diff.errors import InputError
from k3diff.filehash import file_sha256

Copies = Mapping[str, tuple[Path, ...]]
"""Every file given with the same bytes, by their SHA-256, in the order given."""


def given_digests(
    unread: Sequence[tuple[Path, InputError]],
) -> tuple[dict[str, tuple[Path, int]], dict[str, tuple[Path, ...]]]:
    """Each file `report` could not read as a document, by its SHA-256, with its size: what a
    responses or logs document ties its inputs by (a file that cannot be hashed raises what its
    reader said: missing, unreadable); and every file of those bytes (newuser64: two inputs of
    the same bytes, a patch answering as the base did, were one, and the other refused as
    given for nothing)."""
    given: dict[str, tuple[Path, int]] = {}
    copies: dict[str, tuple[Path, ...]] = {}
    for path, error in unread:
        try:
            digest, size = file_sha256(path)
        except InputError:
            raise error from None
        given.setdefault(digest, (path, size))
        copies[digest] = (*copies.get(digest, ()), path)
    return given, copies


def pick_copies(copies: Copies, wanted: Sequence[tuple[str, str]]) -> tuple[Path | None, ...]:
    """For each (recorded name, SHA-256) of `wanted`, a distinct file given with those bytes:
    the one given under the recorded name where there is one, else the first not taken (None
    where none is left)."""
    taken: set[Path] = set()
    picked: list[Path | None] = [None] * len(wanted)
    for exact in (True, False):
        for i, (name, digest) in enumerate(wanted):
            if picked[i] is not None:
                continue
            free = [p for p in copies.get(digest, ()) if p not in taken]
            fits = [p for p in free if str(p) == name] if exact else free
            if fits:
                picked[i] = fits[0]
                taken.add(fits[0])
    return tuple(picked)


def pick_named(copies: Copies, wanted: Sequence[tuple[str, str]]) -> tuple[Path | None, ...]:
    """For each (recorded path, SHA-256) of `wanted`, a file given with those bytes under the
    recorded path's file name (`pick_copies` among those: the one at the recorded path first,
    each file once where there are enough, else one already picked); None where no file of
    those bytes is given under that name. What a command reads off a file name (`wheels`'
    W605, W616, W630) is then read off the name recorded, from a file given under it
    (review72b: two artifacts or sides of one wheel's bytes under two names were run again on
    one file, or under a name the document chose, and a W605 deleted, with the verdict,
    passed)."""
    keyed = [(name, f"{digest}/{Path(name).name}") for name, digest in wanted]
    named: dict[str, tuple[Path, ...]] = {}
    for _, key in keyed:
        digest, _, file = key.partition("/")
        named[key] = tuple(path for path in copies.get(digest, ()) if path.name == file)
    picked = pick_copies(named, keyed)
    return tuple(
        path or next(iter(named[key]), None) for path, (_, key) in zip(picked, keyed, strict=True)
    )


def inputs_read(
    given: Mapping[str, tuple[Path, int]], read: Iterable[tuple[str, Path]]
) -> tuple[tuple[str, str, int], ...]:
    """The files a document was run again on (SHA-256, file), each once: (its name as given,
    SHA-256, size), as the bundle lists them among its inputs; two copies of one wheel's bytes
    read both listed (review72b: the second, run again, was listed as the first)."""
    return tuple(dict.fromkeys((str(path), d, given[d][1]) for d, path in read))


def is_wheel_path(path: Path) -> bool:
    """A `.whl` given to `report`: one of the wheels a wheels document compared."""
    return path.suffix.lower() == ".whl"


def wheel_digests(paths: Sequence[Path]) -> dict[str, tuple[Path, int]]:
    """SHA-256 of each wheel given, to the path it was given as and its size."""
    return wheel_digests_and_copies(paths)[0]


def wheel_digests_and_copies(
    paths: Sequence[Path],
) -> tuple[dict[str, tuple[Path, int]], dict[str, tuple[Path, ...]]]:
    """`wheel_digests`, and every wheel given of each SHA-256 (`Copies`): two artifacts of one
    audit may be one wheel's bytes under two names (hunt72)."""
    found: dict[str, tuple[Path, int]] = {}
    copies: dict[str, tuple[Path, ...]] = {}
    for path in paths:
        size = 0
        try:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
                    size += len(block)
        except OSError as exc:
            raise InputError(f"{path}: cannot read the wheel ({exc.strerror})") from exc
        found.setdefault(digest.hexdigest(), (path, size))
        copies[digest.hexdigest()] = (*copies.get(digest.hexdigest(), ()), path)
    return found, copies
