"""Which of the wheels given to `report` a wheels document is run again on (`wheelsrederive`).

A wheel given to `report` is found by its bytes, whatever it is called there, yet `wheels` reads
findings off a wheel's file name: W605 (the filename against METADATA and WHEEL), W616 (a name pip
refuses), W630 (the tags it installs on), the platforms its natives load on. So each side is run
again on a wheel given with the bytes the document records and under the file name it records,
the one at the recorded path first, two files where two are given: a patch that is the base
wheel copied under the next version's name (one SHA-256 for both) was run again as the base file
on both sides, so its W605 deleted, with the verdict, passed (hunt72). Never on a link named as
the document says (hunt72's first fix): the document chose the name, and one naming its patch
`patch/`, `x.whl`, or a name no file can have (a NUL, 300 bytes: read then under the base file's
name) had its W605 deleted, with the verdict, pass beside the wheels it was made from
(review72b). A document whose wheel no file given is named as is refused, not run again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle.givenfiles import Copies, pick_named


def recorded_names(body: Mapping[str, Any]) -> list[object]:
    """The paths the document records of its base and patch wheels (None where none is)."""
    sides = [body.get(side, {}) for side in ("base", "patch")]
    return [side.get("path") if isinstance(side, Mapping) else None for side in sides]


def named_copies(
    body: Mapping[str, Any], digests: Sequence[str], copies: Copies
) -> tuple[Path, Path] | str:
    """The two wheels given to run `wheels` again on: for each side, one given with the bytes
    the document records and under the file name it records (`givenfiles.pick_named`); or why
    there is none. Never a link named as the document says (hunt72): a document naming its
    patch `patch/`, `x.whl` or a name no file can have was run again under that name, or on
    the base file, and its W605 deleted, with the verdict, passed (review72b)."""
    recorded = [(str(n), d) for n, d in zip(recorded_names(body), digests, strict=True)]
    base, patch = pick_named(copies, recorded)
    if base is not None and patch is not None:
        return base, patch
    side, (name, digest) = ("base", recorded[0]) if base is None else ("patch", recorded[1])
    return (
        f"it records its {side} wheel as {name!r}, and no wheel given of its bytes "
        f"(SHA-256 {digest}) has that file name: `wheels` reads findings off a file name "
        "(W605, W616, W630), so it is run again only on wheels named as it records them; give "
        "them so named, or make the document again on the wheels as they are named"
    )


def digests_given(body: dict[str, Any], given: dict[str, tuple[Path, int]]) -> list[str] | None:
    """The SHA-256 of the base and patch wheels the document records, where both are `given`
    (by SHA-256; for a `--no-file-hash` document, by file name and size); None otherwise."""
    sides = [body.get(side) for side in ("base", "patch")]
    digests = [s.get("sha256") if isinstance(s, dict) else None for s in sides]
    if digests == [None, None] and isinstance(body.get("rerun"), dict):
        return _by_name_and_size(sides, given)
    if not all(isinstance(d, str) and d in given for d in digests):
        return None
    return [str(d) for d in digests]


def _by_name_and_size(sides: list[Any], given: dict[str, tuple[Path, int]]) -> list[str] | None:
    """A `--no-file-hash` document names no SHA-256: each side is the one wheel given whose
    file name and size are the ones the document records (the path as recorded decides between
    two such). Sound only because `wheels` then runs again on them and must reproduce the
    document whole: it follows from those wheels, whoever they are (forge62)."""
    chosen = []
    for side in sides:
        if not isinstance(side, dict) or not isinstance(side.get("path"), str):
            return None
        name, size = Path(side["path"]).name, side.get("size")
        fits = [d for d, (path, n) in given.items() if path.name == name and n == size]
        exact = [d for d in fits if str(given[d][0]) == side["path"]]
        if len(fits) == 1 or len(exact) == 1:
            chosen.append(fits[0] if len(fits) == 1 else exact[0])
        else:
            return None
    return chosen if chosen[0] != chosen[1] else None
