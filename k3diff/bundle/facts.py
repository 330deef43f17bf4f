"""The bottom line, the evidence matrix and the qualifications, derived from the documents'
verdicts and counts (never free text): every document's rows gathered (one function per kind of
document, each in its own module), with what the bundle re-derived or took on the document's word,
and a failing row for a verdict that fails where none of its rows says why."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from k3diff.bundle.auditfacts import audit_stages, tie_audits
from k3diff.bundle.coveragedebt import control_debt_stage, coverage_debt_stage, triaged
from k3diff.bundle.explained import followed_up
from k3diff.bundle.logsfacts import logs_stage
from k3diff.bundle.model import Artifact, Evidence, Stage, Status
from k3diff.bundle.responsesfacts import responses_stage
from k3diff.bundle.responsesrederive import alone_qualification as responses_alone
from k3diff.bundle.samplefacts import samples_stage
from k3diff.bundle.telemetryfacts import telemetry_stage
from k3diff.bundle.triagefacts import triage_stage
from k3diff.bundle.wheelfacts import (
    set_qualification,
    wheel_artifacts,
    wheels_stages,
    wheelset_stages,
)
from k3diff.bundle.wheelsource import names_qualifications, source_alone_qualification
from k3diff.bundle.wheelsrederive import alone_qualification
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.wheelsview import WheelsDocument


def stages_of(documents: Sequence[Document]) -> tuple[list[Stage], list[Artifact]]:
    """Every stage the documents fill, and every artifact they hashed."""
    stages: list[Stage] = []
    artifacts: list[Artifact] = []
    for doc in documents:
        if doc.kind is Kind.WHEELS:
            own = wheels_stages(doc.name, doc.typed(WheelsDocument))
            if doc.follows_from is None:  # not run again on its wheels (wheelsrederive)
                quals = (*own[0].qualifications, alone_qualification(doc))
                own[0] = dataclasses.replace(own[0], qualifications=quals)
            if (doc.source_names or doc.source_storage) and doc.source_read and len(own) > 1:
                said_names = names_qualifications(doc.name, doc.source_read, doc.source_names)
                quals = (*own[1].qualifications, *said_names, *doc.source_storage)
                own[1] = dataclasses.replace(own[1], qualifications=quals)
            if doc.source_alone and len(own) > 1:
                commit = doc.typed(WheelsDocument).provenance
                said = source_alone_qualification(doc.name, commit.commit if commit else "?")
                own[1] = dataclasses.replace(own[1], qualifications=(*own[1].qualifications, said))
            stages.extend(own)
            artifacts.extend(wheel_artifacts(doc))
        elif doc.kind is Kind.WHEELSET:
            own = wheelset_stages(doc)
            set_said = set_qualification(doc)  # rerun62: what of the set was run or listed again
            told = [] if set_said is None else [set_said]
            if doc.source_read is not None:  # rerun63: its pairs' revision names
                told += names_qualifications(doc.name, doc.source_read, doc.source_names)
                told += doc.source_storage  # w408c: its pairs' repository stores history otherwise
            if told and own:
                quals = (*own[0].qualifications, *told)
                own[0] = dataclasses.replace(own[0], qualifications=quals)
            stages.extend(own)
            artifacts.extend(wheel_artifacts(doc))
        elif doc.kind is Kind.RESPONSES:
            stage = responses_stage(doc)
            if doc.follows_from is None:  # not run again on its inputs (responsesrederive)
                quals = (*stage.qualifications, responses_alone(doc))
                stage = dataclasses.replace(stage, qualifications=quals)
            stages.append(followed_up(stage, doc, documents))
        elif doc.kind is Kind.SAMPLES:
            stages.append(samples_stage(doc, documents))
            control = control_debt_stage(doc)
            if control is not None and not triaged(doc, documents):
                stages.append(control)  # a triage of this run states it (coverage_debt_stage)
        elif doc.kind is Kind.TRIAGE:
            stages.append(triage_stage(doc, documents))
            debt = coverage_debt_stage(doc)
            if debt is not None:
                stages.append(debt)
        elif doc.kind is Kind.AUDIT:
            stage, hashed = audit_stages(doc)
            stages.append(stage)
            artifacts.extend(hashed)
        elif doc.kind is Kind.LOGS:
            stages.append(logs_stage(doc))
        elif doc.kind is Kind.TELEMETRY:
            stages.append(telemetry_stage(doc))
    stages += unsaid_failures(documents, stages)
    order = list(Evidence)
    stages.sort(key=lambda s: order.index(s.evidence))
    return tie_audits(stages, artifacts, documents), artifacts


ROW_OF_KIND = {
    Kind.WHEELS: Evidence.IDENTITY,
    Kind.WHEELSET: Evidence.IDENTITY,
    Kind.RESPONSES: Evidence.RECORDS,
    Kind.TRIAGE: Evidence.FOLLOW_UP,
    Kind.AUDIT: Evidence.AUDIT,
    Kind.LOGS: Evidence.RUNTIME_LOGS,
    Kind.TELEMETRY: Evidence.TELEMETRY,
}
"""The row a document's own verdict fails where none of its rows does (`unsaid_failures`)."""


def unsaid_failures(documents: Sequence[Document], stages: Sequence[Stage]) -> list[Stage]:
    """A FAIL row for each document whose verdict fails but none of whose rows fails or is
    explained (review63b): the exit code fails on the verdict (`summary.build_summary`), so the
    bottom line and the matrix must never read pass beside it."""
    said = {s.source for s in stages if s.status in (Status.FAIL, Status.EXPLAINED)}
    return [
        Stage(
            ROW_OF_KIND[doc.kind],
            doc.name,
            Status.FAIL,
            f"{doc.name}: its verdict fails (exit {doc.view.exit_code}), and no row here says "
            "why: read it",
        )
        for doc in documents
        if doc.fails and doc.name not in said and doc.kind in ROW_OF_KIND and doc.view is not None
    ]
