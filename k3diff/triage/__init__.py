"""Triage: is each text mismatch a regression, nondeterminism, or undecided — with the numbers.

`k3diff.triage.run.triage` joins a `k3diff.responses/1` comparison with `k3diff.samples/1` logs;
`k3diff.triage.plan.plan` sizes a follow-up. Results are the frozen values of
`k3diff.triage.model`. This package imports only the model: the document readers and renderers
import it, and must not pay for the statistics (scipy) the run and the plan use.
"""

from k3diff.triage.model import Category, Correction, Flag, Plan, Settings, TriageResult

__all__ = ["Category", "Correction", "Flag", "Plan", "Settings", "TriageResult"]
