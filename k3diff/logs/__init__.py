"""`k3diff logs`: scan the base and patch servers' logs for what a reviewer greps for by hand.

Built-in rules (tracebacks, CUDA/NCCL errors, out of memory, NaN/Inf reports, assertion
failures, crashes and restarts, the engines' own error and warning lines) plus user rules, each
line matched by the first rule that accepts it. A finding is a rule and a normalised message
(timestamps, pids, addresses, request ids, ports and numbers masked), so the same message in two
runs is one finding; the verdict fails when the patch has an error finding the base does not.
"""

# The names below are imported on first use (PEP 562), so that importing a module of this
# package (a document reader imports its model) never loads what its command runs with: the
# heavy libraries (scipy, httpx, pyelftools, rapidfuzz, matplotlib) load only when used.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from k3diff.logs.compare import LogsOptions, scan_logs
    from k3diff.logs.model import LogFinding, LogsReport, Severity, SideScan
    from k3diff.logs.rules import BUILTIN_RULES, Rule, parse_user_rule

_LAZY = {
    "LogsOptions": ("k3diff.logs.compare", "LogsOptions"),
    "scan_logs": ("k3diff.logs.compare", "scan_logs"),
    "LogFinding": ("k3diff.logs.model", "LogFinding"),
    "LogsReport": ("k3diff.logs.model", "LogsReport"),
    "Severity": ("k3diff.logs.model", "Severity"),
    "SideScan": ("k3diff.logs.model", "SideScan"),
    "BUILTIN_RULES": ("k3diff.logs.rules", "BUILTIN_RULES"),
    "Rule": ("k3diff.logs.rules", "Rule"),
    "parse_user_rule": ("k3diff.logs.rules", "parse_user_rule"),
}
"""Exported name -> (module, attribute)."""

__all__ = [
    "BUILTIN_RULES",
    "LogFinding",
    "LogsOptions",
    "LogsReport",
    "Rule",
    "Severity",
    "SideScan",
    "parse_user_rule",
    "scan_logs",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(target[0]), target[1])
