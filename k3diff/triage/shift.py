"""Triage's distribution verdicts: which record and mode gets which test (`distribution`), the
correction across all of them (`shiftverdict`: what a test does to a mode's verdict).

Every nondeterministic record is judged by its output distribution, not by set membership: a
base that gave the patch's output once in a hundred excuses nothing, and at temperature > 0
(where every output is new on both sides) the MMD test speaks where the novelty test cannot.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from k3diff.sample.names import SIDES
from k3diff.sampling_params import (
    RequestFields,
    counted_fields,
    has_seed,
    request_fields,
    samples_sampled,
)
from k3diff.triage import distribution as dist
from k3diff.triage import firsttoken, pooled_counts, power, prefixes
from k3diff.triage.distribution import DistributionTest
from k3diff.triage.firstverdict import FirstTokenTest, Pooled
from k3diff.triage.plan import pooled_tests, test_kind
from k3diff.triage.sampledlevel import judged_at
from k3diff.triage.samples import Sample, SampleLogs
from k3diff.triage.settings import Settings
from k3diff.triage.streams import record_stream

if TYPE_CHECKING:
    import numpy as np

Grouped = Mapping[str, Mapping[str, Mapping[str, Sequence[Sample]]]]
"""key -> mode -> side -> samples."""


def sampled(logs: SampleLogs) -> frozenset[tuple[str, str]]:
    """(key, mode) pairs whose samples went out with sampling request fields on both sides, but
    for those `seeded_draws` finds one draw repeated (a deterministic condition given the
    seed): `_sampled_params`."""
    return _sampled_params(logs)[0] - seeded_draws(logs)


def seeded_draws(logs: SampleLogs) -> frozenset[tuple[str, str]]:
    """(key, mode) pairs sampled on both sides where every request sent an integer `seed` and
    each side repeated one output (2 or more successful samples, one text): a server that
    honours a per-request seed gives one draw, so the repeats measure the engine's
    nondeterminism, as greedy repeats do, not the output distribution. Repeats that vary
    despite the seed (a server that ignores it, or batching noise) stay draws."""
    pairs, unseeded = _sampled_params(logs)
    outputs: dict[tuple[str, str, str], list[str]] = {}
    for sample in logs.samples:
        if (sample.key, sample.mode) in pairs and sample.text_xxh3 is not None:
            outputs.setdefault((sample.key, sample.mode, sample.side), []).append(sample.text_xxh3)
    return frozenset(
        pair
        for pair in pairs - unseeded
        if all(
            len(texts := outputs.get((*pair, side), [])) >= 2 and len(set(texts)) == 1
            for side in SIDES
        )
    )


def _params(logs: SampleLogs, sample: Sample) -> dict[str, Any]:
    if sample.request_params is not None:
        return dict(sample.request_params)
    index = sample.order[0]
    common = logs.params[index] if index < len(logs.params) else None
    own = logs.side_params[index].get(sample.side) if index < len(logs.side_params) else None
    return {**(common or {}), **(own if isinstance(own, dict) else {})}


def _sampled_params(
    logs: SampleLogs,
) -> tuple[frozenset[tuple[str, str]], frozenset[tuple[str, str]]]:
    """(key, mode) pairs whose samples went out with sampling request fields on both sides: each
    sample's own logged request fields, the body as sent (requests replayed from a prompts file
    or a capture carry their own temperature, and the header's `--param` is merged into them),
    or, for a line that logs none, the run header's (`--param`, `--base-param`/`--patch-param`).
    Never the header beside the body: its `top_p` 0.9 alone reads as sampling where the body
    sent it with `temperature: 0` (greedy). Nor one side alone: a base sampled at temperature
    0.7 spreads by its sampling, which excuses nothing of a greedy patch (a sampled pair is not
    held for a capture its samples leave unexplained). Also the pairs where some request sent
    no integer seed."""
    sides: dict[tuple[str, str], set[str]] = {}
    unseeded: set[tuple[str, str]] = set()
    for sample in logs.samples:
        params = _params(logs, sample)
        if samples_sampled(params):
            sides.setdefault((sample.key, sample.mode), set()).add(sample.side)
        if not has_seed(params):
            unseeded.add((sample.key, sample.mode))
    pairs = frozenset(pair for pair, found in sides.items() if found >= set(SIDES))
    return pairs, frozenset(unseeded)


Requests = Mapping[tuple[str, str], Mapping[str, tuple[RequestFields, ...]]]
"""(key, mode) -> side -> the distinct sampling fields its requests sent, with counts."""


def requests(logs: SampleLogs) -> Requests:
    """Per (key, mode) and side, the fields `_sampled_params` decided on, as each request's
    line logged them (failed requests too): written in the triage document so that `report`
    recounts each mode's `sampled` from them."""
    found: dict[tuple[str, str], dict[str, list[RequestFields]]] = {}
    for sample in logs.samples:
        sides = found.setdefault((sample.key, sample.mode), {side: [] for side in SIDES})
        sides.setdefault(sample.side, []).append(request_fields(_params(logs, sample)))
    return {
        pair: {side: counted_fields(fields) for side, fields in sides.items()}
        for pair, sides in found.items()
    }


@dataclasses.dataclass(frozen=True)
class _Planned:
    key: str
    mode: str
    kind: str
    sampled: bool
    patch: tuple[str, ...]
    """Labels (digests) for counts, texts for mmd."""
    base: tuple[str, ...]
    patch_texts: tuple[str, ...]
    base_texts: tuple[str, ...]


def _plan(
    key: str, mode: str, sides: Mapping[str, Sequence[Sample]], sampled: bool
) -> _Planned | None:
    ok = {side: [s for s in sides.get(side, ()) if s.text_xxh3 is not None] for side in SIDES}
    base, patch = ok["base"], ok["patch"]
    if len(base) < 2 or len(patch) < 2:
        return None
    digests = [s.text_xxh3 or "" for s in (*base, *patch)]
    texts = [s.text if s.text is not None else s.text_xxh3 or "" for s in (*base, *patch)]
    have_texts = all(s.text is not None for s in (*base, *patch))
    every_new = len(set(digests)) == len(digests)
    base_digests = {s.text_xxh3 for s in base}
    kind = test_kind(sampled, every_new, len(base_digests), have_texts)
    if kind is None:
        return None
    labels = texts if kind == "mmd" else digests
    if kind == "mmd" and max(len(base), len(patch)) > dist.MMD_SAMPLES:
        stream = record_stream(key, mode, "mmd samples")
        mine = _spread(len(base), stream)
        keep = [*mine, *(len(base) + i for i in _spread(len(patch), stream))]
        labels = [labels[i] for i in keep]
        texts = [texts[i] for i in keep]
        base = [base[i] for i in mine]
    return _Planned(
        key,
        mode,
        kind,
        sampled,
        tuple(labels[len(base) :]),
        tuple(labels[: len(base)]),
        tuple(texts[len(base) :]),
        tuple(texts[: len(base)]),
    )


def _spread(count: int, stream: np.random.Generator) -> list[int]:
    """Indexes of the samples the MMD test compares of a side of `count`: all, or where there
    are more than `dist.MMD_SAMPLES`, that many drawn from every request (hunt73: the first
    1,000 alone passed a patch whose answers after its 1,000th request were garbage), in
    request order."""
    if count <= dist.MMD_SAMPLES:
        return list(range(count))
    return sorted(int(i) for i in stream.choice(count, size=dist.MMD_SAMPLES, replace=False))


def distribution_tests(
    grouped: Grouped,
    keys: Sequence[str],
    sampled_pairs: frozenset[tuple[str, str]],
    settings: Settings,
    correct: Callable[[list[float]], list[float]],
    one_draw: frozenset[tuple[str, str]] = frozenset(),
) -> dict[tuple[str, str], DistributionTest]:
    """(key, mode) -> its distribution test, corrected (`correct`: p-values -> adjusted) across
    every record's test and every mode's pooled tests (MMD, and counts: `pooled_counts`).
    `one_draw` (`seeded_draws`) get no first-token test: their repeats are one draw."""

    planned = [
        planned_one
        for key in keys
        for mode, sides in grouped.get(key, {}).items()
        if (planned_one := _plan(key, mode, sides, (key, mode) in sampled_pairs)) is not None
    ]
    raw: dict[tuple[str, str], tuple[float, float, bool]] = {}
    mmd: dict[str, dist.PooledSum] = {}
    mmd_modes = list(dict.fromkeys(item.mode for item in planned if item.kind == "mmd"))
    # (kind, mode) pairs with two or more records: each gets a pooled test in the family.
    pools = pooled_tests({(item.key, item.mode): item.kind for item in planned})
    firsts = {
        (item.key, item.mode): firsttoken.prepare(grouped[item.key][item.mode])
        for item in planned
        if item.sampled
        or (
            (item.key, item.mode) not in one_draw
            and firsttoken.requests_sample(grouped[item.key][item.mode])
        )
    }
    ready = [pair for pair, f in firsts.items() if isinstance(f, firsttoken.Prepared)]
    tokens = sum(f.tests for f in firsts.values() if isinstance(f, firsttoken.Prepared))
    tokens += 2 * sum(1 for m in {p[1] for p in ready} if sum(p[1] == m for p in ready) >= 2)
    # B is sized at the level the tests are judged at: α / 2 where a sampled mode is among them.
    judged = judged_at(settings.alpha, any(item.sampled for item in planned))
    permutations = dist.permutations_for(len(planned) + len(pools) + tokens, judged)
    for item in planned:
        if item.kind == "counts":
            counted, p, exact = dist.count_test(item.patch, item.base, permutations)
            raw[(item.key, item.mode)] = (float(counted), p, exact)
    for mode in mmd_modes:
        for item in planned:
            if item.kind == "mmd" and item.mode == mode:
                rng = record_stream(item.key, mode, "mmd")
                result = dist.mmd_test(item.patch, item.base, rng, permutations)
                # Summed as it goes: a mode keeps B permuted statistics, not B a record.
                mmd[mode] = dist.pooled_add(mmd.get(mode), result)
                raw[(item.key, item.mode)] = (result.statistic, result.p, False)
    pooled = {
        ("mmd", mode): (dist.summed_p(total), False)
        for mode, total in mmd.items()
        if total.records >= 2
    }
    for kind, mode in pools:
        if kind == "counts":
            members = [i for i in planned if (i.kind, i.mode) == (kind, mode)]
            records = [(i.patch, i.base) for i in members]
            streams = [record_stream(i.key, mode, "pooled counts") for i in members]
            _, p, exact = pooled_counts.pooled_count_test(records, permutations, streams)
            pooled[(kind, mode)] = (p, exact)
    # A base whose own first tokens do not follow its reports voids the record's first-token
    # test: its p-values join no family.
    ran = firsttoken.run_all(firsts, permutations, settings.alpha, correct)
    token_ps = [(pair, name) for pair in ran.used for name in ran.tests[pair] if name != "base_own"]
    family = [p for _, p, _ in raw.values()] + [p for p, _ in pooled.values()]
    family += [ran.tests[pair][name].p for pair, name in token_ps]
    family += [p for _, p, _ in ran.pooled.values()]
    adjusted = correct(family)
    by_record = dict(zip(raw, adjusted[: len(raw)], strict=True))
    pooled_adjusted = dict(zip(pooled, adjusted[len(raw) : len(raw) + len(pooled)], strict=True))
    start = len(raw) + len(pooled)
    for (pair, name), value in zip(token_ps, adjusted[start : start + len(token_ps)], strict=True):
        ran.tests[pair][name] = dataclasses.replace(ran.tests[pair][name], p_adjusted=value)
    token_pooled = dict(zip(ran.pooled, adjusted[start + len(token_ps) :], strict=True))
    tests = max(1, len(family))
    terms = {
        (item.key, item.mode): (
            raw[(item.key, item.mode)][0]
            if item.kind == "mmd"
            else float(pooled_counts.observed((item.patch, item.base)))
        )
        for item in planned
        if (item.kind, item.mode) in pooled
    }
    leaders = {pool: _leaders(planned, terms, pool) for pool in pooled}
    found: dict[tuple[str, str], DistributionTest] = {}
    for item in planned:
        statistic, p, exact = raw[(item.key, item.mode)]
        pool = (item.kind, item.mode)
        # A sampled mode's test shares α with its novelty test (`sampledlevel`).
        level = judged_at(settings.alpha, item.sampled) / tests
        found[(item.key, item.mode)] = DistributionTest(
            kind=item.kind,
            sampled=item.sampled,
            statistic=statistic,
            p=p,
            p_adjusted=by_record[(item.key, item.mode)],
            exact=exact,
            moved=prefixes.moved(item.patch_texts, item.base_texts),
            detectable_shift=power.detectable_shift(
                item.base,
                (len(item.patch), len(item.base)),
                level,
                settings.power,
                item.kind,
                permutations,
            ),
            level=level,
            pooled_p=pooled[pool][0] if pool in pooled else None,
            pooled_p_adjusted=pooled_adjusted.get(pool),
            pooled_records=sum((i.kind, i.mode) == pool for i in planned) if pool in pooled else 0,
            pooled_exact=pool in pooled and pooled[pool][1],
            pooled_statistic=(
                float(pooled_counts.observed((item.patch, item.base)))
                if item.kind == "counts" and pool in pooled
                else None
            ),
            pooled_leaders=leaders.get(pool, ()),
            # None only where nothing was drawn: an exact record test without a Monte Carlo pool.
            permutations=None if exact and pooled.get(pool, (0, True))[1] else permutations,
            first_token=_first_token(
                (item.key, item.mode),
                firsts.get((item.key, item.mode)),
                ran,
                token_pooled,
                permutations,
                level,
                settings,
            ),
        )
    return found


def _leaders(
    planned: Sequence[_Planned], terms: Mapping[tuple[str, str], float], pool: tuple[str, str]
) -> tuple[tuple[str, float], ...]:
    """(key, share of the pooled statistic) of the pool's records with the largest terms."""
    items = [(i.key, max(0.0, terms[(i.key, i.mode)])) for i in planned if (i.kind, i.mode) == pool]
    total = sum(term for _key, term in items)
    if total <= dist.MMD_ZERO:
        return ()
    ranked = sorted(items, key=lambda item: -item[1])[: dist.POOLED_LEADERS]
    return tuple((key, term / total) for key, term in ranked if term > dist.MMD_ZERO)


def _first_token(
    pair: tuple[str, str],
    prepared: firsttoken.Prepared | FirstTokenTest | None,
    ran: firsttoken.Ran,
    pooled_adjusted: Mapping[tuple[str, str], float],
    draws: int,
    level: float,
    settings: Settings,
) -> FirstTokenTest | None:
    """A sampled mode's first-token test: why it was not used, voided by the base's premise
    check, or used (None: the mode did not sample)."""
    if not isinstance(prepared, firsttoken.Prepared):
        return prepared
    tests = ran.tests[pair]
    if pair not in ran.used:
        return firsttoken.premise_failed(tests, draws, settings.alpha)
    pooled = tuple(
        Pooled(name, g, p, pooled_adjusted[(mode, name)], records, tests[name].p < 0.5)
        for (mode, name), (g, p, records) in ran.pooled.items()
        if mode == pair[1] and name in tests
    )
    return firsttoken.finish(prepared, tests, pooled, draws, level, settings.power)


def family_size(shifts: Mapping[tuple[str, str], DistributionTest]) -> int:
    """Distribution tests in their family: one per record and mode, one per pooled test (a mode's
    MMD records, a mode's count records), and each used first-token test's one or two (and their
    pooled tests)."""
    pooled = {(test.kind, key[1]) for key, test in shifts.items() if test.pooled_p is not None}
    used = [t.first_token for t in shifts.values() if t.first_token and t.first_token.used]
    tokens = sum((t.cross is not None) + (t.patch_own is not None) for t in used)
    token_pooled = {
        (key[1], p.test) for key, t in shifts.items() if t.first_token for p in t.first_token.pooled
    }
    return len(shifts) + len(pooled) + tokens + len(token_pooled)
