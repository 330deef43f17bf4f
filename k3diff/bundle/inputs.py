"""The documents `k3diff report` reads, each read by `k3diff.documents.read.read_document`
(recognised by its `schema`, checked against itself); here the set is checked: no document
given twice, samples of one run (unless pooled), a triage made from the logs given beside it
and, run again on them, reproducing itself (`k3diff.bundle.rederive`), as a telemetry document
does on the logs it names (`k3diff.bundle.telemetryrederive`), a logs document on its two
log files (`k3diff.bundle.logsrederive`), a wheels document on its
two wheels (`k3diff.bundle.wheelsrederive`), an audit on the wheels it audited
(`k3diff.bundle.auditrederive`) and a responses document on its two inputs, tied by SHA-256
(`k3diff.bundle.responsesrederive`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path

from k3diff.bundle.auditrederive import check_audit_again
from k3diff.bundle.givenfiles import given_digests, is_wheel_path, wheel_digests_and_copies
from k3diff.bundle.logsdirs import logs_directories
from k3diff.bundle.logsrederive import check_logs_again, older_refusal
from k3diff.bundle.rederive import derived_comparisons, made_from_remade, triaged_at_house
from k3diff.bundle.responsesrederive import check_responses_again, own_document
from k3diff.bundle.runagain import stale_refused
from k3diff.bundle.telemetryrederive import check_telemetry_logs
from k3diff.bundle.wheelsetfiles import check_set_files, files_sets
from k3diff.bundle.wheelsetrederive import check_set_listings, set_directories
from k3diff.bundle.wheelsrederive import check_wheels_again
from k3diff.docbody import Kind
from k3diff.documents.read import Document, forget_bodies, read_document
from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.telemetryrerun import imposed
from k3diff.documents.triage import TriageDocument
from k3diff.documents.triagesampled import unpromised, unpromised_error
from k3diff.errors import InputError, UsageError
from k3diff.sample.runs import check_one_run


def read_inputs(paths: Sequence[Path], pool_runs: bool = False) -> tuple[Document, ...]:
    """Read every input; raise InputError naming the first file that cannot be used, or,
    once every document is run again, every document that does not follow from its inputs
    (`runagain.refuse_stale`), and UsageError when samples of different runs are mixed without
    `pool_runs`."""
    if not paths:
        raise UsageError("give at least one RESULT document (k3diff wheels/responses/... JSON)")
    documents: list[Document] = []
    seen: dict[str, str] = {}
    wheels = [path for path in paths if is_wheel_path(path)]
    repos = [path for path in paths if path.is_dir()]  # a --source repository (wheelsource)
    unread: list[tuple[Path, InputError]] = []
    for path in paths:
        if is_wheel_path(path) or path in repos:
            continue
        try:
            document = read_document(path)
        except InputError as exc:
            error = _untraced(exc)  # before the file is read again: its frames held it
            if own_document(path):
                raise
            unread.append((path, error))  # a responses or logs input, if a document names it
            continue
        if document.sha256 in seen:
            raise UsageError(f"{path}: the same document as {seen[document.sha256]}; give it once")
        seen[document.sha256] = document.name
        documents.append(document)
    if unread and not any(doc.kind in _TYING for doc in documents):
        raise unread[0][1]  # no responses, logs or audit document to tie it to: read as ever
    logs = [d.log for d in documents if d.log is not None]
    check_one_run(logs, pool_runs)
    _check_triage_runs(documents, pool_runs)
    # Every document run again before any is refused (report66).
    with stale_refused([doc.name for doc in documents]) as stale:
        links = derived_comparisons(documents, stale)
        house = triaged_at_house(documents, links)
        _check_promised(documents, links, {s.name for s in stale})
        for name in check_telemetry_logs(documents, stale):
            links[name] = "its logs"
        sets = set_directories(documents, repos)  # a release set's two directories (rerun62)
        check_set_listings(documents, sets, stale)
        set_dirs = {d for sides in sets.values() for d in (sides.base, sides.patch)}
        repos = [repo for repo in repos if repo not in set_dirs]
        log_dirs = logs_directories(documents, repos)  # a logs side given as a directory (rerun63)
        repos = [repo for repo in repos if repo not in log_dirs.values()]
        digests, copies = given_digests(unread)
        logs_again, logs_tied, older_logs = check_logs_again(
            documents, digests, log_dirs, copies, stale=stale
        )
        wheels += [path for sides in sets.values() for path in sides.wheels]
        given, wheel_copies = wheel_digests_and_copies(wheels)
        audits, manifests, tied_alone = check_audit_again(
            documents, given, stale, digests, wheel_copies
        )
        audited = frozenset(Path(name) for reads in audits.values() for name, _, _ in reads)
        directories = {name: (sides.base, sides.patch) for name, sides in sets.items()}
        wheels_again = check_wheels_again(
            documents, given, audited, repos, directories, stale=stale, copies=wheel_copies
        )
        set_files = files_sets(documents, wheels_again)
        paired = check_set_files(documents, list(set_files), given, stale)  # rerun63
        rerun = {name: again.wheels for name, again in wheels_again.items()}
        for name in [*rerun, *audits]:
            links[name] = "its wheels"
        rerun.update(audits)
        tied = logs_tied | frozenset(manifests)
        responses = check_responses_again(
            documents, unread, digests, tied, older_refusal(older_logs), copies, stale=stale
        )
        made_from_remade(documents, links, stale)  # before links name the comparisons' inputs
        for name in responses:
            links[name] = "its inputs"
        for name in logs_again:
            links[name] = "its logs"
        rerun.update(responses)
        rerun.update(logs_again)
    forget_bodies(documents)
    return tuple(
        dataclasses.replace(
            doc,
            follows_from=links.get(doc.name),
            inputs_read=rerun.get(doc.name, ()),
            source_read=wheels_again[doc.name].repository if doc.name in wheels_again else None,
            source_alone=doc.name in wheels_again and wheels_again[doc.name].source_alone,
            source_names=wheels_again[doc.name].names if doc.name in wheels_again else (),
            source_storage=wheels_again[doc.name].storage if doc.name in wheels_again else (),
            tied_by_name=doc.name in wheels_again and wheels_again[doc.name].by_name,
            house_again=house.get(doc.name),
            listed_again=doc.name in sets,
            paired_again=doc.name in paired if doc.name in set_files else None,
            tied_read=tied_alone.get(doc.name, ()),
        )
        if doc.name in links or doc.name in tied_alone
        else doc
        for doc in documents
    )


def _untraced(error: InputError) -> InputError:
    """`error`, kept to be raised later if no document names its file, without the frames it
    was raised from (each exception's of its chain): they held that file's bytes and lines,
    ≈ 2× the file (rerun80: 195 MB for each 100 MB capture given beside its comparison, held
    through the rerun)."""
    cause: BaseException | None = error
    while cause is not None:
        cause.__traceback__ = None
        cause = cause.__cause__ or cause.__context__
    return error


_TYING = (Kind.RESPONSES, Kind.LOGS, Kind.AUDIT)
"""The documents that tie files given beside them that are no document: a responses
document's inputs, a logs document's logs, an audit's manifest."""


def _check_triage_runs(documents: Sequence[Document], pool_runs: bool) -> None:
    """A triage document made from other runs than the sample logs given beside it."""
    logged = {run for d in documents if d.log is not None for run in d.run_ids}
    for doc in documents:
        if doc.kind is not Kind.TRIAGE or not doc.run_ids or not logged:
            continue
        foreign = sorted(logged - set(doc.run_ids))
        if foreign and not pool_runs:
            raise UsageError(
                f"{doc.name} was made from run(s) {', '.join(doc.run_ids)}, but the sample "
                f"logs given are of run(s) {', '.join(sorted(logged))}: evidence of different "
                "runs; give the logs the triage read, or --pool-runs to bundle them on purpose"
            )


def _check_promised(
    documents: Sequence[Document], linked: Mapping[str, str], stale: AbstractSet[str]
) -> None:
    """A triage document read alone (not run again on its comparison and logs, nor refused
    as `stale` by them) must have the fields its `sampled` is recounted from (forge60:
    deleting them passed a forgery)."""
    for doc in documents:
        if doc.kind is not Kind.TRIAGE or doc.name in linked or doc.name in stale:
            continue
        missing = unpromised(doc.typed(TriageDocument))
        if missing is not None:
            raise InputError(unpromised_error(doc.name, missing))


def impose_gates(
    documents: Sequence[Document], fail_on: Sequence[str], allowed: bool = False
) -> tuple[Document, ...]:
    """`report --fail-on acceptance-drop`: every telemetry document judged with the acceptance
    gate, its own or run from its `acceptance_units` (InputError for one that records none),
    its logs of one server held unless the reviewer `allowed` them (`report
    --allow-same-server`); UsageError when no telemetry document is given to run it on."""
    if not fail_on:
        return tuple(documents)
    if not any(doc.kind is Kind.TELEMETRY for doc in documents):
        raise UsageError(
            f"--fail-on {fail_on[0]}: no k3diff.telemetry/1 document among the inputs to run "
            "the gate on; give the telemetry JSON of the run"
        )
    return tuple(
        dataclasses.replace(doc, view=imposed(doc.typed(TelemetryDocument), doc.name, allowed))
        if doc.kind is Kind.TELEMETRY
        else doc
        for doc in documents
    )
