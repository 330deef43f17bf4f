"""An A/A calibration run (`--allow-same-server`) said as one in the bundle's bottom line
(small71): a triage document that allowed one server as both sides, with a samples log whose
header says base and patch were one server, measured that server against itself. Its
follow-up row is `recorded`, not `pass` (it validated no patched build), and the bottom line
says so first; before, it read "Nothing in this evidence fails its policy" and "pass", the one
server named only under Qualifications."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument
from k3diff.triage.oneserver import OPTION, described


def aa_run(documents: Sequence[Document]) -> str | None:
    """'A/A run of one server (...)' where the documents hold a triage run allowed to
    sample one server as both sides and a log that did (None: not an A/A run)."""
    allowed = any(
        d.typed(TriageDocument).allow_same_server for d in documents if d.kind is Kind.TRIAGE
    )
    found = tuple(
        (d.log.path, one)
        for d in documents
        if d.log is not None and (one := d.log.header.same_server) is not None
    )
    if not allowed or not found:
        return None
    return (
        f"A/A run of one server ({OPTION}): base and patch were sampled from one server "
        f"({described(found)}), so the run measures that server against itself and "
        "validates no patched build"
    )
