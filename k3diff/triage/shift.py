"""Triage's distribution verdicts: which record and mode gets which test (`distribution`), the
correction across all of them, and what a test does to a mode's verdict.

Every nondeterministic record is judged by its output distribution, not by set membership: a
base that gave the patch's output once in a hundred excuses nothing, and at temperature > 0
(where every output is new on both sides) the MMD test speaks where the novelty test cannot.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from k3diff.sample.names import SIDES
from k3diff.sampling_params import samples_sampled
from k3diff.triage import distribution as dist
from k3diff.triage import firsttext, firsttoken, pooled_counts, power
from k3diff.triage import kernel as text_kernel
from k3diff.triage.distribution import DistributionTest, MmdResult
from k3diff.triage.firstverdict import FirstTokenTest, Pooled
from k3diff.triage.model import Category, ModeVerdict, Settings
from k3diff.triage.samples import Sample, SampleLogs

Grouped = Mapping[str, Mapping[str, Mapping[str, Sequence[Sample]]]]
"""key -> mode -> side -> samples."""


def sampled(logs: SampleLogs) -> frozenset[tuple[str, str]]:
    """(key, mode) pairs whose samples went out with sampling request fields on both sides: each
    sample's own logged request fields, the body as sent (requests replayed from a prompts file
    or a capture carry their own temperature, and the header's `--param` is merged into them),
    or, for a line that logs none, the run header's (`--param`, `--base-param`/`--patch-param`).
    Never the header beside the body: its `top_p` 0.9 alone reads as sampling where the body
    sent it with `temperature: 0` (greedy). Nor one side alone: a base sampled at temperature
    0.7 spreads by its sampling, which excuses nothing of a greedy patch (a sampled pair is not
    held for a capture its samples leave unexplained)."""
    sides: dict[tuple[str, str], set[str]] = {}
    for sample in logs.samples:
        if sample.request_params is not None:
            params = dict(sample.request_params)
        else:
            index = sample.order[0]
            common = logs.params[index] if index < len(logs.params) else None
            own = (
                logs.side_params[index].get(sample.side) if index < len(logs.side_params) else None
            )
            params = {**(common or {}), **(own if isinstance(own, dict) else {})}
        if samples_sampled(params):
            sides.setdefault((sample.key, sample.mode), set()).add(sample.side)
    return frozenset(pair for pair, found in sides.items() if found >= set(SIDES))


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
    if have_texts and (sampled or every_new):
        kind = "mmd"
    elif len(base_digests) >= 2 or (sampled and not have_texts):
        kind = "counts"
    else:
        return None
    labels = texts if kind == "mmd" else digests
    if kind == "mmd" and max(len(base), len(patch)) > dist.MMD_SAMPLES:
        cap = dist.MMD_SAMPLES
        keep = [*range(min(cap, len(base))), *range(len(base), len(base) + min(cap, len(patch)))]
        labels = [labels[i] for i in keep]
        texts = [texts[i] for i in keep]
        base = base[:cap]
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


def distribution_tests(
    grouped: Grouped,
    keys: Sequence[str],
    sampled_pairs: frozenset[tuple[str, str]],
    settings: Settings,
    correct: Callable[[list[float]], list[float]],
) -> dict[tuple[str, str], DistributionTest]:
    """(key, mode) -> its distribution test, corrected (`correct`: p-values -> adjusted) across
    every record's test and every mode's pooled tests (MMD, and counts: `pooled_counts`)."""
    import numpy as np

    planned = [
        plan
        for key in keys
        for mode, sides in grouped.get(key, {}).items()
        if (plan := _plan(key, mode, sides, (key, mode) in sampled_pairs)) is not None
    ]
    raw: dict[tuple[str, str], tuple[float, float, bool]] = {}
    mmd: dict[str, list[tuple[str, MmdResult]]] = {}
    mmd_modes = list(dict.fromkeys(item.mode for item in planned if item.kind == "mmd"))
    # (kind, mode) pairs with two or more records: each gets a pooled test in the family.
    pools = [
        pair
        for pair in dict.fromkeys((item.kind, item.mode) for item in planned)
        if sum((i.kind, i.mode) == pair for i in planned) > 1
    ]
    firsts = {
        (item.key, item.mode): firsttoken.prepare(grouped[item.key][item.mode])
        for item in planned
        if item.sampled or firsttoken.requests_sample(grouped[item.key][item.mode])
    }
    ready = [pair for pair, f in firsts.items() if isinstance(f, firsttoken.Prepared)]
    tokens = sum(f.tests for f in firsts.values() if isinstance(f, firsttoken.Prepared))
    tokens += 2 * sum(1 for m in {p[1] for p in ready} if sum(p[1] == m for p in ready) >= 2)
    permutations = dist.permutations_for(len(planned) + len(pools) + tokens, settings.alpha)
    for item in planned:
        if item.kind == "counts":
            counted, p, exact = dist.count_test(item.patch, item.base, permutations)
            raw[(item.key, item.mode)] = (float(counted), p, exact)
    for mode in mmd_modes:
        rng = np.random.default_rng(dist.SEED)
        for item in planned:
            if item.kind == "mmd" and item.mode == mode:
                result = dist.mmd_test(item.patch, item.base, rng, permutations)
                mmd.setdefault(mode, []).append((item.key, result))
                raw[(item.key, item.mode)] = (result.statistic, result.p, False)
    pooled = {
        ("mmd", mode): (dist.pooled_p([r for _, r in results]), False)
        for mode, results in mmd.items()
        if len(results) >= 2
    }
    for kind, mode in pools:
        if kind == "counts":
            records = [(i.patch, i.base) for i in planned if (i.kind, i.mode) == (kind, mode)]
            _, p, exact = pooled_counts.pooled_count_test(records, permutations)
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
    level = settings.alpha / max(1, len(family))
    found: dict[tuple[str, str], DistributionTest] = {}
    for item in planned:
        statistic, p, exact = raw[(item.key, item.mode)]
        pool = (item.kind, item.mode)
        found[(item.key, item.mode)] = DistributionTest(
            kind=item.kind,
            sampled=item.sampled,
            statistic=statistic,
            p=p,
            p_adjusted=by_record[(item.key, item.mode)],
            exact=exact,
            moved=dist.moved(item.patch_texts, item.base_texts),
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


def _test_text(test: DistributionTest, settings: Settings) -> str:
    """'MMD test (mean of Hamming kernels on the first 20, the last 20 and the first 1,024
    characters, 9,999 permutations, seed 0):
    p = 0.0001, holm 0.0004; pooled over 3 records p = 0.0001, holm 0.0004'."""
    name = settings.correction.value
    if test.kind == "mmd":
        head = (
            f"MMD test ({text_kernel.PROSE}, "
            f"{test.permutations or 0:,} label permutations, seed {dist.SEED}): MMD² = "
            f"{test.statistic:.3g}, p = {test.p:.3g}, {name} {test.p_adjusted:.3g}"
        )
    else:
        how = (
            "exact" if test.exact else f"{test.permutations or 0:,} permutations, seed {dist.SEED}"
        )
        head = (
            f"count test ({how}): {test.statistic:.0f} patch samples are not the base's most "
            f"common output, p = {test.p:.3g}, {name} {test.p_adjusted:.3g}"
        )
    if test.pooled_p is not None and test.pooled_p_adjusted is not None:
        how = "labels permuted within each"
        if test.kind == "counts":
            how = (
                "count statistics summed; exact, the records' laws convolved"
                if test.pooled_exact
                else f"count statistics summed; {how}, {test.permutations or 0:,} times"
            )
        head += (
            f"; pooled over {test.pooled_records:,} records ({how}) "
            f"p = {test.pooled_p:.3g}, {name} {test.pooled_p_adjusted:.3g}"
        )
        if test.pooled_not_its_own and test.pooled_p_adjusted <= settings.alpha:
            own = (
                "its patch gave only the base's most common output (on a tie, one of them)"
                if test.kind == "counts"
                else "this record's MMD² is 0, its sides agree"
            )
            head += f" (another record's shift: {own})"
    if test.first_token is not None and test.first_token.used:
        head += "; " + firsttext.tested_text(test.first_token, name, settings.alpha)
    return head


def _token_notes(test: DistributionTest, settings: Settings) -> tuple[str, str]:
    """(what the first-token test saw moved, or "", why it was not used, or "")."""
    token = test.first_token
    if token is None:
        return "", ""
    if not token.used:
        return "", f"; {firsttext.tested_text(token, settings.correction.value, settings.alpha)}"
    return firsttext.moved_text(token, settings.alpha), ""


def power_text(test: DistributionTest, settings: Settings) -> str:
    """What the test could have detected at this n."""
    how = f"(at α / {_tests(test, settings)} = {test.level:.3g}; {_simulated(test)})"
    if test.detectable_shift is None:
        text = (
            f"at this n it had less than {100 * settings.power:.3g} % power against any shift of "
            f"the answers to a new answer, however large {how}"
        )
    else:
        text = (
            f"it had {100 * settings.power:.3g} % power against {100 * test.detectable_shift:.3g}"
            f" % of the patch's answers moved to one answer the base does not give {how}"
        )
    token = (
        "" if test.first_token is None else firsttext.power_text(test.first_token, settings.power)
    )
    return f"{text}; {token}" if token else text


def _simulated(test: DistributionTest) -> str:
    """How the stated power was found (`power.detectable_shift`)."""
    draws = f"{dist.SIMULATIONS:,} simulated patches per size"
    if test.kind == "counts":
        return f"the count test itself on {draws} drawn from the base's own samples"
    return f"approximate: a bootstrap of the MMD², not its permutation test, {draws}"


def _tests(test: DistributionTest, settings: Settings) -> str:
    return f"{round(settings.alpha / test.level):,} tests"


def apply(
    verdict: ModeVerdict,
    test: DistributionTest | None,
    settings: Settings,
    oracle: str | None = None,
) -> ModeVerdict:
    """The mode's verdict with its distribution test: a rejection makes a record no other test
    blamed a `distribution-shift` regression candidate; a non-rejection says what the test could
    have detected.

    `oracle`: in a batched or loaded mode, the base's serial output when every serial sample of
    the base agreed on it (the batch-1 answer). A greedy patch stable on that answer where the
    base's batches vary is more stable than the base, on the base's own answer: the shift is
    said, and is never a regression (DESIGN: "a patch more stable than the base is never a
    regression"). A sampled mode keeps its test: there a patch that stopped varying is news."""
    if test is None:
        return verdict
    token_moved, not_used = _token_notes(test, settings)
    moved = "; ".join(m for m in (token_moved, dist.moved_text(test.moved)) if m)
    tested = _test_text(test, settings)
    if test.rejects(settings.alpha) and _settled_on_oracle(verdict, test, oracle):
        text = (
            f"{verdict.reason}; distribution: the patch settled on the base's serial answer "
            f"where the base's own outputs vary ({moved}; {tested} <= α = {settings.alpha:g}): "
            "more stable than the base, on the base's batch-1 output, so not a regression"
        )
        return dataclasses.replace(verdict, reason=text, distribution=test)
    if test.rejects(settings.alpha):
        if verdict.regression_candidate:
            text = (
                f"{verdict.reason}; the output distribution moved too ({moved}; {tested}){not_used}"
            )
            return dataclasses.replace(verdict, reason=text, distribution=test)
        text = (
            f"regression candidate: the patch's outputs do not follow the base's distribution "
            f"({moved}; {tested} <= α = {settings.alpha:g}); base {verdict.base.n} samples with "
            f"{verdict.base.distinct} distinct outputs, patch {verdict.patch.n} with "
            f"{verdict.patch.distinct}{not_used}"
        )
        return dataclasses.replace(
            verdict,
            category=Category.DISTRIBUTION_SHIFT,
            reason=text,
            regression_candidate=True,
            distribution=test,
        )
    sampled = "the requests sampled; " if test.sampled else ""
    text = (
        f"{verdict.reason}; distribution: {sampled}no shift detected ({tested} > α = "
        f"{settings.alpha:g}){not_used}; {power_text(test, settings)}"
    )
    return dataclasses.replace(verdict, reason=text, distribution=test)


def _settled_on_oracle(verdict: ModeVerdict, test: DistributionTest, oracle: str | None) -> bool:
    """A greedy mode's patch gives only the base's stable serial output, and the base varies
    here (`apply`'s `oracle`)."""
    return (
        oracle is not None
        and not test.sampled
        and not verdict.regression_candidate
        and verdict.base.unstable
        and verdict.patch.stable
        and verdict.patch.modal_output == oracle
    )
