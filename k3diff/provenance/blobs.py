"""Bounded blob reads: sizes first, diffs only within the cap, one blob in memory at a time.

A file over the text-diff cap on either side (a 1 GiB ``pkg/__init__.py`` at REV, or in the
wheel) is compared by blob id only and reported "too large to diff": its size comes from the
object header (``cat-file --batch-check``), and the wheel's copy is streamed for its id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from k3diff.provenance.git import GitRepo, blob_id, blob_id_of_chunks, blob_sizes, iter_blobs
from k3diff.textdiff import differs_only_in_line_endings, unified_diff

DIFF_CAP_BYTES = 32 << 20
"""Largest file (either side) read for a text diff; a larger one is compared by blob id only."""


@dataclass(frozen=True)
class StreamedFile:
    """A wheel file too large to hold in memory: its blob id is computed while streaming it."""

    size: int
    """Its size in bytes (the blob id's header needs it before the content)."""
    chunks: Callable[[], Iterable[bytes]]
    """Yields its content, once per call."""


WheelFiles = Mapping[str, "bytes | StreamedFile"]
"""Wheel path -> the file's exact bytes, or a `StreamedFile` for one over the diff cap."""


def wheel_blob_id(data: bytes | StreamedFile, object_format: str) -> str:
    """The git blob id of a wheel file, streamed when it is a `StreamedFile`."""
    if isinstance(data, StreamedFile):
        return blob_id_of_chunks(data.chunks(), data.size, object_format)
    return blob_id(data, object_format)


Diff = tuple[str | None, int | None, int | None]
"""A unified diff with its added and removed line counts (all None: no diff)."""


def bounded_diffs(
    git: GitRepo,
    differing: Mapping[str, str],
    files: WheelFiles,
    repo_path: Callable[[str], str],
    label: str,
    diff_cap: int,
) -> tuple[dict[str, Diff], dict[str, str | None]]:
    """For each wheel path in `differing` (-> the repository's blob id): its diff from the
    repository version (at `repo_path` of the wheel path) to the wheel's, or why there is none
    (too large on either side)."""
    sizes = blob_sizes(git, differing.values())
    skipped = {p: _too_large(sizes[oid], files[p], diff_cap) for p, oid in differing.items()}
    by_blob: dict[str, list[str]] = {}
    for path, oid in differing.items():
        if skipped[path] is None:
            by_blob.setdefault(oid, []).append(path)
    diffs: dict[str, Diff] = {}
    for oid, content in iter_blobs(git, sorted(by_blob)):
        for path in by_blob[oid]:
            data = files[path]
            assert isinstance(data, bytes)  # a StreamedFile is always over the cap
            if differs_only_in_line_endings(content, data):  # every line -X +X, alike on screen
                skipped[path] = LINE_ENDINGS_ONLY
                continue
            diffs[path] = unified_diff(content, data, f"a/{repo_path(path)}{label}", f"b/{path}")
    return diffs, skipped


LINE_ENDINGS_ONLY = "line endings only (CRLF against LF): not diffed line by line"
"""Why a file that differs from the commit only in its line endings has no diff (a Windows
checkout's build): its diff removed and added every line again, identical on screen, under a
`+2 -2 lines` that read as a change of content (review67)."""


def _too_large(repo_size: int, wheel: bytes | StreamedFile, cap: int) -> str | None:
    wheel_size = wheel.size if isinstance(wheel, StreamedFile) else len(wheel)
    if max(repo_size, wheel_size) <= cap and isinstance(wheel, bytes):
        return None
    return (
        f"too large to diff ({repo_size:,} bytes at the commit, {wheel_size:,} in the wheel; "
        f"the cap is {cap:,})"
    )
