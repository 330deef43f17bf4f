"""The three exit codes every k3diff command uses, set in one place."""

from enum import IntEnum


class ExitCode(IntEnum):
    """What the process exit status tells a caller."""

    OK = 0
    """Nothing that fails the policy."""
    FINDINGS = 1
    """Differences or findings that fail the policy."""
    ERROR = 2
    """The tool could not do its job: usage error, unreadable or corrupt input, server unreachable."""
