"""A waiver's `artifact`: a glob on the file name of the artifact a finding is about. The
waiver reader (`wheel.waivers`) matches it and the next steps (`report.stepwords`) write it from
this one definition of the name, so a suggested stanza names the file as the reader sees it
(review73c: the steps cut a name at a backslash, a character of a POSIX file name, and the
stanza for `x\\engine-1.0-py3-none-any.whl` named `engine-1.0-py3-none-any.whl`, another file).
Kept apart from the reader, which a run without `--waivers` never loads.
"""

from __future__ import annotations

from pathlib import PurePosixPath


def artifact_name(path: str) -> str:
    """The file name a waiver's `artifact` glob is matched against: the last part of the path
    as given, split at `/` only."""
    return PurePosixPath(path).name


def literal_glob(name: str) -> str:
    """`name` as a glob that matches it alone: each glob character as a class of itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)
