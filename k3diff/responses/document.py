"""The `k3diff.responses/1` comparison as read back: its typed view and its one reader (each
record's in `k3diff.responses.recordview`; its self-check and the checking reader
`parse_comparison` are in `k3diff.responses.doccheck`), used by every command that reads a
comparison (`report` through `k3diff.documents.read`, `triage` through `parse_comparison`), so
that one edited document is refused with the same line by each. Its writer is
`k3diff.documents.responses`.

The reader lives here, beside the comparison's model, because `triage` reads comparisons and
sits below `documents/` (whose triage document imports the triage model); reading through
`k3diff.fields` and `k3diff.docbody`, it imports nothing above `responses/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.errors import InputError
from k3diff.fields import NONNEGATIVE, Fields, is_number
from k3diff.jsonmembers import Items, Streamed
from k3diff.responses.beams import BeamNote, read_beams
from k3diff.responses.gateview import GateView, read_gate
from k3diff.responses.recordcap import document_cap
from k3diff.responses.recordscores import check_total
from k3diff.responses.recordview import ResponsesRecord, read_record
from k3diff.responses.sampled import SampledNote, read_sampled
from k3diff.responses.scoresview import ScoresView, read_scores


@dataclass(frozen=True)
class ResponsesDocument:
    """A `k3diff.responses/1` document, typed."""

    name: str
    """The file as the user named it."""
    records: tuple[ResponsesRecord, ...]
    """Every record, in report order."""
    paired: int
    """Records present on both sides (`summary.paired`)."""
    differing: int
    """Paired records whose outputs differ (`summary.differing`)."""
    exact_match: int
    """Paired records whose texts are equal (`summary.exact_match`)."""
    only_base: int
    """Records only the base has (`summary.only_base`)."""
    only_patch: int
    """Records only the patch has (`summary.only_patch`)."""
    errors: int
    """Error records (`summary.errors`)."""
    summary: Mapping[str, Any]
    """The summary as written (the bundle records it beside the row)."""
    ok: bool
    """The document's verdict."""
    exit_code: int
    """The exit code `responses` returned."""
    scores: ScoresView | None = None
    """The paired eval-score tests (`summary.scores`), when the items carry scores."""
    fail_on: tuple[str, ...] = ()
    """The `--fail-on` gates (`fail_on`; none in documents before it)."""
    score_gate: GateView | None = None
    """`--fail-on score-drop`'s decisions (`score_gate`), when asked."""
    noise: ScoresView | None = None
    """The same tests between the base and its rerun (`noise.scores`, `--base-rerun`)."""
    noise_path: str | None = None
    """The base rerun's path as given (`noise.path`)."""
    pairing: str | None = None
    """How the records were paired (field, id, prompt-hash, order; None: not recorded)."""
    pairing_field: str | None = None
    """The `--key` field, when paired by one."""
    unshared_field: str | None = None
    """A key field every record of both sides carries whose values never meet, passed over by
    the default rule (`pairing.unshared_field`; None: none, or a document from before it)."""
    normalize: tuple[str, ...] = ()
    """The `--normalize` rules the run applied (`normalize`; none: texts compared as captured)."""
    ignore_fields: tuple[str, ...] = ()
    """The `--ignore-field` paths the run left out (`ignore_fields`; none in documents before
    it)."""
    formats: tuple[str, ...] = ()
    """The loaders that read the two captures (`base.format`, `patch.format`; those recorded)."""
    beams: BeamNote | None = None
    """Records that held beams `--beam` did not read (`beams`; None: none did, or a document
    from before resp66)."""
    sampled: SampledNote | None = None
    """Paired records whose requests sampled (`sampled`; None: none, or before hunt75)."""

    @property
    def keys(self) -> frozenset[str]:
        """Every record's key."""
        return frozenset(record.key for record in self.records)


def read(body: object, name: str) -> ResponsesDocument:
    """The typed view of a `k3diff.responses/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    summary = fields.object("summary")
    verdict = fields.object("verdict")
    noise = fields.optional_object("noise")
    pairing = fields.optional_object("pairing")
    _check_count(fields, body)
    records = fields.streamed("records", read_record)
    check_total(fields, sum(len(r.scores or ()) for r in records))
    _held(fields)
    return ResponsesDocument(
        name=name,
        records=records,
        paired=summary.integer("paired"),
        differing=summary.integer("differing"),
        exact_match=summary.integer("exact_match"),
        only_base=summary.integer("only_base"),
        only_patch=summary.integer("only_patch"),
        errors=summary.integer("errors"),
        summary=fields.as_written("summary"),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        scores=read_scores(summary.optional_object("scores")),
        noise=None if noise is None else read_scores(noise.optional_object("scores")),
        fail_on=fields.strings("fail_on") if fields.has("fail_on") else (),
        score_gate=read_gate(fields.optional_object("score_gate")),
        noise_path=None if noise is None else noise.string("path"),
        pairing=None if pairing is None else pairing.optional_string("key"),
        pairing_field=None if pairing is None else pairing.optional_string("field"),
        unshared_field=None if pairing is None else pairing.optional_string("unshared_field"),
        normalize=fields.strings("normalize") if fields.has("normalize") else (),
        ignore_fields=fields.strings("ignore_fields") if fields.has("ignore_fields") else (),
        formats=_formats(fields),
        beams=read_beams(fields.optional_object("beams")),
        sampled=read_sampled(fields, records),
    )


def records_read(name: str) -> tuple[str, Items]:
    """How the document's `records` are read as it is decoded (`docbody.Streams`): each into
    its typed view at once, its dicts dropped (stream79), refused at the record past
    `document_cap`, the rest of the document unread."""
    cap = document_cap()
    return "records", Items(
        lambda item, where: read_record(Fields(item, name, where)),
        cap,
        lambda: InputError(
            f"{name}: field 'records' holds more than {cap:,} records (twice the cap of records "
            f"a side k3diff responses reads); refused at record {cap + 1:,}"
        ),
    )


def _check_count(fields: Fields, body: object) -> None:
    """Refuse more records than a run of `responses` writes (`document_cap`), before each is
    read into its typed view (those read as the document was decoded: none past the cap)."""
    raw = body.get("records") if isinstance(body, dict) else None
    count = raw.count if isinstance(raw, Streamed) else len(raw) if isinstance(raw, list) else 0
    if count > document_cap():
        raise fields.fail(
            "records",
            f"holds {count:,} records, past {document_cap():,} (twice the cap of records a "
            "side k3diff responses reads)",
        )


def _held(fields: Fields) -> None:
    """What no view keeps, held to the ranges the schema states (readers72: a size of -1 or a
    `rerun.beam` of -1 was read, which the schema refuses): each input's size, the settings
    `rerun` records (where written: documents before forge61b have none)."""
    for side in ("base", "patch"):
        info = fields.optional_object(side)
        if info is not None:
            info.optional_integer("size")
            info.optional_sha256("sha256")
    rerun = fields.optional_object("rerun")
    if rerun is None:
        return
    for key in ("logprob_tol", "near_tie", "score_alpha"):
        rerun.optional_number(key, NONNEGATIVE)
    for key in ("beam", "max_record_bytes", "max_document_bytes"):
        rerun.optional_integer(key)
    gate = rerun.optional_object("score_gate")
    if gate is not None:
        gate.optional_number("tolerance_points", NONNEGATIVE)
        tolerances = gate.raw("tolerances")
        for index, pair in enumerate(tolerances if isinstance(tolerances, list) else ()):
            points = pair[1] if isinstance(pair, list) and len(pair) == 2 else 0
            if not is_number(points) or not NONNEGATIVE.holds(float(points)):
                raise gate.fail(f"tolerances[{index}][1]", "must be a number of at least 0")


def _formats(fields: Fields) -> tuple[str, ...]:
    sides = (fields.optional_object(side) for side in ("base", "patch"))
    found = (side.optional_string("format") for side in sides if side is not None)
    return tuple(name for name in found if name is not None)
