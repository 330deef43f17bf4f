"""Coverage debt: runs that could not have failed (a vacuous control, batches not exercised),
listed as failing in the telemetry/coverage row, never passed: from a triage, or from a samples
log read without the triage of its run."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.bundle.triagefacts import not_exercised_sentence
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument
from k3diff.sample.control import vacuous_sides


def control_debt_stage(doc: Document) -> Stage | None:
    """A samples log read without its triage still shows a vacuous control: coverage debt in
    the telemetry/coverage row, so `report` never passes what `sample` failed."""
    vacuous = vacuous_sides(doc.samples)  # the rule `sample` and `triage` apply
    if not vacuous:
        return None
    sentence = (
        f"vacuous run: the control came back identical on the {' and '.join(vacuous)} "
        "(sampling parameters ignored, or a cache or proxy answering)"
    )
    return Stage(
        Evidence.TELEMETRY, doc.name, Status.FAIL, f"coverage debt: {sentence}", (sentence,)
    )


def coverage_debt_stage(doc: Document) -> Stage | None:
    """A triage's vacuous control and not-exercised batches as coverage debt in the
    telemetry/coverage row: runs that could not have failed are listed there, never passed."""
    triage = doc.typed(TriageDocument)
    vacuous = list(triage.vacuous)
    debts = []
    if vacuous:
        debts.append(f"vacuous run: the control came back identical on the {' and '.join(vacuous)}")
    unexercised = not_exercised_sentence(triage, brief=True)
    if unexercised is not None:
        debts.append(unexercised)
    if not debts:
        return None
    headline = "coverage debt: " + "; ".join(debts)
    # No qualifications of its own: the follow-up row (`triage_stage`) states both already.
    return Stage(Evidence.TELEMETRY, doc.name, Status.FAIL, headline, (), {"debts": len(debts)})


def triaged(log: Document, documents: Sequence[Document]) -> bool:
    """A triage made from this samples log's run is among the inputs."""
    runs = set(log.run_ids)
    return bool(runs) and any(
        doc.kind is Kind.TRIAGE and runs & set(doc.run_ids) for doc in documents
    )
