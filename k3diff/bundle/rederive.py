"""A triage document is believed only as far as it follows from the evidence beside it.

`k3diff report` runs triage again on the comparison and the samples logs given with a triage
document, with the document's own settings, and compares the two documents whole (all but the
paths they name, which depend on where each was run). Fields are only ever added within
`k3diff.triage/1`, so a document that says it is older (it lacks, everywhere, a field triage has
written since it was added: `ADDED`) may lack that field and those added after it; any other
field the run again writes and the document lacks is a difference (review62: a field deleted
was skipped, whichever it was). Every field the document has is compared, and it always has its
verdict (its reader requires `verdict`), so an older document is believed only when its
categories, flags, counts and verdict are what triage says today: a document whose re-derived
verdict fails never reads as a pass by lacking a field. A triage that follows from a comparison
is linked to it by that, not by the file name it names: the same documents given from another
directory still explain the comparison, and a triage made from another comparison (a stale one,
or one edited to clear records its samples do not clear) is refused naming the first field
that differs. A triage given without its comparison or its logs cannot be re-derived: it is
reported, but it explains nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle import runagain
from k3diff.bundle.difference import first_difference as first_difference  # as before
from k3diff.bundle.difference import older_lacks as older_lacks  # importable from here
from k3diff.bundle.drawnhint import drawn_hint
from k3diff.bundle.housealpha import HOUSE_ALPHA
from k3diff.bundle.stale import StaleDocument
from k3diff.docbody import Kind
from k3diff.documents import triage as triage_document
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument
from k3diff.errors import InputError, K3diffError
from k3diff.sample.header import NO_CHECKS
from k3diff.triage.kernel import DESCRIPTION as KERNEL
from k3diff.triage.run import triage
from k3diff.triage.settings import Correction, Settings

_WHERE_RUN = ("comparison", "samples")
"""Fields that name paths as given to `triage` (with each run's `log`): they differ with the
directory it ran in."""


ADDED = (
    "summary.unsampled",
    "records[].modes[].sampled",
    "shift",
    "records[].modes[].requests",
    "model_check",
    "gaugeless",
    "summary.unanswered",
    "metrics_url_404",
    "metrics_url_no_gauge",
    "runs[].asked",
    "allow_same_server",
)
"""The fields triage added within `k3diff.triage/1` since the oldest documents it reads
(tests/bundle/data/triage_3e8bbca), in the order they were added, each written on every
document (every mode) since. Any other field triage writes today and the document lacks is a
difference (review62)."""


def derived_comparisons(
    documents: Sequence[Document], stale: list[runagain.StaleDocument]
) -> dict[str, str]:
    """For every triage document that follows from a comparison and logs among `documents`,
    the comparison's name; the refusal of one that contradicts them added to `stale`."""
    comparisons = [d for d in documents if d.kind is Kind.RESPONSES]
    linked: dict[str, str] = {}
    for doc in documents:
        if doc.kind is not Kind.TRIAGE:
            continue
        logs = _logs_of(doc, documents)
        if not comparisons or not logs:
            continue
        stated = doc.body_again("triage document")
        differences, again = [], []
        for comparison in comparisons:
            recomputed = _recomputed(doc, comparison, logs)
            difference = _difference(stated, recomputed)
            if isinstance(recomputed, Mapping):
                again.append(recomputed)
            if difference is None:
                linked[doc.name] = comparison.name
                break
            differences.append(f"from {comparison.name}: {difference}")
        else:
            command = runagain.triage_args(
                doc.typed(TriageDocument),
                _made_from(stated, comparisons).name,
                [log.name for log in logs],
            )
            stale.append(
                runagain.refusal(
                    doc.name,
                    "evidence",
                    f"triage run again on {', '.join(d.name for d in logs)}",
                    "; ".join(differences),
                    f"give the comparison and logs it was made from, or "
                    f"{runagain.again(command, doc.name, 'triage')}{drawn_hint(differences, stated, again)}",
                )
            )
    return linked


def made_from_remade(
    documents: Sequence[Document], linked: Mapping[str, str], stale: list[StaleDocument]
) -> None:
    """Add to `stale` each triage document that follows from a comparison (`linked`) refused
    for an input changed since (`changedinputs`): made again from the inputs as they are, the
    comparison may no longer explain it, so it is named with its own command, to run once the
    comparison's has (newuser67: it was refused only by the next report, after that command)."""
    remade = {s.name for s in stale if s.key != s.name and not s.after}
    for doc in documents:
        comparison = linked.get(doc.name)
        if doc.kind is not Kind.TRIAGE or comparison not in remade:
            continue
        logs = [log.name for log in _logs_of(doc, documents)]
        command = runagain.triage_args(doc.typed(TriageDocument), str(comparison), logs)
        stale.append(
            StaleDocument(
                f"{doc.name}: made from {comparison}, an input of which changed: once "
                f"{comparison} is made again, "
                + runagain.again(command, doc.name, "triage", doc.name),
                doc.name,
                key=f"{doc.name}\0made from {comparison}",
                after=True,
            )
        )


def _made_from(stated: Mapping[str, Any], comparisons: Sequence[Document]) -> Document:
    """The comparison given that the triage document names (as given, the same file, or the
    same file name), else the first given."""
    named = stated.get("comparison")
    if isinstance(named, str):
        for same in (
            lambda d: d.name == named,
            lambda d: Path(d.name).resolve() == Path(named).resolve(),
            lambda d: Path(d.name).name == Path(named).name,
        ):
            found = [d for d in comparisons if same(d)]
            if found:
                return found[0]
    return comparisons[0]


def _logs_of(doc: Document, documents: Sequence[Document]) -> list[Document]:
    """The samples logs given of the triage document's runs (every log, for one naming none)."""
    return [
        d
        for d in documents
        if d.kind is Kind.SAMPLES and (not doc.run_ids or set(d.run_ids) & set(doc.run_ids))
    ]


def triaged_at_house(
    documents: Sequence[Document], linked: Mapping[str, str]
) -> dict[str, TriageDocument]:
    """For every triage document made at an α above the house α that follows from the
    comparison and logs given (`linked`, from `derived_comparisons`): triage run again on them
    with its settings but at the house α (rerun62). A first-token test's premise and a test's
    power are "could have detected" claims, stricter at the smaller α: the document's α may have
    voided a test the house α runs (review62) or cleared a record the house α leaves
    undecided. Its decisions are triage's own, at 0.05; the bundle follows the stricter of the
    two readings (`housealpha.rejudge`)."""
    by_name = {d.name: d for d in documents}
    found: dict[str, TriageDocument] = {}
    for name, comparison in linked.items():
        doc = by_name[name]
        view = doc.typed(TriageDocument)
        if view.alpha <= HOUSE_ALPHA:
            continue
        again = _recomputed(doc, by_name[comparison], _logs_of(doc, documents), HOUSE_ALPHA)
        if isinstance(again, str):  # it ran at the document's α on the same inputs
            raise InputError(f"{name}: triage at the house α = {HOUSE_ALPHA:g}: {again}")
        found[name] = triage_document.read(again, name)
    return found


def _recomputed(
    doc: Document, comparison: Document, logs: Sequence[Document], alpha: float | None = None
) -> dict[str, Any] | str:
    """The triage of `comparison` and `logs` with the document's settings (as its typed reader
    read them; at `alpha` where given), or why none."""
    view = doc.typed(TriageDocument)
    try:
        settings = Settings(
            alpha=view.alpha if alpha is None else alpha,
            bound=view.bound,
            near_tie=view.near_tie,
            correction=Correction(str(view.correction)),
            fail_inconclusive=view.fail_inconclusive,
            capture_mode=view.capture_mode,
            allow_condition_mismatch=view.allow_condition_mismatch,
            allow_same_server=view.allow_same_server,
            # A document written before the model check is run again without it (the bundle
            # says its samples' model was not checked: `triagefacts.checked_sentence`).
            check_models=view.model_check is True,
            power=0.8 if view.power is None else view.power,
            shift=0.35 if view.shift is None else view.shift,
        )
    except ValueError as exc:
        raise InputError(f"{doc.name}: its settings cannot be read ({exc})") from None
    try:
        result = triage(
            Path(comparison.name),
            tuple(Path(log.name) for log in logs),
            settings,
            pool_runs=view.pool_runs,
        )
    except K3diffError as exc:
        return f"triage refuses them: {exc}"
    recomputed: dict[str, Any] = json.loads(triage_document.write(result))
    return recomputed


def _difference(stated: Mapping[str, Any], recomputed: Mapping[str, Any] | str) -> str | None:
    """The first field in which the two documents differ ('records[1].category: match, run
    again inconclusive'), None when they agree."""
    if isinstance(recomputed, str):
        return recomputed
    kernel = _kernel_difference(stated)
    if kernel is not None:
        return kernel
    again = _unsaid_no_check(stated, recomputed)
    return first_difference(
        _placeless(stated), _placeless(again), may_lack=older_lacks(stated, ADDED)
    )


def _unsaid_no_check(stated: Mapping[str, Any], recomputed: Mapping[str, Any]) -> Mapping[str, Any]:
    """The run again without its qualifications that a log records no one-server check
    (`header.NO_CHECKS`: its header's format is older, samples73, or a resume marker's,
    review73e) where the document states none: triage wrote none before, and it changes no
    verdict; the bundle states it from the logs given whatever the document says
    (`samplefacts`), so a document that drops it hides nothing."""
    said = stated.get("qualifications")
    if not isinstance(said, list) or any(_no_check(q) for q in said):
        return recomputed
    found = recomputed.get("qualifications")
    if not isinstance(found, list):
        return recomputed
    kept = [q for q in found if not _no_check(q)]
    return {**recomputed, "qualifications": kept}


def _no_check(qualification: Any) -> bool:
    return isinstance(qualification, str) and any(said in qualification for said in NO_CHECKS)


def _kernel_difference(stated: Mapping[str, Any]) -> str | None:
    """Where the document's MMD test names a kernel other than triage's: which, and that its
    statistics, p-values and detectable shifts are another kernel's (kernel73 added the 3-gram
    cosine, mmd74 counted every character where kernel73 counted the first 65,536: a document of
    an older kernel is not re-derived with a kernel it does not name)."""
    records = stated.get("records")
    for i, record in enumerate(records if isinstance(records, list) else []):
        modes = record.get("modes") if isinstance(record, dict) else None
        for j, mode in enumerate(modes if isinstance(modes, list) else []):
            test = mode.get("distribution") if isinstance(mode, dict) else None
            named = test.get("kernel") if isinstance(test, dict) else None
            if named is not None and named != KERNEL:
                return (
                    f"records[{i}].modes[{j}].distribution.kernel: its MMD test's kernel is "
                    f"{json.dumps(named)}, triage's today {json.dumps(KERNEL)} (another kernel's "
                    "statistics, p-values and detectable shifts: run triage again on them)"
                )
    return None


def _placeless(document: Mapping[str, Any]) -> dict[str, Any]:
    """The document without the paths it names (`_WHERE_RUN`, each run's `log`, and the logs'
    paths within its qualifications: samples73, a triage of an unchecked log made with one path
    and given with another was refused)."""
    kept = {k: v for k, v in document.items() if k not in _WHERE_RUN}
    named = document.get("samples")
    paths = sorted(
        {p for p in named if isinstance(p, str) and p} if isinstance(named, list) else set(),
        key=len,
        reverse=True,
    )
    if paths and isinstance(kept.get("qualifications"), list):
        kept["qualifications"] = [_pathless(q, paths) for q in kept["qualifications"]]
    if isinstance(kept.get("runs"), list):
        kept["runs"] = [
            {k: v for k, v in run.items() if k != "log"} if isinstance(run, dict) else run
            for run in kept["runs"]
        ]
    return kept


def _pathless(said: object, paths: Sequence[str]) -> object:
    """A qualification with each log path it names written `LOG` (the longest first, so no
    path is cut inside a longer one)."""
    if not isinstance(said, str):
        return said
    for path in paths:
        said = said.replace(path, "LOG")
    return said
