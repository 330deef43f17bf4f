"""Line diffs of text entries (Python sources, metadata files), shared by every comparison."""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from typing import Literal

from k3diff import escape


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
    binary: str | None = None
    """Set when either side is binary (NUL bytes or not UTF-8): never diffed as text; says each
    side's size and SHA-256 (`base: binary, 2,596 bytes, sha256 …; patch: …`)."""


def differs_only_in_line_endings(old: bytes, new: bytes) -> bool:
    """True when `old` and `new` differ but are equal once CRLF is read as LF."""
    if old == new or (b"\r" not in old and b"\r" not in new):
        return False  # without a CR, replacing CRLF changes nothing: they stay different
    return old.replace(b"\r\n", b"\n") == new.replace(b"\r\n", b"\n")


def _diff_lines(data: bytes) -> list[str]:
    return _split(data.decode("utf-8", "replace"))


def _split(text: str) -> list[str]:
    # Split on '\n' only: str.splitlines would also break on form feeds and Unicode separators
    # that are ordinary characters inside a Python source line.
    *lines, last = text.split("\n")
    marked = [f"{line}\n" for line in lines]
    if last:  # git's marker, so that a missing final newline shows up as a change
        marked.append(f"{last}\n\\ No newline at end of file\n")
    return marked


Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _TrimmedMatcher(difflib.SequenceMatcher[str]):
    """SequenceMatcher that sets the common leading and trailing lines aside before matching.

    A patch usually touches a few lines of a large file; difflib alone spends most of its time
    on the unchanged lines (0.2 s for a dozen torch sources), this matches only the middle.
    `skipped` says how many lines (head, tail) were already found common as bytes: the lists
    hold placeholders there, never compared (they only count).
    """

    def __init__(self, old: list[str], new: list[str], skipped: tuple[int, int] = (0, 0)) -> None:
        super().__init__(None, [], [])
        self.old, self.new, self.skipped = old, new, skipped

    def get_opcodes(self) -> list[Opcode]:
        old, new = self.old, self.new
        limit = min(len(old), len(new))
        head, tail = self.skipped
        while head < limit - tail and old[head] == new[head]:
            head += 1
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
            if codes and codes[-1][0] == "equal":  # nothing between head and tail: one run
                codes[-1] = ("equal", codes[-1][1], len(old), codes[-1][3], len(new))
            else:
                codes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
        return codes


_CONTEXT = 3
"""Unchanged lines shown around each change."""

_PLACEHOLDER = "\0 common line not split out\n"
"""Stands for a line of the common head or tail that no hunk shows (never rendered)."""


def _common_prefix(old: str, new: str) -> int:
    """Length of the longest common prefix, found by block compares in C, not byte by byte."""
    limit = min(len(old), len(new))
    low = 0
    while low < limit:
        high = min(low + (1 << 16), limit)
        if old[low:high] != new[low:high]:
            break
        low = high
    else:
        return limit
    while high - low > 1:  # old[:low] == new[:low], old[:high] != new[:high]
        middle = (low + high) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle
    return low


def _common_suffix(old: str, new: str, limit: int) -> int:
    """Length of the longest common suffix, at most `limit`."""
    low, end_old, end_new = 0, len(old), len(new)
    while low < limit:
        high = min(low + (1 << 16), limit)
        if old[end_old - high : end_old - low] != new[end_new - high : end_new - low]:
            break
        low = high
    else:
        return limit
    while high - low > 1:
        middle = (low + high) // 2
        if old[end_old - middle : end_old - low] == new[end_new - middle : end_new - low]:
            low = middle
        else:
            high = middle
    return low


def _line_count(text: str) -> int:
    """Lines `_split` makes of `text`."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _trimmed_lines(
    old_bytes: bytes, new_bytes: bytes, decoded: tuple[str, str] | None = None
) -> tuple[list[str], list[str], tuple[int, int]]:
    """`_diff_lines` of both, except that the common leading and trailing lines (found by
    comparing the decoded texts in C, not line by line) are split out only as far as a hunk's
    context can show them: the others are placeholders. Compared after decoding, not as bytes,
    so that lines whose different invalid bytes decode alike stay common as they were. Returns
    the lines and how many (head, tail) lines are common. `decoded`: both texts, when the
    caller already decoded them (valid UTF-8: the same text the lenient decode gives)."""
    if decoded is None:
        old = old_bytes.decode("utf-8", "replace")
        new = new_bytes.decode("utf-8", "replace")
    else:
        old, new = decoded
    prefix = _common_prefix(old, new)
    head_end = old.rfind("\n", 0, prefix) + 1  # where the last whole common line ends
    suffix = _common_suffix(old, new, min(len(old), len(new)) - head_end)
    tail_old = len(old) - suffix
    tail_new = len(new) - suffix
    starts_line = (tail_old == head_end or old[tail_old - 1] == "\n") and (
        tail_new == head_end or new[tail_new - 1] == "\n"
    )
    if not starts_line:  # the common tail's first whole line starts after its next newline
        newline = old.find("\n", tail_old)
        shift = (newline + 1 - tail_old) if newline >= 0 else suffix
        tail_old, tail_new = tail_old + shift, tail_new + shift
    head_lines = old.count("\n", 0, head_end)
    tail_lines = _line_count(old[tail_old:])
    context_start = head_end
    for _ in range(min(_CONTEXT, head_lines)):
        context_start = old.rfind("\n", 0, context_start - 1) + 1
    context_end = tail_old
    for _ in range(_CONTEXT):
        newline = old.find("\n", context_end)
        if newline < 0:
            context_end = len(old)
            break
        context_end = newline + 1
    head = _split(old[context_start:head_end])
    tail = _split(old[tail_old:context_end])
    filler_head = [_PLACEHOLDER] * (head_lines - len(head))
    filler_tail = [_PLACEHOLDER] * (tail_lines - len(tail))
    old_lines = [*filler_head, *head, *_split(old[head_end:tail_old]), *tail, *filler_tail]
    new_lines = [*filler_head, *head, *_split(new[head_end:tail_new]), *tail, *filler_tail]
    return old_lines, new_lines, (head_lines, tail_lines)


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def unified_diff(
    old: bytes, new: bytes, old_label: str, new_label: str, decoded: tuple[str, str] | None = None
) -> tuple[str, int, int]:
    """A unified diff of two byte strings read as UTF-8 text, with its added and removed lines
    (`decoded`: both as text, when already decoded strictly)."""
    old_lines, new_lines, skipped = _trimmed_lines(old, new, decoded)
    groups = list(_TrimmedMatcher(old_lines, new_lines, skipped).get_grouped_opcodes(_CONTEXT))
    if not groups or groups == [[("equal", 0, len(old_lines), 0, len(new_lines))]]:
        return "", 0, 0
    # A label is an archive path: a newline in it must not start a line of its own.
    out = [f"--- {escape.text(old_label)}\n", f"+++ {escape.text(new_label)}\n"]
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
    base: bytes | None,
    patch: bytes | None,
    base_label: str,
    patch_label: str,
    decoded: tuple[str, str] | None = None,
) -> TextDiff:
    """Unified diff of two versions of a text file; None stands for a file that is not there.
    `decoded`: both as text (an absent one ""), when the caller decoded them strictly.

    Files that differ only in line endings (a Windows build's CRLF sources) are marked so, not
    diffed: every line would show as removed and added again, visually identical."""
    if base is not None and patch is not None and differs_only_in_line_endings(base, patch):
        return TextDiff(added=0, removed=0, unified="", line_endings_only=True)
    text, added, removed = unified_diff(
        base or b"",
        patch or b"",
        base_label if base is not None else "/dev/null",
        patch_label if patch is not None else "/dev/null",
        decoded,
    )
    return TextDiff(added=added, removed=removed, unified=text)


def is_binary(data: bytes) -> bool:
    """True for content that is not text: NUL bytes, or not UTF-8."""
    return _text(data) is None


def _text(data: bytes) -> str | None:
    """`data` decoded, None when it is binary (`is_binary`)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def describe_content(data: bytes | None) -> str:
    """`binary, 2,596 bytes, sha256 <hex>` (or `text, …`, or `absent`)."""
    if data is None:
        return "absent"
    kind = "binary" if is_binary(data) else "text"
    return f"{kind}, {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()}"


def diff_content(
    base: bytes | None, patch: bytes | None, base_label: str, patch_label: str
) -> TextDiff:
    """`diff_text` for text; a binary side (an ELF named `.py`) is described, never diffed.
    Each side is decoded once: the test for binary content gives the text that is diffed."""
    base_text = "" if base is None else _text(base)
    patch_text = "" if patch is None else _text(patch)
    if base_text is None or patch_text is None:
        summary = f"base: {describe_content(base)}; patch: {describe_content(patch)}"
        return TextDiff(added=0, removed=0, unified="", binary=summary)
    return diff_text(base, patch, base_label, patch_label, (base_text, patch_text))
