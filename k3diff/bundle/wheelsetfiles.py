"""A release set made from wheels given one by one (`k3diff wheels --base F --patch G`) is
paired again from the wheels given to `report` (rerun63).

A set made from two directories is listed again from them (`k3diff.bundle.wheelsetrederive`);
one made from files has no directory to list, so its pairs, its wheels on one side only and
its counts per side were the document's word even where every pair was run again on its
wheels: a pair split into two unpaired wheels, or an unpaired wheel's row edited, agreed with
itself. Here, once every pair has been run again on its wheels (`wheelsrederive`) and every wheel
the set lists on one side only is among report's inputs too (by the SHA-256 its row records),
the files `wheels` was given (`base.inputs`, `patch.inputs`, by the names it was given them
under) are read again by `releaseset.given_files` and paired by `releaseset.pair_wheels` (the
functions `k3diff wheels` uses), and the listing is compared with the document's. What stays
the document's word is which wheels `wheels` was given: a wheel left out of the document
entirely (its inputs, rows and counts) leaves no trace there; given to `report`, it is a wheel
no document names, exit 2."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle import runagain
from k3diff.bundle.difference import first_difference
from k3diff.bundle.wheelsetrederive import items_of, set_listing, stated_listing
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError, K3diffError
from k3diff.wheels.releaseset import Side, given_files, pair_wheels


def made_from_files(body: Mapping[str, Any]) -> bool:
    """Each side of the set was wheels given one by one (`--base F --patch G`)."""
    sides = [body.get(side) for side in ("base", "patch")]
    inputs = [s.get("inputs") if isinstance(s, dict) else None for s in sides]
    return all(
        isinstance(i, list) and i and all(str(p).lower().endswith(".whl") for p in i)
        for i in inputs
    )


def unpaired_digests(body: Mapping[str, Any]) -> list[str | None]:
    """The SHA-256 each wheel on one side only records (None where it records none)."""
    return [
        w.get("sha256") if isinstance(w, dict) and isinstance(w.get("sha256"), str) else None
        for key in ("only_base", "only_patch")
        for w in items_of(dict(body), key)
    ]


def _listed(body: Mapping[str, Any]) -> dict[str, Any]:
    """The set's listing as `k3diff wheels` makes it from the files it was given, by the names
    it was given them under (each row's SHA-256 as the document records it: what ties the row
    to a wheel given to report)."""
    names = [[Path(str(p)) for p in body[side]["inputs"]] for side in ("base", "patch")]
    base, patch = given_files(names[0], Side.BASE), given_files(names[1], Side.PATCH)
    pairing = pair_wheels(base.wheels, patch.wheels, True)
    recorded = {
        (key, Path(str(w.get("path"))).name): w.get("sha256")
        for key in ("only_base", "only_patch")
        for w in items_of(dict(body), key)
        if isinstance(w, dict)
    }

    return set_listing(  # `--base`/`--patch` refuse a file not named as a wheel: none misnamed
        base,
        patch,
        pairing,
        lambda key, w: (
            {"sha256": recorded[key, w.path.name]} if (key, w.path.name) in recorded else {}
        ),
    )


def files_sets(documents: Sequence[Document], run_again: Mapping[str, object]) -> list[str]:
    """The release sets made from files among `documents` whose pairs were run again."""
    return [
        doc.name
        for doc in documents
        if doc.kind is Kind.WHEELSET
        and doc.name in run_again
        and made_from_files(doc.body_again("release-set document"))
    ]


def check_set_files(
    documents: Sequence[Document],
    run_again: Sequence[str],
    given: Mapping[str, tuple[Path, int]],
    stale: list[runagain.StaleDocument],
) -> frozenset[str]:
    """The release sets of `run_again` (made from files, their pairs run again: `files_sets`)
    whose wheels on one side only are all among `given` (by SHA-256): each paired again from the
    names it was given its wheels under; the refusal of one whose listing differs added to
    `stale`."""
    paired: set[str] = set()
    for doc in documents:
        if doc.kind is not Kind.WHEELSET or doc.name not in run_again:
            continue
        body = doc.body_again("release-set document")
        digests = unpaired_digests(body)
        if not all(d is not None and d in given for d in digests):
            continue
        _names_given(doc.name, body, given)
        try:
            listed = _listed(body)
        except K3diffError as exc:
            raise InputError(
                f"{doc.name}: the wheels it was given cannot be paired again: {exc}"
            ) from None
        difference = first_difference(stated_listing(body), listed)
        if difference is not None:
            command = runagain.wheelset_args(body, runagain.given_sides(body, given))
            stale.append(
                runagain.refusal(
                    doc.name,
                    "wheels",
                    "paired again from the wheels it records it was given",
                    difference,
                    "give the release set every wheel it was made from, or "
                    + runagain.again(command, doc.name, "wheels"),
                )
            )
        paired.add(doc.name)
    return frozenset(paired)


def _names_given(name: str, body: Mapping[str, Any], given: Mapping[str, tuple[Path, int]]) -> None:
    """InputError for a wheel on one side only whose row names another file than the wheel
    given with its SHA-256 (review63b): `wheels` pairs by file name, so a set is paired again
    from the names of the wheels given, not from names the document could have edited (a
    failing pair split in two, a wheel renamed so the two no longer pair, agreed with itself)."""
    for key in ("only_base", "only_patch"):
        for row in items_of(dict(body), key):
            if not isinstance(row, dict) or not isinstance(row.get("sha256"), str):
                continue
            recorded, (path, _) = Path(str(row.get("path"))).name, given[row["sha256"]]
            if path.name != recorded:
                raise InputError(
                    f"{name}: {key} names {recorded}, but the wheel given with its SHA-256 is "
                    f"{path}: k3diff wheels pairs wheels by their file names (give the set the "
                    "wheels under the names it was given them, or re-run k3diff wheels)"
                )


def files_qualification(name: str, paired_again: bool, unpaired: Sequence[str]) -> str:
    """What a release set made from files, run again on its pairs' wheels, rests on
    (`unpaired`: the paths of its wheels on one side only)."""
    word = (
        "which wheels k3diff wheels was given (base.inputs, patch.inputs) is the document's "
        "word: a wheel left out of the document entirely leaves no trace in it"
    )
    if paired_again:
        return (
            f"{name}: made from wheels given one by one (--base/--patch): its pairs run again "
            f"and the set paired again from the wheels given; {word}"
        )
    rows = [Path(path).name for path in unpaired]
    shown = ", ".join(rows[:3]) + (f" and {len(rows) - 3} more" if len(rows) > 3 else "")
    return (
        f"{name}: made from wheels given one by one (--base/--patch): its pairs run again on "
        f"their wheels; its pairing and the {len(rows):,} wheel{'s' if len(rows) != 1 else ''} "
        f"on one side only ({shown}) judged from the document alone (give report those wheels "
        f"too: they are tied by the SHA-256 the set records, none with --no-file-hash); {word}"
    )
