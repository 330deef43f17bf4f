"""The pooled count test of a mode: do the patch's outputs leave the base's mode more often than
exchangeable side labels would, summed over the mode's greedy (count-tested) records?

A stratified conditional test (docs/statistics.md): each record keeps its own margins (both
sides' output counts), side labels are exchangeable only within a record, and the statistic is
the sum over records of `pooled_statistic`: the patch samples that are not the base's most
common output, where a tie for the base's most common output counts the tied output the patch
gives most (unlike the record's own test, which takes the tied output whose tail is the
smallest). A base with no unique mode (3 outputs in 3 samples) says nothing about which of its outputs is typical, so a
patch that settles on one of them adds nothing to the pool; the record's own test still
judges it (the 50/50 base against a patch always B). Under the null the records' statistics are independent, so the sum's exact
law is the convolution of the records' exact conditional laws (each the multivariate
hypergeometric enumeration of `count_test`). Where a record has more tables than
`EXACT_TABLES`, every record is instead relabelled at random (seeded, the same number of draws
each) and the sums compared, p = (1 + hits) / (1 + B).

numpy and scipy are imported inside the functions (the `--help` path never loads them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from k3diff.triage import distribution as dist

if TYPE_CHECKING:
    import numpy as np

Record = tuple[Sequence[str], Sequence[str]]
"""(patch labels, base labels) of one record: one label (output digest) per sample."""


def _margins(patch: Sequence[str], base: Sequence[str]) -> tuple[list[int], list[int]]:
    """(pooled counts per output, patch counts per output), outputs in first-seen order."""
    names = list(dict.fromkeys([*base, *patch]))
    pooled = [base.count(o) + patch.count(o) for o in names]
    return pooled, [patch.count(o) for o in names]


def pooled_statistic(patch: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Per table (rows), the patch samples that are not the base's most common output; with a
    tie for the base's most common, the one the patch gives most (the smaller count)."""
    import numpy as np

    top = base.max(axis=-1, keepdims=True)
    most = np.where(base == top, patch, -1).max(axis=-1)
    result: np.ndarray = patch.sum(axis=-1) - most
    return result


def observed(record: Record) -> int:
    """The record's `pooled_statistic` (its contribution to the pooled statistic)."""
    import numpy as np

    pooled, mine = _margins(*record)
    table = np.array([mine], dtype=np.int64)
    rest = np.array([pooled], dtype=np.int64) - table
    return int(pooled_statistic(table, rest)[0])


def exact_law(record: Record) -> np.ndarray | None:
    """The record's statistic's exact conditional law, P(T = t) at index t (None: more tables
    than `EXACT_TABLES`)."""
    import numpy as np
    from scipy import special

    pooled_list, _ = _margins(*record)
    size = len(record[0])
    if dist._tables(pooled_list, size) > dist.EXACT_TABLES:
        return None
    pooled = np.array(pooled_list, dtype=np.int64)
    tables = dist._enumerate(pooled_list, size)
    total = int(pooled.sum())
    # log of prod_i C(pooled_i, x_i) / C(total, size)
    log_p = (
        special.gammaln(pooled + 1).sum()
        - special.gammaln(tables + 1).sum(axis=1)
        - special.gammaln(pooled - tables + 1).sum(axis=1)
        - special.gammaln(total + 1)
        + special.gammaln(size + 1)
        + special.gammaln(total - size + 1)
    )
    scores = pooled_statistic(tables, pooled - tables)
    law: np.ndarray = np.bincount(scores, weights=np.exp(log_p), minlength=size + 1)
    return law


def _relabelled(record: Record, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """The record's statistic under `resamples` random relabellings (its margins kept)."""
    import numpy as np

    pooled_list, _ = _margins(*record)
    pooled = np.array(pooled_list, dtype=np.int64)
    labels = np.repeat(np.arange(len(pooled)), pooled)
    size = len(record[0])
    drawn: list[np.ndarray] = []
    for start in range(0, resamples, 1_000):
        rows = min(1_000, resamples - start)
        picked = rng.permuted(np.tile(labels, (rows, 1)), axis=1)[:, :size]
        flat = (picked + np.arange(rows)[:, None] * len(pooled)).ravel()
        tables = np.bincount(flat, minlength=rows * len(pooled)).reshape(rows, len(pooled))
        drawn.append(pooled_statistic(tables, pooled - tables))
    result: np.ndarray = np.concatenate(drawn) if drawn else np.zeros(0, dtype=np.int64)
    return result


def pooled_count_test(
    records: Sequence[Record],
    resamples: int = dist.PERMUTATIONS,
    streams: Sequence[np.random.Generator] | None = None,
) -> tuple[int, float, bool]:
    """(summed statistic, one-sided p, exact) of the stratified test over RECORDS: exact (the
    convolution of the records' laws) while every record has at most `EXACT_TABLES` tables,
    else a seeded Monte Carlo of `resamples` within-record relabellings of every record, each
    record drawing from its own stream of `streams` (triage: `streams.record_stream`, so the
    pool's p does not depend on the records' order; default: one stream seeded `SEED` each)."""
    import numpy as np

    total = sum(observed(record) for record in records)
    laws = [exact_law(record) for record in records]
    if all(law is not None for law in laws):
        summed = np.ones(1)
        for law in laws:
            assert law is not None
            summed = np.convolve(summed, law)
        return total, min(1.0, float(summed[total:].sum())), True
    if streams is None:
        streams = [np.random.default_rng(dist.SEED) for _ in records]
    # Summed record by record: B statistics kept, not B a record (review78g).
    sums = np.zeros(resamples, dtype=np.int64)
    for record, rng in zip(records, streams, strict=True):
        sums += _relabelled(record, rng, resamples)
    return total, (1 + int((sums >= total).sum())) / (1 + resamples), False
