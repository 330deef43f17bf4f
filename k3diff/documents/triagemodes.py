"""The modes of a `k3diff.triage/1` record (`records[].modes`): each mode's verdict, its sides'
samples, its sweep curve and split trees, written from the frozen triage values and read back
as typed views. The rest of the document is `k3diff.documents.triage`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.documents.distribution import TriageDistribution, distribution_json, read_distribution
from k3diff.documents.triagewords import CATEGORIES, FLAGS, MODES
from k3diff.fields import NON_FINITE_WRITTEN, POSITIVE, SHARE, Fields
from k3diff.sample.names import SIDES
from k3diff.sampling_params import RequestFields
from k3diff.triage.model import ModeVerdict, SideStats, SweepPoint
from k3diff.triage.splits import SplitTree


def _side_json(side: SideStats) -> dict[str, Any]:
    return {
        "n": side.n,
        "errors": side.errors,
        "distinct": side.distinct,
        "modal_share": side.modal_share,
        "nonmodal_bound": side.nonmodal_bound,
        "deviation_ci": list(side.deviation_ci),
        "captured": side.captured,
        "in_flight": side.in_flight,
        "batches": side.batches,
        "batches_one_at_a_time": side.one_at_a_time,
        "server_running": side.server_running,
        "batches_server_one_at_a_time": side.server_one_at_a_time,
        "batches_unproven": side.unproven,
        "batches_by_gauge": side.by_gauge,
        "batches_by_token_windows": side.by_token_windows,
        "warm": side.warm,
        "cache_hits": side.cache_hits,
        "cold_cached": side.cold_cached,
    }


def mode_json(mode: ModeVerdict) -> dict[str, Any]:
    return {
        "mode": mode.mode,
        "category": mode.category.value,
        "flags": [flag.value for flag in mode.flags],
        "reason": mode.reason,
        "regression_candidate": mode.regression_candidate,
        "sampled": mode.sampled,
        "requests": _requests_json(mode.requests),
        "base": _side_json(mode.base),
        "patch": _side_json(mode.patch),
        "p": mode.p,
        "p_adjusted": mode.p_adjusted,
        "novelty": mode.novelty,
        "novelty_p": mode.novelty_p,
        "novelty_p_adjusted": mode.novelty_p_adjusted,
        "novelty_exact": mode.novelty_exact,
        "good_turing_base": mode.good_turing_base,
        "more_samples": mode.more_samples,
        "detectable": mode.detectable,
        "sweep": [
            {
                "side": p.side,
                "level": p.level,
                "n": p.n,
                "distinct": p.distinct,
                "differ_from_serial": p.differ,
            }
            for p in mode.sweep
        ],
        "splits": {tree.side: _tree_json(tree) for tree in mode.splits},
        "distribution": None if mode.distribution is None else distribution_json(mode.distribution),
    }


def _requests_json(
    requests: Mapping[str, tuple[RequestFields, ...]] | None,
) -> dict[str, list[dict[str, Any]]] | None:
    if requests is None:
        return None
    return {
        side: [
            {
                "count": fields.count,
                "temperature": fields.temperature,
                "top_p": fields.top_p,
                "top_k": fields.top_k,
                "min_p": fields.min_p,
                "seed": fields.seed,
            }
            for fields in found
        ]
        for side, found in requests.items()
    }


def _tree_json(tree: SplitTree) -> dict[str, Any]:
    return {
        "unit": tree.unit,
        "modal_samples": tree.modal_samples,
        "branches": [
            {"position": b.position, "samples": b.samples, "margin": b.margin}
            for b in tree.branches
        ],
    }


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TriageSide:
    """One side's samples of one mode (the numbers the bundle shows)."""

    n: int
    """Successful samples."""
    distinct: int
    """Distinct outputs among them."""
    nonmodal_bound: float
    """Upper confidence bound on the side's non-modal mass."""
    captured: bool = False
    """The capture is one of `n` (`--capture-mode` named this mode)."""

    @property
    def sampled(self) -> int:
        """Successful samples: `n` less the capture where it counts."""
        return self.n - self.captured


@dataclass(frozen=True)
class SplitBranch:
    """Where one output split from the modal one."""

    position: int
    """Token (or character) index of the split."""
    margin: float | None
    """Chosen minus runner-up logprob at the split (None without logprobs)."""
    from_tie: bool = False
    """No output of its side and mode was more common than another (`modal_samples` tied, or
    every output distinct): the one it split from is only the first sampled."""


@dataclass(frozen=True)
class TriageMode:
    """One mode's verdict of one record."""

    mode: str
    """serial, concurrent, ..."""
    category: str
    """The mode's category."""
    flags: tuple[str, ...]
    """The mode's flags."""
    base: TriageSide
    """The base's samples."""
    patch: TriageSide
    """The patch's samples."""
    p_adjusted: float | None
    """The corrected p-value (None when no test ran)."""
    novelty_p_adjusted: float | None
    """The corrected novelty p-value (None when no test ran)."""
    more_samples: int | None
    """Samples per side that would decide it (None when decided)."""
    sweep: tuple[SweepPoint, ...]
    """The sweep curve (empty without a sweep)."""
    splits: Mapping[str, tuple[SplitBranch, ...]]
    """Per side, the branches its outputs split at."""
    distribution: TriageDistribution | None = None
    """The output-distribution test (None: none ran, or a document from before the test)."""
    sampled: bool | None = None
    """The mode's requests sampled on both sides (None: a document written before the field
    was added within `k3diff.triage/1`, or one that omits it; `checks` then takes any mode
    whose numbers allow no test as sampled)."""
    novelty: int | None = None
    """Patch samples whose output the base never gave (None: none counted and no novelty test
    ran, as where the pooled samples hold one output)."""
    regression_candidate: bool | None = None
    """The mode's own candidacy as written (None: a document that omits it); `checks` recounts
    it from the category and the corrected p-values."""
    requests: Mapping[str, tuple[RequestFields, ...]] | None = None
    """Per side, the sampling fields its requests sent, with counts: what decided `sampled`
    (None: a document written before the field was added within `k3diff.triage/1`, or with
    it removed: `report` refuses it read alone, `unpromised`)."""
    errors: Mapping[str, int] | None = None
    """Per side, its failed requests (None: a document that omits them)."""
    unpromised: tuple[str, ...] = ()
    """The fields every mode triage writes promises (`PROMISED`) that this one lacks or holds
    null: `report` refuses the document read alone (`triagesampled.unpromised`)."""
    p: float | None = None
    """The Fisher p before correction (None when no test ran): `triagefamilies` recounts
    `p_adjusted` from the family of them."""
    novelty_p: float | None = None
    """The novelty p before correction (None when no test ran), as `p`."""


def _side(fields: Fields) -> TriageSide:
    return TriageSide(
        n=fields.integer("n"),
        distinct=fields.integer("distinct"),
        nonmodal_bound=fields.number("nonmodal_bound", SHARE),
        captured=fields.optional_boolean("captured") is True,
    )


def _sweep_point(fields: Fields) -> SweepPoint:
    return SweepPoint(
        side=fields.string("side", SIDES),
        level=fields.integer("level", POSITIVE),
        n=fields.integer("n"),
        distinct=fields.integer("distinct"),
        differ=fields.integer("differ_from_serial"),
    )


def _tree(fields: Fields) -> tuple[SplitBranch, ...]:
    """A side's branches, each marked `from_tie` where the modal count ties (as `SplitTree.tied`
    counts it)."""
    modal = fields.integer("modal_samples")
    read = tuple(fields.objects("branches"))
    tied = any(branch.integer("samples") == modal for branch in read)
    return tuple(
        SplitBranch(
            position=branch.integer("position"),
            margin=branch.optional_number("margin", NON_FINITE_WRITTEN),  # a -inf logprob
            from_tie=tied,
        )
        for branch in read
    )


def _splits(fields: Fields) -> dict[str, tuple[SplitBranch, ...]]:
    """Per side, its split branches; none for a mode written before `splits` was added within
    `k3diff.triage/1` (they are forensics the verdict does not rest on)."""
    if not fields.has("splits"):
        return {}
    splits = fields.object("splits")
    return {side: _tree(splits.object(side)) for side in splits.names(SIDES)}


def _request_fields(fields: Fields) -> RequestFields:
    return RequestFields(
        temperature=fields.optional_number("temperature"),
        top_p=fields.optional_number("top_p"),
        top_k=fields.optional_number("top_k"),
        min_p=fields.optional_number("min_p"),
        seed=fields.boolean("seed"),
        count=fields.integer("count"),
    )


def _requests(fields: Fields) -> dict[str, tuple[RequestFields, ...]] | None:
    found = fields.optional_object("requests")
    if found is None:
        return None
    return {side: found.each(side, _request_fields) for side in found.names()}


def _errors(fields: Fields) -> dict[str, int] | None:
    sides = [fields.object(name) for name in ("base", "patch")]
    if not all(side.has("errors") for side in sides):
        return None
    return {
        name: side.integer("errors") for name, side in zip(("base", "patch"), sides, strict=True)
    }


PROMISED = ("requests", "base.errors", "patch.errors")
"""What `sampled` is recounted from (`triagesampled`): each mode's requests and the failed
requests of each side they are counted against. Written in every mode since `requests` was
added within `k3diff.triage/1` (`errors` was written before it); a document without them is
older (or edited) and its `sampled` cannot be checked."""


def _unpromised(fields: Fields) -> tuple[str, ...]:
    """`PROMISED` fields the mode lacks (or, `requests`, holds null)."""
    missing = [] if fields.optional_object("requests") is not None else ["requests"]
    for side in ("base", "patch"):
        if not fields.object(side).has("errors"):
            missing.append(f"{side}.errors")
    return tuple(missing)


def read_mode(fields: Fields, alpha: float) -> TriageMode:
    fields.hold_numbers(SHARE, "detectable")
    return TriageMode(
        mode=fields.string("mode", MODES),
        category=fields.string("category", CATEGORIES),
        flags=fields.strings("flags", FLAGS),
        base=_side(fields.object("base")),
        patch=_side(fields.object("patch")),
        p_adjusted=fields.optional_number("p_adjusted", SHARE),
        novelty_p_adjusted=fields.optional_number("novelty_p_adjusted", SHARE),
        more_samples=fields.optional_integer("more_samples"),
        sweep=fields.each("sweep", _sweep_point) if fields.has("sweep") else (),
        splits=_splits(fields),
        distribution=read_distribution(fields, alpha),
        sampled=fields.optional_boolean("sampled"),
        novelty=fields.optional_integer("novelty"),
        regression_candidate=fields.optional_boolean("regression_candidate"),
        requests=_requests(fields),
        errors=_errors(fields),
        unpromised=_unpromised(fields),
        p=fields.optional_number("p", SHARE),
        novelty_p=fields.optional_number("novelty_p", SHARE),
    )
