"""Line diffs of text entries (Python sources, metadata files), shared by every comparison."""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import AnyStr, Literal

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


def _common_prefix(old: AnyStr, new: AnyStr) -> int:
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


def _common_suffix(old: AnyStr, new: AnyStr, limit: int) -> int:
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


def _line_count(text: AnyStr, newline: AnyStr) -> int:
    """Lines `_split` makes of `text`."""
    return text.count(newline) + (1 if text and not text.endswith(newline) else 0)


def _same(text: str) -> str:
    return text


def _strict(data: bytes) -> str:
    return data.decode("utf-8")


def _trimmed_lines(
    old_bytes: bytes, new_bytes: bytes
) -> tuple[list[str], list[str], tuple[int, int]]:
    """`_diff_lines` of both, except that the common leading and trailing lines (found by
    comparing the decoded texts in C, not line by line) are split out only as far as a hunk's
    context can show them: the others are placeholders. Compared after decoding, not as bytes,
    so that lines whose different invalid bytes decode alike stay common as they were. Returns
    the lines and how many (head, tail) lines are common."""
    old = old_bytes.decode("utf-8", "replace")
    new = new_bytes.decode("utf-8", "replace")
    return _trimmed(old, new, "\n", _same)


def _trimmed(
    old: AnyStr, new: AnyStr, newline: AnyStr, text: Callable[[AnyStr], str]
) -> tuple[list[str], list[str], tuple[int, int]]:
    """`_trimmed_lines` of `old` and `new` as they are, `text` making each piece split into
    lines a string: decoded text (`_same`), or valid UTF-8 bytes (`_strict`), which give the
    same lines, since a line break is the byte 0x0A in UTF-8 and nowhere else, and equal bytes
    decode to equal text (`_diff_valid`). Only the pieces the lines are split from are made
    text: a patch of a long source decodes the few lines around its change, not the file."""
    prefix = _common_prefix(old, new)
    head_end = old.rfind(newline, 0, prefix) + 1  # where the last whole common line ends
    suffix = _common_suffix(old, new, min(len(old), len(new)) - head_end)
    tail_old = len(old) - suffix
    tail_new = len(new) - suffix
    starts_line = (tail_old == head_end or old[tail_old - 1 : tail_old] == newline) and (
        tail_new == head_end or new[tail_new - 1 : tail_new] == newline
    )
    if not starts_line:  # the common tail's first whole line starts after its next newline
        found = old.find(newline, tail_old)
        shift = (found + 1 - tail_old) if found >= 0 else suffix
        tail_old, tail_new = tail_old + shift, tail_new + shift
    head_lines = old.count(newline, 0, head_end)
    tail_lines = _line_count(old[tail_old:], newline)
    context_start = head_end
    for _ in range(min(_CONTEXT, head_lines)):
        context_start = old.rfind(newline, 0, context_start - 1) + 1
    context_end = tail_old
    for _ in range(_CONTEXT):
        found = old.find(newline, context_end)
        if found < 0:
            context_end = len(old)
            break
        context_end = found + 1
    changed_new = _split(text(new[head_end:tail_new]))  # first: the one that may not decode
    head: list[str] = _split(text(old[context_start:head_end]))
    tail: list[str] = _split(text(old[tail_old:context_end]))
    before = [_PLACEHOLDER] * (head_lines - len(head)) + head
    after = tail + [_PLACEHOLDER] * (tail_lines - len(tail))
    old_lines = before + _split(text(old[head_end:tail_old])) + after
    new_lines = before + changed_new + after
    return old_lines, new_lines, (head_lines, tail_lines)


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def unified_diff(old: bytes, new: bytes, old_label: str, new_label: str) -> tuple[str, int, int]:
    """A unified diff of two byte strings read as UTF-8 text, with its added and removed
    lines."""
    return _unified(_trimmed_lines(old, new), old_label, new_label)


def _unified(
    trimmed: tuple[list[str], list[str], tuple[int, int]], old_label: str, new_label: str
) -> tuple[str, int, int]:
    """The unified diff of lines as `_trimmed_lines` gives them, with its added and removed
    lines."""
    old_lines, new_lines, skipped = trimmed
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
    """`diff_text` for text; a binary side (an ELF named `.py`) is described, never diffed."""
    text = _diff_valid(base, patch, base_label, patch_label)
    if text is not None:
        return text
    base_text = "" if base is None else _text(base)
    patch_text = "" if patch is None else _text(patch)
    if base_text is None or patch_text is None:
        summary = f"base: {describe_content(base)}; patch: {describe_content(patch)}"
        return TextDiff(added=0, removed=0, unified="", binary=summary)
    return diff_text(base, patch, base_label, patch_label)


def _diff_valid(
    base: bytes | None, patch: bytes | None, base_label: str, patch_label: str
) -> TextDiff | None:
    """`diff_text` of two sides that are text (no NUL, UTF-8: `is_binary` of neither), made from
    the bytes; None where either may be binary. The base is decoded whole (is it UTF-8?); the
    patch only between the lines it shares with the base at its start and end, whose bytes are
    the base's: UTF-8 is valid or not character by character, and each piece starts after a
    line break, so the patch is UTF-8 exactly when that stretch is (issue 41: torch's dozen
    edited sources, 5.6 MB a side, were both decoded whole and compared as text)."""
    old, new = base or b"", patch or b""
    if b"\0" in old or b"\0" in new or _text(old) is None:
        return None
    if base is not None and patch is not None and differs_only_in_line_endings(base, patch):
        return TextDiff(added=0, removed=0, unified="", line_endings_only=True)
    try:
        trimmed = _trimmed(old, new, b"\n", _strict)
    except UnicodeDecodeError:
        return None  # the patch is not UTF-8
    text, added, removed = _unified(
        trimmed,
        base_label if base is not None else "/dev/null",
        patch_label if patch is not None else "/dev/null",
    )
    return TextDiff(added=added, removed=removed, unified=text)
