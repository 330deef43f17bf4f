"""A rule's match spread over a long line: its bounded parts, searched for in order, piece by
piece, in bounded memory.

The rest of a line past the scanned MiB comes in pieces led by the `OVERLAP` bytes before each
(`k3diff.logs.files.blocks`), so a match no longer than that is whole in one piece. A rule that
can match more (`[TRT-LLM]\\s*[E]` with 4 KiB of spaces between, a `--rule` of `first.*later`,
`Engine core … died`) was matched in no piece: the error line was missed, exit 0 (readers72).

Each such rule is cut, by the regular-expression parser CPython's `re` compiles it with
(`re._parser`: one reading of the pattern, never a second grammar), into branches of *parts*:
runs of its top-level items whose match is at most `PART_CHARS` characters, between *gaps*,
the items that can match more (a repeat such as `\\s*` or `.*`, a group holding one), or a part
that refers to another's group. A match of the rule holds a match of each part of a branch, in
order, whatever its gaps matched: so where no branch's parts are found in order, the rule
matches nowhere in the line. Where they are, the line may hold a match (`\\s*` matched only
spaces; `.` holds any character of a line, so a `first.*later` rule's parts in order are its
match); the scanner then takes the line as not read whole, which fails the verdict (never a
pass on a match it could not see). A branch that ends in a repeat of one character class and
`$` (`Traceback …:\\s*$`) holds only where its last part's run of that class reaches the
line's end (`Part.to_end`): a traceback quoted inside a long JSON line is no match. A branch of gaps alone (`(a.*b)+`) has no part to look for:
any long line may hold its match. Each piece costs one search per part found in it, each
linear in the piece; nothing of the line is kept but the parts found so far.
"""

from __future__ import annotations

import contextlib
import dataclasses
import platform
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

try:  # CPython's own (3.11 on); a Python without them refuses a long line (`ParserChanged`)
    from re import _compiler as sre_compile  # type: ignore[attr-defined]
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    sre_compile = sre_constants = sre_parse = None

from k3diff.logs.files import OVERLAP
from k3diff.logs.normalize import strip_worker_prefix

PART_CHARS = OVERLAP // 4
"""Characters a part's match may hold: whole in the `OVERLAP` bytes that lead a piece, at up to
4 UTF-8 bytes a character."""


@dataclass(frozen=True)
class Part:
    """A bounded run of a rule's items, compiled alone."""

    pattern: re.Pattern[str]
    """What matches it."""
    fixed: bool
    """Whether every match of it has one length (the next part starts past its end; else past
    its start only)."""
    to_end: re.Pattern[str] | None = None
    """The last part of a branch that ends in a repeat of one character class and `$`
    (`Traceback …:\\s*$`): that repeat (`(?:C)*`), which must run from the part to the line's
    end; None otherwise."""


Branch = tuple[Part, ...]
"""A branch's parts in the order a match holds them."""


def _compile(state: Any, items: list[Any]) -> re.Pattern[str]:
    compiled: re.Pattern[str] = sre_compile.compile(sre_parse.SubPattern(state, items), state.flags)
    return compiled


def _refers(value: object) -> bool:
    """Whether parsed items hold a reference to a group (`\\1`, `(?(1)…)`), which a part
    compiled alone cannot resolve."""
    if isinstance(value, sre_parse.SubPattern):
        return any(_refers(item) for item in value.data)
    if isinstance(value, tuple | list):
        return any(_refers(item) for item in value)
    return isinstance(value, sre_constants._NamedIntConstant) and str(value).startswith("GROUPREF")


def _width(state: Any, items: list[Any]) -> int:
    """The most characters a match of `items` may span, with the text its lookarounds read
    beyond it (review72e: `fatal(?=.*end)`, three characters wide, read the rest of the line:
    `end` a piece later was missed, exit 0)."""
    high: int = sre_parse.SubPattern(state, items).getwidth()[1]
    return high + sum(reach for _ahead, reach in _lookarounds(items))


def _lookarounds(value: object) -> Iterator[tuple[bool, int]]:
    """Each lookaround in parsed items, nested ones too: (whether it looks ahead, the most
    characters it reads)."""
    if isinstance(value, sre_parse.SubPattern):
        value = value.data
    if not isinstance(value, tuple | list):
        return
    if len(value) == 2 and value[0] in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
        direction, body = value[1]
        ahead = value[0] is sre_constants.ASSERT and direction == 1
        yield ahead, body.getwidth()[1] + sum(reach for _a, reach in _lookarounds(body))
        return
    for item in value:
        yield from _lookarounds(item)


def _flat(state: Any, items: Iterable[Any]) -> Iterator[Any]:
    """The top-level items, a group that can match more than a part opened into its items
    (its capture is not needed to find a match; a group whose flags differ stays whole)."""
    for item in items:
        op, av = item
        if op is sre_constants.SUBPATTERN and _width(state, [item]) > PART_CHARS:
            _group, add, delete, inner = av
            if not add and not delete:
                yield from _flat(state, inner.data)
                continue
        yield item


_READ: list[str] = []
"""The operators read by name here: one missing is a parser changed (`ParserChanged`)."""


def _ops(*names: str) -> frozenset[Any]:
    _READ.extend(names)
    return frozenset(getattr(sre_constants, name, None) for name in names)


class ParserChanged(Exception):
    """`re._parser` is missing, or not of the shape read here (it is private to CPython)."""


_CHARACTER = _ops("ANY", "IN", "LITERAL", "NOT_LITERAL", "CATEGORY")
"""Items that match one character whatever surrounds it (a repeat of one runs alike read
backwards)."""
_REPEATS = _ops("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
_ENDS = _ops("AT_END", "AT_END_STRING")


def _run_to_end(state: Any, items: list[Any]) -> tuple[list[Any], re.Pattern[str] | None]:
    """`items` less a trailing repeat of one character class and `$` (or `\\Z`), with that
    repeat compiled as `(?:C)*`; `items` and None where they do not end so."""
    end = len(items)
    while end and items[end - 1][0] is sre_constants.AT and items[end - 1][1] in _ENDS:
        end -= 1
    if end in (0, len(items)) or items[end - 1][0] not in _REPEATS:
        return items, None
    _low, high, body = items[end - 1][1]
    if high != sre_constants.MAXREPEAT or len(body.data) != 1 or body.data[0][0] not in _CHARACTER:
        return items, None
    repeat = (sre_constants.MAX_REPEAT, (0, sre_constants.MAXREPEAT, body))
    try:
        return items[: end - 1], _compile(state, [repeat])
    except (re.error, TypeError, ValueError):
        return items, None


def _parts(state: Any, whole: list[Any]) -> Branch:
    parts: list[Part] = []
    run: list[Any] = []
    if any(ahead and reach > PART_CHARS for ahead, reach in _lookarounds(whole)):
        # Whether it matches hangs on text anywhere past it, the head's included: no part.
        return ()
    items, to_end = _run_to_end(state, list(_flat(state, whole)))

    def close() -> None:
        """End the run of items as a part (one `re` cannot compile alone is left a gap)."""
        if run and not _refers(run):
            low, high = sre_parse.SubPattern(state, run).getwidth()
            with contextlib.suppress(re.error, TypeError, ValueError):
                parts.append(Part(_compile(state, list(run)), low == high))
        run.clear()

    for item in items:
        if _width(state, [item]) > PART_CHARS:
            close()  # a gap
        elif _width(state, [*run, item]) > PART_CHARS:
            close()
            run.append(item)
        else:
            run.append(item)
    close()
    if to_end is not None and parts:
        parts[-1] = dataclasses.replace(parts[-1], to_end=to_end)
    return tuple(parts)


def spread_branches(pattern: re.Pattern[str]) -> tuple[Branch, ...]:
    """The branches of `pattern` whose match can be longer than a part, each as its parts
    (none: every match of it is whole in one piece)."""
    if pattern.flags & re.DEBUG:
        return ()
    try:
        return _branches(pattern)
    except (AttributeError, TypeError, ValueError, IndexError, KeyError) as exc:
        raise ParserChanged(
            f"Python {platform.python_version()}'s re._parser is not the one read here "
            f"({type(exc).__name__}: {exc})"
        ) from None


def _branches(pattern: re.Pattern[str]) -> tuple[Branch, ...]:
    gone = [name for name in _READ if not hasattr(sre_constants, name)]
    if gone:
        raise AttributeError(f"no {', '.join(gone)}")
    parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    if _width(parsed.state, parsed.data) <= PART_CHARS:
        return ()
    items = list(_flat(parsed.state, parsed.data))
    if len(items) == 1 and items[0][0] is sre_constants.BRANCH:
        branches = [list(b.data) for b in items[0][1][1]]
    else:
        branches = [items]
    return tuple(
        _parts(parsed.state, branch)
        for branch in branches
        if _width(parsed.state, branch) > PART_CHARS
    )


class Spread:
    """How far one rule's branches got in the line being read: the parts found in order, and
    for a branch whose last part must run to the line's end (`Part.to_end`), whether one
    found does so far."""

    def __init__(self, name: str, branches: tuple[Branch, ...]) -> None:
        self.name = name
        self.branches = branches
        self.found = [0] * len(branches)
        self.running = [False] * len(branches)

    def start(self, head: str) -> None:
        """A new long line, whose first scanned MiB is `head`: matched there as a line, so a
        branch's last part is looked for in the pieces past it only."""
        self.found = [0] * len(self.branches)
        self.running = [False] * len(self.branches)
        for index, branch in enumerate(self.branches):
            self.found[index] = self._advance(branch, 0, head, len(branch) - 1, len(head))
            self._run(index, head, None)

    def piece(self, text: str, led: int, last: bool) -> bool:
        """Search the next piece (`text`, its first `led` characters the end of what came
        before; `last`: the line ends with it): whether a branch's parts are now all found,
        the last one past `led` (or running to the line's end). A carriage return past `led`
        starts the line over, as the scanner reads it: the line read so far ends there, and
        the text past the last one is searched afresh, its worker prefix removed (review72e:
        `^fatal.*gone` after a `\r` or a worker prefix, `fatal.*gone$` before `\r`, were
        missed, exit 0). The parts between two are whole in the piece (`TailSearch.match`)."""
        cut = text.find("\r", led)
        if cut < 0:
            return self._piece(text, led, last)
        if self._piece(text[:cut], led, True):
            return True
        self.found = [0] * len(self.branches)
        self.running = [False] * len(self.branches)
        return self._piece(strip_worker_prefix(text[text.rfind("\r") + 1 :]), -1, last)

    def _piece(self, text: str, led: int, last: bool) -> bool:
        for index, branch in enumerate(self.branches):
            if branch and branch[-1].to_end is not None:
                found = self._advance(branch, self.found[index], text, len(branch) - 1, led)
                self.found[index] = found
                if self._run(index, text, led) and last:
                    return True
                continue
            found = self._advance(branch, self.found[index], text, len(branch), led)
            if found == len(branch):
                return True
            self.found[index] = found
        return False

    def _run(self, index: int, text: str, led: int | None) -> bool:
        """Whether, past `text`, the branch's last part ends a run of its `to_end` class that
        reaches the text's end: one found before whose run goes on through `text` (past `led`),
        or one in `text` itself."""
        branch = self.branches[index]
        if not branch or branch[-1].to_end is None or self.found[index] < len(branch) - 1:
            return False
        last, run = branch[-1].pattern, branch[-1].to_end
        if self.running[index] and led is not None:
            self.running[index] = _run_end(run, text, led) == len(text)
        if not self.running[index]:
            # Where the text's final run of the class starts: read backwards (one character
            # class runs alike either way), a copy of the piece rather than a quadratic search.
            start = len(text) - _run_end(run, text[::-1], 0)
            self.running[index] = _ends_past(last, text, 0, start - 1)
        return self.running[index]

    @staticmethod
    def _advance(branch: Branch, found: int, text: str, stop: int, led: int) -> int:
        """The parts of `branch` found once `text` is searched past the `found` before it, up to
        `stop`; the last of the branch counted only where its match ends past `led`."""
        pos = 0
        while found < stop:
            part = branch[found]
            if found == len(branch) - 1:
                return found + _ends_past(part.pattern, text, pos, led)
            match = part.pattern.search(text, pos)
            if match is None:
                return found
            pos = match.end() if part.fixed else match.start()
            found += 1
        return found


def _run_end(run: re.Pattern[str], text: str, pos: int) -> int:
    """Where the run of `run`'s class from `pos` ends."""
    match = run.match(text, pos)
    return pos if match is None else match.end()


def _ends_past(pattern: re.Pattern[str], text: str, pos: int, led: int) -> bool:
    """Whether a match of `pattern` from `pos` ends past `led` (one ending before it was in the
    text before; a match past `led` starts at most `PART_CHARS` before it)."""
    pos = max(pos, led - PART_CHARS)
    while (match := pattern.search(text, pos)) is not None:
        if match.end() > led:
            return True
        pos = match.start() + 1
    return False
