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

    def _see(self, text: str) -> None:
        for rule in self.errors:
            for index, (first, _later) in enumerate(rule.spans):
                if (rule.name, index) not in self.begun and first.search(text):
                    self.begun.add((rule.name, index))

    def head(self, head: bytes) -> None:
        """A new long line, whose first `head` bytes were scanned as a line (their last
        `OVERLAP` lead the first piece, where a `first` part in them is matched whole)."""
        self.begun.clear()
        self._see(_text(head[: len(head) - 1 - OVERLAP]))

    def match(self, piece: bytes) -> str | None:
        """The first error rule found in `piece` (the prefilter first, as for a line, unless a
        `first` part was seen), or None."""
        if not self.every_line and not self.begun and b"\x1b" not in piece:
            low = piece.lower()
            if not any(keyword in low for keyword in PREFILTER):
                return None
        text = _text(piece)
        for part in (text, *text.split("\r")) if "\r" in text else (text,):
            rule = first_rule(self.errors, part)
            if rule is not None:
                return rule.name
        for rule in self.errors:
            for index, (_first, later) in enumerate(rule.spans):
                if (rule.name, index) in self.begun and later.search(text):
                    return rule.name
        self._see(text[: len(text) - OVERLAP])
        return None
