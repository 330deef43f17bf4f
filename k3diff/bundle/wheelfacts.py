"""The artifact-identity and source-match rows of the evidence matrix, and the wheels' artifacts,
from wheels documents and release sets (`k3diff.wheels/1`, `k3diff.wheelset/1`): derived from the
documents' verdicts and counts, never free text (`facts.stages_of` gathers them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from k3diff.bundle.model import Artifact, Evidence, Stage, Status
from k3diff.bundle.policyfacts import relaxed_policy, source_policy
from k3diff.bundle.wheelrows import failing_clause, failing_in, identity_status, set_status
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.sourcecheck import STATUS_CODES
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.documents.wheelsview import WheelsDocument, WheelsEntry
from k3diff.numbers import named
from k3diff.output import plural
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


def wheel_artifacts(doc: Document) -> list[Artifact]:
    """Both wheels of a wheels document (or of every pair of a release set)."""
    return [
        Artifact(role, side.path, side.sha256, side.size, doc.name)
        for _, wheels in wheel_documents([doc])
        for role, side in (("base", wheels.base), ("patch", wheels.patch))
    ]
