"""A `k3diff sample` run's summary, read back from its log as it stands on disk: per record,
side and mode, and what the run's answers and requests show beyond their texts (answers out of
step, the models that answered, fields the sides were sent differently)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from k3diff.sample.bodies import sent_fields
from k3diff.sample.control import control_outcome, vacuous_sides
from k3diff.sample.lines import SampleLine
from k3diff.sample.load import load_summary
from k3diff.sample.log import read_log
from k3diff.sample.model import (
    PromptRecord,
    RecordStats,
    SampleOptions,
    SampleResult,
    most_common_error,
)
from k3diff.sample.names import Mode
from k3diff.sample.proof import batch_overlap
from k3diff.sample.reader import SamplesLog
from k3diff.sample.served import served_models
from k3diff.sample.sidefields import FieldDifference, side_differences
from k3diff.sampling_params import has_seed, samples_sampled


def side_urls(options: SampleOptions) -> dict[str, str]:
    """Each side's server URL (without a trailing slash), base first."""
    urls = {"base": options.base.rstrip("/")}
    if options.patch is not None:
        urls["patch"] = options.patch.rstrip("/")
    return urls


def summarise(
    options: SampleOptions,
    records: list[PromptRecord],
    skipped: int,
    taken_now: int,
    resumed: SamplesLog | None,
    perf_count: int,
) -> SampleResult:
    """Per record, side and mode, read back from the log as it stands on disk."""
    contents = read_log(options.out / "samples.jsonl")
    groups: dict[tuple[str, str, str], list[SampleLine]] = {}
    for sample in contents.samples:
        groups.setdefault((sample.key, sample.side, sample.mode), []).append(sample)
    keys = {record.key for record in records}
    stats = []
    for record in records:
        for side in side_urls(options):
            for mode in options.modes:
                stats.append(
                    dataclasses.replace(
                        _stats(
                            record.key,
                            side,
                            mode.value,
                            groups.get((record.key, side, mode.value), []),
                        ),
                        label=record.label,
                    )
                )
    planned = (
        len(records) * len(side_urls(options)) * len(options.modes) * options.repeats - skipped
    )
    if options.control is not None:
        planned += len(side_urls(options)) * options.control_repeats
    planned += sweep_extra(options, len(records), len(side_urls(options)))
    return SampleResult(
        out=options.out,
        records=tuple(stats),
        planned=planned,
        taken=sum(1 for s in contents.samples if _in_plan(s, options, keys)),
        failed=sum(1 for s in contents.samples if s.error is not None),
        common_error=most_common_error(s.error for s in contents.samples),
        taken_now=taken_now,
        torn_line_dropped=resumed is not None and resumed.torn,
        perf_metrics=perf_count,
        proxy=contents.header.fields.get("proxy"),
        run_id=contents.header.run_id,
        control=control_outcome(contents.samples) if options.control is not None else None,
        vacuous=vacuous_sides(contents.samples),
        metrics=_header_metrics(contents.header.fields.get("metrics")),
        sampled=tuple(
            side
            for side in side_urls(options)
            if any(samples_sampled(sent_fields(options, r, side)) for r in records)
        ),
        sampled_keys=tuple(
            r.key
            for r in records
            if all(samples_sampled(sent_fields(options, r, s)) for s in side_urls(options))
        ),
        seeded=tuple(
            r.key
            for r in records
            if all(has_seed(sent_fields(options, r, s)) for s in side_urls(options))
        ),
        load=load_summary(contents.samples) if Mode.LOADED in options.modes else None,
        out_of_step={
            side: sum(s.out_of_step or 0 for s in contents.samples if s.side == side)
            for side in side_urls(options)
        },
        models=served_models(
            contents.samples,
            _requested(options, records, contents.header.fields.get("request_template")),
        ),
        side_fields=side_fields(options, records),
    )


def side_fields(options: SampleOptions, records: list[PromptRecord]) -> tuple[FieldDifference, ...]:
    """The request fields the base is sent otherwise than the patch (none without a patch)."""
    if options.patch is None:
        return ()
    pairs = ((sent_fields(options, r, "base"), sent_fields(options, r, "patch")) for r in records)
    return side_differences(pairs)


def _requested(
    options: SampleOptions, records: list[PromptRecord], template: Any
) -> dict[str, list[str]]:
    """Per side, the models its requests named: a prompt's own, else the server's default
    (the header's `request_template`)."""
    defaults = template.get("default_model") if isinstance(template, dict) else None
    found = {}
    for side in side_urls(options):
        default = defaults.get(side) if isinstance(defaults, dict) else None
        named = [sent_fields(options, r, side).get("model", default) for r in records]
        found[side] = [model for model in named if isinstance(model, str)]
    return found


def _header_metrics(value: Any) -> dict[str, dict[str, Any]] | None:
    if not isinstance(value, dict):
        return None
    return {side: entry for side, entry in value.items() if isinstance(entry, dict)}


def sweep_extra(options: SampleOptions, records: int, sides: int) -> int:
    """Samples a sweep takes beyond one level's repeats (each level takes `repeats`)."""
    if Mode.SWEEP not in options.modes:
        return 0
    return records * sides * options.repeats * (len(options.levels) - 1)


def _in_plan(sample: SampleLine, options: SampleOptions, keys: set[str]) -> bool:
    """A sample of this run's plan (only those count towards `taken`)."""
    if sample.mode == Mode.CONTROL.value:
        return options.control is not None and 0 <= sample.repeat < options.control_repeats
    return (
        sample.key in keys
        and sample.side in side_urls(options)
        and sample.mode in {m.value for m in options.modes}
        and 0 <= sample.repeat < options.repeats * _levels(sample.mode, options)
    )


def _levels(mode: str, options: SampleOptions) -> int:
    return len(options.levels) if mode == Mode.SWEEP.value else 1


def _stats(key: str, side: str, mode: str, samples: list[SampleLine]) -> RecordStats:
    counts = Counter(s.text_xxh3 for s in samples if s.error is None)
    n = counts.total()
    overlap = batch_overlap(samples)
    return RecordStats(
        key=key,
        side=side,
        mode=mode,
        n=n,
        errors=len(samples) - n,
        distinct=len(counts),
        modal_share=None if n == 0 else counts.most_common(1)[0][1] / n,
        in_flight=overlap.largest,
        one_at_a_time=overlap.one_at_a_time,
        server_running=overlap.server_largest,
        server_one_at_a_time=overlap.server_one_at_a_time,
        batches=overlap.batches,
        unproven=overlap.unproven,
        by_gauge=overlap.by_gauge,
        by_token_windows=overlap.by_token_windows,
        load_failed=overlap.load_failed,
        load_idle=overlap.load_idle,
    )
