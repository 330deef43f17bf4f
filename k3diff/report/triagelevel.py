"""The run-level level triage claims: each family of tests is corrected at `--alpha` on its own,
so a run whose patch draws from the base's own distribution (an A/A run) can fail on a chance
rejection in any of them; the chance that one of them rejects is at most the sum of their
levels (the union bound). The families: Fisher and novelty on greedy texts, the distribution
tests (MMD, counts, first token, pooled), the finish-reason tests and the patch-error tests.
The document counts the first three (`tests`, `novelty_tests`, `distribution_tests`): one that
ran no test adds nothing; the last two are counted whether or not they tested."""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from k3diff.triage.model import TriageResult

UNCOUNTED = ("finish reasons", "patch errors")
"""The families whose tests the result does not count: each counted as one at `--alpha`."""


def run_level_line(result: TriageResult) -> str:
    """'run level: 4 families at α = 0.05 each (Fisher, distribution, finish reasons, patch
    errors): a patch drawing from the base's own distribution fails the run on a chance
    rejection at most 20 % of the time (their sum)'."""
    counted = (
        ("Fisher", result.tests),
        ("novelty", result.novelty_tests),
        ("distribution", result.distribution_tests),
    )
    families = [name for name, tests in counted if tests > 0] + list(UNCOUNTED)
    alpha = result.settings.alpha
    percent = percent_at_most(len(families), alpha)
    return (
        f"run level: {len(families)} families at α = {alpha:g} each ({', '.join(families)}; "
        f"the last two counted whether or not they tested): a patch drawing from the base's own "
        f"distribution fails the run on a chance rejection at most {percent} % of the "
        "time (the sum of their levels)"
    )


def percent_at_most(families: int, alpha: float) -> str:
    """min(100, `families` × 100 α) in percent, 3 significant digits rounded up, so the bound
    said is never below the bound: 5 × 0.0123456 is 6.1728 %, said '6.18' ('6.17', the bound
    rounded to nearest, understated it). α is taken as its shortest decimal (`--alpha 0.05` is
    0.05, not the binary float's 0.05000000000000000277: 5 families give 25, not 25.1)."""
    exact = min(Decimal(100), Decimal(repr(alpha)) * families * 100)
    step = Decimal(1).scaleb(exact.adjusted() - 2)  # the third significant digit's unit
    said = exact.quantize(step, rounding=ROUND_CEILING)
    return f"{said.normalize():f}"
