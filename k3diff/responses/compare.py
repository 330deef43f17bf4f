"""`compare_streaming`: read both files, pair the records, diff every pair, hand on each diff."""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from k3diff import bounded
from k3diff.errors import UsageError
from k3diff.exitcodes import ExitCode
from k3diff.progress import ProgressCallback, Tally
from k3diff.responses.diff import DiffOptions, diff_pair, one_sided
from k3diff.responses.model import LoadOptions, Normalization
from k3diff.responses.pairing import (
    KeyMode,
    OrderPairing,
    Pairing,
    describe,
    pair_by_order,
    pair_records,
)
from k3diff.responses.parts import parse_path
from k3diff.responses.results import RecordDiff, Status
from k3diff.responses.spill import SpilledSide, spill_side

RecordCallback = Callable[[RecordDiff], None]


@dataclass(frozen=True)
class CompareOptions:
    """What the user asked for."""

    key: str | None = None
    """`--key`: a field name or dotted path; None for automatic pairing."""
    normalize: tuple[Normalization, ...] = ()
    """Text normalisations applied before comparing (hashes stay of the exact text)."""
    include_volatile: bool = False
    """Compare ids, timestamps, latency and fingerprints too."""
    allow_unpaired: bool = False
    """`--allow-unpaired`: records on one side only do not fail the run (nothing paired still
    does)."""
    by_order: bool = False
    """`--by-order`: pair the Nth record of each side (both must hold as many)."""
    logprob_tol: float = 0.0
    """`--logprob-tol`: the largest |Δ logprob| over the common token prefix that agrees."""
    near_tie: float = 0.1
    """`--near-tie`: the largest gap (nats) at a divergence called a near tie."""
    text_field: str | None = None
    """`--text-field PATH`: where the text is in each raw record."""
    tokens_field: str | None = None
    """`--tokens-field PATH`: where the token ids are in each raw record."""
    beam: int = 0
    """`--beam N`: which beam of a TensorRT-LLM record is compared."""
    lm_eval_field: str = "resps"
    """`--lm-eval-field`: lm-eval's raw `resps` or its `filtered_resps`."""


@dataclass(frozen=True)
class SideInfo:
    """One input file as the report names it."""

    path: str
    """The path as the user gave it."""
    format: str
    """The loader that read it."""
    records: int
    """How many records it holds."""


@dataclass(frozen=True)
class Summary:
    """Counts over all keys."""

    records: int
    """Keys reported: paired + only_base + only_patch."""
    paired: int
    """Keys present on both sides."""
    exact_match: int
    """Pairs whose texts are byte-equal, exactly as captured."""
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
    """Pairs whose texts differ as captured but are equal after `--normalize`."""
    by_status: dict[str, int] = field(default_factory=dict)
    """Keys per status."""
    errors: int = 0
    """Paired records where a request failed (status error)."""
    unpaired_allowed: bool = False
    """`--allow-unpaired` was given: records on one side only do not fail the run."""
    logprobs_compared: int = 0
    """Pairs where both sides carry per-token logprobs."""
    logprobs_differ: int = 0
    """Of those, pairs whose logprobs moved beyond `--logprob-tol` (whatever their status)."""
    evidence_missing: int = 0
    """Pairs where token ids or logprobs are on one side only (information, never a failure)."""
    not_comparable: int = 0
    """Pairs whose prompts differ (lm-eval): neither a match nor a difference; fails the run."""
    run_state_differs: int = 0
    """Pairs whose run state (cache hits, latency) differs: reported, never a failure."""
    lm_eval: LmEvalSummary | None = None
    """The lm-eval view, counted per doc, when the inputs are lm-eval samples."""

    @property
    def unpaired(self) -> int:
        """Keys present on one side only."""
        return self.only_base + self.only_patch

    @property
    def nothing_paired(self) -> bool:
        """Not one record has a counterpart: nothing was compared."""
        return self.paired == 0


@dataclass(frozen=True)
class MetricFlips:
    """Docs whose value of one metric (under one filter) changed."""

    metric: str
    """The metric (exact_match, acc, ...)."""
    filter: str | None
    """The filter it was computed under."""
    gained: int
    """Docs where the patch scores higher."""
    lost: int
    """Docs where the patch scores lower."""


@dataclass(frozen=True)
class LmEvalSummary:
    """lm-eval counts per doc (a doc has one record per filter)."""

    field: str
    """What was compared: `resps` or `filtered_resps`."""
    docs: int
    """Docs paired."""
    docs_differing: int
    """Docs with any differing record, each counted once."""
    docs_not_comparable: int
    """Docs whose prompt differs."""
    metric_flips: tuple[MetricFlips, ...]
    """Per metric and filter, the docs that flipped in each direction."""


def _score(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


class SummaryCounter:
    """Running counts, fed one record diff at a time."""

    def __init__(self) -> None:
        self._statuses: Counter[str] = Counter()
        self._paired = self._exact = self._token_match = self._token_compared = 0
        self._differing = self._normalized = 0
        self._logprobs_compared = self._logprobs_differ = self._evidence_missing = 0
        self._run_state = 0
        self._lm_field: str | None = None
        self._docs: set[str] = set()
        self._docs_differing: set[str] = set()
        self._docs_not_comparable: set[str] = set()
        self._flips: dict[tuple[str, str | None], list[int]] = {}

    def add(self, diff: RecordDiff) -> None:
        """Count one key's diff."""
        self._statuses[diff.status.value] += 1
        if diff.base is None or diff.patch is None:
            return
        self._paired += 1
        self._exact += bool(diff.text_match)
        self._token_match += bool(diff.token_match)
        self._token_compared += diff.token_match is not None
        self._differing += diff.differs
        self._normalized += diff.normalized_match
        if diff.logprobs is not None:
            self._logprobs_compared += 1
            self._logprobs_differ += not diff.logprobs.within_tolerance
        self._evidence_missing += any(n.startswith("evidence-missing") for n in diff.notes)
        self._run_state += bool(diff.run_state_changes)
        if diff.lm_eval is not None:
            self._add_lm_eval(diff)

    def _add_lm_eval(self, diff: RecordDiff) -> None:
        lm = diff.lm_eval
        assert lm is not None
        self._lm_field = lm.field
        self._docs.add(lm.doc_id)
        if diff.differs:
            self._docs_differing.add(lm.doc_id)
        if diff.status is Status.NOT_COMPARABLE:
            self._docs_not_comparable.add(lm.doc_id)
        for metric, base, patch in lm.metric_changes:
            counts = self._flips.setdefault((metric, lm.filter), [0, 0])
            counts[0 if _score(patch) > _score(base) else 1] += 1

    def _lm_eval_summary(self) -> LmEvalSummary | None:
        if self._lm_field is None:
            return None
        return LmEvalSummary(
            field=self._lm_field,
            docs=len(self._docs),
            docs_differing=len(self._docs_differing),
            docs_not_comparable=len(self._docs_not_comparable),
            metric_flips=tuple(
                MetricFlips(metric, filt, gained, lost)
                for (metric, filt), (gained, lost) in self._flips.items()
            ),
        )

    def summary(self, unpaired_allowed: bool = False) -> Summary:
        """The counts so far."""
        return Summary(
            records=sum(self._statuses.values()),
            paired=self._paired,
            exact_match=self._exact,
            token_match=self._token_match,
            token_compared=self._token_compared,
            only_base=self._statuses[Status.ONLY_BASE.value],
            only_patch=self._statuses[Status.ONLY_PATCH.value],
            differing=self._differing,
            normalized_match=self._normalized,
            by_status=dict(self._statuses),
            errors=self._statuses[Status.ERROR.value],
            unpaired_allowed=unpaired_allowed,
            logprobs_compared=self._logprobs_compared,
            logprobs_differ=self._logprobs_differ,
            evidence_missing=self._evidence_missing,
            not_comparable=self._statuses[Status.NOT_COMPARABLE.value],
            run_state_differs=self._run_state,
            lm_eval=self._lm_eval_summary(),
        )


@dataclass(frozen=True)
class ResponsesOverview:
    """Everything `k3diff responses` found except the per-record diffs."""

    base: SideInfo
    """The base file."""
    patch: SideInfo
    """The patch file."""
    key_mode: KeyMode
    """How records were paired."""
    key_field: str | None
    """The field paired by: the `--key` field, or the client key field the default rule chose."""
    key_explicit: bool
    """The key was asked for (`--key`, `--by-order`), not chosen by the default rule."""
    normalize: tuple[Normalization, ...]
    """Normalisations applied to texts before comparing."""
    include_volatile: bool
    """Whether ids, timestamps and fingerprints were compared."""
    summary: Summary
    """Counts."""
    logprob_tol: float
    """`--logprob-tol` in force."""
    near_tie: float
    """`--near-tie` in force."""

    @property
    def pairing_label(self) -> str:
        """The pairing key as a report names it: `custom_id`, `--key meta.qid`, `prompt-hash`."""
        return describe(self.key_mode, self.key_field, self.key_explicit)

    @property
    def differs(self) -> bool:
        """Any paired record differs."""
        return self.summary.differing > 0

    @property
    def failures(self) -> tuple[str, ...]:
        """Why the comparison fails (exit 1), one short reason each; empty when it passes.

        Nothing paired always fails: no record was compared, whatever `--allow-unpaired` says.
        """
        s = self.summary
        reasons = []
        if s.nothing_paired:
            reasons.append(
                f"nothing paired: no record of the {s.only_base} in base and {s.only_patch} in "
                f"patch has a counterpart (by {self.pairing_label})"
            )
        elif s.unpaired and not s.unpaired_allowed:
            reasons.append(f"{s.unpaired} unpaired (only on one side)")
        if s.not_comparable:
            reasons.append(f"{s.not_comparable} not comparable (their prompts differ)")
        if s.differing:
            reasons.append(f"{s.differing} of {s.paired} paired differ")
            if s.by_status.get(Status.LOGPROBS_DIFFER.value):
                reasons.append(
                    f"{s.by_status[Status.LOGPROBS_DIFFER.value]} with logprobs beyond "
                    f"--logprob-tol {self.logprob_tol:g}"
                )
        return tuple(reasons)

    @property
    def exit_code(self) -> ExitCode:
        """FINDINGS when any failure reason holds, else OK."""
        return ExitCode.FINDINGS if self.failures else ExitCode.OK


def parse_key(key: str | None) -> tuple[str, ...] | None:
    """Split `--key` into path parts, rejecting empty parts."""
    if key is None:
        return None
    parts = tuple(key.split("."))
    if not all(parts):
        raise UsageError(f"--key {key!r}: empty field name in the dotted path")
    return parts


def compare_streaming(
    base_path: Path,
    patch_path: Path,
    options: CompareOptions,
    on_record: RecordCallback,
    progress: ProgressCallback | None = None,
) -> ResponsesOverview:
    """Compare two responses files record by record, handing each diff to `on_record`.

    Diffs come in report order (base order, then patch-only keys in patch order). Memory stays
    bounded: each side is read once into a temporary file (`k3diff.responses.spill`), only the
    pairing keys stay in memory, and each pair is read back, compared and released; keeping the
    diffs is up to `on_record`.
    """
    if options.by_order and options.key is not None:
        raise UsageError("--by-order and --key FIELD exclude each other: pair by one or the other")
    load_options = LoadOptions(
        parse_key(options.key),
        options.include_volatile,
        text_field=None
        if options.text_field is None
        else parse_path(options.text_field, "--text-field"),
        tokens_field=None
        if options.tokens_field is None
        else parse_path(options.tokens_field, "--tokens-field"),
        beam=options.beam,
        lm_eval_field=options.lm_eval_field,
    )
    normalize = tuple(n for n in Normalization if n in options.normalize)
    diff_options = DiffOptions(
        normalize, options.include_volatile, options.logprob_tol, options.near_tie
    )
    # Progress in bytes: the inputs as they are read, then as much again spread over the pairs
    # by the bytes of their records read back.
    inputs = _file_size(base_path) + _file_size(patch_path)
    tally = Tally(2 * inputs, progress)
    with contextlib.ExitStack() as stack:
        with bounded.counting_reads(tally.advance()):
            base = stack.enter_context(spill_side(base_path, str(base_path), load_options))
            patch = stack.enter_context(spill_side(patch_path, str(patch_path), load_options))
        sides = (
            SideInfo(base.display, base.format, len(base)),
            SideInfo(patch.display, patch.format, len(patch)),
        )
        pairing: Pairing | OrderPairing = (
            pair_by_order(base, patch)
            if options.by_order
            else pair_records(base, patch, options.key)
        )
        base.release_keys()
        patch.release_keys()
        counter = SummaryCounter()
        share = tally.share(inputs, base.spilled_bytes + patch.spilled_bytes)
        for key, base_at, patch_at in pairing.pairs():
            diff = _diff_key(key, (base, base_at), (patch, patch_at), diff_options)
            counter.add(diff)
            on_record(diff)
            if progress is not None:
                share.produced(_read_back(base, base_at) + _read_back(patch, patch_at))
        share.finish()
        tally.finish()  # bytes no counted reader saw still end the line at 100 %
    return ResponsesOverview(
        base=sides[0],
        patch=sides[1],
        key_mode=pairing.mode,
        key_field=pairing.field,
        key_explicit=pairing.explicit,
        normalize=normalize,
        include_volatile=options.include_volatile,
        summary=counter.summary(unpaired_allowed=options.allow_unpaired),
        logprob_tol=options.logprob_tol,
        near_tie=options.near_tie,
    )


def _file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # the loader says what is wrong with it


def _read_back(side: SpilledSide, position: int | None) -> int:
    return 0 if position is None else side.size_of(position)


def _diff_key(
    key: str,
    base: tuple[SpilledSide, int | None],
    patch: tuple[SpilledSide, int | None],
    options: DiffOptions,
) -> RecordDiff:
    (base_side, base_at), (patch_side, patch_at) = base, patch
    if base_at is not None and patch_at is not None:
        return diff_pair(
            key,
            base_side.record(base_at),
            patch_side.record(patch_at),
            (base_side.display, patch_side.display),
            options,
        )
    if base_at is not None:
        return one_sided(key, base_side.record(base_at), base_side.display, is_base=True)
    assert patch_at is not None
    return one_sided(key, patch_side.record(patch_at), patch_side.display, is_base=False)
