"""Line diffs of text entries (Python sources, metadata files), shared by every comparison."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class TextDiff:
    """How the text of one entry changed."""

    added: int
    """Lines only in the patch."""
    removed: int
    """Lines only in the base."""
    unified: str
    """The whole unified diff (renderers cap it; JSON carries all of it)."""
    line_endings_only: bool = False
    """The texts differ only in line endings (CRLF vs LF): no line is diffed, none counted."""


def differs_only_in_line_endings(old: bytes, new: bytes) -> bool:
    """True when `old` and `new` differ but are equal once CRLF is read as LF."""
    return old != new and old.replace(b"\r\n", b"\n") == new.replace(b"\r\n", b"\n")


def _diff_lines(data: bytes) -> list[str]:
    # Split on '\n' only: str.splitlines would also break on form feeds and Unicode separators
    # that are ordinary characters inside a Python source line.
    *lines, last = data.decode("utf-8", "replace").split("\n")
    marked = [f"{line}\n" for line in lines]
    if last:  # git's marker, so that a missing final newline shows up as a change
        marked.append(f"{last}\n\\ No newline at end of file\n")
    return marked


Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _TrimmedMatcher(difflib.SequenceMatcher[str]):
    """SequenceMatcher that sets the common leading and trailing lines aside before matching.

    A patch usually touches a few lines of a large file; difflib alone spends most of its time
    on the unchanged lines (0.2 s for a dozen torch sources), this matches only the middle.
    """

    def __init__(self, old: list[str], new: list[str]) -> None:
        super().__init__(None, [], [])
        self.old, self.new = old, new

    def get_opcodes(self) -> list[Opcode]:
        old, new = self.old, self.new
        limit = min(len(old), len(new))
        head = 0
        while head < limit and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        middle = difflib.SequenceMatcher(
            None, old[head : len(old) - tail], new[head : len(new) - tail]
        ).get_opcodes()
        codes: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
        codes += [
            (tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle
        ]
        if tail:
            codes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
        return codes


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def unified_diff(old: bytes, new: bytes, old_label: str, new_label: str) -> tuple[str, int, int]:
    """A unified diff of two byte strings read as UTF-8 text, with its added and removed lines."""
    old_lines, new_lines = _diff_lines(old), _diff_lines(new)
    groups = list(_TrimmedMatcher(old_lines, new_lines).get_grouped_opcodes(3))
    if not groups or groups == [[("equal", 0, len(old_lines), 0, len(new_lines))]]:
        return "", 0, 0
    out = [f"--- {old_label}\n", f"+++ {new_label}\n"]
    added = removed = 0
    for group in groups:
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old_lines[i1:i2])
                continue
            out.extend("-" + line for line in old_lines[i1:i2])
            out.extend("+" + line for line in new_lines[j1:j2])
            removed += i2 - i1
            added += j2 - j1
    return "".join(out), added, removed


def diff_text(
    base: bytes | None, patch: bytes | None, base_label: str, patch_label: str
) -> TextDiff:
    """Unified diff of two versions of a text file; None stands for a file that is not there.

    Files that differ only in line endings (a Windows build's CRLF sources) are marked so, not
    diffed: every line would show as removed and added again, visually identical."""
    if base is not None and patch is not None and differs_only_in_line_endings(base, patch):
        return TextDiff(added=0, removed=0, unified="", line_endings_only=True)
    text, added, removed = unified_diff(
        base or b"",
        patch or b"",
        base_label if base is not None else "/dev/null",
        patch_label if patch is not None else "/dev/null",
    )
    return TextDiff(added=added, removed=removed, unified=text)
