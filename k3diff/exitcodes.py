"""The three exit codes every k3diff command uses, set in one place, and the one rule from a
document's failures to its verdict (`verdict_problems`)."""

from collections.abc import Sequence
from enum import IntEnum

_SHOWN = 3
"""Reasons a refusal names before '...'."""


class ExitCode(IntEnum):
    """What the process exit status tells a caller."""

    OK = 0
    """Nothing that fails the policy."""
    FINDINGS = 1
    """Differences or findings that fail the policy."""
    ERROR = 2
    """The tool could not do its job: usage error, unreadable or corrupt input, server unreachable."""


def verdict_problems(
    ok: bool, exit_code: int, failing: Sequence[str], source: str, where: str = ""
) -> list[str]:
    """The stated `ok` and `exit_code` against what `failing` (each reason the document's own
    contents fail it, named) gives: exit 1 when any, else 0; ok exactly when 0."""
    expected = ExitCode.FINDINGS if failing else ExitCode.OK
    shown = ", ".join(failing[:_SHOWN]) + (", ..." if len(failing) > _SHOWN else "")
    because = f"{len(failing):,} failing: {shown}" if failing else "none failing"
    if exit_code != expected:
        return [f"{where}verdict.exit_code {exit_code} does not follow from {source} ({because})"]
    if ok != (expected is ExitCode.OK):
        return [f"{where}verdict.ok {str(ok).lower()} does not follow from {source} ({because})"]
    return []
