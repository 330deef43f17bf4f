"""The one escaping helper every renderer uses, so an input can never forge what a report says.

Names, keys, values and diff lines come from hostile inputs (archive entry names, record keys,
server answers, changed source files). Shown raw, a newline in an entry name prints a forged
`Verdict: OK (exit 0)` line, `ESC[2K` / `ESC[G` / a lone carriage return overwrite a line on a
terminal (an added `os.system(...)` shown as `+# ok`), a bidirectional override reorders what
a reviewer reads (Trojan Source), and raw HTML in a Markdown cell runs in a renderer that passes
HTML through. So:

- `text` (one value on one line) shows every control character as a visible escape: C0
  (``\\x00``-``\\x1f``, with ``\\n``, ``\\r``, ``\\t`` by name), DEL, C1 (``\\x80``-``\\x9f``),
  the line and paragraph separators, the bidirectional controls, the other invisible format
  characters (Unicode category Cf: zero-width space and joiners, soft hyphen, tag characters)
  and lone surrogates;
- `text_block` (several lines of one value: a diff, a response text) keeps its line breaks and
  tabs and escapes the rest, a carriage return included unless it ends a CRLF line;
- `markdown` (a table cell) is `text` plus HTML's ``&`` and ``<`` as entities and ``|``
  and ``[`` backslash-escaped, so no value can start a tag, an entity, a cell, a link or an
  image (``![i](http://host/x)`` would be fetched by the viewer) (``>`` alone starts
  nothing there and stays, so ``1.0 -> 1.1`` reads as written); `markdown_prose` also escapes
  ``*`` and ``_``, so a name in a sentence cannot turn the rest of it bold or italic, and a
  leading ``>``, which would open a block quote;
- `markdown_code` (the content of a code span or fenced block, where CommonMark shows every
  character literally) escapes control characters only.

JSON never goes through here: the documents keep the raw text.
"""

from __future__ import annotations

import re

from k3diff.lazyre import lazy

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_INVISIBLE = (
    # Unicode's format characters (category Cf, as of Unicode 15.1) beyond the bidirectional
    # ones: invisible, so `__init__\u200b.py` would read as `__init__.py`. A test checks this
    # list against `unicodedata`.
    "\xad\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200d"
    "\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"  # language tag and tag characters
)

_C1_AND_BEYOND = (
    "\x80-\x9f"  # C1
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional marks and overrides
    "\u2028\u2029"  # line and paragraph separators
    "\ud800-\udfff" + _INVISIBLE  # lone surrogates (never valid in UTF-8 output)
)
_C0_BUT_LINES = "\x00-\x08\x0b\x0c\x0e-\x1f"  # C0 but tab, newline, carriage return
_UNSAFE = lazy(f"[\x00-\x1f\x7f{_C1_AND_BEYOND}]")
_UNSAFE_ASCII = re.compile("[\x00-\x1f\x7f]")
"""`_UNSAFE` on ASCII text, where it can match nothing else (every other character it takes is
beyond ASCII): most values are ASCII, and this pattern compiles in a tenth of the time (the
whole set of ranges, astral ones included, ≈ 1.3 ms of every run's start-up)."""
_UNSAFE_IN_BLOCK = lazy(f"\r(?!\n)|[{_C0_BUT_LINES}\x7f{_C1_AND_BEYOND}]")
_MARKDOWN_SPECIAL = lazy(r"[|<&*_`\[]|\\(?=[!-/:-@\[-`{-~])")
_MARKDOWN_PROSE_SPECIAL = lazy(r"[|<&*_`\[]|\\(?=[!-/:-@\[-`{-~])|^>")
_MARKDOWN_REPLACEMENT = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _visible(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _escape_match(match: re.Match[str]) -> str:
    return _visible(match.group())


def text(value: str) -> str:
    """`value` on one line with every control character shown as an escape (``\\x1b``)."""
    unsafe = _UNSAFE_ASCII if value.isascii() else _UNSAFE
    if unsafe.search(value) is None:
        return value
    return unsafe.sub(_escape_match, value)


def text_block(value: str) -> str:
    """`value` with its line breaks and tabs kept and every other control character escaped
    (a carriage return too, unless it ends a CRLF line)."""
    if _UNSAFE_IN_BLOCK.search(value) is None:
        return value
    return _UNSAFE_IN_BLOCK.sub(_escape_match, value)


_DRIVES_A_TERMINAL = lazy(f"\r(?!\n)|[{_C0_BUT_LINES}{_C1_AND_BEYOND}]")


_TERMINAL_SAFE_ASCII = bytes(range(0x20, 0x80)) + b"\t\n"
"""ASCII that `terminal` passes as it is (a carriage return passes too, when a newline
follows it)."""


def _plain_ascii(value: str) -> bool:
    """True when `value` is ASCII with nothing `terminal` would escape. A whole JSON report is
    megabytes of ASCII: the regular expression took 0.1-0.15 s of CPU on a 7 MB report, these
    C loops (encode, translate, count) take a few milliseconds."""
    return value.isascii() and terminal_safe(value.encode("ascii"))


def terminal_safe(data: bytes) -> bool:
    """True when `data` is ASCII that `terminal` passes as it is (report text already written
    out as bytes: `output.Prewritten`)."""
    rest = data.translate(None, _TERMINAL_SAFE_ASCII)
    if not rest:
        return True
    # Only carriage returns left: each must end a CRLF line.
    return rest.count(b"\r") == len(rest) and data.count(b"\r") == data.count(b"\r\n")


def terminal(value: str) -> str:
    """The last line of defence for a whole report on its way out: like `text_block`, but DEL
    passes (it moves no cursor, and a JSON document may hold it raw, where an escape would not
    be JSON). Renderers still escape each value with `text`; this catches what one missed."""
    if _plain_ascii(value) or _DRIVES_A_TERMINAL.search(value) is None:
        return value
    return _DRIVES_A_TERMINAL.sub(_escape_match, value)


def text_lines(value: str) -> list[str]:
    """`value` split at its newlines only (never at a carriage return, form feed or U+2028,
    which are shown as escapes instead), each line escaped like `text` but keeping its tabs."""
    return [text_block(line.removesuffix("\r")) for line in value.split("\n")]


def shortened(value: str, limit: int) -> str:
    """`value` cut to `limit` characters, the last an ellipsis, when it is longer: a label or
    a cell stays readable and a report's size follows its record count, not its key lengths
    (the JSON documents keep the whole value)."""
    return value if len(value) <= limit else value[: max(limit - 1, 0)] + "…"


def _markdown_match(match: re.Match[str]) -> str:
    char = match.group()
    return _MARKDOWN_REPLACEMENT.get(char) or "\\" + char


def markdown(value: str) -> str:
    """`value` as one Markdown table cell: control characters escaped, HTML's ``&<`` as
    entities (no tag or entity can start without them, so ``->`` stays readable), ``|``, ``[``
    and what would start emphasis or a code span (``*``, ``_``, a backtick) backslash-escaped,
    as is a backslash before ASCII punctuation (the only place Markdown reads one as an escape;
    ``\\n``, the newline's visible escape, stays as it is), so that `engine/__init__.py` is not
    shown as `engine/init.py`."""
    return _MARKDOWN_SPECIAL.sub(_markdown_match, text(value))


def markdown_prose(value: str) -> str:
    """`value` inside a Markdown sentence: like `markdown`, and a leading ``>`` escaped too
    (which would open a block quote where the value starts a line)."""
    return _MARKDOWN_PROSE_SPECIAL.sub(_markdown_match, text(value))


def markdown_code(value: str) -> str:
    """`value` for a code span (newlines escaped too, so a span stays on its line)."""
    return text(value)


def markdown_code_block(value: str) -> str:
    """`value` for a fenced block: its lines kept, other control characters escaped."""
    return text_block(value)


_V1_COMMAND = "##["
"""A GitHub Actions runner reads `##[name]data` anywhere in a line of a step's output as a
workflow command (its first syntax, still parsed: `##[error]`, `##[add-mask]`...)."""
_V2_COMMAND = lazy(r"(?m)^([^\S\n]*):(?=:)")
"""The runner's `::name ...::data` syntax: a line that starts with `::` once its leading
whitespace is trimmed (.NET `TrimStart`, which takes every Unicode space)."""
WORKFLOW_ESCAPES = {"[": "\\u005b", ":": "\\u003a"}
"""What `workflow_inert` shows for a command's opening character: an escape that reads as one
in text and Markdown and is the same character inside a JSON string."""


def workflow_inert(value: str, line_start: bool = True) -> str:
    """`value` (whole lines; its first line's start is a line's unless `line_start` is false)
    with nothing a GitHub Actions runner would run as a workflow command: the `[` of every
    `##[` and the first `:` of a line that starts (after spaces) with `::` shown as `\\u005b`
    and `\\u003a`. A server's answer, a changed source line or an entry name the runner reads
    could otherwise add an annotation, mask the words of a verdict (`::add-mask::FAIL`), or
    stop k3diff's own annotations (`::stop-commands::`)."""
    if ":" not in value and "#" not in value:
        return value
    value = value.replace(_V1_COMMAND, "##" + WORKFLOW_ESCAPES["["])
    head = ""
    if not line_start:
        head, newline, value = value.partition("\n")
        head += newline
    return head + _V2_COMMAND.sub(lambda m: m.group(1) + WORKFLOW_ESCAPES[":"], value)
