"""Line diffs of text entries (Python sources, metadata files), shared by every comparison."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TextDiff:
    """How the text of one entry changed."""

    added: int
    """Lines only in the patch."""
    removed: int
    """Lines only in the base."""
    unified: str
    """The whole unified diff (renderers cap it; JSON carries all of it)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"added": self.added, "removed": self.removed, "unified": self.unified}


def _diff_lines(data: bytes) -> list[str]:
    # Split on '\n' only: str.splitlines would also break on form feeds and Unicode separators
    # that are ordinary characters inside a Python source line.
    *lines, last = data.decode("utf-8", "replace").split("\n")
    marked = [f"{line}\n" for line in lines]
    if last:  # git's marker, so that a missing final newline shows up as a change
        marked.append(f"{last}\n\\ No newline at end of file\n")
    return marked


def unified_diff(old: bytes, new: bytes, old_label: str, new_label: str) -> tuple[str, int, int]:
    """A unified diff of two byte strings read as UTF-8 text, with its added and removed lines."""
    lines = list(difflib.unified_diff(_diff_lines(old), _diff_lines(new), old_label, new_label))
    body = lines[2:]  # after the ---/+++ headers
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    return "".join(lines), added, removed


def diff_text(
    base: bytes | None, patch: bytes | None, base_label: str, patch_label: str
) -> TextDiff:
    """Unified diff of two versions of a text file; None stands for a file that is not there."""
    text, added, removed = unified_diff(
        base or b"",
        patch or b"",
        base_label if base is not None else "/dev/null",
        patch_label if patch is not None else "/dev/null",
    )
    return TextDiff(added=added, removed=removed, unified=text)
