"""`wheels`' source options (`--source REPO --commit REV | --commits OLD..NEW`) made one
`SourceSpec`, or the usage error that says what is missing.

`--source` without a revision stays an error: taking the commit the patch wheel states as the
revision would let the wheel choose what it is checked against. The error names that commit,
and where it was read, for the reviewer to judge and pass as `--commit` (stop 68, w408b).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from k3diff.errors import K3diffError, UsageError

if TYPE_CHECKING:
    from k3diff.wheels.sources import SourceSpec

_SAID_CAP = 200
"""Characters of the place a stated commit was read from said in the error (an entry name)."""


def source_spec(
    source: Path | None,
    commit: str | None,
    commits: str | None,
    prefix: str | None,
    check_all: bool,
    patch: Path | None = None,
) -> SourceSpec | None:
    """The source check asked for, None without `--source`; `patch`: the patch wheel, whose
    stated commit a `--source` given without a revision names."""
    if source is None:
        if commit or commits or prefix or check_all:
            raise UsageError("--commit, --commits, --source-prefix and --source-all need --source")
        return None
    if commit is not None and commits is not None:
        raise UsageError("--source needs exactly one of --commit REV or --commits OLD..NEW")
    if commit is None and commits is None:
        raise UsageError(
            "--source needs exactly one of --commit REV or --commits OLD..NEW" + _stated(patch)
        )
    from k3diff.wheels.sources import SourceSpec

    return SourceSpec(source, commit=commit, commits=commits, prefix=prefix, check_all=check_all)


def _stated(patch: Path | None) -> str:
    """``; the patch wheel states commit 1a2b3c4 (read from …): …``, or '' when it states none
    (or is no wheel that can be read: the comparison, never run, would say so)."""
    if patch is None or not patch.is_file():
        return ""
    from k3diff.wheel.metadata import read_identity
    from k3diff.wheels.statedcommit import distinct, stated_commits
    from k3diff.zip.archive import ZipArchive

    try:
        with ZipArchive.open(patch) as archive:
            stated = stated_commits(archive, read_identity(archive))
    except (K3diffError, OSError):
        return ""
    if not stated:
        return "; the patch wheel states no commit"
    said = "; ".join(
        f"{c.commit} (read from {c.path[:_SAID_CAP]} {c.field})" for c in distinct(stated)
    )
    return (
        f"; the patch wheel states commit {said}: judge it, then pass it as --commit "
        "(it is never taken as the revision: the wheel would choose what it is checked against)"
    )
