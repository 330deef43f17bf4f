"""A release set (`k3diff.wheelset/1`) given with its two directories is listed again (rerun62).

Each pair of a release set is a whole `k3diff.wheels/1` document with its `rerun`: given its two
wheels, `wheelsrederive.check_wheels_again` runs each pair again exactly as a single pair is
(found by the SHA-256 the pair document records, or by file name and size for one made with
`--no-file-hash`). What only the set holds (the wheels on one side only, the misnamed `.whl`
files, the other files, and so the verdict `set_failures` gives with `allow_unpaired`) is a fact
of the directories' listing, not of any pair: here the two directories, when given, are scanned
again by `releaseset.scan_directory` and paired by `releaseset.pair_wheels` (the functions
`k3diff wheels BASE_DIR PATCH_DIR` uses), and the listing is compared with the document's. A
directory is a side of a set when it holds every wheel that side's pairs name (by SHA-256, or
by name and size); the wheels are then found in it by that digest, never by the directory's
name, so a directory renamed or moved still reads. The directories are used only for the facts
of the set's listing: a wheel in them that no pair names is no input of a rerun.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from k3diff.bundle import changedinputs, runagain
from k3diff.bundle.difference import first_difference
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError, K3diffError
from k3diff.filehash import file_sha256
from k3diff.wheels.releaseset import (
    Pairing,
    ReleaseSide,
    SetWheel,
    Side,
    pair_wheels,
    scan_directory,
)


class SetSides(NamedTuple):
    """A release set's two directories among report's inputs."""

    base: Path
    patch: Path
    wheels: tuple[Path, ...]
    """The wheels of its pairs, found in them (each run again as a single pair)."""


def _listing(directory: Path) -> dict[tuple[str, int], list[Path]]:
    """The wheels (any `.whl`) directly in `directory`, by (SHA-256, size)."""
    found: dict[tuple[str, int], list[Path]] = {}
    try:
        children = sorted(directory.iterdir())
    except OSError as exc:
        raise InputError(f"{directory}: cannot list: {exc.strerror or exc}") from exc
    for child in children:
        if child.suffix.lower() == ".whl" and child.is_file():
            found.setdefault(file_sha256(child), []).append(child)
    return found


def items_of(body: dict[str, Any], key: str) -> list[Any]:
    """`body[key]` where it is a list (the typed reader has checked it), else empty."""
    value = body.get(key)
    return value if isinstance(value, list) else []


def _side_wheels(body: dict[str, Any], side: str) -> list[dict[str, Any]]:
    sides = [p.get("wheels", {}).get(side) for p in items_of(body, "pairs") if isinstance(p, dict)]
    return [s for s in sides if isinstance(s, dict)]


def _holds(listing: dict[tuple[str, int], list[Path]], wheel: dict[str, Any]) -> Path | None:
    """The file of `listing` that is the wheel a pair document names (by SHA-256, or by file
    name and size where it records none)."""
    digest, size, name = wheel.get("sha256"), wheel.get("size"), Path(str(wheel.get("path"))).name
    for (sha, n), paths in listing.items():
        for path in paths:
            if (sha == digest) if digest is not None else (n == size and path.name == name):
                return path
    return None


def _side(
    body: dict[str, Any],
    side: str,
    listings: dict[Path, dict[tuple[str, int], list[Path]]],
    dirs: Sequence[Path],
) -> tuple[Path, list[Path]]:
    """The directory of `dirs` that is the set's `side` (holding every wheel its pairs name
    there, one changed since by name: `_holding_changed`) and those wheels; `Path()` where no
    one directory is."""
    wanted = _side_wheels(body, side)
    held = {d: [_holds(listings[d], w) for w in wanted] for d in dirs}
    fits = [d for d, paths in held.items() if wanted and all(paths)]
    if not fits:  # a wheel changed since (report67): refused, naming it (changedinputs)
        fits, held = _holding_changed(listings, wanted, held)
    if len(fits) > 1:  # identical sides: the name as recorded decides
        recorded = Path(str(body[side]["inputs"][0])).name
        fits = [d for d in fits if d.name == recorded] or fits
    if len(fits) != 1:
        return Path(), []
    return fits[0], [p for p in held[fits[0]] if p is not None]


def _holding_changed(
    listings: dict[Path, dict[tuple[str, int], list[Path]]],
    wanted: list[dict[str, Any]],
    held: dict[Path, list[Path | None]],
) -> tuple[list[Path], dict[Path, list[Path | None]]]:
    """Where no directory holds every wheel of a side by its bytes: the one directory holding
    the most of them so, and each other of its wheels by file name, changed since the set was
    written (the pair's run again names it). None fits where no one directory does."""

    def named(directory: Path, wheel: dict[str, Any]) -> Path | None:
        name = Path(str(wheel.get("path"))).name
        return next((p for ps in listings[directory].values() for p in ps if p.name == name), None)

    fuller = {
        d: [path or named(d, w) for path, w in zip(paths, wanted, strict=True)]
        for d, paths in held.items()
    }
    scores = {d: sum(p is not None for p in held[d]) for d, paths in fuller.items() if all(paths)}
    best = max(scores.values(), default=0)
    fits = [d for d, score in scores.items() if score == best]
    return (fits, fuller) if len(fits) == 1 else ([], held)


def _made_from_directories(body: dict[str, Any]) -> bool:
    """Each side of the set was one directory (`wheels BASE_DIR PATCH_DIR`), not files."""
    sides = [body.get(side, {}) for side in ("base", "patch")]
    inputs = [s.get("inputs") if isinstance(s, dict) else None for s in sides]
    return all(
        isinstance(i, list) and len(i) == 1 and not str(i[0]).lower().endswith(".whl")
        for i in inputs
    )


def set_directories(documents: Sequence[Document], dirs: Sequence[Path]) -> dict[str, SetSides]:
    """For each release set made from two directories, the two among `dirs` holding every
    wheel of its pairs, side by side; InputError for a set only one side of which is given, or
    two directories that could each be the same side."""
    if not dirs or not any(doc.kind is Kind.WHEELSET for doc in documents):
        return {}
    listings = {d: _listing(d) for d in dirs}
    found: dict[str, SetSides] = {}
    for doc in documents:
        if doc.kind is not Kind.WHEELSET:
            continue
        body = doc.body_again("release-set document")
        if not _made_from_directories(body):
            continue
        chosen = [_side(body, side, listings, dirs) for side in ("base", "patch")]
        for i, side in enumerate(("base", "patch")):  # a wheel changed since (report67)
            other, recorded = chosen[1 - i][0], Path(str(body[side]["inputs"][0])).name
            if other != Path() and (
                chosen[i][0] == Path() or (chosen[i][0] == other and other.name != recorded)
            ):  # the other side's directory, by its bytes: this side is among the rest
                chosen[i] = _side(body, side, listings, [d for d in dirs if d != other])
        (base, base_wheels), (patch, patch_wheels) = chosen
        given = [d for d in (base, patch) if d != Path()]
        if not given:
            continue
        if len(given) == 1 or base == patch:
            raise InputError(
                f"{doc.name}: {given[0]} holds the wheels of one side of the release set only, "
                "and no other directory given holds the other side's (give report both "
                "directories the set was made from, or its wheels)"
            )
        found[doc.name] = SetSides(base, patch, (*base_wheels, *patch_wheels))
    return found


def stated_listing(body: dict[str, Any]) -> dict[str, Any]:
    """The set's listing as the document states it (file names: the directories as given to
    `wheels` are where it ran, not what it found)."""

    def names(key: str) -> list[Any]:
        return [
            {k: Path(str(v)).name if k == "path" else v for k, v in item.items() if k != "name"}
            if isinstance(item, dict)
            else item
            for item in items_of(body, key)
        ]

    return {
        "base.wheels": body.get("base", {}).get("wheels"),
        "patch.wheels": body.get("patch", {}).get("wheels"),
        "pairs": [
            [Path(str(p.get("base"))).name, Path(str(p.get("patch"))).name]
            for p in items_of(body, "pairs")
            if isinstance(p, dict)
        ],
        "only_base": names("only_base"),
        "only_patch": names("only_patch"),
        "misnamed": names("misnamed"),
        "ignored": names("ignored"),
    }


def _listed(body: dict[str, Any], sides: SetSides) -> dict[str, Any]:
    """The same facts from the two directories, scanned and paired again by `k3diff wheels`'s
    own functions (SHA-256 of a wheel on one side only where the document records them)."""
    base, patch = scan_directory(sides.base, Side.BASE), scan_directory(sides.patch, Side.PATCH)
    hashed = any(w.get("sha256") is not None for w in _side_wheels(body, "base")) or any(
        "sha256" in w for k in ("only_base", "only_patch") for w in body.get(k) or []
    )
    return set_listing(
        base,
        patch,
        pair_wheels(base.wheels, patch.wheels),
        lambda _key, w: {"sha256": file_sha256(w.path)[0]} if hashed else {},
    )


def set_listing(
    base: ReleaseSide,
    patch: ReleaseSide,
    pairing: Pairing,
    digest: Callable[[str, SetWheel], dict[str, Any]],
) -> dict[str, Any]:
    """A set's listing as `k3diff wheels` writes it, from its two sides and their pairing:
    wheels per side, pairs, each wheel on one side only (with the fields `digest(key, wheel)`
    gives it: its SHA-256, or none), misnamed `.whl` files and other files."""

    def unpaired(key: str, wheels: Sequence[SetWheel]) -> list[dict[str, Any]]:
        return [
            {"path": w.path.name, "version": w.version, "tags": sorted(w.tags), **digest(key, w)}
            for w in wheels
        ]

    return {
        "base.wheels": len(base.wheels),
        "patch.wheels": len(patch.wheels),
        "pairs": [[b.path.name, p.path.name] for b, p in pairing.pairs],
        "only_base": unpaired("only_base", pairing.only_base),
        "only_patch": unpaired("only_patch", pairing.only_patch),
        "misnamed": [
            {"side": str(i.side), "path": i.path.name, "reason": i.reason}
            for i in (*base.misnamed, *patch.misnamed)
        ],
        "ignored": [
            {"side": str(i.side), "path": i.path.name, "reason": i.reason}
            for i in (*base.ignored, *patch.ignored)
        ],
    }


def check_set_listings(
    documents: Sequence[Document],
    sets: dict[str, SetSides],
    stale: list[runagain.StaleDocument],
) -> None:
    """Add to `stale` the refusal of a release set whose listing (pairs, wheels on one side only,
    misnamed `.whl` files, other files, wheels per side) is not what its two directories,
    listed and paired again, give."""
    for doc in documents:
        sides = sets.get(doc.name)
        if sides is None:
            continue
        body = doc.body_again("release-set document")
        try:
            listed = _listed(body, sides)
        except K3diffError as exc:
            raise InputError(f"{doc.name}: its directories cannot be listed again: {exc}") from None
        command = runagain.wheelset_args(body, [[str(sides.base)], [str(sides.patch)]])
        stated = stated_listing(body)
        changed = _unpaired_changed(body, stated, listed, sides)
        if changed:  # lmrep68: said as a listing difference only
            stale.extend(changedinputs.refusals(doc.name, changed, "wheels", command, "wheels"))
        difference = first_difference(stated, listed)
        if difference is not None:
            stale.append(
                runagain.refusal(
                    doc.name,
                    "directories",
                    f"listed again from {sides.base} and {sides.patch}",
                    difference,
                    "give the release set the directories it was made from, or "
                    + runagain.again(command, doc.name, "wheels"),
                )
            )


def _unpaired_changed(
    body: dict[str, Any], stated: dict[str, Any], listed: dict[str, Any], sides: SetSides
) -> list[changedinputs.Mismatch]:
    """Each wheel on one side only that the set records by SHA-256 and its directory holds
    under the same file name with other bytes (rebuilt since), or no longer holds: an input
    changed or missing, as a pair's wheel is (`changedinputs`), not a listing difference. Each
    is taken out of the listing compared (`stated`, `listed`, edited in place), so what differs
    there besides is still said."""
    found: list[changedinputs.Mismatch] = []
    for key, directory in (("only_base", sides.base), ("only_patch", sides.patch)):
        now = {row["path"]: row for row in listed[key]}
        kept = []
        for written, row in zip(items_of(body, key), stated[key], strict=True):
            digest = row.get("sha256") if isinstance(row, dict) else None
            if not isinstance(digest, str) or now.get(row["path"], {}).get("sha256") == digest:
                kept.append(row)
                continue
            side = key.removeprefix("only_")
            recorded = changedinputs.Recorded(
                str(written.get("path")), digest, f"its {side} wheel on one side only"
            )
            there = now.pop(row["path"], None)
            if there is None and isinstance(listed.get(f"{side}.wheels"), int):
                listed[f"{side}.wheels"] += 1  # counted as the missing one, said above
            found.append(
                changedinputs.Mismatch(recorded, None, None, directory=directory)
                if there is None
                else changedinputs.Mismatch(recorded, directory / row["path"], there["sha256"])
            )
        stated[key], listed[key] = kept, list(now.values())
    return found


def listing_alone_qualification(name: str) -> str:
    """The qualification of a release set whose pairs were run again without its directories."""
    return (
        f"{name}: its pairs run again on their wheels; the wheels on one side only and the "
        "misnamed .whl files judged from the document alone (give report the two directories)"
    )


def set_alone_qualification(name: str) -> str:
    """The qualification of a release set read without its wheels."""
    return (
        f"{name} judged from the document alone: its pairs not run again, its directories not "
        "listed again (give report the two directories, or every pair's wheels)"
    )
