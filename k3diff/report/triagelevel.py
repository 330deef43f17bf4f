"""The run-level level triage claims: each family of tests is corrected at `--alpha` on its own,
so a run whose patch draws from the base's own distribution (an A/A run) can fail on a chance
rejection in any of them; the chance that one of them rejects is at most the sum of their
levels (the union bound). The families: Fisher and novelty on greedy texts, the distribution
tests (MMD, counts, first token, pooled), the finish-reason tests and the patch-error tests.
The document counts the first three (`tests`, `novelty_tests`, `distribution_tests`): one that
ran no test adds nothing; the last two are counted whether or not they tested."""

from __future__ import annotations

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
    bound = min(1.0, len(families) * alpha)
    return (
        f"run level: {len(families)} families at α = {alpha:g} each ({', '.join(families)}; "
        f"the last two counted whether or not they tested): a patch drawing from the base's own "
        f"distribution fails the run on a chance rejection at most {100 * bound:.3g} % of the "
        "time (the sum of their levels)"
    )
