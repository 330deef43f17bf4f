"""The one reader of k3diff's documents: `read_document(path)` recognises a file by its `schema`.

A JSON document names its schema in a top-level `schema` key; `k3diff.docbody` parses it and
recognises it, for this reader and for the comparison reader `triage` uses
(`k3diff.responses.document`). A `k3diff.samples/1` log is JSON Lines whose first line is the
header, read by `k3diff.sample.reader` (the one reader `sample --resume`, `telemetry` and
`triage` use too). Anything else, or a known name at a version this k3diff does not read, is
refused naming the file. Every document is checked against itself
(`k3diff.documents.checks`): one whose summary or verdict disagrees with its records is refused.
Fields the readers do not know are ignored (fields are only ever added within a version).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from k3diff import bounded
from k3diff.docbody import Kind, Streams, decode, parse_body, read_bytes
from k3diff.documents import audit, logs, telemetry, triage, wheelset, wheelsview
from k3diff.documents.audit import AuditDocument
from k3diff.documents.checks import check_document
from k3diff.documents.logs import LogsDocument
from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.triage import TriageDocument
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.errors import InputError
from k3diff.jsonmembers import Streamed
from k3diff.responses import document as responses
from k3diff.responses.document import ResponsesDocument, records_read
from k3diff.sample.lines import SampleLine
from k3diff.sample.reader import SamplesLog, looks_like_samples_log, parse_samples_log

V = TypeVar("V")


DocumentView = (
    WheelsDocument
    | WheelsetDocument
    | ResponsesDocument
    | TriageDocument
    | AuditDocument
    | LogsDocument
    | TelemetryDocument
)
"""What a JSON document's reader returns: a frozen view, each with its verdict."""

READERS: Mapping[Kind, Callable[[Mapping[str, Any], str], DocumentView]] = {
    Kind.WHEELS: wheelsview.read,
    Kind.WHEELSET: wheelset.read,
    Kind.RESPONSES: responses.read,
    Kind.TRIAGE: triage.read,
    Kind.AUDIT: audit.read,
    Kind.LOGS: logs.read,
    Kind.TELEMETRY: telemetry.read,
}
"""The typed reader of each kind: the self-check (`checks.check_document`) recounts its view, so
that a field missing or of another type is refused naming it (one line, exit 2) before any
number is compared, never read as a default."""


RERUN_KINDS: Mapping[Kind, str] = {
    Kind.WHEELS: "wheels",
    Kind.WHEELSET: "wheels",
    Kind.RESPONSES: "responses",
    Kind.TRIAGE: "triage",
    Kind.TELEMETRY: "telemetry",
    Kind.AUDIT: "audit",
    Kind.LOGS: "logs",
}
"""The kinds `report` runs again when given their inputs (the noun of the rerun's mark)."""


EVERY_LINE = "every line checked"
"""What a samples log's check is, as the bundle says it: every line read by the one samples
reader (no duplicate sample, no second header), never "cross-checked" (polish62)."""


@dataclass(frozen=True)
class Document:
    """One input file, as read."""

    name: str
    """The path exactly as given on the command line."""
    kind: Kind
    """Which schema it carries."""
    sha256: str
    """SHA-256 of the file's bytes: the input digest the bundle records."""
    size: int
    """Size of the file in bytes."""
    log: SamplesLog | None = None
    """A samples log as its one reader read it (None for the JSON documents)."""
    cross_checked: bool = False
    """Its counts and verdict were recomputed from its records and agree (for a samples log:
    every line checked, no duplicate, no second header)."""
    run_ids: tuple[str, ...] = ()
    """The sampling runs it holds or was made from (a log's run, a triage's logs' runs)."""
    view: DocumentView | None = None
    """The typed view its kind's reader built (`READERS`); None for a samples log (`log`)."""
    follows_from: str | None = None
    """For a triage: the comparison (its name as given) that triage, run again on it and the
    logs given beside it, reproduces it from (`k3diff.bundle.rederive`); None when it could
    not be run again (its comparison or logs not given). For a wheels document: "its wheels"
    when `wheels`, run again on the two wheels given beside it, reproduces it
    (`k3diff.bundle.wheelsrederive`), "its inputs" for a responses document, "its logs" for a
    telemetry or logs document; None when it is judged from the document alone."""
    inputs_read: tuple[tuple[str, str, int], ...] = ()
    """For a wheels or responses document run again on its inputs: each input's name as given,
    SHA-256 and size (the bundle lists them among its inputs)."""
    tied_read: tuple[tuple[str, str, int], ...] = ()
    """For a document judged alone: each file given beside it with the bytes it records (an
    audit's manifest), by name as given, SHA-256 and size: listed among the bundle's inputs,
    though nothing was run again on it (left68: accepted, and listed nowhere)."""
    source_read: str | None = None
    """For a wheels document run again with its `--source` check: the repository (as given to
    report) the recorded commit was checked in again; None when it was not."""
    source_names: tuple[tuple[str, str | None, str, str | None], ...] = ()
    """For a wheels document whose source check was run again: each revision name it records
    (not a full id), the ref it named, the commit recorded for it and the commit it names in the
    repository given now (None: none; rerun63)."""
    source_storage: tuple[str, ...] = ()
    """For a wheels document whose source check was run again in a directory storing the
    commit's history otherwise (replace refs, alternates: W406/W407), that qualification."""
    source_alone: bool = False
    """For a wheels document run again on its wheels but not its repository (none given holds
    its commit): its source claims are judged from the document alone (forge62)."""
    tied_by_name: bool = False
    """For a wheels document that records no SHA-256 (`--no-file-hash`), run again on the two
    wheels given with its file names and sizes: tied by reproducing it, not by digest."""
    listed_again: bool = False
    """For a release set: its two directories were among report's inputs, listed and paired
    again, and its listing agrees (`k3diff.bundle.wheelsetrederive`; rerun62)."""
    paired_again: bool | None = None
    """For a release set made from wheels given one by one, its pairs run again: whether its
    wheels on one side only were given too and the set paired again from the wheels it records
    it was given (`k3diff.bundle.wheelsetfiles`; rerun63). None for any other document."""
    kept: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """A release set's or logs document's JSON body as `read_document` parsed it, under `body`:
    what `body_again` returns, so the reruns read it once (rerun63: a release set was read
    four times); emptied by `forget_bodies` once the reruns are done."""
    house_again: TriageDocument | None = None
    """For a triage made at an α above the house α whose premise voided a first-token test the
    house α runs, given with its comparison and logs: triage run again on them at the house α
    (`k3diff.bundle.rederive.triaged_at_house`; rerun62). None otherwise."""
    one_server: str | None = None
    """For a triage or telemetry document that judged base and patch sampled from one server
    as an A/A calibration run (its `allow_same_server`, its author's word): the logs and where
    they connect ('URLS, both WHERE, in LOG'); None otherwise (`k3diff.bundle.aarun`)."""
    one_server_allowed: bool = False
    """The reviewer accepted such a run (`report --allow-same-server`); without it the bundle
    holds the document (gate74: the author's word alone passed it)."""

    @property
    def one_server_held(self) -> bool:
        """A run of one server allowed by its document's author and not by the reviewer."""
        return self.one_server is not None and not self.one_server_allowed

    @property
    def judged_alone(self) -> bool:
        """A k3diff document not run again on its inputs (`follows_from` None; a release set
        only given its wheels (rerun62), a logs document only given its two log files): checked
        against itself only, so never said to be
        cross-checked (labels61). A samples log is the evidence itself. An audit tied to the
        wheels compared by SHA-256 (`k3diff.bundle.auditfacts`) but not run again on them is
        judged alone too (review62: an A103 deleted read `cross-checked`)."""
        return self.kind is not Kind.SAMPLES and self.follows_from is None

    @property
    def checked(self) -> str:
        """What was checked, as the bundle says it: the one rule for every kind (labels61)."""
        if self.judged_alone:
            return "judged alone: self-consistent" if self.cross_checked else "not cross-checked"
        if not self.cross_checked:
            return "not cross-checked"
        if self.inputs_read and self.kind in RERUN_KINDS:
            label = f"cross-checked; {RERUN_KINDS[self.kind]} run again"
            if self.source_read is not None:
                label += f" with its source {self._source_commit()}{self._names_said()}"
            if self.source_alone:
                label += "; source claims judged alone"
            if self.tied_by_name:
                label += "; wheels found by file name and size, no SHA-256"
            if self.kind is Kind.WHEELSET:  # rerun62: every pair run again
                if self.listed_again:
                    label += "; directories listed again"
                elif self.paired_again:
                    label += "; paired again from the wheels given"
                elif self.paired_again is None:
                    label += "; unpaired and misnamed wheels judged alone"
                else:  # made from files: no misnamed wheel (rerun63)
                    label += "; pairing and unpaired wheels judged alone"
            return label
        if self.kind is Kind.TELEMETRY and self.follows_from is not None:
            return f"cross-checked; telemetry run again on {self.follows_from}"
        if self.kind is Kind.TRIAGE and self.follows_from is not None:
            # Said as the other reruns say it (polish63: it read a bare "cross-checked").
            return f"cross-checked; triage run again on {self.follows_from} and its logs"
        if self.kind is Kind.SAMPLES:
            return EVERY_LINE  # the evidence itself: nothing beside it to check it against
        return "cross-checked"

    def _names_said(self) -> str:
        """Whether its revision names name its commits in the repository given (rerun63)."""
        checks = self.source_names
        if not checks:
            return ""
        moved = [c for c in checks if c[3] != c[2]]
        if moved:
            what = "no commit" if moved[0][3] is None else "another commit"
            return f"; {moved[0][0]} names {what} in the repository given"
        names = " and ".join(c[0] for c in checks)
        return (
            f"; {names} {'names it' if len(checks) == 1 else 'name them'} in the repository given"
        )

    def _source_commit(self) -> str:
        """Which commit a wheels document's source check was run again at, by full id (`at
        commit …`, `over the range to commit …`): the repository itself is no file the bundle
        can hash and name by SHA-256 under Inputs (source62)."""
        provenance = self.view.provenance if isinstance(self.view, WheelsDocument) else None
        if provenance is None:
            return "at commit ?"
        over = "over the range to " if provenance.range is not None else "at "
        return f"{over}commit {provenance.commit}"

    @property
    def fails(self) -> bool:
        """Whether the document's own verdict fails its policy (a samples log has none)."""
        return self.view is not None and not (self.view.ok and self.view.exit_code == 0)

    @property
    def samples(self) -> tuple[SampleLine, ...]:
        """A samples log's samples, typed (empty for the JSON documents)."""
        return () if self.log is None else self.log.samples

    def typed(self, view: type[V]) -> V:
        """The typed view, as the type its kind's reader returns (TypeError for another)."""
        if not isinstance(self.view, view):
            raise TypeError(f"{self.name}: a {self.kind.value} document has no {view.__name__}")
        return self.view

    def body_again(self, what: str) -> dict[str, Any]:
        """The JSON document as written, read again for a rerun to compare with (InputError
        if it changed since it was read: its SHA-256 is what the bundle names). `what`
        names it in a refusal ("wheels document"). A body kept from the first read (`kept`)
        is returned as it is, parsed from the bytes hashed: callers never change it; a
        responses document's is every member but its `records` (`KEPT`), which a caller that
        compares them reads again one by one (`read_again`)."""
        if "body" in self.kept:
            kept: dict[str, Any] = self.kept["body"]
            return kept
        return self.read_again(what, {})

    def read_again(self, what: str, streams: Streams) -> dict[str, Any]:
        """The JSON document read again from its file (InputError if it changed since it was
        read), the array member `streams` names for its kind handed item by item to its
        reader as it is decoded (a `jsonmembers.Streamed`): rerun80, where a responses
        document's records were read whole again as dicts (≈ 4× the file) to be compared."""
        data = bounded.read_document(Path(self.name), self.name, what)
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise InputError(f"{self.name}: changed while k3diff report read it")
        text = decode(data, Path(self.name))
        del data
        return parse_body(text, Path(self.name), streams)[1]


def read_document(path: Path) -> Document:
    """Read one input, recognise its schema and check it against itself."""
    data = read_bytes(path)
    digest = hashlib.sha256(data).hexdigest()
    if looks_like_samples_log(data) or _json_lines(data):
        log = parse_samples_log(data, path)
        run_ids = (log.header.identity,)
        return Document(str(path), Kind.SAMPLES, digest, len(data), log, True, run_ids)
    size, text = len(data), decode(data, path)
    del data  # the text is all the reader needs: not both at once (stream79)
    kind, body = parse_body(text, path, {Kind.RESPONSES: records_read(str(path))})
    del text
    reader = READERS.get(kind)
    view = None if reader is None else reader(body, str(path))
    checked = check_document(view, str(path))
    read_runs = view.run_ids if isinstance(view, TriageDocument) else ()
    document = Document(str(path), kind, digest, size, None, checked, read_runs, view)
    if kind in KEPT and isinstance(body, dict):
        document.kept["body"] = _kept(body)
    return document


KEPT = frozenset({Kind.WHEELSET, Kind.LOGS, Kind.RESPONSES})
"""The kinds whose body `report` reads several times (rerun63): kept from the first read. A
responses document's records are its typed view's alone (read one by one: stream79); its other
members are kept (`report` read the whole document three times more for its sides' paths and
digests: 3 × 3.5 s CPU and ≈ 1 GB at its peak on 100,000 records)."""


def _kept(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without the members read item by item (`jsonmembers.Streamed`)."""
    return {key: value for key, value in body.items() if not isinstance(value, Streamed)}


def forget_bodies(documents: Sequence[Document]) -> None:
    """Drop the bodies kept for the reruns (`Document.kept`): the bundle reads the views. A
    responses document's members but its records stay (the bundle's qualification of one
    judged alone names its inputs from them: read again, the whole document was)."""
    for document in documents:
        if document.kind is not Kind.RESPONSES:
            document.kept.clear()


_NOT_BLANK = re.compile(rb"\S")
"""What `bytes.strip` does not strip (ASCII whitespace)."""


def _json_lines(data: bytes) -> bool:
    """The file is JSON Lines: a whole JSON object on its first line, and more lines after it.
    The samples log is the only such document k3diff reads, so its reader names what is wrong
    with it (a header of another version, or none), as it does for `triage`, `telemetry` and
    `sample --resume`, rather than "not a k3diff JSON document (Extra data)"."""
    end = data.find(b"\n")
    if end < 0 or _NOT_BLANK.search(data, end + 1) is None:  # no copy of the rest (stream79)
        return False
    first = data[:end]
    try:
        value = bounded.loads(first, "first line")
    except (json.JSONDecodeError, UnicodeDecodeError, InputError):
        return False
    return isinstance(value, dict)
