"""The rest of a line longer than the scanner's cap: searched for an error rule's match, which
makes the file one not read whole (hunt71).

The rest comes in pieces (`k3diff.logs.files.blocks`), each led by the `OVERLAP` bytes before
it, so a match shorter than that is whole in one piece. A rule whose match can be longer (a
`first.*later` rule, `[TRT-LLM]\\s*[E]`, a `--rule` of the user's) spans any length of the line:
its bounded parts are looked for in order across the pieces (`k3diff.logs.spread`), and the
parts all found, the last past the scanned head, count as its match (review71e: `Engine core `
near the line's start and `died` past its first MiB went unseen, exit 0; readers72: 4 KiB of
spaces inside `[TRT-LLM]  [E]`, and a user's `.*`, did too). A carriage return starts a line
over here as in the scanned head (`k3diff.logs.scan`): each part is searched too, for a rule
anchored to a line's start or end (a `Traceback` line).
"""

from __future__ import annotations

from k3diff.logs.files import OVERLAP
from k3diff.logs.matcher import first_rule
from k3diff.logs.normalize import strip_terminal_codes
from k3diff.logs.rules import PREFILTER, Rule
from k3diff.logs.spread import Spread, spread_branches


def _text(data: bytes) -> str:
    return strip_terminal_codes(data.decode("utf-8", errors="replace"))


class TailSearch:
    """The error rules searched in one file's long lines, and how far each rule whose match
    can be longer than a piece got in the line being read."""

    def __init__(self, errors: tuple[Rule, ...], every_line: bool) -> None:
        self.errors = errors
        self.every_line = every_line
        self.spread = tuple(
            Spread(rule.name, branches)
            for rule in errors
            if (branches := spread_branches(rule.pattern))
        )

    def head(self, head: bytes) -> None:
        """A new long line, whose first `head` bytes were scanned as a line."""
        text = _text(head[:-1])
        for spread in self.spread:
            spread.start(text)

    def match(self, piece: bytes, last: bool = False) -> str | None:
        """The first error rule found in `piece` (where the prefilter passes it, as a line), or
        whose parts the line holds in order, the last in `piece` (`last`: the line ends with
        it); None."""
        low = piece.lower()
        text = None
        if self.every_line or b"\x1b" in piece or any(word in low for word in PREFILTER):
            text = _text(piece)
            for part in (text, *text.split("\r")) if "\r" in text else (text,):
                rule = first_rule(self.errors, part)
                if rule is not None:
                    return rule.name
        if self.spread:
            text = _text(piece) if text is None else text
            # Where the leading bytes end in the text, less a character a cut one became.
            led = max(len(_text(piece[:OVERLAP])) - 1, 0)
            for spread in self.spread:
                if spread.piece(text, led, last):
                    return spread.name
        return None
