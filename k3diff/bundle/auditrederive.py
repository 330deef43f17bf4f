"""An audit document given with the wheels it audited is believed only as far as `k3diff audit`,
run again on them, writes the same document (review62).

An audit is checked against itself (`k3diff.documents.checks`): its verdict follows from its
findings and each finding's severity from audit's fixed policy. But a finding deleted outright
is caught only where the document holds its cause (a manifest's names), and most of them (an
entry whose content does not match its RECORD hash, A103; an unsafe path) it does not hold: an
A103 deleted, with the verdict's counts edited to pass, agreed with itself, and the bundle read
`a.json (cross-checked)` because the audit was tied to the wheels compared by SHA-256. Where
every artifact the document audited (by SHA-256) is among `report`'s inputs, `audit` runs again
on them and the two documents are compared whole but for the artifacts' `path`s and the
manifest it wrote, naming the first field that differs (exit 2). A document that checked a
`--manifest` records the manifest's SHA-256 (lmrep68: a manifest changed since left the
document looking current): given with it (by its bytes), audit runs again against it; given
under the name it records but changed since, or missing beside its wheels, the manifest is named
with every other input changed, with the command that brings the document up to date. A
document written before the manifest was recorded, or made with `--waivers` (the waiver file
is not in the document), given with its wheels, is refused (give it without them). A wheel it
audited given under the name it records but rebuilt since is named with every other input
changed (`changedinputs`, report67). An audit not run again is judged alone
(`Document.judged_alone`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle import changedinputs, runagain
from k3diff.bundle.changedinputs import Mismatch, Recorded
from k3diff.bundle.difference import first_difference
from k3diff.bundle.givenfiles import Copies, inputs_read, pick_named
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError, K3diffError

WheelRead = tuple[str, str, int]
"""A wheel `report` ran `audit` again on: its name as given, SHA-256 and size in bytes."""


def _found(
    body: Mapping[str, Any],
    given: Mapping[str, tuple[Path, int]],
    near: Path,
    claimed: frozenset[str],
    copies: Copies,
) -> tuple[list[str], list[Path], list[Mismatch]] | None:
    """Each audited artifact's SHA-256 and the wheel to run `audit` again on (one given with
    its bytes under its recorded file name, at its recorded path first: `pick_named`; else the
    one given under its name, changed since: `changedinputs`), with each changed or missing;
    None where none is given either way. `near`: the document's directory
    (`changedinputs.given_under`). Two artifacts of one wheel's bytes under two names are two
    files (hunt72: both were run again as the first, so a W605 one's name earned, deleted with
    the verdict, passed, and the document as written was refused)."""
    artifacts = body.get("artifacts")
    if not isinstance(artifacts, list) or not artifacts:
        return None
    recorded = []
    for artifact in artifacts:
        digest = artifact.get("sha256") if isinstance(artifact, dict) else None
        if not isinstance(digest, str):
            return None
        recorded.append(Recorded(str(artifact.get("path")), digest, "an audited wheel"))
    wanted = [(str(changedinputs.where_recorded(r.name, near)), r.sha256) for r in recorded]
    # Each on a file of its bytes under its file name (review72b: the one file given of two
    # artifacts' bytes was run again as both, the second's W605 deleted passing).
    by_bytes = pick_named(copies or {d: (path,) for d, (path, _) in given.items()}, wanted)
    digest_of = {path: digest for digest, (path, _) in given.items()}
    free = list(digest_of)
    found = changedinputs.match(
        recorded, by_bytes, free, digest_of, True, near=near, claimed=claimed
    )
    return None if found is None else ([r.sha256 for r in recorded], *found)


def _given(paths: Sequence[Path], given: Mapping[str, tuple[Path, int]]) -> list[Path]:
    """Those of `paths` that are wheels given."""
    files = {path for path, _ in given.values()}
    return [path for path in paths if path in files]


def _refuse_unheld(body: Mapping[str, Any], name: str) -> None:
    """The settings the document does not hold: a checked manifest it does not record by
    SHA-256 (written before lmrep68), a waiver file."""
    manifest = body.get("manifest")
    held = (
        ("manifest", "--manifest", "the manifest is not recorded in the document"),
        ("waivers", "--waivers", "the waiver file is not in the document"),
    )
    for field, option, what in held:
        waived = field == "waivers" and any(
            isinstance(f, dict) and "waiver" in f
            for a in body.get("artifacts", [])
            if isinstance(a, dict)
            for f in a.get("findings", [])
        )
        unrecorded = field == "manifest" and manifest is not None and _manifest(body) is None
        if unrecorded or (field == "waivers" and body.get(field) is not None) or waived:
            raise InputError(
                f"{name}: made with {option}, and {what}, so k3diff "
                "audit cannot be run again on the wheels given with it: give report the "
                "document without its wheels (it is then judged from the document alone)"
            )


def _refuse_unrecorded_manifest(
    body: Mapping[str, Any],
    name: str,
    files: Mapping[str, tuple[Path, int]],
    near: Path,
    claimed: frozenset[str] = frozenset(),
) -> None:
    """Refuse a file given under the name of the manifest the document checked but does not
    record by SHA-256 (written before lmrep68), or, under another name, a sha256sum manifest
    no other document records (`claimed`): nothing ties it to the document (left68: it was
    refused as "not a k3diff JSON document"; triage69: so was one under another name)."""
    manifest = body.get("manifest")
    if not isinstance(manifest, Mapping) or _manifest(body) is not None:
        return
    checked = str(manifest.get("path"))
    free = [path for path, _ in files.values()]
    given = changedinputs.given_under(checked, free, near=near)
    what = (
        f"the manifest {name} checked, which it does not record by SHA-256 (written before "
        "k3diff audit recorded it)"
    )
    if given is None:
        given = _other_manifest(files, claimed)
        what = (
            f"a SHA-256 manifest {name} does not record (it names the manifest it checked, "
            f"{checked}, without its SHA-256: written before k3diff audit recorded it)"
        )
    if given is None:
        return
    artifacts = [a for a in body.get("artifacts", []) if isinstance(a, Mapping)]
    wheels = [changedinputs.where_recorded(str(a.get("path")), near) for a in artifacts]
    command = runagain.audit_args(wheels, given, bool(manifest.get("ignore_missing")))
    raise InputError(
        f"{given}: {what}, so it cannot be tied to the document: give report {name} alone "
        "(without its manifest or wheels: judged from the document), or "
        + runagain.again(command, name, "audit")
    )


def _other_manifest(files: Mapping[str, tuple[Path, int]], claimed: frozenset[str]) -> Path | None:
    """The one file given that reads as a sha256sum manifest and no document records (None:
    none, or several)."""
    from k3diff.audit.manifest import is_manifest  # only where an old audit needs it

    found = [
        path
        for digest, (path, _) in files.items()
        if digest not in claimed and not path.name.endswith(".whl") and is_manifest(path)
    ]
    return found[0] if len(found) == 1 else None


def _manifest(body: Mapping[str, Any]) -> Recorded | None:
    """The manifest the document checked, as it records it by SHA-256; None where it checked
    none or records no SHA-256 of it (written before lmrep68)."""
    manifest = body.get("manifest")
    if not isinstance(manifest, Mapping) or not isinstance(manifest.get("sha256"), str):
        return None
    return Recorded(str(manifest.get("path")), manifest["sha256"], "its manifest")


def _manifest_given(
    recorded: Recorded,
    files: Mapping[str, tuple[Path, int]],
    near: Path,
    claimed: frozenset[str],
) -> Path | Mismatch | None:
    """The file given with the manifest's recorded bytes, else the one given under its name,
    changed since (a `Mismatch`), else None (not given). `files`: the files given that are
    no document, by SHA-256; none another document records (`claimed`) is taken by name."""
    if recorded.sha256 in files:
        return files[recorded.sha256][0]
    free = [path for digest, (path, _) in files.items() if digest not in claimed]
    under = changedinputs.given_under(recorded.name, free, near=near)
    if under is None:
        return None
    digest = next(d for d, (path, _) in files.items() if path == under)
    return Mismatch(recorded, under, digest)


def _again(
    paths: Sequence[Path], manifest: Path | None, ignore_missing: bool
) -> dict[str, Any] | str:
    """The document `audit` writes on `paths` (against `manifest`, no waivers), or why none."""
    from k3diff.audit.run import AuditOptions, audit
    from k3diff.documents import audit as audit_document

    try:
        report = audit(paths, AuditOptions(manifest=manifest, ignore_missing=ignore_missing))
    except K3diffError as exc:
        return f"audit refuses them: {exc}"
    again: dict[str, Any] = json.loads(audit_document.write(report))
    return again


def _manifest_again(
    name: str, body: Mapping[str, Any], manifest: Path, near: Path
) -> list[runagain.StaleDocument]:
    """The refusal of an audit judged alone (its wheels not given) whose manifest check does not
    follow from the manifest given with it (by the bytes it records) and the SHA-256s it
    records of its artifacts: the check run again on those (hunt72: a mismatch moved to
    `matched`, or a missing name deleted, with its finding and the verdict, passed beside the
    very manifest that contradicts it)."""
    from k3diff.audit.manifest import check_manifest, read_manifest
    from k3diff.documents.audit import manifest_json

    checked = body["manifest"]
    artifacts = [a for a in body.get("artifacts", []) if isinstance(a, Mapping)]
    audited = [(str(a.get("path")), str(a.get("sha256"))) for a in artifacts]
    try:
        again = manifest_json(check_manifest(str(manifest), read_manifest(manifest), audited))
    except InputError as exc:
        difference: str | None = f"the manifest cannot be read: {exc}"
    else:
        lists = ("matched", "mismatched", "missing", "extra")
        difference = first_difference(
            {"manifest": {k: checked.get(k) for k in lists}},
            {"manifest": {k: (again or {}).get(k) for k in lists}},
        )
    if difference is None:
        return []
    wheels = [changedinputs.where_recorded(str(a.get("path")), near) for a in artifacts]
    command = runagain.audit_args(wheels, manifest, bool(checked.get("ignore_missing")))
    return [
        runagain.refusal(
            name,
            "manifest",
            f"its manifest check run again on {manifest} and the SHA-256s it records",
            difference,
            "give the document the wheels it audited, or " + runagain.again(command, name, "audit"),
        )
    ]


def _placeless(body: Mapping[str, Any]) -> dict[str, Any]:
    """The document but for what depends on where the wheels and the manifest lie and what it
    wrote, and its next steps, which name the wheels where they lay and which `report` never
    reads (it says its own from the findings; audit74)."""
    out = {k: v for k, v in body.items() if k not in ("written_manifest", "next_steps")}
    if isinstance(out.get("manifest"), dict):
        out["manifest"] = {k: v for k, v in out["manifest"].items() if k != "path"}
    if isinstance(out.get("artifacts"), list):
        out["artifacts"] = [
            {k: v for k, v in a.items() if k != "path"} if isinstance(a, dict) else a
            for a in out["artifacts"]
        ]
    return out


def check_audit_again(
    documents: Sequence[Document],
    given: Mapping[str, tuple[Path, int]],
    stale: list[runagain.StaleDocument],
    files: Mapping[str, tuple[Path, int]] | None = None,
    copies: Copies | None = None,
) -> tuple[dict[str, tuple[WheelRead, ...]], set[Path], dict[str, tuple[WheelRead, ...]]]:
    """Add to `stale` the refusal of an audit document that `audit`, run again on the wheels it
    audited (all given) and the manifest it checked, does not reproduce, and of each of those
    inputs changed since or missing; return the names of those so re-derived, each to the
    inputs it was run again on (the bundle lists them among its inputs), and the manifests
    given that an audit records (`files`: the files given that are no document, by SHA-256),
    and of each audit judged alone the manifest given with the bytes it records, listed among
    the bundle's inputs though not run again (left68: accepted, and listed nowhere)."""
    checked: dict[str, tuple[WheelRead, ...]] = {}
    alone: dict[str, tuple[WheelRead, ...]] = {}
    manifests: set[Path] = set()
    claimed = changedinputs.recorded_digests(documents)
    for doc in documents:
        if doc.kind is not Kind.AUDIT:
            continue
        body = doc.body_again("audit document")
        near = Path(doc.name).parent
        _refuse_unrecorded_manifest(body, doc.name, files or {}, near, claimed)
        manifest = _manifest(body)
        held = None if manifest is None else _manifest_given(manifest, files or {}, near, claimed)
        changed = [held] if isinstance(held, Mismatch) else []
        manifests.update(
            [held] if isinstance(held, Path) else [m.given for m in changed if m.given]
        )
        found = _found(body, given, near, claimed, copies or {})
        if found is None and not changed:
            if isinstance(held, Path) and manifest is not None:
                alone[doc.name] = ((str(held), manifest.sha256, (files or {})[manifest.sha256][1]),)
                stale.extend(_manifest_again(doc.name, body, held, near))
            continue
        if found is None:  # the manifest alone changed: the wheels as the document names them
            artifacts = [a for a in body.get("artifacts", []) if isinstance(a, Mapping)]
            names = [str(a.get("path")) for a in artifacts]
            found = ([], [changedinputs.where_recorded(name, near) for name in names], [])
        else:  # its wheels given: what it was made with must be held to run it again
            _refuse_unheld(body, doc.name)
        digests, paths, mismatches = found
        manifest_path = held.given if isinstance(held, Mismatch) else held
        if manifest is not None and held is None:  # beside its wheels, the manifest not given
            manifest_path = changedinputs.where_recorded(manifest.name, near)
            mismatches = [*mismatches, Mismatch(manifest, None, None, looked=manifest_path)]
        mismatches = [*mismatches, *changed]
        ignore = bool((body.get("manifest") or {}).get("ignore_missing"))
        command = runagain.audit_args(paths, manifest_path, ignore)
        if mismatches:  # a wheel or the manifest changed since, or missing (report67, lmrep68)
            tied = _given(paths, given)
            what = "wheels" if manifest is None else "wheels and manifest"
            stale.extend(changedinputs.refusals(doc.name, mismatches, what, command, "audit", tied))
            continue
        again = _again(paths, manifest_path, ignore)
        difference = (
            again
            if isinstance(again, str)
            else first_difference(_placeless(body), _placeless(again))
        )
        if difference is not None:
            stale.append(
                runagain.refusal(
                    doc.name,
                    "wheels",
                    f"audit run again on {', '.join(map(str, paths))}",
                    difference,
                    "give the document the wheels it audited, or "
                    + runagain.again(command, doc.name, "audit"),
                )
            )
        read = inputs_read(given, zip(digests, paths, strict=True))
        if isinstance(held, Path) and manifest is not None:
            read += ((str(held), manifest.sha256, (files or {})[manifest.sha256][1]),)
        checked[doc.name] = read
    return checked, manifests, alone
