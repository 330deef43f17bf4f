"""The bottom line, the evidence matrix and the qualifications, derived from the documents'
verdicts and counts (never free text): one function per kind of document."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from k3diff.bundle.auditfacts import tie_audits, unrecorded_manifest
from k3diff.bundle.distfacts import untested_nondeterminism
from k3diff.bundle.houseshift import fails_at_house
from k3diff.bundle.logsfacts import logs_stage
from k3diff.bundle.model import Artifact, Evidence, Stage, Status
from k3diff.bundle.policyfacts import relaxed_policy, source_policy, waived_findings
from k3diff.bundle.responsesfacts import responses_stage
from k3diff.bundle.responsesrederive import alone_qualification as responses_alone
from k3diff.bundle.samplefacts import samples_stage
from k3diff.bundle.telemetryfacts import telemetry_stage
from k3diff.bundle.triagefacts import triage_stage
from k3diff.bundle.wheelrows import failing_clause, failing_in, identity_status, set_status
from k3diff.bundle.wheelsource import names_qualifications, source_alone_qualification
from k3diff.bundle.wheelsrederive import alone_qualification
from k3diff.docbody import Kind
from k3diff.documents.audit import AuditDocument
from k3diff.documents.read import Document
from k3diff.documents.sourcecheck import STATUS_CODES
from k3diff.documents.triage import TriageDocument
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.documents.wheelsview import WheelsDocument, WheelsEntry
from k3diff.numbers import named
from k3diff.output import plural
from k3diff.responses.document import ResponsesDocument
from k3diff.sample.control import vacuous_sides
from k3diff.wheel.kinds import EntryKind


def proof_counts(entries: Sequence[WheelsEntry], kind: str) -> dict[str, int]:
    """How the identical entries of `kind` were proven identical, by method."""
    hows = Counter(e.how for e in entries if e.kind == kind and e.status == "identical")
    return dict(sorted(hows.items(), key=lambda item: (-item[1], item[0])))


def _native_sentence(wheels: WheelsDocument) -> str:
    native = wheels.summary[EntryKind.NATIVE.value]
    if native.total == 0:
        return "native entries: none in either wheel"
    proofs = ", ".join(
        f"{how.replace('-', ' ')} {n:,}"
        for how, n in proof_counts(wheels.entries, "native").items()
    )
    sentence = f"native entries: {native.identical:,} of {native.total:,} byte-identical"
    if proofs:
        sentence += f" (proof: {proofs})"
    counts = native.as_dict()
    moved = [f"{counts[s]:,} {s}" for s in ("changed", "missing", "added") if counts[s]]
    if moved:
        paths = [e.path for e in wheels.entries if e.kind == "native" and e.status != "identical"]
        shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3:,} more" if len(paths) > 3 else "")
        sentence += f"; {', '.join(moved)}: {shown}"
    return sentence


def _python_sentence(wheels: WheelsDocument) -> str:
    python = wheels.summary[EntryKind.PYTHON.value].as_dict()
    parts = [f"{python[s]:,} {s}" for s in ("changed", "added", "missing", "identical")]
    return f"Python files: {', '.join(parts)} of {python['total']:,}"


def wheels_stages(name: str, wheels: WheelsDocument) -> list[Stage]:
    """Artifact identity and, when --source was given, source match, from `k3diff.wheels/1`."""
    base, patch = wheels.base, wheels.patch
    label = f"{base.name or '?'} {base.version or '?'} -> {patch.version or '?'}"
    headline = f"{label}: {_native_sentence(wheels)}; {_python_sentence(wheels)}"
    quals: list[str] = []
    if wheels.summary[EntryKind.NATIVE.value].total == 0:
        quals.append(
            f"{label}: no native entries, so artifact identity covers Python and metadata only"
        )
    if wheels.different_distributions:
        quals.append(f"{label}: the two wheels are different distributions")
    if base.sha256 is None or patch.sha256 is None:
        quals.append(f"{label}: the wheel files were not hashed (--no-file-hash)")
    quals.extend(relaxed_policy(wheels, label))
    errors = failing_in(wheels, Evidence.IDENTITY)  # a source finding fails its own row
    if errors:
        headline += "; failing findings: " + failing_clause(errors)
    counts = {kind.value: wheels.summary[kind.value].as_dict() for kind in EntryKind}
    status = identity_status(wheels)
    stages = [Stage(Evidence.IDENTITY, name, status, headline, tuple(quals), counts)]
    if wheels.provenance is not None:
        stages.append(_source_stage(name, wheels, label))
    return stages


def _source_stage(name: str, wheels: WheelsDocument, label: str) -> Stage:
    """Source match, decided as `wheels` decides it: by the W4xx findings that fail under the
    document's own policy (a mismatch waived, left out by --select/--ignore or allowed by
    --allow-bytecode passes there, so here, and the row names what let it pass). The
    self-check (`documents.sourcecheck`) ties every file of a failing status to its finding."""
    provenance = wheels.provenance
    assert provenance is not None
    counts = dict(provenance.summary)
    checked = sum(counts.get(k, 0) for k in ("match", "mismatch", "absent", "left out"))
    commit = provenance.commit  # the full id: a short one can be shadowed
    rev = provenance.rev or provenance.range  # the commit itself (newuser67): said once
    where = f"{provenance.repo} at {rev}" + ("" if rev == commit else f" ({commit})")
    headline = (
        f"{label}: source: {counts.get('match', 0):,} of {checked:,} changed or added Python "
        f"files match {where}"
    )
    bad = [f"{counts.get(k, 0):,} {k}" for k in (*STATUS_CODES, "left out") if counts.get(k, 0)]
    if bad:
        headline += f"; {', '.join(bad)}"
    # Absent files fail as `wheels` fails them (W402): their origin is unchecked, never a pass.
    failing = failing_in(wheels, Evidence.SOURCE)
    if failing:
        headline += "; failing: " + failing_clause(failing)
    status = Status.FAIL if failing else Status.PASS
    quals = source_policy(wheels, label)
    quals += [f"{label}: the patch wheel states commit {said}" for said in wheels.patch.stated]
    if absent := counts.get("absent", 0):
        quals.append(
            f"{label}: {absent:,} Python files are absent from {where}: their origin is unchecked"
        )
    if generated := counts.get("generated", 0):  # prov70c: held to their tool's template
        quals.append(f"{label}: modules the build writes, held to their tool's template and the wheel's version, not to {where}: {generated:,}")  # fmt: skip
    elif checked == 0:
        quals.append(f"{label}: no Python file changed, so the source check compared nothing")
    return Stage(Evidence.SOURCE, name, status, headline, tuple(quals), counts)


def wheel_documents(documents: Sequence[Document]) -> list[tuple[str, WheelsDocument]]:
    """Every wheels document given, alone or as a pair of a release set, with its name (a
    pair's: the set's name and the patch wheel's path)."""
    found: list[tuple[str, WheelsDocument]] = []
    for doc in documents:
        if doc.kind is Kind.WHEELS:
            found.append((doc.name, doc.typed(WheelsDocument)))
        elif doc.kind is Kind.WHEELSET:
            found += [
                (f"{doc.name}: {pair.wheels.patch.path}", pair.wheels)
                for pair in doc.typed(WheelsetDocument).pairs
            ]
    return found


def set_qualification(doc: Document) -> str | None:
    """A release set read without its wheels, or run again without its directories: what the
    bundle took from the document alone (rerun62). None: run and listed again."""
    from k3diff.bundle.wheelsetfiles import files_qualification
    from k3diff.bundle.wheelsetrederive import listing_alone_qualification, set_alone_qualification

    if doc.follows_from is None:
        return set_alone_qualification(doc.name)
    if doc.paired_again is not None:  # made from files: nothing to list again (rerun63)
        view = doc.typed(WheelsetDocument)
        return files_qualification(doc.name, doc.paired_again, (*view.only_base, *view.only_patch))
    return None if doc.listed_again else listing_alone_qualification(doc.name)


def wheelset_stages(doc: Document) -> list[Stage]:
    """Each pair's wheels stages, plus the wheels found on one side only and the misnamed
    `.whl` files (a set failing only for those fails here, its pairs all passing)."""
    wheelset = doc.typed(WheelsetDocument)
    stages = [stage for pair in wheelset.pairs for stage in wheels_stages(doc.name, pair.wheels)]
    unpaired = [*wheelset.only_base, *wheelset.only_patch]
    if unpaired or wheelset.misnamed or not stages:
        pairs = plural(len(wheelset.pairs), "wheel pair")  # not its stages: --source adds one
        headline = f"release set: {pairs}; {plural(len(unpaired), 'wheel')} unpaired"
        if unpaired:
            one = len(unpaired) == 1
            they, do, them = ("it", "does", "it") if one else ("they", "do", "them")
            if wheelset.allow_unpaired:
                why = f" (--allow-unpaired: {they} {do} not fail the set)"
            else:  # what `wheels` says of them (newuser63: the bundle did not)
                fail = "fails" if one else "fail"
                why = f" (not compared, so {they} {fail} the set; --allow-unpaired accepts {them})"
            headline += ": " + named(unpaired, 3) + why
        if wheelset.misnamed:
            headline += (
                f"; {plural(len(wheelset.misnamed), 'misnamed .whl file')} (pip or PyPI refuses the "
                f"name): {named(list(wheelset.misnamed), 3)}"
            )
        # The set's own reasons only: a failing pair fails its own rows above.
        stages.append(Stage(Evidence.IDENTITY, doc.name, set_status(wheelset), headline))
    return stages


def audit_stages(doc: Document) -> tuple[Stage, list[Artifact]]:
    """Audit from `k3diff.audit/2`, and the artifacts it hashed."""
    audit = doc.typed(AuditDocument)
    codes = Counter(f.code for f in audit.all_findings())
    artifacts = plural(len(audit.artifacts), "artifact")
    headline = f"audit: {artifacts}, {plural(codes.total(), 'finding')}"
    if codes:
        headline += " (" + ", ".join(f"{n:,} × {c}" for c, n in sorted(codes.items())) + ")"
    manifest = audit.manifest
    quals = waived_findings(audit.all_findings(), doc.name)
    if manifest is not None:
        counts = {k: getattr(manifest, k) for k in ("matched", "mismatched", "missing", "extra")}
        headline += f"; manifest: {', '.join(f'{n:,} {k}' for k, n in counts.items())}"
        if manifest.sha256 is None:  # written before audit recorded it (lmrep68)
            quals.append(unrecorded_manifest(doc.name, manifest.path))
    else:
        quals.append(
            "the audit checked no pinned manifest: artifact hashes are recorded, not verified"
        )
    hashed = [Artifact("audited", a.path, a.sha256, a.size, doc.name) for a in audit.artifacts]
    status = Status.of_verdict(audit.ok, audit.exit_code)
    stage = Stage(Evidence.AUDIT, doc.name, status, headline, tuple(quals), dict(codes))
    return stage, hashed


def wheel_artifacts(doc: Document) -> list[Artifact]:
    """Both wheels of a wheels document (or of every pair of a release set)."""
    return [
        Artifact(role, side.path, side.sha256, side.size, doc.name)
        for _, wheels in wheel_documents([doc])
        for role, side in (("base", wheels.base), ("patch", wheels.patch))
    ]


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
    from k3diff.bundle.triagefacts import not_exercised_sentence

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


def _triaged(log: Document, documents: Sequence[Document]) -> bool:
    """A triage made from this samples log's run is among the inputs."""
    runs = set(log.run_ids)
    return bool(runs) and any(
        doc.kind is Kind.TRIAGE and runs & set(doc.run_ids) for doc in documents
    )


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
            stages.append(_followed_up(stage, doc, documents))
        elif doc.kind is Kind.SAMPLES:
            stages.append(samples_stage(doc, documents))
            control = control_debt_stage(doc)
            if control is not None and not _triaged(doc, documents):
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


EXPLAINING_CATEGORIES = frozenset({"base-nondeterminism", "both-nondeterministic"})
"""Triage categories that account for a difference without blaming the patch. Anything else on
a differing record (inconclusive, patch nondeterminism short of significance, a divergence)
leaves the comparison failing: an undecided difference is not an explained one. Nor is a
nondeterministic record that no distribution test judged (`untested_nondeterminism`)."""


def explaining_triage(doc: Document, documents: Sequence[Document]) -> Document | None:
    """A triage that follows from this comparison (`follows_from`), not held (one server: gate74;
    the house α, --shift, --power: hunt76), classifying exactly its records and every one that
    differs as the base's (or both sides') nondeterminism."""
    keys = doc.typed(ResponsesDocument).keys
    for other in documents:
        if other.kind is not Kind.TRIAGE or other.one_server_held:
            continue
        triage = other.typed(TriageDocument)
        if (
            other.follows_from == doc.name
            and not fails_at_house(other.name, triage, other.house_again)
            and {r.key for r in triage.records} == keys
            and all(
                r.category in EXPLAINING_CATEGORIES and not untested_nondeterminism(r)
                for r in triage.records
                if r.comparison_status != "match"
            )
        ):
            return other
    return None


def _followed_up(stage: Stage, doc: Document, documents: Sequence[Document]) -> Stage:
    """A failing comparison whose every record a triage classified: the triage decides."""
    triage = explaining_triage(doc, documents)
    if stage.status is not Status.FAIL or triage is None:
        return stage
    return dataclasses.replace(
        stage,
        status=Status.EXPLAINED,
        headline=f"{stage.headline}; every record classified by {triage.name}",
        held=None,
        label=None,
    )
