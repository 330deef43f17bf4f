"""An A/A calibration run: base and patch sampled from one server, judged as a run of that
server against itself (small71), and whose word that is (gate74).

`triage --allow-same-server` and `telemetry --allow-same-server` record the allowance in the
document (`allow_same_server`), and a document is hostile input: anyone who can edit one added
`"allow_same_server": true` to a one-server telemetry document and an imposed `report --fail-on
acceptance-drop` passed it (exit 0), as a triage document of a one-server log passed. So the
bundle takes the allowance from the reviewer, `report --allow-same-server`, for triage and
telemetry alike (`one_server_runs`):

- a document that judged a run of one server as an A/A run (triage: its `allow_same_server`
  with a samples log of its runs given whose header says one server, or, given alone, its own
  qualification saying so; telemetry: a gate that allowed the `one_server` logs it lists,
  or, without a gate, its `--expect` passed on them: review74d) is held without the option:
  its row fails (exit 1) with one line naming it and the option (`held_line`), said once, first
  in the bottom line (cleanup75: it was said there, in the row's sentence beside it and in the
  matrix row), the row saying `HELD`, and the next step names the option (`step_line`); with it, it passes and the bundle says the reviewer
  allowed it (`allowed_line`, and the bottom line of an A/A run);
- a document that records the allowance but whose logs show two servers is unaffected: the
  allowance decided nothing;
- the gate `report --fail-on acceptance-drop` imposes is the reviewer's: it reads only
  `report --allow-same-server` (`telemetryrerun.imposed`), never the document's word.

An A/A run the reviewer allowed has its follow-up row `recorded`, not `pass` (it validated no
patched build), and the bottom line says so first (`aa_run`); before small71, it read "Nothing
in this evidence fails its policy" and "pass", the one server named only under Qualifications.
The document's own allowance still decides whether it agrees with itself and its logs (its gate
and records are checked as its run was told: `telemetryrederive`, `rederive`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.triage import TriageDocument
from k3diff.telemetry.gate import SAME_SERVER_PREFIX
from k3diff.triage.oneserver import described

OPTION = "report --allow-same-server"
"""The reviewer's word that a run of one server is an A/A calibration run they accept."""

_ALLOWED_NOTE = re.compile(
    r"[Bb]ase and patch were sampled from the same server \((?P<urls>.*)\) in (?P<log>.*): its "
    r"patch samples measure that server against itself, not a patched build; judged as an A/A "
    r"calibration run \(--allow-same-server\)"
)
"""The qualification triage states for a log of one server it judged under its option
(`RunHeader.same_server_note`): what a triage given without its logs says of them."""


def one_server_runs(documents: Sequence[Document], allowed: bool) -> tuple[Document, ...]:
    """`documents` with `Document.one_server` set on each triage or telemetry document that
    judged a run of one server as an A/A run, and `one_server_allowed` the reviewer's word
    (`allowed`: `report --allow-same-server`)."""
    found = []
    for doc in documents:
        where = _judged_one_server(doc, documents)
        if where is not None:
            doc = dataclasses.replace(doc, one_server=where, one_server_allowed=allowed)
        found.append(doc)
    return tuple(found)


def _judged_one_server(doc: Document, documents: Sequence[Document]) -> str | None:
    """Where `doc` judged a run of one server as an A/A run (None: it did not, or none was)."""
    if doc.kind is Kind.TELEMETRY:
        telemetry = doc.typed(TelemetryDocument)
        if not telemetry.one_server or not (_gate_allowed(doc) or _covered(telemetry)):
            return None  # the gate held the run, or nothing was judged of it
        return "; ".join(f"{where}, in {log}" for log, where in telemetry.one_server)
    if doc.kind is not Kind.TRIAGE or not doc.typed(TriageDocument).allow_same_server:
        return None
    runs = set(doc.run_ids)
    logs = [d.log for d in documents if d.log is not None and (not runs or runs & set(d.run_ids))]
    if logs:
        found = tuple(
            (log.path, one) for log in logs if (one := log.header.same_server) is not None
        )
        return described(found) or None
    said = (_ALLOWED_NOTE.search(q) for q in doc.typed(TriageDocument).qualifications)
    notes = [f"{m['urls']}, in {m['log']}" for m in said if m is not None]
    return "; ".join(notes) or None


def _gate_allowed(doc: Document) -> bool:
    gate = doc.typed(TelemetryDocument).acceptance_gate
    return gate is not None and gate.allow_same_server


def _covered(telemetry: TelemetryDocument) -> bool:
    """A telemetry run judged by its `--expect` alone (no gate): a side exercising what it
    was meant to passed the row, though the patch side was the base's server (review74d:
    `telemetry --expect speculation` of one server passed, exit 0, its one server unsaid)."""
    return telemetry.acceptance_gate is None and bool(telemetry.expected)


HELD = "held: base and patch were sampled from one server (the bottom line says why)"
"""What the row of a document `held_line` holds says of it."""


def held_line(doc: Document) -> str:
    """The line that holds a document whose run of one server the reviewer did not allow."""
    author = doc.kind is Kind.TRIAGE or _gate_allowed(doc)
    judged = (
        ", judged as an A/A calibration run on its author's word (allow_same_server in the "
        "document),"
        if author
        else ","
    )
    return (
        f"{doc.name}: base and patch were sampled from one server ({doc.one_server}){judged} "
        f"which validates no patched build: held; {OPTION} if you accept it as one"
    )


def allowed_line(doc: Document) -> str:
    """The qualification of a run of one server the reviewer accepted."""
    return (
        f"{doc.name}: base and patch were sampled from one server ({doc.one_server}), judged as "
        f"an A/A calibration run, allowed by the reviewer ({OPTION}): it validates no patched "
        "build"
    )


def step_line(doc: Document) -> str | None:
    """The next step of a document held for a run of one server (by the bundle, or by the
    gate `report --fail-on acceptance-drop` imposed without the option): sample the patched
    build on a server of its own, or give the option (None: not held for one)."""
    if doc.one_server_held:
        where = doc.one_server
    elif doc.kind is Kind.TELEMETRY and _imposed_held(doc.typed(TelemetryDocument)):
        telemetry = doc.typed(TelemetryDocument)
        where = "; ".join(f"{w}, in {log}" for log, w in telemetry.one_server)
    else:
        return None
    return (
        f"base and patch of {doc.name} were sampled from one server ({where}), which validates "
        "no patched build: sample the patched build on a server of its own; only to accept it "
        "as an A/A calibration run, run k3diff report again with the same inputs and "
        "--allow-same-server"
    )


def _imposed_held(telemetry: TelemetryDocument) -> bool:
    """An imposed gate that held the document's logs of one server (not allowed)."""
    gate = telemetry.acceptance_gate
    return (
        telemetry.imposed
        and gate is not None
        and any(f.detail.startswith(SAME_SERVER_PREFIX) for f in gate.findings)
    )


def aa_run(documents: Sequence[Document]) -> str | None:
    """'A/A run of one server (...)' where the reviewer allowed a document's run of one server
    as one (None: not an A/A run, or one held)."""
    allowed = [d.one_server for d in documents if d.one_server is not None and d.one_server_allowed]
    if not allowed:
        return None
    return (
        f"A/A run of one server ({OPTION}): base and patch were sampled from one server "
        f"({'; '.join(dict.fromkeys(allowed))}), so the run measures that server against itself "
        "and validates no patched build"
    )
