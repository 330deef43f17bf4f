"""The audit row, from `k3diff.audit/2` (`audit_stages`), and the artifacts it hashed.

An audit speaks for the patch only where it audited the patch: each audit document is tied
to the wheels compared beside it (by SHA-256, or, where the comparison ran with
`--no-file-hash` and recorded none, by file name and size only, and said so).

The trial that found it: a `wheels` comparison of two engine wheels bundled with an audit of an
unrelated wheel read "Nothing in this evidence fails its policy" and `a.json (cross-checked)`.
Now a patch wheel no audit document audited fails the audit row, an audit document that audited
none of the wheels compared is recorded (it speaks for no wheel of the comparison, never a pass),
and the matrix names it "not cross-checked" with the reason.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePath

from k3diff.bundle.model import Artifact, Evidence, Stage, Status
from k3diff.bundle.policyfacts import waived_findings
from k3diff.docbody import Kind
from k3diff.documents.audit import AuditArtifact, AuditDocument
from k3diff.documents.read import Document
from k3diff.output import plural

UNRELATED = "not cross-checked: audits none of the wheels compared"
"""How the matrix names an audit document tied to no wheel of the comparison."""
BY_NAME = (
    "not cross-checked by SHA-256: the wheels comparison recorded none (--no-file-hash), "
    "tied by file name and size only"
)
"""How the matrix names an audit document tied to the wheels by file name and size only."""


def unrecorded_manifest(name: str, manifest: str) -> str:
    """The qualification of an audit document that names the manifest it checked but not its
    SHA-256 (written before audit recorded it, lmrep68)."""
    return (
        f"manifest not recorded: {name} names its manifest {manifest} but not its SHA-256 "
        "(written before audit recorded it), so a manifest changed since cannot be told; run "
        "k3diff audit again to record it"
    )


def _tie(audited: AuditArtifact, wheel: Artifact) -> str | None:
    """'sha256' when the audited file is the wheel, 'name' when only its file name and size
    match a wheel whose hash was not recorded, None when it is another file."""
    if wheel.sha256 is not None:
        return "sha256" if audited.sha256 == wheel.sha256 else None
    same_name = PurePath(audited.path).name == PurePath(wheel.name).name
    return "name" if same_name and audited.size == wheel.size else None


def tie_audits(
    stages: list[Stage], artifacts: Sequence[Artifact], documents: Sequence[Document]
) -> list[Stage]:
    """`stages` with every audit stage tied to the wheels compared (`artifacts` of roles base
    and patch): unchanged when there is no audit or no wheel; else an audit of none of them is
    recorded, not passed, and each patch wheel no audit audited is a failing audit stage."""
    wheels = {(a.role, a.name, a.sha256): a for a in artifacts if a.role in ("base", "patch")}
    audits = [d for d in documents if d.kind is Kind.AUDIT]
    if not wheels or not audits:
        return stages
    covered: dict[tuple[str, str, str | None], str] = {}
    tied: dict[str, Stage] = {}
    for doc in audits:
        stage = next(s for s in stages if s.evidence is Evidence.AUDIT and s.source == doc.name)
        found: dict[tuple[str, str, str | None], str] = {}
        for audited in doc.typed(AuditDocument).artifacts:
            ties = {
                key: how
                for key, wheel in wheels.items()
                if (how := _tie(audited, wheel)) is not None
            }
            if len({key[0] for key in ties}) > 1 and "sha256" not in ties.values():
                continue  # one file, by name and size the base and the patch: it proves neither
            found.update(ties)
        for key, how in found.items():
            if covered.get(key) != "sha256":
                covered[key] = how
        tied[doc.name] = _tied_stage(stage, doc, found, list(wheels.values()))
    kept = [tied.get(s.source, s) if s.evidence is Evidence.AUDIT else s for s in stages]
    for key, wheel in wheels.items():
        if key[0] == "patch" and key not in covered:
            kept.append(_not_audited(wheel, [d.name for d in audits]))
    order = list(Evidence)
    kept.sort(key=lambda s: order.index(s.evidence))
    return kept


def _tied_stage(
    stage: Stage,
    doc: Document,
    found: dict[tuple[str, str, str | None], str],
    wheels: list[Artifact],
) -> Stage:
    """One audit document's stage, saying which wheels compared it audited and how."""
    audited = doc.typed(AuditDocument).artifacts
    if not found:
        names = ", ".join(sorted({PurePath(w.name).name for w in wheels}))
        sentence = (
            f"{doc.name} audits none of the wheels compared ({names}): what it audited "
            f"({len(audited):,} artifact{'s' if len(audited) != 1 else ''}) speaks for no wheel "
            "of the comparison"
        )
        status = Status.FAIL if stage.status is Status.FAIL else Status.INFO
        return dataclasses.replace(
            stage,
            status=status,
            headline=f"{stage.headline}; {sentence}",
            qualifications=(*stage.qualifications, sentence),
            label=UNRELATED,
        )
    roles = Counter(key[0] for key in found)
    order = sorted(roles, key=("patch", "base").index)
    by_name = [key for key, how in found.items() if how == "name"]
    if set(roles.values()) == {1}:  # a pair: its one base and one patch wheel
        tie = f"audits the {' and '.join(order)} wheel{'s' if len(roles) > 1 else ''} compared"
    else:  # a release set: how many of its wheels of each role
        tie = f"audits {' and '.join(plural(roles[r], f'{r} wheel') for r in order)} compared"
    if not by_name:
        return dataclasses.replace(stage, headline=f"{stage.headline}; {tie} (by SHA-256)")
    sentence = (
        f"{doc.name} {tie} by file name and size only: the wheels comparison recorded no "
        "SHA-256 (--no-file-hash), so the audited bytes are not proven to be the wheels compared"
    )
    return dataclasses.replace(
        stage,
        headline=f"{stage.headline}; {tie} (by file name and size only)",
        qualifications=(*stage.qualifications, sentence),
        label=BY_NAME,
    )


def _not_audited(wheel: Artifact, audits: list[str]) -> Stage:
    """A failing audit stage (of the first audit document) for a patch wheel that no audit
    document audited."""
    headline = (
        f"audit: the patch wheel {PurePath(wheel.name).name} ({wheel.source}) is not among the "
        f"artifacts audited ({', '.join(audits)}): no audit covers the patch"
    )
    if wheel.sha256 is None:
        headline += (
            " (the comparison recorded no SHA-256, --no-file-hash, and a file that matches "
            "the base and the patch by name and size alike proves neither: compare with file "
            "hashes to tie an audit to the patch)"
        )
    return Stage(Evidence.AUDIT, audits[0], Status.FAIL, headline, (), {"not_audited": 1})


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
