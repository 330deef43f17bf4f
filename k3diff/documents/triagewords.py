"""The words and ranges a `k3diff.triage/1` document's fields hold as triage writes them: its
typed reader (`triage`, `triagemodes`, `distribution`) refuses any other value, naming it."""

from __future__ import annotations

from k3diff.fields import Within
from k3diff.sample.names import Mode
from k3diff.triage.model import Category, Correction, Flag

CATEGORIES = frozenset(category.value for category in Category)
"""The categories triage writes (a record's and a mode's)."""
FLAGS = frozenset(flag.value for flag in Flag)
"""The flags triage writes."""
MODES = frozenset(mode.value for mode in Mode)
"""The sampling modes a mode, `deciding_mode` and `capture_mode` name."""
CORRECTIONS = frozenset(correction.value for correction in Correction)
"""How triage corrects its p-values (`--correction`)."""
TESTS = frozenset({"counts", "mmd"})
"""The kinds of output-distribution test (`distribution.test`)."""
SHIFT = Within(0.0, 1.0, open_low=True)
"""`--shift`: a share of answers moved, above 0 and at most 1."""
