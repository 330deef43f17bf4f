"""`summary.json` (`k3diff.report/2`): everything REPORT.md and report.html show, numbers
included, built from the input documents. The renderers read only this."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from k3diff.bundle.aarun import aa_run
from k3diff.bundle.alphanotes import alpha_notes
from k3diff.bundle.explained import explaining_triage
from k3diff.bundle.facts import stages_of
from k3diff.bundle.housealpha import define_house_alpha
from k3diff.bundle.model import MAKES, Evidence, Stage, Status
from k3diff.bundle.nextsteps import next_steps
from k3diff.bundle.recordtables import record_tables
from k3diff.bundle.triagetable import triage_rows
from k3diff.bundle.wheelfacts import wheel_documents
from k3diff.docbody import Kind
from k3diff.documents.read import RERUN_KINDS, Document
from k3diff.documents.report import SCHEMA
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.numbers import named
from k3diff.output import plural
from k3diff.responses.document import ResponsesDocument
from k3diff.sample.runs import describe_run
from k3diff.wheel.kinds import EntryKind

ROWS_KEPT = 1000
"""Rows of a per-record or per-entry table kept in the summary; the rest are counted."""


def build_summary(
    documents: Sequence[Document], title: str, required: Sequence[Evidence] = ()
) -> dict[str, Any]:
    """The `k3diff.report/2` document for `documents`."""
    stages, artifacts = stages_of(documents)
    present = {s.evidence for s in stages}
    missing = [e for e in Evidence if e not in present]
    failing = [s for s in stages if s.status is Status.FAIL]
    missing_required = [e for e in required if e in missing]
    unexplained = [
        d
        for d in documents
        if d.fails and not (d.kind is Kind.RESPONSES and explaining_triage(d, documents))
    ]
    exit_code = 1 if failing or missing_required or unexplained else 0
    levels = alpha_notes(documents)
    return define_house_alpha(
        {
            "schema": SCHEMA,
            "title": title,
            "verdict": {"ok": exit_code == 0, "exit_code": exit_code},
            "bottom_line": _bottom_line(stages, missing, missing_required, documents, levels),
            # What each failing or inconclusive row's own command says to do next (ci64).
            "next_steps": next_steps(stages, documents),
            "matrix": [_row(e, stages, documents) for e in Evidence],
            "missing": [{"evidence": e.value, "made_by": MAKES[e]} for e in missing],
            # Once each: the comparison and the triage that read it both say what it ignored.
            "qualifications": list(
                dict.fromkeys(
                    levels + [q for s in stages for q in s.qualifications] + _pooled_runs(documents)
                )
            ),
            "stages": [
                {
                    "evidence": s.evidence.value,
                    "source": s.source,
                    "status": s.status.value,
                    "headline": s.headline,
                    "counts": s.counts or {},
                }
                for s in stages
            ],
            "artifacts": [
                {
                    "role": a.role,
                    "name": a.name,
                    "sha256": a.sha256,
                    "size": a.size,
                    "source": a.source,
                }
                for a in artifacts
            ],
            "inputs": [row for d in documents for row in _input_rows(d)],
            "tables": _tables(documents),
        }
    )


def _pooled_runs(documents: Sequence[Document]) -> list[str]:
    """The runs pooled under `--pool-runs`, each named (nothing when the logs are of one run)."""
    logs = [d.log for d in documents if d.log is not None]
    runs = {log.header.identity for log in logs}
    if len(runs) < 2:
        return []
    return [
        f"samples of {len(runs):,} different runs were bundled together (--pool-runs): "
        + "; ".join(describe_run(log) for log in logs)
    ]


def _bottom_line(
    stages: Sequence[Stage],
    missing: Sequence[Evidence],
    required: Sequence[Evidence],
    documents: Sequence[Document],
    levels: Sequence[str] = (),
) -> list[str]:
    failing = [s for s in stages if s.status is Status.FAIL]
    if failing:
        # One name per evidence and document: a release set's pairs are one document.
        names = list(dict.fromkeys(f"{s.evidence.value} ({s.source})" for s in failing))
        verb = "fails its policy" if len(names) == 1 else "fail their policies"
        lines = [f"FAIL: {', '.join(names)} {verb}"]
        # A run of one server held first (said only here: cleanup75), then the records: which
        # prompts regressed is what a reviewer reads the line for.
        said = list(dict.fromkeys(s.one_server for s in failing if s.one_server))
        records = _failing_records(failing)
        said += [records] if records else []
        if said:
            lines = [f"FAIL: {'; '.join(said)}; {lines[0].removeprefix('FAIL: ')}"]
    else:
        alone = sum(d.judged_alone for d in documents)  # as `report_cmd._caveats` counts them
        count = plural(len(documents), "document") + (f", {alone:,} judged alone" if alone else "")
        lines = [f"Nothing in this evidence fails its policy ({count})"]
        if aa_run(documents) is not None:
            lines = [f"{aa_run(documents)}; nothing in it fails its policy ({count})"]
    if required:
        lines.insert(0, "FAIL: required evidence missing: " + ", ".join(e.value for e in required))
    # Beside the verdict: the levels it was judged at, where they are not the defaults.
    lines += levels
    # The rows that fail (or hold records undecided) first, each named: in the matrix's order
    # a failing row's sentence stood among the passing ones' with nothing to tell it (report67).
    asking = (Status.FAIL, Status.INCONCLUSIVE)
    lines += [
        f"{s.status.value} ({s.evidence.value}): {s.headline}"
        for status in asking
        for s in stages
        if s.status is status
    ]
    lines += [s.headline for s in stages if s.status not in asking]
    if missing:
        lines.append(
            "missing evidence (not implied): "
            + "; ".join(f"{e.value} ({MAKES[e]})" for e in missing)
        )
    return lines


def _failing_records(failing: Sequence[Stage]) -> str:
    """'regression candidates r2, r5' (a follow-up's), else why a follow-up holds records and
    'text differs on r2, r5' and '1 record not comparable (...): r7' (a comparison's): the
    records the failing stages name, each named once."""
    candidates = list(
        dict.fromkeys(r for s in failing if s.evidence is Evidence.FOLLOW_UP for r in s.records)
    )
    if candidates:
        return f"{plural(len(candidates), 'regression candidate')} {named(candidates)}"
    held = [s.held for s in failing if s.evidence is Evidence.FOLLOW_UP and s.held]
    compared = [s for s in failing if s.evidence is Evidence.RECORDS]
    names = list(dict.fromkeys(r for s in compared for r in s.records))
    not_known = {r for s in compared for r in s.not_known}
    not_compared = list(dict.fromkeys(r for s in compared for r in s.not_comparable))
    unknown = [r for r in not_compared if r in not_known]
    unjudged = [r for r in not_compared if r not in not_known]
    failed = list(dict.fromkeys(r for s in compared for r in s.failed))
    said = list(dict.fromkeys(held))
    if names:
        said.append(f"text differs on {plural(len(names), 'record')}: {named(names)}")
    if failed:
        said.append(f"a request failed on {plural(len(failed), 'record')}: {named(failed)}")
    if unjudged:
        said.append(
            f"{plural(len(unjudged), 'record')} not comparable (their prompt or eval inputs "
            f"differ): {named(unjudged)}"
        )
    if unknown:
        said.append(
            f"{plural(len(unknown), 'record')} not comparable (their prompt or request "
            f"arguments are missing from a log): {named(unknown)}"
        )
    return "; ".join(said)


def _input_rows(doc: Document) -> list[dict[str, Any]]:
    """The document's row, then one for each input (a wheel, a responses input, a server log) its command
    was run again on for it."""
    nouns = {Kind.WHEELS: "wheel", Kind.WHEELSET: "wheel", Kind.AUDIT: "wheel"}
    noun = {**nouns, Kind.LOGS: "server log"}.get(doc.kind, f"{doc.kind.value} input")
    again = [
        {
            "name": name,
            "schema": f"{noun} (k3diff {RERUN_KINDS.get(doc.kind, '')} run again on it)",
            "sha256": sha256,
            "size": size,
            "run_ids": [],
            "cross_checked": True,
        }
        for name, sha256, size in doc.inputs_read
    ]
    for row in again:  # an audit's manifest, run again against, beside its wheels
        if doc.kind is Kind.AUDIT and not str(row["name"]).lower().endswith(".whl"):
            row["schema"] = "sha256sum manifest (k3diff audit run again against it)"
    again += [
        {
            "name": name,
            "schema": f"sha256sum manifest (the one {doc.name} records; audit not run again)",
            "sha256": sha256,
            "size": size,
            "run_ids": [],
            "cross_checked": False,
        }
        for name, sha256, size in doc.tied_read
    ]
    own = {
        "name": doc.name,
        "schema": doc.kind.value,
        "sha256": doc.sha256,
        "size": doc.size,
        "run_ids": list(doc.run_ids),
        "cross_checked": doc.cross_checked and not doc.judged_alone,
    }
    if doc.judged_alone:
        own["judged_alone"] = True
    return [own, *again]


def source_label(doc: Document, note: str | None = None) -> str:
    """`run/samples.jsonl (run 1a2b3c4d5e6f, cross-checked)`: a document as the matrix names it
    (`note`, when given, in place of its self-check: `Stage.label`)."""
    parts = [f"run {', '.join(run[:12] for run in doc.run_ids)}"] if doc.run_ids else []
    if note is not None:
        parts.append(note)
    else:
        parts.append(doc.checked)
    return f"{doc.name} ({', '.join(parts)})"


def _row(
    evidence: Evidence, stages: Sequence[Stage], documents: Sequence[Document]
) -> dict[str, Any]:
    mine = [s for s in stages if s.evidence is evidence]
    if not mine:
        return {
            "evidence": evidence.value,
            "status": Status.MISSING.value,
            "finding": f"no document: run {MAKES[evidence]}",
            "sources": [],
            "documents": [],
        }
    statuses = {s.status for s in mine}
    status = next(s for s in Status if s in statuses)
    sources = sorted({s.source for s in mine})
    by_name = {d.name: d for d in documents}
    notes = {s.source: s.label for s in mine if s.label is not None}
    return {
        "evidence": evidence.value,
        "status": status.value,
        "finding": " | ".join(s.headline for s in mine),
        "sources": sources,
        "documents": [
            {
                "name": name,
                "label": source_label(by_name[name], notes.get(name)),
                "run_ids": list(by_name[name].run_ids),
                "cross_checked": by_name[name].cross_checked
                and not by_name[name].judged_alone
                and name not in notes,
            }
            for name in sources
            if name in by_name
        ],
    }


def _num(value: object) -> object:
    """Floats rounded to what the report shows, so the shown number is the stored one."""
    return round(value, 4) if isinstance(value, float) else value


def _table(title: str, columns: list[str], rows: list[list[object]]) -> dict[str, Any]:
    kept = [[_num(v) for v in row] for row in rows[:ROWS_KEPT]]
    return {"title": title, "columns": columns, "rows": kept, "rows_omitted": len(rows) - len(kept)}


def _tables(documents: Sequence[Document]) -> dict[str, Any]:
    tables: dict[str, Any] = {}
    wheels = wheel_documents(documents)
    if wheels:
        tables["entries_by_kind"] = _table(
            "Entry status by kind",
            ["wheel", "kind", "total", "identical", "changed", "missing", "added"],
            [
                [name, kind.value, *wheel.summary[kind.value].as_dict().values()]
                for name, wheel in wheels
                for kind in EntryKind
            ],
        )
        tables["changed_entries"] = _table(
            "Entries that are not identical",
            ["wheel", "path", "kind", "status", "how", "base bytes", "patch bytes"],
            [
                [name, e.path, e.kind, e.status, e.how, e.base_size, e.patch_size]
                for name, wheel in wheels
                for e in wheel.entries
                if e.status != "identical"
            ],
        )
        surfaces = _surface_rows(wheels)
        if surfaces:
            tables["execution_surfaces"] = _table(
                "Execution surfaces of the patch (what runs, and how it changed)",
                ["wheel", "kind", "surface", "status", "what runs"],
                surfaces,
            )
    triage = [d for d in documents if d.kind is Kind.TRIAGE]
    responses = [d for d in documents if d.kind is Kind.RESPONSES]
    if triage:
        tables["records"] = _table("Records (triage)", *_keys_beside_labels(*triage_rows(triage)))
    elif responses:
        tables["records"] = _responses_table(responses)
    samples = [d for d in documents if d.kind is Kind.SAMPLES]
    tables.update(record_tables(responses, samples, _table))
    if samples:
        tables["latency"] = _latency_table(samples)
    return tables


def _surface_rows(wheels: list[tuple[str, WheelsDocument]]) -> list[list[object]]:
    """One row per execution surface of each wheels document, changed ones first."""
    rows: list[list[object]] = []
    for name, wheel in wheels:
        ordered = sorted(wheel.surface_changes or (), key=lambda c: c.status == "unchanged")
        rows += [[name, c.kind, c.key, c.status, c.patch or c.base] for c in ordered]
    return rows


def _responses_table(documents: Sequence[Document]) -> dict[str, Any]:
    rows: list[list[object]] = [
        [r.name, r.key, r.status, r.similarity, r.char_offset, r.token_index]
        for doc in documents
        for r in doc.typed(ResponsesDocument).records
    ]
    rows.sort(key=lambda row: (row[2] == "match", str(row[0])))
    columns = ["record", "key", "status", "similarity", "divergence char", "divergence token"]
    return _table("Records (responses)", *_keys_beside_labels(columns, rows))


def _keys_beside_labels(
    columns: list[str], rows: list[list[object]]
) -> tuple[list[str], list[list[object]]]:
    """Records are named as the user names them (column `record`) with the pairing key beside
    (column `key`); where every name is its key, the key column alone names them."""
    if any(row[0] != row[1] for row in rows):
        return columns, rows
    return columns[1:], [row[1:] for row in rows]


def latencies(doc: Document) -> dict[tuple[str, str], list[float]]:
    """Successful samples' latencies per (mode, side), in log order."""
    found: dict[tuple[str, str], list[float]] = {}
    for sample in doc.samples:
        if sample.error is None:
            found.setdefault((sample.mode, sample.side), []).append(float(sample.latency_s))
    return found


def _latency_table(documents: Sequence[Document]) -> dict[str, Any]:
    rows: list[list[object]] = []
    for doc in documents:
        failed: dict[tuple[str, str], int] = {}
        for sample in doc.samples:
            if sample.error is not None:
                ident = (sample.mode, sample.side)
                failed[ident] = failed.get(ident, 0) + 1
        found = latencies(doc)
        for mode, side in sorted(set(found) | set(failed)):
            values = sorted(found.get((mode, side), []))
            stats: list[object] = [None, None, None]
            if values:
                p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
                stats = [statistics.median(values), p90, values[-1]]
            rows.append([doc.name, mode, side, len(values), failed.get((mode, side), 0), *stats])
    columns = ["log", "mode", "side", "n", "failed", "median s", "p90 s", "max s"]
    return _table("Sample latency", columns, rows)
