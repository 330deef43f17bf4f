"""A wheels document given with its two wheels is believed only as far as `k3diff wheels`, run
again on them with the document's own settings, writes the same document (forge61).

A `k3diff.wheels/1` document is checked against itself (`k3diff.documents.checks`), but what
it does not hold (the wheels' RECORD, their paths, the `--protected-commands` set) cannot be
re-derived from it: a W302 deleted, or relabelled W501, with the verdict edited to pass,
agrees with itself (review61a). Where both wheels the document names (by SHA-256) are among
`report`'s inputs, `wheels` runs again on them and the two documents are compared whole but
for the wheels' paths, naming the first field that differs (exit 2). The settings are the
ones the document shows: `--allow-native-changes` and `--allow-bytecode` by findings of those
codes at info, `--select`/`--ignore` by the codes `verdict.filtered` names, `--explain`. A
document whose findings were waived or that checked `--source` records neither the waiver
file nor the repository: given with its wheels, it is refused (compare it without them).
A wheels document read without its wheels is judged from itself alone, and the bundle says so
(`alone_qualification`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle.rederive import first_difference
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError, K3diffError

NATIVE_INFO_CODES = frozenset({"W101", "W102", "W103", "W708", "W628"})
"""Codes `--allow-native-changes` reports at info (W708/W628 only about native code)."""


def is_wheel_path(path: Path) -> bool:
    """A `.whl` given to `report`: one of the wheels a wheels document compared."""
    return path.suffix.lower() == ".whl"


WheelRead = tuple[str, str, int]
"""A wheel `report` ran `wheels` again on: its name as given, SHA-256 and size in bytes."""


def wheel_digests(paths: Sequence[Path]) -> dict[str, tuple[Path, int]]:
    """SHA-256 of each wheel given, to the path it was given as and its size."""
    found: dict[str, tuple[Path, int]] = {}
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
    return found


def _options(body: dict[str, Any], name: str) -> Any:
    from k3diff.wheel.codes import Code
    from k3diff.wheel.policy import Policy
    from k3diff.wheels.compare import WheelOptions

    if "waivers" in body or any("waiver" in f for f in body.get("findings", [])):
        raise InputError(
            f"{name}: findings waived (--waivers), and the waiver file is not in the document, "
            "so k3diff wheels cannot be run again on the wheels given with it: give report the "
            "document without its wheels (it is then judged from the document alone)"
        )
    if "provenance" in body:
        raise InputError(
            f"{name}: checked against a --source repository the document does not hold, so "
            "k3diff wheels cannot be run again on the wheels given with it: give report the "
            "document without its wheels (it is then judged from the document alone)"
        )
    quiet = {f.get("code") for f in body.get("findings", []) if f.get("severity") == "info"}
    verdict = body.get("verdict", {})
    ignore = {f.get("code") for f in verdict.get("filtered", []) if isinstance(f, dict)}
    policy = Policy(
        allow_native_changes=bool(quiet & NATIVE_INFO_CODES),
        allow_bytecode="W405" in quiet,
        ignore=frozenset(Code[c] for c in ignore if isinstance(c, str) and c in Code.__members__),
    )
    return WheelOptions(policy=policy, explain=body.get("explain") is True)


def _again(body: dict[str, Any], base: Path, patch: Path, name: str) -> dict[str, Any] | str:
    """The document `wheels` writes on the two wheels with the document's settings."""
    from k3diff.documents import wheels as wheels_document
    from k3diff.wheels.compare import compare_wheels
    from k3diff.wheels.model import asked_to_explain

    options = _options(body, name)
    try:
        report = asked_to_explain(compare_wheels(base, patch, options), options.explain)
    except K3diffError as exc:
        return f"wheels refuses them: {exc}"
    again: dict[str, Any] = json.loads(wheels_document.write(report))
    return again


def _without_paths(body: dict[str, Any]) -> dict[str, Any]:
    """The document but for what depends on where the wheels lie."""
    out = dict(body)
    for side in ("base", "patch"):
        if isinstance(out.get(side), dict):
            out[side] = {k: v for k, v in out[side].items() if k != "path"}
    return out


def _digests(body: dict[str, Any], given: dict[str, tuple[Path, int]]) -> list[str] | None:
    sides = [body.get(side) for side in ("base", "patch")]
    digests = [s.get("sha256") if isinstance(s, dict) else None for s in sides]
    if not all(isinstance(d, str) and d in given for d in digests):
        return None
    return [str(d) for d in digests]


def check_wheels_again(
    documents: Sequence[Document],
    given: dict[str, tuple[Path, int]],
    audited: frozenset[Path] = frozenset(),
) -> dict[str, tuple[WheelRead, ...]]:
    """Raise InputError for a wheels document that `wheels`, run again on its two wheels (both
    `given`: `wheel_digests` of the wheels given), does not reproduce, and for a wheel no
    wheels document compares and no audit run again on it audited (`audited`); return the
    names of the documents so re-derived, each to the two wheels it was run again on (the
    bundle lists them among its inputs)."""
    if not given:
        return {}
    checked: dict[str, tuple[WheelRead, ...]] = {}
    tied: set[Path] = set()
    for doc in documents:
        if doc.kind is not Kind.WHEELS:
            continue
        body = doc.body_again("wheels document")
        digests = _digests(body, given)
        if digests is None:
            continue
        paths = given[digests[0]][0], given[digests[1]][0]
        tied.update(paths)
        again = _again(body, *paths, doc.name)
        difference = (
            again
            if isinstance(again, str)
            else first_difference(_without_paths(body), _without_paths(again))
        )
        if difference is not None:
            raise InputError(
                f"{doc.name}: does not follow from the wheels given with it (wheels run again "
                f"on {paths[0]} and {paths[1]}: {difference}); give the document the wheels it "
                "was made from, or re-run k3diff wheels"
            )
        checked[doc.name] = tuple(
            (str(given[d][0]), d, given[d][1]) for d in dict.fromkeys(digests)
        )
    for path, _ in given.values():
        if path not in tied and path not in audited:
            raise InputError(
                f"{path}: no wheels document given compares it with another of the wheels "
                "given (give both wheels the document names; a wheel is read only to run "
                "k3diff wheels again on the two a document names)"
            )
    return checked


def alone_qualification(name: str) -> str:
    """The bottom-line qualification of a wheels document read without its wheels."""
    return (
        f"{name} judged from the document alone: RECORD, paths and protected commands not "
        "re-derived (give report both wheels)"
    )
