"""`compare_streaming`: read both files, pair the records, diff every pair, hand on each diff."""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from k3diff import bounded
from k3diff.errors import UsageError
from k3diff.filehash import file_sha256
from k3diff.progress import ProgressCallback, Tally
from k3diff.responses.beams import beam_note
from k3diff.responses.compareoptions import CompareOptions
from k3diff.responses.diff import DiffOptions, diff_pair, one_sided
from k3diff.responses.epochs import EPOCH_KEY_FIELD, sample_of
from k3diff.responses.ignore import parse_ignore_fields
from k3diff.responses.matchpair import MatchRow, identical
from k3diff.responses.model import ItemScore, LoadOptions, Normalization, score_number
from k3diff.responses.overview import ResponsesOverview
from k3diff.responses.packed import CONDITION, SCORES, TOKEN_IDS, unpack
from k3diff.responses.pairing import (
    OrderPairing,
    Pairing,
    pair_by_order,
    pair_records,
)
from k3diff.responses.parts import parse_path
from k3diff.responses.rerunsettings import rerun_settings
from k3diff.responses.results import RecordDiff, Status
from k3diff.responses.sampled import SampledCounter
from k3diff.responses.scoregate import ScoreGate, decide
from k3diff.responses.scores import DEFAULT_ALPHA, DEFAULT_POWER, ScoreCollector
from k3diff.responses.spill import SpilledSide, spill_side
from k3diff.responses.summary import LmEvalSummary, MetricFlips, SideInfo, Summary
from k3diff.responses.vllm_bench import FORMAT as VLLM_BENCH

RecordCallback = Callable[[RecordDiff], None]
MatchCallback = Callable[[MatchRow], None]
_MATCH = Status.MATCH.value

__all__ = [
    "CompareOptions",
    "LmEvalSummary",
    "MetricFlips",
    "ResponsesOverview",
    "SideInfo",
    "Summary",
    "SummaryCounter",
    "compare_streaming",
    "parse_key",
]


def _score(value: object) -> float:
    number = score_number(value)
    return 0.0 if number is None else number


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
        self._scores = ScoreCollector()

    def add_scores(
        self, base: tuple[ItemScore, ...], patch: tuple[ItemScore, ...], cluster: str | None
    ) -> tuple[tuple[str, str | None, float, float], ...]:
        """Take one comparable pair's eval scores (`cluster`: the inspect_ai sample it is an
        epoch of); the pairs the tests took."""
        return self._scores.add(base, patch, cluster)

    def add_matches(self, count: int, with_tokens: int) -> None:
        """Count identical pairs (`matchpair.MatchRow`), `with_tokens` of them carrying token
        ids: what `add` counts of their diffs."""
        self._statuses[_MATCH] += count
        self._paired += count
        self._exact += count
        self._token_match += with_tokens
        self._token_compared += with_tokens

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
        if diff.notes:
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

    def summary(self, unpaired_allowed: bool = False, alpha: float = DEFAULT_ALPHA) -> Summary:
        """The counts so far, and the paired score tests over them."""
        from k3diff.responses.scoretests import run_tests

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
            scores=run_tests(self._scores, alpha),
        )


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
    on_match: MatchCallback | None = None,
    displays: tuple[str, str] | None = None,
) -> ResponsesOverview:
    """Compare two responses files record by record, handing each diff to `on_record`.

    Diffs come in report order (base order, then patch-only keys in patch order). Memory stays
    bounded: each side is read once into a temporary file (`k3diff.responses.spill`), only the
    pairing keys stay in memory, and each pair is read back, compared and released; keeping the
    diffs is up to `on_record`. With `on_match`, an identical pair (`matchpair`) is handed to it
    as a `MatchRow` instead, whose diff is made only if asked for.
    """
    if options.by_order and options.key is not None:
        raise UsageError("--by-order and --key FIELD exclude each other: pair by one or the other")
    text_paths = tuple(p for p in (options.text_field, options.tokens_field) if p is not None)
    ignored = parse_ignore_fields(options.ignore_fields, text_paths)
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
        ignore_fields=tuple(tuple(path.split(".")) for path in ignored),
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
        # Without a listener no read is counted (no call per line).
        counting = (
            contextlib.nullcontext()
            if progress is None
            else bounded.counting_reads(tally.advance())
        )
        with counting:
            names = displays or (str(base_path), str(patch_path))
            base = stack.enter_context(spill_side(base_path, names[0], load_options))
            patch = stack.enter_context(spill_side(patch_path, names[1], load_options))
        _same_count_by_position(base, patch)
        # Hashed once read (a file the loader refused is named by it): a file changed meanwhile
        # records a digest `report` cannot reproduce the document from (refused, never believed).
        sides = (
            SideInfo(base.display, base.format, len(base), *file_sha256(base_path)),
            SideInfo(patch.display, patch.format, len(patch), *file_sha256(patch_path)),
        )
        pairing: Pairing | OrderPairing = (
            pair_by_order(base, patch)
            if options.by_order
            else pair_records(base, patch, options.key)
        )
        base.release_keys()
        patch.release_keys()
        beams = beam_note(base.beams, patch.beams, options.beam)
        counter, sampled = SummaryCounter(), SampledCounter()
        share = tally.share(inputs, base.spilled_bytes + patch.spilled_bytes)
        displays = (base.display, patch.display)
        volatile = options.include_volatile
        epochs = pairing.field == EPOCH_KEY_FIELD
        base_packed_at, patch_packed_at = base.packed, patch.packed
        matched = matched_tokens = 0  # identical pairs, counted once the loop is done
        for key, base_at, patch_at in pairing.pairs():
            if base_at is not None and patch_at is not None:
                base_packed, patch_packed = base_packed_at(base_at), patch_packed_at(patch_at)
                sampled.add(base_packed[CONDITION], patch_packed[CONDITION])
                if identical(base_packed, patch_packed, volatile):
                    row = MatchRow(key, base_packed, patch_packed, displays)
                    matched += 1
                    matched_tokens += base_packed[TOKEN_IDS] is not None  # row.token_match
                    if on_match is not None:
                        on_match(row)
                    else:
                        on_record(row.diff())
                    if progress is not None:
                        share.produced(_read_back(base, base_at) + _read_back(patch, patch_at))
                    continue
                diff = diff_pair(
                    key, unpack(base_packed), unpack(patch_packed), displays, diff_options
                )
                counter.add(diff)
                if diff.status is not Status.NOT_COMPARABLE:
                    cluster = sample_of(key) if epochs else None
                    took = counter.add_scores(base_packed[SCORES], patch_packed[SCORES], cluster)
                    if took:
                        diff = replace(diff, scores=took)
            else:
                diff = _one_side(key, (base, base_at), (patch, patch_at))
                counter.add(diff)
            on_record(diff)
            if progress is not None:
                share.produced(_read_back(base, base_at) + _read_back(patch, patch_at))
        counter.add_matches(matched, matched_tokens)
        share.finish()
        tally.finish()  # bytes no counted reader saw still end the line at 100 %
    summary = counter.summary(options.allow_unpaired, options.score_alpha)
    return ResponsesOverview(
        base=sides[0],
        patch=sides[1],
        key_mode=pairing.mode,
        key_field=pairing.field,
        key_explicit=pairing.explicit,
        unshared_field=pairing.unshared,
        normalize=normalize,
        include_volatile=options.include_volatile,
        ignore_fields=ignored,
        summary=summary,
        logprob_tol=options.logprob_tol,
        near_tie=options.near_tie,
        score_gate=_gate(summary, options),
        beams=beams,
        sampled=sampled.note(),
        rerun=rerun_settings(options),
    )


def _gate(summary: Summary, options: CompareOptions) -> ScoreGate | None:
    """`--fail-on score-drop`'s decisions over the score tests (None when not asked)."""
    if options.score_gate is None:
        return None
    scores = summary.scores
    if scores is None:
        return decide(
            (),
            options.score_alpha,
            DEFAULT_POWER,
            0,
            options.score_gate,
            summary.only_base,
        )
    return decide(
        scores.tests,
        scores.alpha,
        scores.power,
        scores.one_sided,
        options.score_gate,
        summary.only_base,
        scores.unscored,
    )


def _same_count_by_position(base: SpilledSide, patch: SpilledSide) -> None:
    """vllm bench results pair by position: both sides must hold as many requests."""
    if VLLM_BENCH not in (base.format, patch.format) or len(base) == len(patch):
        return
    raise UsageError(
        f"{patch.display}: {len(patch)} requests where {base.display} has {len(base)}; vllm "
        "bench serve results store no prompts, so requests pair by position and both runs "
        "must hold as many"
    )


def _file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # the loader says what is wrong with it


def _read_back(side: SpilledSide, position: int | None) -> int:
    return 0 if position is None else side.size_of(position)


def _one_side(
    key: str,
    base: tuple[SpilledSide, int | None],
    patch: tuple[SpilledSide, int | None],
) -> RecordDiff:
    """The diff of a key on one side only."""
    (base_side, base_at), (patch_side, patch_at) = base, patch
    if base_at is not None:
        return one_sided(key, base_side.record(base_at), base_side.display, is_base=True)
    assert patch_at is not None
    record = patch_side.record(patch_at)
    return one_sided(key, record, patch_side.display, is_base=False)
