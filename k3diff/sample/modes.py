"""The ways of sending identical requests; each takes what the log does not hold yet.

- serial: one request in flight across both servers. For each record, repeat r sends base then
  patch when r is even and patch then base when it is odd, so drift over time hits both alike.
- concurrent: the repeats of a record go out in batches of C identical requests in flight
  together, one side's batch after the other's (alternating which side goes first).
- loaded: each server is kept busy by C-1 requests for other prompts (the same prompt when the
  file holds only one; texts discarded, failures counted: `k3diff.sample.load`) for the whole
  mode, while the target requests run one at a time, sides alternating as in serial.
- cold-warm: per record and side, a cold request (cache flushed, or a fresh `cache_salt`), then
  the other repeats warm under the same salt, one at a time.
- sweep: per concurrency level L, the repeats in batches of L identical requests in flight.
- the control (`--control`, before the modes): the first prompt K times per side at
  temperature 1 with distinct seeds.

Every concurrent, loaded and sweep sample names its batch; the overlap proof is
`k3diff.sample.overlap`'s.

Each returns how many planned samples `--adaptive` made unnecessary. After each batch (a serial
round, a concurrent or sweep batch, on its own server, labelled with a request of it: telem70; a
loaded round) `/perf_metrics` is drained where offered.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from k3diff.errors import ServerError
from k3diff.sample.model import PromptRecord
from k3diff.sample.names import COLD_REPEAT, Mode
from k3diff.sample.sampler import Sampler

LOAD_ERROR_PAUSE = 0.5
"""Seconds a load worker waits after a failed request, so a dead server is not hammered."""


@dataclass(frozen=True)
class Plan:
    """What every scheduler needs to know."""

    records: Sequence[PromptRecord]
    sides: tuple[str, ...]
    repeats: int
    concurrency: int
    adaptive: bool
    levels: tuple[int, ...] = (1, 2, 4, 8)


async def together(*requests: Awaitable[Any]) -> None:
    """Run `requests` at once, as `asyncio.gather` does; when one raises (a server that is no
    completion server stops the run), the others are cancelled and awaited before the error
    goes on, so none is left running, or writing to the log, behind it."""
    tasks = [asyncio.ensure_future(request) for request in requests]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _order(sides: tuple[str, ...], turn: int) -> tuple[str, ...]:
    return sides if turn % 2 == 0 else sides[::-1]


def _unneeded(sampler: Sampler, plan: Plan, key: str, mode: str) -> int:
    """Samples of a decided record that the log does not hold (adaptive stops)."""
    return sum(
        1
        for side in plan.sides
        for repeat in range(plan.repeats)
        if (side, key, mode, repeat) not in sampler.done
    )


def _decided(sampler: Sampler, plan: Plan, key: str, mode: str) -> bool:
    return plan.adaptive and sampler.tally.decisive(key, mode, len(plan.sides) > 1)


def _rounds(plan: Plan, size: int) -> list[range]:
    """The repeats of each round: `size` from each multiple of `size`, the last one short."""
    return [range(s, min(plan.repeats, s + size)) for s in range(0, plan.repeats, size)]


def _partial(sampler: Sampler, plan: Plan, key: str, mode: str, repeats: range) -> bool:
    """Some side has a line of these repeats and some side lacks one."""
    ids = [(side, key, mode, repeat) for side in plan.sides for repeat in repeats]
    held = sum(1 for sample_id in ids if sample_id in sampler.done)
    return 0 < held < len(ids)


Round = Callable[[int, range], Awaitable[None]]
"""Take what a round (its turn, its repeats) lacks on each side."""


async def _stop(
    sampler: Sampler, plan: Plan, key: str, mode: str, rounds: list[range], take: Round
) -> int:
    """An adaptive stop: first every round some side has a line of is finished on every side,
    so the log holds whole rounds as `owed` reads a stop (samples72: before, a run resumed
    after a kill mid-round, or with `--repeats` grown past a short last round at concurrency
    2, stopped with a round part-logged, and triage and telemetry held the record `unlogged`
    where nothing was edited and `--resume` took nothing more); then the samples it made
    unnecessary."""
    for turn, repeats in enumerate(rounds):
        if _partial(sampler, plan, key, mode, repeats):
            await take(turn, repeats)
    return _unneeded(sampler, plan, key, mode)


async def run_serial(sampler: Sampler, plan: Plan) -> int:
    return await _one_at_a_time(sampler, plan, Mode.SERIAL.value, [""])


async def run_concurrent(sampler: Sampler, plan: Plan) -> int:
    mode = Mode.CONCURRENT.value
    skipped = 0
    rounds = _rounds(plan, plan.concurrency)
    for record in plan.records:

        async def batch(turn: int, repeats: range, record: PromptRecord = record) -> None:
            for side in _order(plan.sides, turn):
                todo = [r for r in repeats if (side, record.key, mode, r) not in sampler.done]
                if not todo:
                    continue
                await sampler.flush()
                label = f"{mode}:{side}:{record.key}:{repeats.start}"
                await together(*(sampler.take(side, record, mode, r, label) for r in todo))
                # Its own server's, labelled with a request of it (telem70): the other's drain
                # came before that server's batch, and counted it as sent.
                await sampler.drain_perf(mode, record.key, todo[0], sides=(side,))

        for turn, repeats in enumerate(rounds):
            if _decided(sampler, plan, record.key, mode):
                skipped += await _stop(sampler, plan, record.key, mode, rounds, batch)
                break
            await batch(turn, repeats)
    return skipped


async def run_loaded(sampler: Sampler, plan: Plan) -> int:
    current = [""]
    async with _background_load(sampler, plan, current):
        return await _one_at_a_time(sampler, plan, Mode.LOADED.value, current)


async def _one_at_a_time(sampler: Sampler, plan: Plan, mode: str, current: list[str]) -> int:
    """Target requests one at a time, record by record, sides alternating per repeat.

    `current` is set to the record being sampled (the load workers skip it)."""
    skipped = 0
    rounds = _rounds(plan, 1)
    for record in plan.records:
        current[0] = record.key

        async def one(turn: int, repeats: range, record: PromptRecord = record) -> None:
            repeat = repeats.start  # a round of one repeat a side, sides alternating by it
            took = False
            for side in _order(plan.sides, turn):
                if (side, record.key, mode, repeat) not in sampler.done:
                    await sampler.flush()
                    batch = (
                        None
                        if mode == Mode.SERIAL.value
                        else f"{mode}:{side}:{record.key}:{repeat}"
                    )
                    await sampler.take(side, record, mode, repeat, batch)
                    took = True
            if took:
                await sampler.drain_perf(mode, record.key, repeat)

        for turn, repeats in enumerate(rounds):
            if _decided(sampler, plan, record.key, mode):
                skipped += await _stop(sampler, plan, record.key, mode, rounds, one)
                break
            await one(turn, repeats)
    return skipped


@contextlib.asynccontextmanager
async def _background_load(sampler: Sampler, plan: Plan, current: list[str]) -> AsyncIterator[None]:
    """C-1 workers per side, each sending other prompts back to back until the mode ends."""
    workers = max(0, plan.concurrency - 1)
    tasks = [
        asyncio.create_task(_load_worker(sampler, side, plan.records, current, offset))
        for side in plan.sides
        for offset in range(workers)
    ]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _load_worker(
    sampler: Sampler, side: str, records: Sequence[PromptRecord], current: list[str], offset: int
) -> None:
    """Send other prompts to `side` back to back; each one's end is counted in `sampler.load`
    (a failure too, a body that is no completion included: it is recorded, never swallowed)."""
    cycle = itertools.islice(itertools.cycle(records), offset, None)
    for record in cycle:
        if record.key == current[0] and len(records) > 1:
            continue
        try:
            error = (await sampler.send(side, record)).error
        except ServerError as exc:  # no completion, or no stream: the load did not run
            error = str(exc)
        sampler.load.ended(side, error)
        if error is not None:
            await asyncio.sleep(LOAD_ERROR_PAUSE)


async def run_control(sampler: Sampler, plan: Plan, kind: str, repeats: int) -> None:
    """The control: the first prompt `repeats` times per side, one at a time, at temperature 1
    with a distinct seed each (`nonce`: and a random suffix on the prompt)."""
    record = plan.records[0]
    mode = Mode.CONTROL.value
    for repeat in range(repeats):
        for side in _order(plan.sides, repeat):
            if (side, record.key, mode, repeat) not in sampler.done:
                body = control_body(sampler.base_body(side, record), repeat, kind)
                await sampler.take(side, record, mode, repeat, body=body)
    # Its `/perf_metrics` records on their own (telemetry66): before, the first mode's drain
    # took them, and the control's reused KV blocks counted as that mode's cache reuse.
    if repeats:
        await sampler.drain_perf(mode, record.key, repeats - 1)


async def run_cold_warm(sampler: Sampler, plan: Plan) -> int:
    """Per record and side: a cold request (the cache flushed when `--flush-url`, else under a
    fresh `cache_salt`), then the other repeats warm under the same salt, one at a time. A
    resumed run's first repeat of a record is that cold request (a new salt, a new flush)."""
    mode = Mode.COLD_WARM.value
    for index, record in enumerate(plan.records):
        for side in _order(plan.sides, index):
            todo = [
                r for r in range(plan.repeats) if (side, record.key, mode, r) not in sampler.done
            ]
            if not todo:
                continue
            salt = uuid.uuid4().hex
            body = {**sampler.base_body(side, record), "cache_salt": salt}
            if sampler.flush_url is not None:
                await sampler.flush()
                body = sampler.base_body(side, record)
            for repeat in todo:
                # The first repeat sent is cold: repeat 0, or, resumed, the first still to do
                # (a fresh salt or a flush now): logged `cold`, not counted warm (left67).
                cold = repeat == todo[0] and repeat != COLD_REPEAT
                await sampler.take(side, record, mode, repeat, body=body, cold=cold)
                if repeat == todo[0] or repeat == todo[-1]:
                    # The cold request's `/perf_metrics` drained on their own (telem67): its
                    # reused KV blocks are no cache reuse but a salt or flush that did not take.
                    # Its server's only (telem68b): the other's drain, labelled with this
                    # request, would hold that server's leftovers under the label.
                    await sampler.drain_perf(mode, record.key, repeat, cold, sides=(side,))
    return 0


async def run_sweep(sampler: Sampler, plan: Plan) -> int:
    """Per level L of `plan.levels`, per record and side: the repeats in batches of L
    identical requests in flight together (level 1: one at a time)."""
    mode = Mode.SWEEP.value
    for index, level in enumerate(plan.levels):
        for record in plan.records:
            for turn, start in enumerate(range(0, plan.repeats, level)):
                repeats = range(start, min(plan.repeats, start + level))
                for side in _order(plan.sides, turn):
                    numbers = [index * plan.repeats + r for r in repeats]
                    todo = [n for n in numbers if (side, record.key, mode, n) not in sampler.done]
                    if not todo:
                        continue
                    await sampler.flush()
                    batch = f"{mode}:{level}:{side}:{record.key}:{start}"
                    await together(
                        *(sampler.take(side, record, mode, n, batch, level=level) for n in todo)
                    )
                    # telem70: before, a sweep drained nothing, and its records went to the
                    # next drain, counted there as that mode's.
                    await sampler.drain_perf(mode, record.key, todo[0], sides=(side,))
    return 0


NEEDLE_FILLER = (
    "Summarise the following notes in full detail, keeping every number. "
    + "The committee met on the third day and reviewed the quarterly figures, the staffing "
    "plan, the open incidents and the schedule for the next release; each item was discussed "
    "at length and the minutes record every objection raised. " * 12
)
"""The built-in long filler prompt of needle mode (a numbered variant per filler)."""
MIXED_WORDS = ("alpha", "beta", "gamma", "delta", "omega", "report", "value", "the", "of", "and")


def _needle_fillers(rng: random.Random, count: int) -> list[str]:
    return [f"[{rng.randrange(10**6)}] {NEEDLE_FILLER}" for _ in range(count)]


def _mixed_fillers(rng: random.Random, count: int) -> list[str]:
    return [
        " ".join(rng.choice(MIXED_WORDS) for _ in range(rng.randint(1, 600))) for _ in range(count)
    ]


def filler_body(body: dict[str, Any], text: str) -> dict[str, Any]:
    """The target's request with its prompt (or messages) replaced by a filler."""
    if "messages" in body:
        return {**body, "messages": [{"role": "user", "content": text}]}
    return {**body, "prompt": text}


async def run_needle(sampler: Sampler, plan: Plan) -> int:
    return await _co_batched(sampler, plan, Mode.NEEDLE.value, _needle_fillers)


async def run_mixed(sampler: Sampler, plan: Plan) -> int:
    return await _co_batched(sampler, plan, Mode.MIXED.value, _mixed_fillers)


async def _co_batched(
    sampler: Sampler,
    plan: Plan,
    mode: str,
    fillers: Callable[[random.Random, int], list[str]],
) -> int:
    """Per record, repeat (trial) and side: the target at a random position in a batch of a
    random size in [C/2, C], the rest fillers, all in flight together. The draws are seeded by
    mode, key and repeat, so a resumed run sends the trials it lacks as first planned."""
    for record in plan.records:
        for repeat in range(plan.repeats):
            for side in _order(plan.sides, repeat):
                if (side, record.key, mode, repeat) in sampler.done:
                    continue
                rng = random.Random(f"{mode}:{record.key}:{repeat}")
                size = rng.randint(max(1, plan.concurrency // 2), plan.concurrency)
                position = rng.randrange(size)
                body = sampler.base_body(side, record)
                batch = f"{mode}:{side}:{record.key}:{repeat}"
                others = [
                    sampler.send_body(side, filler_body(body, text))
                    for text in fillers(rng, size - 1)
                ]
                target = sampler.take(side, record, mode, repeat, batch)
                await sampler.flush()
                await together(*others[:position], target, *others[position:])
    return 0


CONTROL_SEED = 1_000_003
"""The control's first seed (repeat r sends seed CONTROL_SEED + r)."""


def control_body(body: dict[str, Any], repeat: int, kind: str) -> dict[str, Any]:
    """One control request: temperature 1, a seed of its own, and for `nonce` a random suffix
    on the prompt (the last message's content in chat requests)."""
    control = {**body, "temperature": 1, "seed": CONTROL_SEED + repeat}
    if kind != "nonce":
        return control
    suffix = f" [{uuid.uuid4().hex[:12]}]"
    if isinstance(control.get("prompt"), str):
        control["prompt"] += suffix
    messages = control.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        last = dict(messages[-1])
        if isinstance(last.get("content"), str):
            last["content"] += suffix
        control["messages"] = [*messages[:-1], last]
    return control


SCHEDULERS = {
    Mode.SERIAL: run_serial,
    Mode.CONCURRENT: run_concurrent,
    Mode.LOADED: run_loaded,
    Mode.COLD_WARM: run_cold_warm,
    Mode.SWEEP: run_sweep,
    Mode.NEEDLE: run_needle,
    Mode.MIXED: run_mixed,
}
"""Mode -> scheduler."""
