"""A logs document given with its two log files is believed only as far as `k3diff logs`, run
again on them with the document's own settings, writes the same document (stop 62).

A `k3diff.logs/1` document is checked against itself (its counts, and its verdict in the
passing direction), but nothing there ties its findings to the logs: a forger deleting an error
finding and editing the counts and verdict to match passed. Every document now records each
side's SHA-256 and size (of the one file read; a `.gz` log as given) and the settings it ran with
(`rerun`: the user rules as parsed, `--ignore-rule`, `--strict` and the caps). A file given to
`report` is a logs input exactly when its SHA-256 is one a logs document given records for a
side: the one mechanism by which `report` tells responses inputs apart
(`k3diff.bundle.responsesrederive`), so a samples log (a k3diff document, read as one) or a
responses capture is never taken for a server log. Where both files are given, `logs` runs again
on them and the two documents are compared whole (but for the paths, which name the files as
given), naming the first field that differs (exit 2). A document written before the digests,
given with log files, is refused (re-run `k3diff logs`, or give it alone): nothing ties a file
to it; one given alone is judged from itself, as before."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle.rederive import first_difference, inputs_read
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError, K3diffError

Tie = tuple[tuple[str, str, int], ...]
"""Each input's name as given, SHA-256 and size (what the bundle lists among its inputs)."""


def side_digests(body: Mapping[str, Any]) -> tuple[str, str] | None:
    """The two sides' SHA-256 the document records, with its settings (None: written before
    they were, or a side given as a directory)."""
    sides = [body.get(side) for side in ("base", "patch")]
    digests = [s.get("sha256") if isinstance(s, dict) else None for s in sides]
    if all(isinstance(d, str) for d in digests) and isinstance(body.get("rerun"), dict):
        return str(digests[0]), str(digests[1])
    return None


def _options(rerun: Mapping[str, Any], name: str) -> Any:
    """The `LogsOptions` the document records (InputError naming a field that is not one)."""
    from k3diff.logs import LogsOptions, Severity, parse_user_rule

    def field(key: str, kind: type | tuple[type, ...]) -> Any:
        value = rerun.get(key)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int, float))):
            raise InputError(f"{name}: field 'rerun.{key}' is missing or of another type")
        return value

    rules = []
    for index, rule in enumerate(field("rules", list)):
        where = f"{name}: rerun.rules[{index}]"
        if not isinstance(rule, dict) or rule.get("severity") not in ("error", "warning"):
            raise InputError(f"{where}: not a rule of k3diff logs (name, severity, pattern)")
        try:
            rules.append(
                parse_user_rule(
                    f"{rule.get('name')}={rule.get('pattern')}", Severity(rule["severity"])
                )
            )
        except K3diffError as exc:
            raise InputError(f"{where}: {exc}") from None
    ignored = field("ignored", list)
    if not all(isinstance(n, str) for n in ignored):
        raise InputError(f"{name}: field 'rerun.ignored' must list rule names")
    max_seconds = float(field("max_seconds", (int, float)))
    if not math.isfinite(max_seconds) or max_seconds <= 0:
        raise InputError(f"{name}: field 'rerun.max_seconds' must be a positive number")
    return LogsOptions(
        rules=tuple(rules),
        ignored=tuple(ignored),
        strict=field("strict", bool),
        max_inflated=field("max_inflated_bytes", int),
        max_seconds=max_seconds,
    )


def _again(body: Mapping[str, Any], base: Path, patch: Path, name: str) -> dict[str, Any] | str:
    """The document `logs` writes on the two files with the document's settings, its paths
    named as the document names them, or why none."""
    from k3diff.documents.logs import write
    from k3diff.logs import scan_logs

    options = _options(body["rerun"], name)
    try:
        report = scan_logs((base,), (patch,), options)
    except K3diffError as exc:
        return f"logs refuses them: {exc}"
    again: dict[str, Any] = json.loads(write(report))
    for side, given in (("base", str(base)), ("patch", str(patch))):
        recorded = body[side].get("paths")
        if not (isinstance(recorded, list) and len(recorded) == 1 and isinstance(recorded[0], str)):
            continue  # a difference of its own, named by the comparison
        again[side]["paths"] = recorded
        shown = recorded[0]
        for entry in again["files"]:
            if entry["side"] == side and entry["path"] == given:
                entry["path"] = shown
        for finding in again["findings"]:
            if finding["side"] == side:
                for example in finding["examples"]:
                    if example["file"] == given:
                        example["file"] = shown
    return again


def check_logs_again(
    documents: Sequence[Document], given: Mapping[str, tuple[Path, int]]
) -> tuple[dict[str, Tie], frozenset[Path], tuple[str, ...]]:
    """Raise InputError for a logs document that `logs`, run again on its two files (both
    among `given`: each file `report` could not read as a document, by SHA-256, with its size),
    does not reproduce, and for one side given without the other; return the documents so re-derived (each to
    its files), the files they tied, and the logs documents that record no SHA-256 (older)."""
    checked: dict[str, Tie] = {}
    tied: set[Path] = set()
    older: list[str] = []
    for doc in documents:
        if doc.kind is not Kind.LOGS:
            continue
        body = doc.body_again("logs document")
        digests = side_digests(body)
        if digests is None:
            older.append(doc.name)
            continue
        present = [d in given for d in digests]
        if not any(present):
            continue
        if not all(present):
            raise InputError(
                _unmatched(doc.name, body, digests[1] if present[0] else digests[0], given)
            )
        paths = (given[digests[0]][0], given[digests[1]][0])
        tied.update(paths)
        again = _again(body, *paths, doc.name)
        difference = again if isinstance(again, str) else first_difference(body, again)
        if difference is not None:
            raise InputError(
                f"{doc.name}: does not follow from the logs given with it (logs run again on "
                f"{paths[0]} and {paths[1]}: {difference}); give the document the logs it was "
                "made from, or re-run k3diff logs"
            )
        checked[doc.name] = inputs_read(given, digests)
    return checked, frozenset(tied), tuple(older)


def _unmatched(
    name: str, body: Mapping[str, Any], digest: str, given: Mapping[str, tuple[Path, int]]
) -> str:
    """Why one side's log is not among those given (matched by SHA-256 only): the name and
    SHA-256 the document records for it, and the file given under that name, if any (edited
    since `logs` read it; polish62b: it read as "the other log, given without its base")."""
    side = "base" if body["base"].get("sha256") == digest else "patch"
    recorded = body[side].get("paths")
    shown = str(recorded[0]) if isinstance(recorded, list) and len(recorded) == 1 else "?"
    same = [str(p) for p, _ in given.values() if str(p) == shown or p.name == Path(shown).name]
    differs = f" {same[0]}, given under that name, differs:" if same else ""
    return (
        f"{name}: no file given matches the {side} log it records ({shown}, SHA-256 "
        f"{digest[:16]}…);{differs} give report both log files it was made from to run k3diff "
        "logs again on them, or the document without its logs"
    )


def older_refusal(older: Sequence[str]) -> Callable[[Path], InputError | None]:
    """Why a file no document ties cannot be the logs of a logs document given beside it that
    records no SHA-256 (None where none was given)."""

    def refusal(path: Path) -> InputError | None:
        if not older:
            return None
        return InputError(
            f"{older[0]}: records no SHA-256 of its logs, or not the settings it ran with "
            "(`rerun`; written before k3diff logs recorded them, or a side given as a "
            f"directory), so {path} cannot be tied to it: re-run "
            "k3diff logs on the two log files, or give report the document without its logs"
        )

    return refusal
