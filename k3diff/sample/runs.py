"""Sampling runs: which run a samples log belongs to, and the rule that logs of different runs
are pooled only when asked (`--pool-runs`), for every reader that pools logs (`triage`,
`telemetry`, `report`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from k3diff.errors import InputError, UsageError
from k3diff.sample.reader import SamplesLog, read_samples_log


def read_samples_logs(paths: Sequence[Path], *, pool_runs: bool = False) -> tuple[SamplesLog, ...]:
    """Read several logs that are to be pooled: they must be of one run unless `pool_runs`,
    and no sample of a run may appear twice across them."""
    logs = tuple(read_samples_log(path) for path in paths)
    check_pooled(logs, pool_runs)
    return logs


def check_pooled(logs: Sequence[SamplesLog], pool_runs: bool) -> None:
    """Raise as `read_samples_logs` does for logs already read: of different runs without
    `pool_runs` (UsageError), or a sample of a run in two of them (InputError: a log given
    twice, or a copy of it, would count every sample twice)."""
    check_one_run(logs, pool_runs)
    first: dict[tuple[str, tuple[str, str, str, int]], tuple[str, int]] = {}
    for log in logs:
        for sample, number in zip(log.samples, log.lines, strict=True):
            slot = (log.header.identity, sample.ident)
            if slot in first:
                path, line = first[slot]
                if _same_file(path, log.path):
                    # newuser65: 'run/samples.jsonl:2: repeat 0 ... is already in
                    # run/samples.jsonl:2' named one line as its own duplicate.
                    also = "" if path == log.path else f" (the same file as {path})"
                    raise UsageError(f"{log.path}: given twice{also}; give each log once")
                raise InputError(
                    f"{log.path}:{number}: repeat {sample.repeat} of {sample.side} "
                    f"{sample.key!r} ({sample.mode}) of run {log.header.identity} is already in "
                    f"{path}:{line} (a copy of a log counts every sample twice; give it once)"
                )
            first[slot] = (log.path, number)


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return one == other


@dataclass(frozen=True)
class RunInfo:
    """One run a reader pooled samples from, as its outputs list it."""

    log: str
    """The log as named."""
    run_id: str | None
    """The header's run id (None in logs written before run ids)."""
    started: str | None
    """When the run started."""
    prompts_sha256: str | None
    """SHA-256 of the prompts file the run read."""
    prompts: str | None = None
    """The prompts file as the run named it."""
    identity: str | None = None
    """What tells runs apart (`RunHeader.identity`: the run id, or a header digest)."""
    asked: int | None = None
    """The records the run asked (its header's `keys`); None where the header does not state
    what its run owed (no `log_format`: a log written before samples71, `keys` before
    triage70): a line removed from it cannot be told from one never owed, so triage holds
    every record (`unlogged`)."""


def unlisted_note(log: str) -> str:
    """What triage and the bundle say of a log whose header does not state what its run owed
    (`RunInfo.asked` None)."""
    return (
        f"{log} does not state what its run owed (no run.log_format: a log written before "
        "k3diff stated it): it cannot show every asked record was logged, so no record it "
        "holds is cleared; re-sample with this version"
    )


def run_infos(logs: Sequence[SamplesLog]) -> tuple[RunInfo, ...]:
    """Each log's run, in the order given."""
    return tuple(
        RunInfo(
            log.path,
            log.header.run_id,
            started if isinstance(started := log.header.fields.get("started"), str) else None,
            log.header.prompts_sha256,
            prompts if isinstance(prompts := log.header.fields.get("prompts"), str) else None,
            log.header.identity,
            None if not log.header.listed or log.header.keys is None else len(log.header.keys),
        )
        for log in logs
    )


def describe_run(log: SamplesLog) -> str:
    """`PATH (run ID, started T, prompts sha256 P…)`."""
    header = log.header
    parts = [f"run {header.run_id}" if header.run_id else "no run id"]
    started = header.fields.get("started")
    if isinstance(started, str):
        parts.append(f"started {started}")
    if header.prompts_sha256:
        parts.append(f"prompts sha256 {header.prompts_sha256[:12]}…")
    return f"{log.path} ({', '.join(parts)})"


def check_one_run(logs: Sequence[SamplesLog], pool_runs: bool) -> None:
    """Raise UsageError naming the runs when logs of different runs are given without
    `pool_runs`."""
    runs: dict[str, SamplesLog] = {}
    for log in logs:
        runs.setdefault(log.header.identity, log)
    if len(runs) > 1 and not pool_runs:
        listed = "; ".join(describe_run(log) for log in runs.values())
        raise UsageError(
            f"the sample logs are of {len(runs)} different runs: {listed}; pooling them mixes "
            "evidence of different runs: give the logs of one run, or --pool-runs to pool them "
            "on purpose"
        )
