"""The first-token test: where a sampled run's samples carry the first position's logprobs, the
chosen first tokens are counted against the probabilities the servers reported for that
position, which is one fixed distribution per prompt (docs/statistics.md states the claim).

- cross: the patch's chosen first tokens against the base's reported probabilities (does the
  patch sample the base's first-token distribution?);
- patch_own: the patch's chosen first tokens against its own reports (does the patch's sampler
  sample what its model reports?);
- base_own: the base's against its own, the premise of the cross test, corrected among the
  run's premise checks alone: a rejection means the base's reports are not what it samples,
  and the record's test is not used.

Each is a likelihood-ratio (G) goodness-of-fit test whose p is a Monte Carlo estimate from the
reported multinomial, (1 + draws scoring at least as high) / (1 + draws), valid at any n.
Categories: every token some request of the reporting side reported (its probability the mean
over those requests), and the rest of the mass as one category.

numpy is imported inside the functions (the `--help` path never loads it).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from k3diff.sampling_params import samples_sampled
from k3diff.triage.distribution import SEED, SHIFT_GRID, SIMULATIONS
from k3diff.triage.firsttext import fit_moved
from k3diff.triage.firstverdict import OTHER, FirstTokenTest, FitTest, Pooled
from k3diff.triage.samples import Sample
from k3diff.triage.streams import record_stream

if TYPE_CHECKING:
    import numpy as np

NEUTRAL = frozenset(
    {
        "max_tokens", "max_completion_tokens", "logprobs", "top_logprobs", "seed", "n", "stop",
        "user", "presence_penalty", "frequency_penalty", "stream_options", "temperature",
        "top_p", "top_k", "min_p", "repetition_penalty", "min_tokens", "logit_bias",
    }
)  # fmt: skip
"""Request fields under which the first position's reported probabilities are the ones it
samples from (at temperature 1 and the neutral values `condition_problem` checks; presence and
frequency penalties act on generated tokens only, none before the first)."""
TOLERANCE = 0.02
"""How far above 1 a side's reported first-token probabilities may sum (numerical noise and
requests disagreeing slightly) before they are not taken as one distribution."""


def condition_problem(params: Mapping[str, Any] | None) -> str | None:
    """Why a request's reported first-token probabilities need not be what it samples from
    (None: temperature 1 and no truncation, penalty or bias that acts on the first token)."""
    if params is None:
        return "the request fields were not logged"
    temperature = params.get("temperature")
    if not _is_number(temperature):
        return "no temperature was sent (the server's default applies)"
    if float(temperature) != 1.0:
        return (
            f"temperature {temperature:g} (servers report logprobs before or after temperature, "
            "e.g. vLLM's default raw_logprobs is before)"
        )
    neutral = {"top_p": (1,), "top_k": (0, -1), "min_p": (0,), "repetition_penalty": (1,)}
    for name, values in neutral.items():
        value = params.get(name)
        if value is not None and not (_is_number(value) and float(value) in values):
            return f"{name} {value!r} (the reports may be of the untruncated distribution)"
    if params.get("min_tokens") not in (None, 0) or params.get("logit_bias") not in (None, {}):
        return "min_tokens or logit_bias act on the first token"
    other = sorted(name for name in params if name not in NEUTRAL)
    return (
        f"request field {other[0]!r} may change the first token's distribution" if other else None
    )


def requests_sample(sides: Mapping[str, Sequence[Sample]]) -> bool:
    """Some sample's own logged request fields sample (the header may not say so: requests
    replayed from a capture carry their own fields)."""
    return any(samples_sampled(s.request_params) for group in sides.values() for s in group)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Side:
    """One side's first tokens and reports."""

    chosen: tuple[str, ...]
    """Each request's chosen first token."""
    reported: dict[str, float]
    """Per reported token, its mean reported probability over the requests that report it."""
    problem: str | None
    """Why its reports need not be what it samples (request condition), None when they are."""


def side_reports(samples: Sequence[Sample]) -> Side | str:
    """A side's chosen first tokens and mean reports, or why they are not available."""
    ok = [s for s in samples if s.text_xxh3 is not None]
    lacking = [s for s in ok if s.trace is None or not s.trace.tokens or not s.trace.first_top]
    if lacking:
        return (
            f"{len(lacking)} of {len(ok)} samples carry no first-position alternatives (request "
            "logprobs with top alternatives, e.g. logprobs=5 or top_logprobs=5, from a k3diff "
            "that records them)"
        )
    totals: dict[str, list[float]] = {}
    chosen = []
    for sample in ok:
        trace = sample.trace
        assert trace is not None and trace.tokens and trace.first_top
        report: dict[str, float] = {}
        # Tokens decoding to one string share a category (an identical pair counts once).
        for token, logprob in dict.fromkeys(trace.first_top):
            report[token] = report.get(token, 0.0) + math.exp(logprob)
        if trace.first_logprob is not None and trace.tokens[0] not in report:
            report[trace.tokens[0]] = math.exp(trace.first_logprob)
        chosen.append(trace.tokens[0])
        for token, prob in report.items():
            totals.setdefault(token, []).append(prob)
    reported = {token: sum(ps) / len(ps) for token, ps in totals.items()}
    if sum(reported.values()) > 1 + TOLERANCE:
        return (
            f"its reported first-token probabilities sum to {sum(reported.values()):.3g}, not to "
            "at most 1 (requests disagree, or the reports are not one distribution)"
        )
    problems = {condition_problem(s.request_params) for s in ok}
    problem = next((p for p in sorted(problems, key=str) if p is not None), None)
    return Side(tuple(chosen), reported, problem)


@dataclass(frozen=True)
class Prepared:
    """A record and mode ready for the test: both sides' first tokens, the base's reports a
    distribution it samples from as far as its condition says."""

    base: Side
    patch: Side

    @property
    def tests(self) -> int:
        """Tests this record adds to the distribution family (cross, and patch_own where the
        patch's condition allows it)."""
        return 1 + (self.patch.problem is None)


def prepare(sides: Mapping[str, Sequence[Sample]]) -> Prepared | FirstTokenTest:
    """Both sides' first tokens, or the unused test saying why not."""
    found = {side: side_reports(sides.get(side, ())) for side in ("base", "patch")}
    for side, value in found.items():
        if isinstance(value, str):
            return FirstTokenTest(used=False, why_not=f"{side}: {value}")
    base, patch = found["base"], found["patch"]
    assert isinstance(base, Side) and isinstance(patch, Side)
    if min(len(base.chosen), len(patch.chosen)) < 2:
        return FirstTokenTest(used=False, why_not="fewer than 2 samples a side")
    if base.problem is not None:
        return FirstTokenTest(
            used=False, why_not=f"the base's reports need not be what it samples: {base.problem}"
        )
    return Prepared(base, patch)


def _categories(reported: Mapping[str, float]) -> tuple[list[str], np.ndarray]:
    """The reported tokens, most likely first, then `OTHER`; and their null probabilities."""
    import numpy as np

    names = sorted(reported, key=lambda t: (-reported[t], t))
    probs = np.array([reported[t] for t in names] + [0.0])
    total = float(probs.sum())
    if total > 1.0:
        probs /= total
    probs[-1] = max(0.0, 1.0 - float(probs[:-1].sum()))
    return [*names, OTHER], probs


def g_statistic(counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """G = 2 Σ O log(O / E) per row of counts (inf where a zero-probability category holds a
    count; an empty category adds 0)."""
    import numpy as np

    expected = probs * counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, counts * np.log(counts / expected), 0.0)
    result: np.ndarray = 2.0 * terms.sum(axis=-1)
    return result


def fit(
    chosen: Sequence[str], reported: Mapping[str, float], draws: int, rng: np.random.Generator
) -> tuple[float, float, str, int, float, np.ndarray]:
    """(G, Monte Carlo p, furthest category, its count, its probability, the null draws' G in
    drawing order) of `chosen` against `reported`."""
    import numpy as np

    names, probs = _categories(reported)
    index = {name: i for i, name in enumerate(names[:-1])}  # the rest: every other token
    counts = np.zeros(len(names))
    for token in chosen:
        counts[index.get(token, len(names) - 1)] += 1
    observed = float(g_statistic(counts[None, :], probs)[0])
    null = g_statistic(rng.multinomial(len(chosen), probs, draws).astype(float), probs)
    hits = int((null >= _at_least(observed)).sum())
    furthest = int(np.argmax(np.abs(counts - probs * len(chosen))))
    p = (1 + hits) / (1 + draws)
    return observed, p, names[furthest], int(counts[furthest]), float(probs[furthest]), null


def _at_least(observed: float | np.ndarray) -> float | np.ndarray:
    """What a null draw must reach to score at least as high (floating-point ties count)."""
    return observed * (1 - 1e-9) - 1e-12


def run(
    prepared: Prepared, draws: int, pair: Pair, premise: bool
) -> tuple[dict[str, FitTest], dict[str, np.ndarray]]:
    """The fit tests (p not yet corrected: p_adjusted = p) of one record and mode, and each
    one's null draws: base_own (`premise`), else cross and patch_own (only where the patch's
    condition allows it). Each test draws from the record's own stream
    (`streams.record_stream`), so which run first changes nothing."""
    plan = [("base_own", "base", prepared.base)] if premise else [("cross", "patch", prepared.base)]
    if not premise and prepared.patch.problem is None:
        plan.append(("patch_own", "patch", prepared.patch))
    found, nulls = {}, {}
    for name, side, against in plan:
        chosen = prepared.base.chosen if side == "base" else prepared.patch.chosen
        rng = record_stream(*pair, f"first-token {name}")
        g, p, token, count, prob, nulls[name] = fit(chosen, against.reported, draws, rng)
        owner = "base" if against is prepared.base else "patch"
        mine = prepared.base if side == "base" else prepared.patch
        other = mine.reported.get(token) if owner != side else None
        found[name] = FitTest(side, owner, g, p, p, token, count, len(chosen), prob, other)
    return found, nulls


Pair = tuple[str, str]
"""(key, mode)."""


@dataclass(frozen=True)
class Ran:
    """Every prepared record's fit tests, and each mode's pooled tests, before correction."""

    tests: dict[Pair, dict[str, FitTest]]
    """Per record and mode, its fit tests (base_own, cross, patch_own)."""
    pooled: dict[tuple[str, str], tuple[float, float, int]]
    """(mode, cross or patch_own) -> (summed G, p, records) over the mode's used records."""
    used: tuple[Pair, ...]
    """Records whose base passed its premise check (their tests join the family)."""


def run_all(
    firsts: Mapping[Pair, Prepared | FirstTokenTest],
    draws: int,
    alpha: float,
    correct: Callable[[list[float]], list[float]],
) -> Ran:
    """Run every prepared record's fit tests (each test on the record's own random stream, so
    that their null draws are independent and a record's p is its samples' alone); void the records whose base fails its premise
    check (`correct`ed among the premise checks alone, at α); and, per mode with two or more
    used records, run the pooled tests: the sum of the records' G against the sums of their
    null draws."""
    prepared = {pair: got for pair, got in firsts.items() if isinstance(got, Prepared)}
    tests = {pair: run(got, draws, pair, True)[0] for pair, got in prepared.items()}
    premises = correct([found["base_own"].p for found in tests.values()]) if tests else []
    for pair, adjusted in zip(list(tests), premises, strict=True):
        tests[pair]["base_own"] = dataclasses.replace(tests[pair]["base_own"], p_adjusted=adjusted)
    used = tuple(pair for pair, found in tests.items() if found["base_own"].p_adjusted > alpha)
    # The null draws summed per mode as each used record is tested: B kept a mode's test, not
    # B a record's (review78g).
    sums: dict[tuple[str, str], tuple[float, np.ndarray, int]] = {}
    kept = set(used)
    for pair, got in prepared.items():
        found, nulls = run(got, draws, pair, False)
        tests[pair].update(found)
        for name in nulls if pair in kept else ():
            total = sums.get((pair[1], name))
            sums[(pair[1], name)] = (
                (found[name].statistic, nulls[name], 1)
                if total is None
                else (total[0] + found[name].statistic, total[1] + nulls[name], total[2] + 1)
            )
    pooled = {}
    for mode in dict.fromkeys(pair[1] for pair in used):
        for name in ("cross", "patch_own"):
            observed, summed, records = sums.get((mode, name), (0.0, None, 0))
            if summed is not None and records >= 2:
                hits = int((summed >= _at_least(observed)).sum())
                pooled[(mode, name)] = (observed, (1 + hits) / (1 + draws), records)
    return Ran(tests, pooled, used)


def detectable(base: Side, size: int, draws: int, level: float, power: float) -> float | None:
    """The smallest total variation moved onto the base's most likely first token (the others
    scaled down alike: a sharper sampler) that the cross test at `size` patch samples rejects
    with `power` at `level`, simulated (`SIMULATIONS` draws per size, over `SHIFT_GRID`) with
    the test's own rejection rule on `draws` null draws. None: no such shift is possible, or
    none up to the largest is detected."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    _, probs = _categories(base.reported)
    null = np.sort(g_statistic(rng.multinomial(size, probs, draws).astype(float), probs))
    allowed = math.floor(level * (1 + draws)) - 1  # hits a rejection may have
    rest = 1.0 - float(probs[0])
    if allowed < 0 or rest <= 0:
        return None

    def detected(shift: float) -> bool:
        moved = probs * (rest - shift) / rest
        moved[0] = probs[0] + shift
        scores = g_statistic(rng.multinomial(size, moved, SIMULATIONS).astype(float), probs)
        hits = draws - np.searchsorted(null, _at_least(scores), side="left")
        return float((hits <= allowed).mean()) >= power

    grid = [s for s in SHIFT_GRID if s <= rest + 1e-12]
    if not grid or not detected(grid[-1]):
        return None
    low, high = -1, len(grid) - 1
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if detected(grid[middle]) else (middle, high)
    return grid[high]


def finish(
    prepared: Prepared,
    tests: Mapping[str, FitTest],
    pooled: tuple[Pooled, ...],
    draws: int,
    level: float,
    power: float,
) -> FirstTokenTest:
    """The used test of one record and mode from its fit tests (cross and patch_own corrected,
    base_own not), with what the cross test could have detected at `level` (α over the
    distribution family) with `power`."""
    reported = prepared.base.reported
    names = sorted(reported, key=lambda t: (-reported[t], t))
    return FirstTokenTest(
        used=True,
        why_not=None,
        cross=tests["cross"],
        patch_own=tests.get("patch_own"),
        base_own=tests["base_own"],
        draws=draws,
        detectable=detectable(prepared.base, len(prepared.patch.chosen), draws, level, power),
        level=level,
        mode_token=names[0] if names else None,
        mode_p=reported[names[0]] if names else None,
        base_tokens=tuple((t, reported[t]) for t in names[:5]),
        pooled=pooled,
    )


def premise_failed(tests: Mapping[str, FitTest], draws: int, alpha: float) -> FirstTokenTest:
    """The unused test of a record whose base's own first tokens do not follow its reports."""
    own = tests["base_own"]
    return FirstTokenTest(
        used=False,
        why_not=(
            f"the base's own first tokens do not follow its reports ({fit_moved(own)}; p = "
            f"{own.p:.3g}, corrected among the premise checks {own.p_adjusted:.3g} ≤ α = "
            f"{alpha:g}): its reported logprobs are not what it samples from"
        ),
        base_own=own,
        draws=draws,
    )
