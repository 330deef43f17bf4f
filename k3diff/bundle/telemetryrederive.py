"""A telemetry document given with the samples logs it names is believed only as far as
`telemetry`, run again on them with the document's own settings, writes the same document
(review60a).

`report` re-derives a telemetry document's gate from its `acceptance_units`
(`k3diff.documents.telemetryrerun`), but units edited consistently with every count beside
them (the same totals spread over other units, so the permutations give a larger p) or a
`counter_resets` entry removed with its lost window leave a document that agrees with itself,
and it passed `report --fail-on acceptance-drop` on a run whose patch dropped acceptance even
with the run's `samples.jsonl` given beside it. The document names its logs (`logs`, as given
to `telemetry`); where every one of them is among the samples logs `report` was given (the
same file, resolved from where `report` runs), `telemetry` runs again on them and the two
documents are compared whole, all but `logs`: a field the run again writes and the document
lacks is a difference (review62; `k3diff.bundle.difference.first_difference`), so a document
written before `acceptance_units` given with its logs is refused (re-run telemetry, or give it
without its logs). A telemetry document given without its logs is read alone, as
before."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle import runagain
from k3diff.bundle.difference import first_difference, older_lacks
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import K3diffError


def _named_logs(body: dict[str, Any], given: dict[Path, Document]) -> list[Document] | None:
    """The samples logs among `given` that the document names, each once; None unless it
    names at least one and every one it names is given."""
    logs = body.get("logs")
    if not isinstance(logs, list) or not logs or not all(isinstance(p, str) for p in logs):
        return None
    found: dict[str, Document] = {}
    for path in logs:
        doc = given.get(Path(path).resolve())
        if doc is None:
            return None
        found.setdefault(doc.name, doc)
    return list(found.values())


def _again(body: dict[str, Any], logs: Sequence[Document]) -> dict[str, Any] | str:
    """The document `telemetry` writes on `logs` with the document's settings, or why none."""
    from k3diff.documents import telemetry as telemetry_document
    from k3diff.telemetry import TelemetryOptions, summarize
    from k3diff.telemetry.model import Expectation, Gate

    try:
        options = TelemetryOptions(
            expect=tuple(Expectation(e) for e in body.get("expected", [])),
            alpha=float(body["alpha"]),
            draft_lengths=body.get("draft_lengths"),
            fail_on=tuple(Gate(g) for g in body.get("fail_on", [])),
            pool_runs=True,  # report refused logs of different runs unless --pool-runs
            allow_same_server=runagain.telemetry_allowed(body),
        )
        read = tuple(log.log for log in logs if log.log is not None)
        paths = tuple(Path(log.name) for log in logs)
        report = summarize(paths, options, read if len(read) == len(logs) else ())
    except (K3diffError, KeyError, TypeError, ValueError) as exc:
        return f"telemetry refuses them: {exc}"
    again: dict[str, Any] = json.loads(telemetry_document.write(report))
    return again


WHEN_ANY = ("counter_resets", "preemptions", "v0_sides")
"""Fields `telemetry` writes only when there is one (telemetry60): absent, they say there is
none, so a document written since (it has `acceptance_units`, forge60's) that lacks one the run
again has was edited."""


def _difference(body: dict[str, Any], again: dict[str, Any]) -> str | None:
    if "acceptance_units" in body:
        for key in WHEN_ANY:
            if key in again and key not in body:
                return f"{key}: absent from the document, run again {len(again[key])} items"
    return first_difference(
        _placeless(body),
        _placeless(again),
        may_lack=_may_lack(body),
    )


def _may_lack(body: dict[str, Any]) -> frozenset[str]:
    """The fields the document may lack, as written by an older k3diff."""
    lacks = older_lacks(
        body, ["stopped[].log", "failed", "unlogged", "unlisted", "one_server"]
    )  # as added
    if runagain.gate_allowed(body) and "allow_same_server" not in body:
        lacks |= {"allow_same_server"}  # before audit73 only the gate recorded the option
    return lacks


def _resolved(items: object) -> object:
    """A list of objects with each object's `log` the file it names (resolved)."""
    if not isinstance(items, list):
        return items
    return [
        {**o, "log": str(Path(o["log"]).resolve())}
        if isinstance(o, dict) and isinstance(o.get("log"), str)
        else o
        for o in items
    ]


def _placeless(document: dict[str, Any]) -> dict[str, Any]:
    """The document but its `logs`, each stop's `log` (report66) and each `one_server` log
    (telem72) the file it names, as `_named_logs` finds it: named as given to `telemetry`, run
    again as given to `report`."""
    for key in ("stopped", "one_server"):
        if key in document:
            document = {**document, key: _resolved(document[key])}
    unlisted = document.get("unlisted")
    if isinstance(unlisted, list):  # the logs named, as each stop's
        resolved = [str(Path(log).resolve()) if isinstance(log, str) else log for log in unlisted]
        document = {**document, "unlisted": resolved}
    return {k: v for k, v in document.items() if k != "logs"}


def check_telemetry_logs(
    documents: Sequence[Document], stale: list[runagain.StaleDocument]
) -> frozenset[str]:
    """Add to `stale` the refusal of a telemetry document that `telemetry`, run again on the samples
    logs it names (all given beside it), does not reproduce; return the names of those run
    again (the others are judged alone: `Document.judged_alone`)."""
    checked: set[str] = set()
    given = {Path(d.name).resolve(): d for d in documents if d.kind is Kind.SAMPLES}
    if not given:
        return frozenset()
    for doc in documents:
        if doc.kind is not Kind.TELEMETRY:
            continue
        body = doc.body_again("telemetry document")
        logs = _named_logs(body, given)
        if logs is None:
            continue
        again = _again(body, logs)
        difference = again if isinstance(again, str) else _difference(body, again)
        if difference is not None:
            names = [d.name for d in logs]
            command = runagain.telemetry_args(body, names)
            stale.append(
                runagain.refusal(
                    doc.name,
                    "samples logs it names,",
                    f"telemetry run again on {', '.join(names)}",
                    difference,
                    "give the document the logs it was made from, or "
                    + runagain.again(command, doc.name, "telemetry"),
                )
            )
        checked.add(doc.name)
    return frozenset(checked)
