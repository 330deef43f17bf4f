"""The values the bundle is made of: matrix rows, their status, hashed artifacts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Evidence(StrEnum):
    """The rows of the evidence matrix, in the order a reviewer reads them."""

    IDENTITY = "artifact identity"
    SOURCE = "source match"
    RECORDS = "record-level comparison"
    SAMPLING = "sampling"
    FOLLOW_UP = "nondeterminism follow-up"
    AUDIT = "audit"
    RUNTIME_LOGS = "runtime logs"
    TELEMETRY = "telemetry/coverage"


MAKES = {
    Evidence.IDENTITY: "k3diff wheels",
    Evidence.SOURCE: "k3diff wheels --source REPO --commit REV",
    Evidence.RECORDS: "k3diff responses",
    Evidence.SAMPLING: "k3diff sample",
    Evidence.FOLLOW_UP: "k3diff triage",
    Evidence.AUDIT: "k3diff audit",
    Evidence.RUNTIME_LOGS: "k3diff logs",
    Evidence.TELEMETRY: "k3diff telemetry",
}
"""The command whose document fills each row. Bare `k3diff`, unlike triage's `next:` line
(`k3diff.program`): a bundle is read later and elsewhere, where the path its maker ran
(`.venv/bin/k3diff`, an interpreter's `-m k3diff`) means nothing, and it is no machine's path
(DESIGN); these name a command, with placeholders, rather than a line to paste."""


class Status(StrEnum):
    """A matrix row's outcome."""

    FAIL = "FAIL"
    EXPLAINED = "explained"
    INCONCLUSIVE = "inconclusive"
    """Nothing fails, but records are undecided: more samples would decide them."""
    PASS = "pass"
    INFO = "recorded"
    MISSING = "missing"

    @classmethod
    def of_verdict(cls, ok: bool, exit_code: int) -> Status:
        """pass when a document's verdict says ok with exit 0, else FAIL."""
        return cls.PASS if ok and exit_code == 0 else cls.FAIL


MEANS = {
    Status.FAIL: "fails its policy",
    Status.EXPLAINED: "differs, and a triage run again on its samples accounts for every "
    "difference as nondeterminism of the base (or of both sides)",
    Status.INCONCLUSIVE: "nothing fails, but records are undecided (more samples would decide "
    "them)",
    Status.PASS: "meets its policy",
    Status.INFO: "given, and judged by no policy",
    Status.MISSING: "not given (nothing is implied about it)",
}
"""What each status of the matrix means, said under it for a reader who never ran k3diff
(report67: `recorded` and `explained` were left to guess)."""


def status_legend(statuses: list[str]) -> str:
    """'Status: pass = meets its policy; recorded = …', for the statuses the matrix shows, in
    the order of `Status`."""
    shown = [s for s in Status if s.value in statuses]
    return "Status: " + "; ".join(f"{s.value} = {MEANS[s]}" for s in shown)


@dataclass(frozen=True)
class Stage:
    """What one document says for one row of the matrix."""

    evidence: Evidence
    """The matrix row."""
    source: str
    """The input's name as given."""
    status: Status
    """pass, FAIL, recorded (no policy), missing."""
    headline: str
    """One sentence with the numbers; goes in the bottom line."""
    qualifications: tuple[str, ...] = ()
    """What the evidence implies but does not prove."""
    counts: Mapping[str, Any] | None = None
    """The key counts the sentences were made from."""
    records: tuple[str, ...] = ()
    """The records this stage fails on, as the user names them (a follow-up's regression
    candidates, a comparison's records whose text differs, not those it could not compare):
    the bottom line names them first."""
    not_comparable: tuple[str, ...] = ()
    """The records a comparison could not compare (their prompt or eval inputs differ), as the
    user names them: the bottom line says so, not that their text differs (lmeval67)."""
    not_known: tuple[str, ...] = ()
    """Those of `not_comparable` whose only inputs not compared are ones a log alone holds (an
    lm-eval prompt or request arguments the other log does not: `prompt-unknown`,
    `arguments-unknown`): the bottom line says they are missing from a log, not that they differ
    (left68)."""
    failed: tuple[str, ...] = ()
    """The records of a comparison where a request failed (status `error`), as the user names
    them: said as such, once, not among those whose text differs (lmrep68)."""
    held: str | None = None
    """Why the records a follow-up holds fail, by cause (`inconclusive.held_sentence`): the
    bottom line says so before the comparison's differing records."""
    one_server: str | None = None
    """The line that holds a run of one server the reviewer did not allow (`aarun.held_line`):
    the bottom line says it first, once; the headline says only `aarun.HELD`."""
    label: str | None = None
    """How the matrix names the source when its self-check is not the whole story (an audit
    not tied to the wheels compared: `k3diff.bundle.auditfacts`); None: `cross-checked` or
    `not cross-checked` as its self-check went."""


@dataclass(frozen=True)
class Artifact:
    """A file whose hash the bundle records."""

    role: str
    name: str
    sha256: str | None
    size: int | None
    source: str
