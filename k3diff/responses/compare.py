"""`compare_responses`: load both files, pair the records, diff every pair."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k3diff.errors import UsageError
from k3diff.responses.diff import SIMILARITY_METHOD, diff_pair, one_sided
from k3diff.responses.loaders import load_side
from k3diff.responses.model import LoadOptions, Normalization
from k3diff.responses.pairing import KeyMode, pair_records
from k3diff.responses.results import RecordDiff, Status

SCHEMA = "k3diff.responses/1"

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class CompareOptions:
    """What the user asked for."""

    key: str | None = None
    """`--key`: a field name or dotted path; None for automatic pairing."""
    normalize: tuple[Normalization, ...] = ()
    """Text normalisations applied before comparing (hashes stay of the exact text)."""
    include_volatile: bool = False
    """Compare ids, timestamps, latency and fingerprints too."""


@dataclass(frozen=True)
class SideInfo:
    """One input file as the report names it."""

    path: str
    """The path as the user gave it."""
    format: str
    """The loader that read it."""
    records: int
    """How many records it holds."""

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "format": self.format, "records": self.records}


@dataclass(frozen=True)
class Summary:
    """Counts over all keys."""

    records: int
    """Keys reported: paired + only_base + only_patch."""
    paired: int
    """Keys present on both sides."""
    exact_match: int
    """Pairs whose texts are equal (after the reported normalisations)."""
    token_match: int
    """Pairs whose token ids are equal."""
    token_compared: int
    """Pairs where both sides have token ids."""
    only_base: int
    """Keys only in the base file."""
    only_patch: int
    """Keys only in the patch file."""
    differing: int
    """Pairs with any difference (text, token ids or other fields)."""
    normalized_match: int
    """Pairs that match only thanks to `--normalize`."""
    by_status: dict[str, int] = field(default_factory=dict)
    """Keys per status."""

    def to_json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "paired": self.paired,
            "exact_match": self.exact_match,
            "token_match": self.token_match,
            "token_compared": self.token_compared,
            "only_base": self.only_base,
            "only_patch": self.only_patch,
            "differing": self.differing,
            "normalized_match": self.normalized_match,
            "by_status": {status.value: self.by_status.get(status.value, 0) for status in Status},
        }


@dataclass(frozen=True)
class ResponsesComparison:
    """Everything `k3diff responses` found."""

    base: SideInfo
    """The base file."""
    patch: SideInfo
    """The patch file."""
    key_mode: KeyMode
    """How records were paired."""
    key_field: str | None
    """The `--key` field, when given."""
    normalize: tuple[Normalization, ...]
    """Normalisations applied to texts before comparing."""
    include_volatile: bool
    """Whether ids, timestamps, latency and fingerprints were compared."""
    records: tuple[RecordDiff, ...]
    """One diff per key: base order first, then patch-only keys in patch order."""
    summary: Summary
    """Counts."""

    @property
    def differs(self) -> bool:
        """Any paired record differs (the exit-1 condition)."""
        return self.summary.differing > 0

    def worst_first(self) -> list[RecordDiff]:
        """Records sorted worst first: status, then lowest similarity, then key."""
        return sorted(
            self.records,
            key=lambda r: (r.status.rank, 1.0 if r.similarity is None else r.similarity, r.key),
        )

    def to_json(self, with_records: bool = True) -> dict[str, Any]:
        """The `k3diff.responses/1` document (without `records` when `with_records` is False)."""
        document = {
            "schema": SCHEMA,
            "base": self.base.to_json(),
            "patch": self.patch.to_json(),
            "pairing": {"key": self.key_mode.value, "field": self.key_field},
            "normalize": [n.value for n in self.normalize],
            "include_volatile": self.include_volatile,
            "similarity": SIMILARITY_METHOD,
            "summary": self.summary.to_json(),
        }
        if with_records:
            document["records"] = [record.to_json() for record in self.records]
        return document


def parse_key(key: str | None) -> tuple[str, ...] | None:
    """Split `--key` into path parts, rejecting empty parts."""
    if key is None:
        return None
    parts = tuple(key.split("."))
    if not all(parts):
        raise UsageError(f"--key {key!r}: empty field name in the dotted path")
    return parts


def compare_responses(
    base_path: Path,
    patch_path: Path,
    options: CompareOptions,
    progress: ProgressCallback | None = None,
) -> ResponsesComparison:
    """Compare two responses files record by record.

    Records are released as soon as their pair is compared, so peak memory is about the two
    loaded sides, not the sides plus the results.
    """
    load_options = LoadOptions(parse_key(options.key), options.include_volatile)
    normalize = tuple(n for n in Normalization if n in options.normalize)
    base = load_side(base_path, str(base_path), load_options)
    patch = load_side(patch_path, str(patch_path), load_options)
    base_info = SideInfo(base.display, base.format, len(base.records))
    patch_info = SideInfo(patch.display, patch.format, len(patch.records))
    pending = pair_records(base, patch, options.key)
    base.records.clear()
    patch.records.clear()
    pending.pairs.reverse()
    diffs: list[RecordDiff] = []
    total = len(pending.pairs)
    while pending.pairs:
        pair = pending.pairs.pop()
        if pair.base is not None and pair.patch is not None:
            diff = diff_pair(
                pair.key, pair.base, pair.patch, (base, patch), normalize, options.include_volatile
            )
        elif pair.base is not None:
            diff = one_sided(pair.key, pair.base, base, is_base=True)
        else:
            assert pair.patch is not None
            diff = one_sided(pair.key, pair.patch, patch, is_base=False)
        diffs.append(diff)
        if progress is not None:
            progress(len(diffs), total)
    return ResponsesComparison(
        base=base_info,
        patch=patch_info,
        key_mode=pending.mode,
        key_field=options.key,
        normalize=normalize,
        include_volatile=options.include_volatile,
        records=tuple(diffs),
        summary=_summarize(diffs),
    )


def _summarize(diffs: list[RecordDiff]) -> Summary:
    statuses = Counter(diff.status.value for diff in diffs)
    paired = [d for d in diffs if d.base is not None and d.patch is not None]
    return Summary(
        records=len(diffs),
        paired=len(paired),
        exact_match=sum(1 for d in paired if d.text_match),
        token_match=sum(1 for d in paired if d.token_match),
        token_compared=sum(1 for d in paired if d.token_match is not None),
        only_base=statuses[Status.ONLY_BASE.value],
        only_patch=statuses[Status.ONLY_PATCH.value],
        differing=sum(1 for d in paired if d.differs),
        normalized_match=sum(1 for d in paired if d.normalized_match),
        by_status=dict(statuses),
    )
