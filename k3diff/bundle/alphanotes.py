"""The α each verdict document was judged at, named in the bottom line when it is not its
command's default (alpha60): a run made with `telemetry --alpha 0.001` hides a moderate drop,
and a reviewer reading the verdict must see that it was judged so, not find it in a table.
The score gate's tolerances the same way (scores61): a binary metric's above the default 2
points (`--score-tolerance 5` reads like any pass otherwise), and a continuous metric's, which
has no default, each in its own units; an inspect_ai per-sample mean of 0/1 epochs
(`binary_epochs`) has the binary default, 2 points of its mean."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from k3diff.bundle.housealpha import house_cleared, rejudged_sentence, score_sentence
from k3diff.bundle.wheelsettings import loosened_settings
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.triage import TriageDocument
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.numbers import named
from k3diff.responses.document import ResponsesDocument
from k3diff.responses.gatepower import tolerance_amount
from k3diff.responses.gateview import GateView
from k3diff.responses.scoregate import DEFAULT_TOLERANCE_POINTS
from k3diff.responses.scores import DEFAULT_ALPHA as SCORES_DEFAULT
from k3diff.responses.scores import ScoreKind
from k3diff.telemetry.model import DEFAULT_ALPHA as TELEMETRY_DEFAULT
from k3diff.triage.settings import DEFAULT_ALPHA as TRIAGE_DEFAULT


def _note(name: str, what: str, alpha: float, default: float) -> str | None:
    if alpha == default:
        return None
    return f"{name}{what} judged at α = {alpha:g} (default {default:g})"


def _notes(doc: Document) -> list[str | None]:
    if doc.kind is Kind.TRIAGE:
        triage = doc.typed(TriageDocument)
        note = _note(doc.name, "", triage.alpha, TRIAGE_DEFAULT)
        house = rejudged_sentence(doc.name, triage, doc.house_again)
        cleared = house_cleared(doc.name, triage, doc.house_again)  # rerun62
        return [note if house is None or note is None else f"{note}; {house}", cleared]
    if doc.kind is Kind.WHEELS:  # forge62: the settings it recorded that loosen the policy
        return list(loosened_settings(doc.name, doc.typed(WheelsDocument)))
    if doc.kind is Kind.WHEELSET:  # review62c: its pairs record theirs too
        return list(_set_settings(doc.name, doc.typed(WheelsetDocument)))
    if doc.kind is Kind.TELEMETRY:
        telemetry = doc.typed(TelemetryDocument)
        note = _note(doc.name, "", telemetry.alpha, TELEMETRY_DEFAULT)
        if note is not None and telemetry.gate_alpha is not None:
            note += (
                f"; the acceptance gate imposed at report time ran at α = {telemetry.gate_alpha:g}"
            )
        return [note]
    if doc.kind is Kind.RESPONSES:
        responses = doc.typed(ResponsesDocument)
        notes = []
        if responses.scores is not None:
            notes.append(_note(doc.name, " score tests", responses.scores.alpha, SCORES_DEFAULT))
        gate = responses.score_gate
        if gate is not None and (responses.scores is None or gate.alpha != responses.scores.alpha):
            notes.append(_note(doc.name, " score gate", gate.alpha, SCORES_DEFAULT))
        if gate is not None:
            tests = responses.scores.tests if responses.scores is not None else ()
            epochs = {test.label for test in tests if test.binary_epochs}
            notes += _tolerance_notes(doc.name, gate, epochs)
        house = score_sentence(doc.name, responses)
        if house is not None:
            notes.append(house)
        return notes
    return []


def _set_settings(name: str, view: WheelsetDocument) -> list[str]:
    """A release set's loosening settings, named as a wheels document's: once for the pairs
    that record the same ones (one run records one set for every pair), over their findings
    together; pairs recording others are named by their patch wheel."""
    groups: dict[object, list[WheelsDocument]] = {}
    for pair in view.pairs:
        groups.setdefault(pair.wheels.rerun, []).append(pair.wheels)
    notes = []
    for docs in groups.values():
        merged = dataclasses.replace(
            docs[0],
            findings=tuple(f for d in docs for f in d.findings),
            filtered=tuple(f for d in docs for f in d.filtered),
        )
        label = name if len(groups) == 1 else f"{name} ({named([d.patch.path for d in docs])})"
        notes += loosened_settings(label, merged)
    return notes


def _tolerance_notes(name: str, gate: GateView, epochs: set[str]) -> list[str]:
    """Per metric (every filter shares its tolerance): a binary one judged above the default,
    a continuous one at any tolerance (it has none by default) unless it is the per-sample
    mean of 0/1 epochs (`epochs`: their labels), judged as a binary one."""
    default = DEFAULT_TOLERANCE_POINTS / 100
    notes: dict[str, str] = {}
    for stated in gate.decisions:
        tolerance = stated.tolerance
        binary = stated.kind is ScoreKind.BINARY or stated.label in epochs
        if tolerance is None or (binary and tolerance <= default):
            continue
        metric = stated.label.split(" [", 1)[0]
        shown = tolerance_amount(stated.kind, tolerance)
        usual = tolerance_amount(stated.kind, default) if binary else "none: named in its own units"
        notes.setdefault(
            metric, f"{name} score gate judged {metric} at a tolerance of {shown} (default {usual})"
        )
    return list(notes.values())


def alpha_notes(documents: Sequence[Document]) -> list[str]:
    """One sentence for each document judged at an α other than its command's default, e.g.
    'triage.json judged at α = 0.001 (default 0.05)', and for each setting a wheels document
    recorded that loosens the default policy (`wheelsettings`), a release set's pairs included."""
    return [note for doc in documents for note in _notes(doc) if note is not None]
