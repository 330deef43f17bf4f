"""The rest of a line longer than the scanner's cap: searched for an error rule's match, which
makes the file one not read whole (hunt71).

The rest comes in pieces (`k3diff.logs.files.blocks`), each led by the `OVERLAP` bytes before
it, so a match shorter than that is whole in one piece. A rule of the form `first.*later`
(`Rule.spans`: an engine core that died, a C assertion that failed) spans any length of the
line: `first` near the line's start and `later` past its first MiB matched in no piece, so
the crash went unseen, exit 0 (review71e). Where `first` was seen before a piece, `later`
alone in the piece matches the rule. A carriage return starts a line over here as in the
scanned head (`k3diff.logs.scan`): each part is searched too, for a rule anchored to a line's
start or end (a `Traceback` line).
"""

from __future__ import annotations

from k3diff.logs.files import OVERLAP
from k3diff.logs.matcher import first_rule
from k3diff.logs.normalize import strip_terminal_codes
from k3diff.logs.rules import PREFILTER, Rule


def _text(data: bytes) -> str:
    return strip_terminal_codes(data.decode("utf-8", errors="replace"))


class TailSearch:
    """The error rules searched in one file's long lines, and the `first` parts seen in the
    line being read."""

    def __init__(self, errors: tuple[Rule, ...], every_line: bool) -> None:
        self.errors = errors
        self.every_line = every_line
        self.begun: set[tuple[str, int]] = set()
        """(rule, span) whose `first` part the line holds before the piece being searched."""

    def _see(self, low: bytes, piece: bytes) -> None:
        """Note the `first` parts `piece` (`low`: lower-cased) holds."""
        for rule in self.errors:
            for index, (word, first, _later) in enumerate(rule.spans):
                begun = (rule.name, index) in self.begun
                if not begun and word in low and first.search(_text(piece)):
                    self.begun.add((rule.name, index))

    def head(self, head: bytes) -> None:
        """A new long line, whose first `head` bytes were scanned as a line (their last
        `OVERLAP` lead the first piece, where a `first` part in them is matched whole)."""
        self.begun.clear()
        before = head[: len(head) - 1 - OVERLAP]
        self._see(before.lower(), before)

    def match(self, piece: bytes) -> str | None:
        """The first error rule found in `piece` (where the prefilter passes it, as a line), or
        whose `later` part it holds past a `first` seen before it; None."""
        low = piece.lower()
        if self.every_line or b"\x1b" in piece or any(word in low for word in PREFILTER):
            text = _text(piece)
            for part in (text, *text.split("\r")) if "\r" in text else (text,):
                rule = first_rule(self.errors, part)
                if rule is not None:
                    return rule.name
        if self.begun:
            text = _text(piece)
            for rule in self.errors:
                for index, (_word, _first, later) in enumerate(rule.spans):
                    if (rule.name, index) in self.begun and later.search(text):
                        return rule.name
        self._see(low[: len(low) - OVERLAP], piece[: len(piece) - OVERLAP])
        return None
