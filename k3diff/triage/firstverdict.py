"""What the first-token test (`k3diff.triage.firsttoken`) found for one record and mode: the
result types a `DistributionTest` carries, kept apart so that the distribution module and the
test's module both import them (imports only run downward)."""

from __future__ import annotations

from dataclasses import dataclass

OTHER = "<another token>"
"""How a reason names the tokens outside the reported alternatives, as one category."""


@dataclass(frozen=True)
class FitTest:
    """One goodness-of-fit test: a side's chosen first tokens against reported probabilities."""

    side: str
    """The side whose chosen first tokens are counted."""
    against: str
    """The side whose reported probabilities are the null distribution."""
    statistic: float
    """The likelihood-ratio statistic G = 2 Σ O log(O / E) over the categories (inf: a token
    the reports give probability 0 was chosen)."""
    p: float
    """(1 + null draws scoring at least as high) / (1 + draws): Monte Carlo from the reported
    multinomial."""
    p_adjusted: float
    """`p` corrected with the other distribution tests (the premise checks: among
    themselves)."""
    token: str
    """The category whose count is furthest from its expectation (`OTHER` for the rest)."""
    count: int
    """Chosen first tokens in that category."""
    n: int
    """Chosen first tokens counted."""
    reported: float
    """The category's reported probability (mean over the `against` side's requests)."""
    other_reported: float | None = None
    """Where `side` is not `against`: the probability `side` itself reports for that token
    (None: it reports none, or the test is of a side's own reports)."""


@dataclass(frozen=True)
class Pooled:
    """A mode's pooled fit test: the sum of its records' G against the sums of their null
    draws (each record's drawn independently)."""

    test: str
    """cross or patch_own."""
    statistic: float
    """The summed G."""
    p: float
    """(1 + summed null draws scoring at least as high) / (1 + draws)."""
    p_adjusted: float
    """`p` corrected with the other distribution tests."""
    records: int
    """Records summed over."""
    its_own: bool
    """This record's own test of that kind has p < 1/2 (its G is above its null's median): it
    added to the pooled evidence, and a pooled rejection is its too."""


@dataclass(frozen=True)
class FirstTokenTest:
    """The first-token test of one sampled record and mode, or why it was not used."""

    used: bool
    """The test's p-values count (in the distribution family and for the verdict)."""
    why_not: str | None
    """Why the test was not used (None when used)."""
    cross: FitTest | None = None
    """The patch's chosen first tokens against the base's reported probabilities."""
    patch_own: FitTest | None = None
    """The patch's chosen first tokens against its own reported probabilities (None: the
    patch's requests were of another condition)."""
    base_own: FitTest | None = None
    """The premise check: the base's chosen first tokens against its own reports, corrected
    among the run's premise checks alone (a rejection means its reports are not what it
    samples: the test is not used)."""
    draws: int = 0
    """Monte Carlo draws from the null multinomial per test."""
    detectable: float | None = None
    """The smallest total variation moved onto the base's most likely first token that the
    cross test had the settings' power to detect at `level` (simulated); None: none possible or
    none up to the largest."""
    level: float = 0.0
    """The level the power was computed at (α over the distribution family)."""
    mode_token: str | None = None
    """The base's most likely first token (reported)."""
    mode_p: float | None = None
    """Its reported probability."""
    base_tokens: tuple[tuple[str, float], ...] = ()
    """The base's reported first-token distribution (mean over its requests), most likely
    first, at most 5."""
    pooled: tuple[Pooled, ...] = ()
    """The mode's pooled fit tests (modes with two or more used records)."""

    def rejects(self, alpha: float) -> bool:
        """The test was used and the patch's first tokens fit the base's reports, or its own,
        at no better than α after correction (the record's own tests, or its mode's pooled
        tests where the record added to them)."""
        tests = (self.cross, self.patch_own)
        own = any(t is not None and t.p_adjusted <= alpha for t in tests)
        pooled = any(t.its_own and t.p_adjusted <= alpha for t in self.pooled)
        return self.used and (own or pooled)
