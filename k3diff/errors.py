"""Errors k3diff raises on purpose.

Every one of them means "the tool could not do its job" and becomes exit code 2 with one line on
stderr. Anything else escaping to the CLI is a bug.

    K3diffError                  root; ``str(err)`` is the one line the user sees
    ├── UsageError               options that contradict each other or name nothing
    ├── InputError               a file that cannot be read (missing, a directory, permissions)
    │   ├── ErrorBlock           several refusals said at once, one line each (`report`: every
    │   │                        document or input that does not follow, report67)
    │   ├── ArchiveError         not a zip, truncated, unsupported compression, hostile layout
    │   │   └── CorruptEntryError  one entry's stream fails its own CRC-32 or size (callers that
    │   │                          can go on turn it into a finding instead of exit 2)
    │   ├── ResponseFormatError  a response file no loader accepts, a malformed line
    │   └── SourceError          a git repo, revision or range that cannot be used
    │       └── NestedRepositoryError  a directory inside a work tree, not its top level
    ├── ServerError              a server that cannot be reached at all or answers no completion
    │                            at all (or no stream to a stream request), a flush URL that fails
    │                            (those that stop a run: `sample.stopline.ServerStop`, with why)
    ├── OutputError              the report could not be written
    └── RunStopped               a `sample` run stopped part-way (any of the above, Ctrl-C or
                                 SIGTERM), with what it kept
"""

from __future__ import annotations

import re


class K3diffError(Exception):
    """Root of every error k3diff reports as exit code 2."""


class UsageError(K3diffError):
    """Options that contradict each other or cannot be satisfied."""


class InputError(K3diffError):
    """An input file cannot be read."""


class ErrorBlock(InputError):
    """Several refusals said at once: a first line that counts them, then one line each. The
    CLI prints each line as it prints the one line of any other error (whitespace folded,
    control characters escaped), so a name cannot start a line of its own."""

    def __init__(self, lines: tuple[str, ...]) -> None:
        super().__init__(" ".join(lines))
        self.lines = lines
        """The first line, then one line per refusal."""


class ArchiveError(InputError):
    """A zip archive that is not one, is damaged, or uses a feature k3diff does not read."""


class CapError(ArchiveError):
    """An input goes past one of k3diff's caps (directory records or bytes, a file read whole,
    header lines): k3diff cannot do its job on it within bounded memory, so both commands stop
    (exit 2) with the cap named."""


class CorruptEntryError(ArchiveError):
    """One entry's stream does not inflate, or its content fails its own CRC-32 or size."""

    def __init__(self, archive: str, entry: str, problem: str) -> None:
        super().__init__(f"{archive}: entry {entry!r}: {problem}")
        self.archive = archive
        """The archive's path, as given."""
        self.entry = entry
        """The entry's archive path."""
        self.problem = problem
        """What is wrong, without the archive's path (reports name the side instead)."""


class ResponseFormatError(InputError):
    """A responses file that no loader accepts, or a malformed record in it."""


class SourceError(InputError):
    """A git repository, revision or range that cannot be used for provenance."""


class NestedRepositoryError(SourceError):
    """The source directory is inside a git work tree rather than its top level."""

    def __init__(self, message: str, top_level: str) -> None:
        super().__init__(message)
        self.top_level = top_level
        """The work tree's top level: the directory to pass instead."""


class ServerError(K3diffError):
    """A server that cannot be reached at all (every attempt failed to connect), or whose
    answer shows it is no completion server, or one that does not stream (`sample.unstreamed`).
    Its message names the server's URL without a user:password (`without_credentials`)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(without_credentials(message))


def without_credentials(text: str) -> str:
    """`text` with each URL's user:password written `***` (`http://***@host:8000/v1`): before
    (review71c), a stop's message said `--patch http://user:pw@host`'s password on stderr and
    in the log's stop line."""
    return _CREDENTIALS.sub(r"\1***@", text)


_CREDENTIALS = re.compile(r"(://)[^\s/@]+@")


class OutputError(K3diffError):
    """The report could not be written where asked."""


class RunStopped(K3diffError):
    """A `k3diff sample` run that stopped part-way: what stopped it, and how many samples the
    log keeps for `--resume` (`sample.stop`), or that none was written."""
