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

from k3diff.errors import InputError
from k3diff.logs.files import OVERLAP
from k3diff.logs.matcher import first_rule
from k3diff.logs.normalize import strip_terminal_codes, strip_worker_prefix
from k3diff.logs.rules import PREFILTER, Rule
from k3diff.logs.spread import ParserChanged, Spread, spread_branches


def _text(data: bytes) -> str:
    return strip_terminal_codes(data.decode("utf-8", errors="replace"))


class TailSearch:
    """The error rules searched in one file's long lines, and how far each rule whose match
    can be longer than a piece got in the line being read."""

    def __init__(self, errors: tuple[Rule, ...], every_line: bool, shown: str = "") -> None:
        self.errors = errors
        self.every_line = every_line
        self.shown = shown
        self.changed: str | None = None
        """Why the rules cannot be cut into parts on this Python (`ParserChanged`)."""
        try:
            self.spread = tuple(
                Spread(rule.name, branches)
                for rule in errors
                if (branches := spread_branches(rule.pattern))
            )
        except ParserChanged as exc:
            self.spread, self.changed = (), str(exc)

    def head(self, head: bytes) -> None:
        """A new long line, whose first `head` bytes were scanned as a line; InputError where
        its rest cannot be searched for every rule's match (never a pass on what was not seen)."""
        if self.changed is not None:
            raise InputError(
                f"{self.shown}: a line is longer than the 1 MiB scanned and {self.changed}, so "
                "its rest cannot be searched; refused (a partial scan is not a clean one)"
            )
        # The part after its last carriage return, as the scanner read it: a line of its own.
        text = strip_worker_prefix(_text(head[:-1]).rsplit("\r", 1)[-1])
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
            parts = (strip_worker_prefix(p) for p in text.split("\r")) if "\r" in text else ()
            for part in (text, *parts):
                rule = first_rule(self.errors, part)
                if rule is not None:
                    return rule.name
        if self.spread:
            text = _text(piece) if text is None else text
            # Where the leading bytes end in the text, at most: the rest read alone keeps what
            # the whole removes across the seam (a terminal code, a character cut in two), so
            # nothing past the seam counts as led (review72e: an OSC 4 KiB long across it
            # made `died` past the seam read as led, exit 0).
            led = max(len(text) - len(_text(piece[OVERLAP:])), 0)
            for spread in self.spread:
                if spread.piece(text, led, last):
                    return spread.name
        return None
