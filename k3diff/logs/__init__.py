"""`k3diff logs`: scan the base and patch servers' logs for what a reviewer greps for by hand.

Built-in rules (tracebacks, CUDA/NCCL errors, out of memory, NaN/Inf reports, assertion
failures, crashes and restarts, the engines' own error and warning lines) plus user rules, each
line matched by the first rule that accepts it. A finding is a rule and a normalised message
(timestamps, pids, addresses, request ids, ports and numbers masked), so the same message in two
runs is one finding; the verdict fails when the patch has an error finding the base does not.
"""

from k3diff.logs.compare import LogsOptions, scan_logs
from k3diff.logs.model import LogFinding, LogsReport, Severity, SideScan
from k3diff.logs.rules import BUILTIN_RULES, Rule, parse_user_rule

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
