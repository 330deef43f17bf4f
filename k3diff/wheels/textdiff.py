"""Line diffs of text entries (Python sources, metadata files)."""

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


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def diff_text(
    base: bytes | None, patch: bytes | None, base_label: str, patch_label: str
) -> TextDiff:
    """Unified diff of two versions of a text file; None stands for a file that is not there."""
    lines = list(
        difflib.unified_diff(
            _lines(base),
            _lines(patch),
            fromfile=base_label if base is not None else "/dev/null",
            tofile=patch_label if patch is not None else "/dev/null",
        )
    )
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return TextDiff(added=added, removed=removed, unified=text)


def _terminated(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
