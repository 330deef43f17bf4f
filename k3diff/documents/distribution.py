"""The `distribution` object of a `k3diff.triage/1` mode (triage's output-distribution test):
its writer and its typed reader, beside `documents.triage` which embeds them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from k3diff.documents.triagewords import TESTS
from k3diff.fields import LEVEL, SHARE, Fields
from k3diff.sample.names import SIDES
from k3diff.triage.distribution import SEED, DistributionTest, pooled_rejects
from k3diff.triage.firstverdict import FirstTokenTest, FitTest
from k3diff.triage.kernel import DESCRIPTION as KERNEL
from k3diff.triage.prefixes import Moved
from k3diff.triage.sampledlevel import judged_at


def distribution_json(test: DistributionTest) -> dict[str, Any]:
    """The JSON object of one mode's distribution test."""
    return {
        "test": test.kind,
        "sampled": test.sampled,
        "statistic": test.statistic,
        "p": test.p,
        "p_adjusted": test.p_adjusted,
        "exact": test.exact,
        "pooled_p": test.pooled_p,
        "pooled_p_adjusted": test.pooled_p_adjusted,
        "pooled_records": test.pooled_records,
        "pooled_statistic": test.pooled_statistic,
        "detectable_shift": test.detectable_shift,
        "level": test.level,
        "kernel": KERNEL if test.kind == "mmd" else None,
        "permutations": test.permutations,
        "seed": SEED,
        "moved": [
            {
                "side": m.side,
                "prefix": m.prefix,
                "count": m.count,
                "n": m.n,
                "other": m.other,
                "other_n": m.other_n,
            }
            for m in test.moved
        ],
        "first_token": None if test.first_token is None else first_token_json(test.first_token),
    }


def first_token_json(test: FirstTokenTest) -> dict[str, Any]:
    """The `first_token` object: a sampled mode's first-token test, or why it was not used."""
    return {
        "used": test.used,
        "why_not": test.why_not,
        "test": "G against reported first-token probabilities, Monte Carlo",
        "draws": test.draws,
        "seed": SEED,
        "cross": _fit_json(test.cross),
        "patch_own": _fit_json(test.patch_own),
        "base_own": _fit_json(test.base_own),
        "detectable_total_variation": test.detectable,
        "level": test.level,
        "base_reports": [{"token": token, "p": p} for token, p in test.base_tokens],
        "pooled": [
            {
                "test": pooled.test,
                "statistic": pooled.statistic if math.isfinite(pooled.statistic) else None,
                "p": pooled.p,
                "p_adjusted": pooled.p_adjusted,
                "records": pooled.records,
                "its_own": pooled.its_own,
            }
            for pooled in test.pooled
        ],
    }


def _fit_json(test: FitTest | None) -> dict[str, Any] | None:
    if test is None:
        return None
    return {
        "side": test.side,
        "against": test.against,
        "statistic": test.statistic if math.isfinite(test.statistic) else None,
        "p": test.p,
        "p_adjusted": test.p_adjusted,
        "token": test.token,
        "count": test.count,
        "n": test.n,
        "reported": test.reported,
        "other_reported": test.other_reported,
    }


@dataclass(frozen=True)
class TokenMember:
    """One first-token test in the distribution family, as written (`triagefamilies`)."""

    name: str
    """`cross`, `patch_own` (a used test's own), or `pooled:NAME` (its mode's pooled test)."""
    p: float
    """Its p before correction."""
    p_adjusted: float
    """Its p corrected across the family."""


@dataclass(frozen=True)
class TriageDistribution:
    """A mode's output-distribution test (what the bundle shows of it)."""

    test: str
    """`counts` or `mmd`."""
    sampled: bool
    """The mode's requests sampled."""
    p_adjusted: float
    """The record's corrected p."""
    pooled_p_adjusted: float | None
    """The mode's pooled test, corrected (mmd with two or more records)."""
    detectable_shift: float | None
    """The least share of answers moved to a new answer the test had power to detect."""
    alpha: float
    """The document's α (a rejection is `p_adjusted` or `pooled_p_adjusted` <= it)."""
    statistic: float = 0.0
    """counts: patch samples outside the base's mode; mmd: the record's MMD² (a pooled
    rejection is a record's only when its term of the pooled statistic is above 0)."""
    pooled_statistic: float | None = None
    """counts: the record's term of the pooled count statistic; None: `statistic` is it."""
    first_token_p: tuple[float, ...] = ()
    """The corrected p of the used first-token test's fit tests, and of its mode's pooled ones
    where the record added to them (empty: none used)."""
    level: float | None = None
    """The level its power was computed at, α over the family's tests (None: not read)."""
    pooled_p: float | None = None
    """The mode's pooled test of this kind, uncorrected (None: none ran)."""
    family_tests: tuple[str, ...] = ()
    """The record's tests in the family beside its own: `cross` and `patch_own` of a used
    first-token test, and `pooled:NAME` for each pooled first-token test it names."""
    moved: tuple[Moved, ...] = ()
    """Per side, the prefix it gives most over the other side's share, with both sides' n."""
    premise_p: float | None = None
    """The corrected p of the base's own first-token fit where it voided the first-token test
    (`first_token.used` false with a `base_own`: its premise failed at the document's α; the
    premise checks are corrected among themselves, so the p does not depend on α); None:
    the test was used, or not for another reason."""
    p: float | None = None
    """The record's test's p before correction (None: read from no document)."""
    token_members: tuple[TokenMember, ...] = ()
    """The first-token tests of the record in the family (`family_tests`), with their p."""

    @property
    def rejects(self) -> bool:
        """The record's test, its first-token test, or its mode's pooled test (where the
        record's term of the pooled statistic is above 0), rejects, at the level triage judges
        it at (`sampledlevel.judged_at`: a sampled mode's α is shared with its novelty test)."""
        alpha = judged_at(self.alpha, self.sampled)
        token = any(p <= alpha for p in self.first_token_p)
        term = self.statistic if self.pooled_statistic is None else self.pooled_statistic
        return token or pooled_rejects(self.p_adjusted, self.pooled_p_adjusted, term, alpha)


def read_distribution(fields: Fields, alpha: float) -> TriageDistribution | None:
    """A mode's `distribution` object (None: null, or written before the test existed)."""
    found = fields.optional_object("distribution")
    if found is None:
        return None
    return TriageDistribution(
        test=found.string("test", TESTS),
        sampled=found.boolean("sampled"),
        p_adjusted=found.number("p_adjusted", SHARE),
        pooled_p_adjusted=found.optional_number("pooled_p_adjusted", SHARE),
        detectable_shift=found.optional_number("detectable_shift", SHARE),
        alpha=alpha,
        statistic=found.number("statistic"),
        pooled_statistic=found.optional_number("pooled_statistic"),
        first_token_p=_first_token_p(found.optional_object("first_token")),
        level=found.optional_number("level", LEVEL),
        pooled_p=found.optional_number("pooled_p", SHARE),
        family_tests=_family_tests(found.optional_object("first_token")),
        moved=found.each("moved", _moved) if found.has("moved") else (),
        premise_p=_premise_p(found.optional_object("first_token")),
        p=found.number("p", SHARE),
        token_members=_token_members(found.optional_object("first_token")),
    )


def _token_members(found: Fields | None) -> tuple[TokenMember, ...]:
    """The members `_family_tests` names, each with its p and corrected p."""
    if found is None:
        return ()

    def member(name: str, test: Fields) -> TokenMember:
        return TokenMember(name, test.number("p", SHARE), test.number("p_adjusted", SHARE))

    own: tuple[TokenMember, ...] = ()
    if found.boolean("used"):
        tests = ((name, found.optional_object(name)) for name in ("cross", "patch_own"))
        own = tuple(member(name, test) for name, test in tests if test is not None)
    if not found.has("pooled"):
        return own
    return own + found.each("pooled", lambda p: member(f"pooled:{p.string('test')}", p))


def _premise_p(found: Fields | None) -> float | None:
    if found is None or found.boolean("used"):
        return None
    own = found.optional_object("base_own")
    return None if own is None else own.number("p_adjusted", SHARE)


def _moved(fields: Fields) -> Moved:
    return Moved(
        side=fields.string("side", SIDES),
        prefix=fields.string("prefix"),
        count=fields.integer("count"),
        n=fields.integer("n"),
        other=fields.integer("other"),
        other_n=fields.integer("other_n"),
    )


def _family_tests(found: Fields | None) -> tuple[str, ...]:
    """The first-token tests `shift.family_size` counts in the family: a used test's cross and
    patch_own, and every pooled test named (used or not)."""
    if found is None:
        return ()
    own: tuple[str, ...] = ()
    if found.boolean("used"):
        own = tuple(
            name for name in ("cross", "patch_own") if found.optional_object(name) is not None
        )
    pooled = (
        found.each("pooled", lambda p: f"pooled:{p.string('test')}") if found.has("pooled") else ()
    )
    return own + pooled


def _first_token_p(found: Fields | None) -> tuple[float, ...]:
    """The corrected p of a used first-token test's cross and patch_own tests, and of the
    pooled ones the record added to."""
    if found is None or not found.boolean("used"):
        return ()
    tests = (found.optional_object(name) for name in ("cross", "patch_own"))
    own = tuple(test.number("p_adjusted", SHARE) for test in tests if test is not None)
    pooled = found.each("pooled", lambda p: (p.boolean("its_own"), p.number("p_adjusted", SHARE)))
    return own + tuple(p for its_own, p in pooled if its_own)
