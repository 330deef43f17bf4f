"""Triage: is each text mismatch a regression, nondeterminism, or undecided — with the numbers.

`triage` joins a `k3diff.responses/1` comparison with `k3diff.samples/1` logs; `plan` sizes a
follow-up. Results are the frozen values of `k3diff.triage.model`.
"""

from k3diff.triage.model import Category, Correction, Flag, Plan, Settings, TriageResult
from k3diff.triage.plan import plan
from k3diff.triage.run import triage

__all__ = ["Category", "Correction", "Flag", "Plan", "Settings", "TriageResult", "plan", "triage"]
