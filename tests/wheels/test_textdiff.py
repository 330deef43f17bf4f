"""Text diffs: the byte-level trimming of common lines changes nothing in the output."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff import textdiff
from k3diff.textdiff import diff_text, differs_only_in_line_endings, unified_diff


def _untrimmed(old: bytes, new: bytes) -> tuple[str, int, int]:
    """The diff as made before trimming as bytes: every line split, decoded and matched."""
    old_lines, new_lines = textdiff._diff_lines(old), textdiff._diff_lines(new)
    groups = list(textdiff._TrimmedMatcher(old_lines, new_lines).get_grouped_opcodes(3))
    if not groups or groups == [[("equal", 0, len(old_lines), 0, len(new_lines))]]:
        return "", 0, 0
    out = ["--- a\n", "+++ b\n"]
    added = removed = 0
    for group in groups:
        first, last = group[0], group[-1]
        out.append(
            f"@@ -{textdiff._range(first[1], last[2])} +{textdiff._range(first[3], last[4])} @@\n"
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old_lines[i1:i2])
                continue
            out.extend("-" + line for line in old_lines[i1:i2])
            out.extend("+" + line for line in new_lines[j1:j2])
            removed += i2 - i1
            added += j2 - j1
    return "".join(out), added, removed


# Few distinct lines (so that lines repeat and match), invalid UTF-8 that decodes alike, CRs.
_LINE = st.sampled_from([b"a", b"b", b"x = 1", b"\xff", b"\xfe", b"\xe2\x82", b"c\r", b"", b"\t"])
_LINES = st.lists(_LINE, max_size=40)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[bytes, bytes]:
    head, tail = draw(_LINES), draw(_LINES)
    middle_old, middle_new = draw(_LINES), draw(_LINES)
    ends = st.sampled_from([b"", b"\n", b"z", b"\xff"])

    def text(middle: list[bytes], end: bytes) -> bytes:
        return b"\n".join([*head, *middle, *tail]) + end

    return text(middle_old, draw(ends)), text(middle_new, draw(ends))


@settings(max_examples=600, deadline=None)
@given(_pairs())
def test_trimmed_diff_is_the_untrimmed_diff(pair: tuple[bytes, bytes]) -> None:
    old, new = pair
    assert unified_diff(old, new, "a", "b") == _untrimmed(old, new)


def test_a_change_deep_in_a_long_file_keeps_its_line_numbers() -> None:
    old = b"".join(b"line %d\n" % n for n in range(1, 10_001))
    new = old.replace(b"line 5000\n", b"line five thousand\n").replace(b"line 9999\n", b"")
    text, added, removed = unified_diff(old, new, "a", "b")
    assert (added, removed) == (1, 2)
    assert "@@ -4997,7 +4997,7 @@\n line 4997\n" in text
    assert "-line 5000\n+line five thousand\n" in text
    assert "@@ -9996,5 +9996,4 @@\n" in text
    assert text.endswith(" line 10000\n")


def test_a_missing_final_newline_is_a_change() -> None:
    text, added, removed = unified_diff(b"a\nb\nc\n", b"a\nb\nc", "a", "b")
    assert (added, removed) == (1, 1)
    assert text.endswith("-c\n+c\n\\ No newline at end of file\n")


def test_line_endings_only() -> None:
    assert differs_only_in_line_endings(b"a\r\nb\r\n", b"a\nb\n")
    assert not differs_only_in_line_endings(b"a\nb\n", b"a\nc\n")
    assert not differs_only_in_line_endings(b"a\n", b"a\n")
    assert diff_text(b"a\r\n", b"a\n", "a", "b").line_endings_only


_SIDE = st.one_of(st.none(), _pairs().map(lambda pair: pair[0]), st.binary(max_size=40))


@settings(max_examples=400, deadline=None)
@given(_SIDE, _SIDE)
def test_diff_content_decodes_each_side_once_to_the_same_diff(
    base: bytes | None, patch: bytes | None
) -> None:
    """`diff_content` hands its strict decode to the diff: the diff (or the binary summary) is
    the one `diff_text` gives decoding leniently itself, absent sides and NULs included."""
    got = textdiff.diff_content(base, patch, "a/x", "b/x")
    if any(side is not None and textdiff.is_binary(side) for side in (base, patch)):
        assert got.binary is not None and got.unified == ""
    else:
        assert got == diff_text(base, patch, "a/x", "b/x")


# Valid UTF-8 whose characters share lead or continuation bytes (é C3 A9, © C2 A9, è C3 A8,
# € E2 82 AC, ☃ E2 98 83, 😀 F0 9F 98 80): a common byte head or tail may end or start inside a
# character, where the common text does not.
_CHAR = st.sampled_from(["a", "b", "é", "©", "è", "€", "☃", "😀", "\r", " "])
_TEXT_LINE = st.lists(_CHAR, max_size=4).map(lambda chars: "".join(chars).encode())
_TEXT_LINES = st.lists(_TEXT_LINE, max_size=30)


@st.composite
def _text_pairs(draw: st.DrawFn) -> tuple[bytes | None, bytes | None]:
    head, tail = draw(_TEXT_LINES), draw(_TEXT_LINES)
    ends = st.sampled_from([b"", b"\n", b"\xc3\xa9", b"\xc2\xa9\n"])

    def text(middle: list[bytes]) -> bytes:
        return b"\n".join([*head, *middle, *tail]) + draw(ends)

    base, patch = text(draw(_TEXT_LINES)), text(draw(_TEXT_LINES))
    if draw(st.booleans()):  # a line of the patch's own that is not UTF-8: binary
        patch = patch.replace(b"\n", b"\n\xa9\n", 1)
    absent = draw(st.sampled_from(["neither", "base", "patch"]))
    return (None if absent == "base" else base), (None if absent == "patch" else patch)


@settings(max_examples=800, deadline=None)
@given(_text_pairs())
def test_diff_content_from_the_bytes_is_the_diff_of_the_text(
    pair: tuple[bytes | None, bytes | None],
) -> None:
    """Issue 41: `diff_content` trims the common lines of two UTF-8 sides as bytes and decodes
    the patch only between them; its diff (or binary summary) is the one made from the whole
    texts decoded (`diff_text`), characters sharing bytes across the cut included."""
    base, patch = pair
    got = textdiff.diff_content(base, patch, "a/x", "b/x")
    if any(side is not None and textdiff.is_binary(side) for side in (base, patch)):
        summary = (
            f"base: {textdiff.describe_content(base)}; patch: {textdiff.describe_content(patch)}"
        )
        assert got == textdiff.TextDiff(added=0, removed=0, unified="", binary=summary)
    else:
        assert got == diff_text(base, patch, "a/x", "b/x")
