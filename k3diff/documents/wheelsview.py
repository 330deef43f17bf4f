"""The typed reader of the `k3diff.wheels/1` document (`read`): what the bundle, the release
set's reader and the self-checks read of it. Apart from the writer (`documents.wheels`), so that
writing the document defines none of these classes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from k3diff.documents.findingview import FindingView, read_finding, waived_count
from k3diff.documents.wheelsrerun import WheelsRerun, read_rerun
from k3diff.fields import POSITIVE, Fields, words
from k3diff.provenance.check import SourceStatus
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.surfacekinds import SurfaceKind
from k3diff.wheels.proof import How, Status
from k3diff.wheels.surfaces import SurfaceStatus

__all__ = [
    "WheelsDocument",
    "WheelsEntry",
    "WheelsProvenance",
    "read",
    "read_fields",
]


@dataclass(frozen=True)
class WheelsSide:
    """One wheel of the pair, as the document names it."""

    path: str
    """The wheel file as given."""
    name: str | None
    """The distribution's name (None when the wheel does not say)."""
    version: str | None
    """The distribution's version (None when the wheel does not say)."""
    sha256: str | None
    """SHA-256 of the file (None under --no-file-hash)."""
    size: int
    """Size of the file in bytes."""
    tags: tuple[str, ...] = ()
    """Compatibility tags from WHEEL (`tags`), as written."""
    stated: tuple[str, ...] = ()
    """Each commit the wheel states it was built from, as ``<id> (read from <entry> <field>)``
    (`stated_commits`; empty when it states none)."""


@dataclass(frozen=True)
class WheelsCounts:
    """One kind's entry counts (`summary.<kind>`)."""

    total: int
    """Entries of the kind on either side."""
    identical: int
    """Entries proven identical."""
    changed: int
    """Entries whose content differs."""
    missing: int
    """Entries of the base the patch lacks."""
    added: int
    """Entries of the patch the base lacks."""

    def as_dict(self) -> dict[str, int]:
        """The counts in the document's order."""
        return {
            "total": self.total,
            "identical": self.identical,
            "changed": self.changed,
            "missing": self.missing,
            "added": self.added,
        }


@dataclass(frozen=True)
class WheelsEntry:
    """One entry of `entries`."""

    path: str
    """The entry's path (the patch's, or the base's when missing from the patch)."""
    kind: str
    """native, python, metadata or other."""
    status: str
    """identical, changed, missing or added."""
    how: str
    """The evidence behind the status (`raw-bytes`, `content`, `size`, ...)."""
    base_size: int | None
    """Uncompressed size in the base (None when missing there)."""
    patch_size: int | None
    """Uncompressed size in the patch (None when missing there)."""
    base_crc32: str | None = None
    """CRC-32 in the base, as hex (None when missing there)."""
    patch_crc32: str | None = None
    """CRC-32 in the patch, as hex (None when missing there)."""
    corrupt: str | None = None
    """Why a stream fails its CRC-32 or size (W604), None for one that reads whole or unread."""
    source: str | None = None
    """Its source check's status (`source.status`: match, mismatch, ...), None when unchecked."""


@dataclass(frozen=True)
class WheelsProvenance:
    """The source check's run facts (`provenance`)."""

    repo: str
    """The repository checked against."""
    rev: str | None
    """The revision given (None for a range)."""
    range: str | None
    """The range given (None for one revision)."""
    commit: str
    """The full commit id checked against."""
    summary: Mapping[str, int]
    """Python files per source status (match, mismatch, absent, stale, unverifiable,
    generated)."""
    head_commit: str | None = None
    """The repository's HEAD commit when one revision was checked (absent from a document
    written before setupstop76, and for a range)."""


@dataclass(frozen=True)
class SurfaceChangeView:
    """One execution surface base → patch (`execution_surfaces.changes`)."""

    kind: str
    """The surface's kind (pth, entry-point, script, ...)."""
    key: str
    """What names the surface."""
    status: str
    """unchanged, changed, added or removed."""
    base: str | None
    """What runs in the base (None when absent there)."""
    patch: str | None
    """What runs in the patch (None when absent there)."""


@dataclass(frozen=True)
class WheelsDocument:
    """A `k3diff.wheels/1` document, typed: what the bundle reads of it."""

    base: WheelsSide
    """The base wheel."""
    patch: WheelsSide
    """The patch wheel."""
    summary: Mapping[str, WheelsCounts]
    """Entry counts per kind, every kind of `EntryKind` present."""
    entries: tuple[WheelsEntry, ...]
    """Every paired or one-sided entry."""
    findings: tuple[FindingView, ...]
    """Every finding."""
    ok: bool
    """The document's verdict."""
    exit_code: int
    """The exit code `wheels` returned."""
    different_distributions: bool
    """The two wheels are different distributions (W606)."""
    provenance: WheelsProvenance | None
    """The source check, None without --source."""
    surface_changes: tuple[SurfaceChangeView, ...] | None
    """Execution surfaces base → patch, None when not computed."""
    filtered: tuple[FilteredView, ...] = ()
    """Findings left out by --select/--ignore (`verdict.filtered`), empty when none were."""
    unverified_streams: int = 0
    """Pairs proven identical by equal compressed bytes whose streams' CRC-32 and size were not
    checked (`verdict.unverified_streams`, --no-file-hash), 0 when every one was."""
    verified_streams: int = 0
    """Pairs proven identical by equal compressed bytes whose streams were read to their ends and
    passed their CRC-32 and size (`verdict.verified_streams`, the default run), 0 when none."""
    waived: int = 0
    """Findings a `--waivers` file covered, as its `waivers.waived` says (0 without one)."""
    waivers_listed: frozenset[int] | None = None
    """The numbers of the waivers its `waivers` section lists as expired or unused (those
    applied are on their findings); None without the section."""
    rerun: WheelsRerun | None = None
    """Every setting the run recorded (`rerun`, forge62); None in a document written before."""
    script_images: Mapping[str, str] = field(default_factory=dict)
    """The image each native copied script of the patch is (`elf64:62`, `pe`), by its archive
    path (`execution_surfaces.patch[].native`): what a W708 marked native is written for."""
    stamped_sizes: Mapping[str, int] = field(default_factory=dict)
    """The header source size of each timestamp pyc of the patch, by surface key
    (`execution_surfaces.patch[].bytecode.stamped_size`): what W716 is written for."""
    explain: bool = False
    """The run explained each changed native (`explain`, written only when `--explain` was
    given)."""


@dataclass(frozen=True)
class FilteredView:
    """One code `--select`/`--ignore` left out (`verdict.filtered`)."""

    code: str
    """The finding code."""
    count: int
    """How many findings of it were left out."""
    would_fail: bool
    """Whether they would have failed the run."""


def _filtered(fields: Fields) -> FilteredView:
    return FilteredView(
        code=fields.string("code"),
        count=fields.integer("count"),
        would_fail=fields.boolean("would_fail"),
    )


def _side(fields: Fields) -> WheelsSide:
    return WheelsSide(
        path=fields.string("path"),
        name=fields.optional_string("name"),
        version=fields.optional_string("version"),
        sha256=fields.optional_sha256("sha256"),
        size=fields.integer("size"),
        tags=fields.strings("tags") if fields.has("tags") else (),
        stated=tuple(map(_stated, fields.objects("stated_commits")))
        if fields.has("stated_commits")
        else (),
    )


def _stated(fields: Fields) -> str:
    dirty = "; a dirty build" if fields.boolean("dirty") else ""
    where = f"{fields.string('path')} {fields.string('field')}"
    return f"{fields.string('commit')} (read from {where}{dirty})"


def _counts(fields: Fields) -> WheelsCounts:
    return WheelsCounts(*(fields.integer(status) for status in _STATUSES))


_STATUSES = ("total", "identical", "changed", "missing", "added")


def _entry(fields: Fields) -> WheelsEntry:
    source = fields.optional_object("source")
    return WheelsEntry(
        path=fields.string("path"),
        kind=fields.string("kind", words(EntryKind)),
        status=fields.string("status", words(Status)),
        how=fields.string("how", words(How)),
        base_size=fields.optional_integer("base_size"),
        patch_size=fields.optional_integer("patch_size"),
        base_crc32=fields.optional_string("base_crc32"),
        patch_crc32=fields.optional_string("patch_crc32"),
        corrupt=fields.optional_string("corrupt"),
        source=None if source is None else source.string("status", words(SourceStatus)),
    )


def _provenance(fields: Fields) -> WheelsProvenance:
    return WheelsProvenance(
        repo=fields.string("repo"),
        rev=fields.optional_string("rev"),
        range=fields.optional_string("range"),
        commit=fields.string("commit"),
        summary=fields.counts("summary"),
        head_commit=fields.optional_string("head_commit"),
    )


def _surface_change(fields: Fields) -> SurfaceChangeView:
    return SurfaceChangeView(
        kind=fields.string("kind", words(SurfaceKind)),
        key=fields.string("key"),
        status=fields.string("status", words(SurfaceStatus)),
        base=fields.optional_string("base"),
        patch=fields.optional_string("patch"),
    )


def read(body: object, name: str) -> WheelsDocument:
    """The typed view of a `k3diff.wheels/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    return read_fields(Fields(body, name))


def read_fields(fields: Fields) -> WheelsDocument:
    """The typed view of a `k3diff.wheels/1` document at `fields` (a whole file, or a pair of a
    release set, whose errors name its path in the set)."""
    summary = fields.object("summary")
    verdict = fields.object("verdict")
    provenance = fields.optional_object("provenance")
    surfaces = fields.optional_object("execution_surfaces")
    rerun = fields.optional_object("rerun")
    images, sizes = _patch_surfaces(surfaces) if surfaces is not None else ({}, {})
    return WheelsDocument(
        base=_side(fields.object("base")),
        patch=_side(fields.object("patch")),
        summary={kind.value: _counts(summary.object(kind.value)) for kind in EntryKind},
        entries=fields.each("entries", _entry),
        findings=fields.each("findings", read_finding),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        different_distributions=verdict.boolean("different_distributions"),
        provenance=None if provenance is None else _provenance(provenance),
        surface_changes=None if surfaces is None else surfaces.each("changes", _surface_change),
        filtered=verdict.each("filtered", _filtered) if verdict.has("filtered") else (),
        unverified_streams=(
            verdict.integer("unverified_streams", POSITIVE)
            if verdict.has("unverified_streams")
            else 0
        ),
        verified_streams=(
            verdict.integer("verified_streams", POSITIVE) if verdict.has("verified_streams") else 0
        ),
        waived=waived_count(fields),
        waivers_listed=_listed(fields.optional_object("waivers")),
        rerun=None if rerun is None else read_rerun(rerun),
        script_images=images,
        stamped_sizes=sizes,
        explain=fields.optional_boolean("explain") is True,
    )


def _listed(waivers: Fields | None) -> frozenset[int] | None:
    """`WheelsDocument.waivers_listed`: the expired and unused waivers' numbers."""
    if waivers is None:
        return None
    return frozenset(
        number
        for key in ("expired", "unused")
        for number in waivers.each(key, lambda item: item.integer("number"))
    )


def _patch_surfaces(surfaces: Fields) -> tuple[dict[str, str], dict[str, int]]:
    """`WheelsDocument.script_images` and `stamped_sizes` of `execution_surfaces`, each
    surface's kind one k3diff writes."""
    images, sizes = {}, {}
    for side in ("base", "patch"):
        for surface in surfaces.objects(side) if surfaces.has(side) else ():
            surface.string("kind", words(SurfaceKind))  # readers72: any word was read
    for surface in surfaces.objects("patch") if surfaces.has("patch") else ():
        if surface.has("native"):
            images[surface.string("entry")] = surface.string("native")
        bytecode = surface.optional_object("bytecode")
        if bytecode is not None and bytecode.has("stamped_size"):
            sizes[surface.string("key")] = bytecode.integer("stamped_size")
    return images, sizes
