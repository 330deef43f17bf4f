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
pass on a match it could not see). A branch of gaps alone (`(a.*b)+`) has no part to look for:
any long line may hold its match. Each piece costs one search per part found in it, each
linear in the piece; nothing of the line is kept but the parts found so far.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from k3diff.logs.files import OVERLAP

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
    high: int = sre_parse.SubPattern(state, items).getwidth()[1]
    return high


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


def _parts(state: Any, items: list[Any]) -> Branch:
    parts: list[Part] = []
    run: list[Any] = []

    def close() -> None:
        """End the run of items as a part (one `re` cannot compile alone is left a gap)."""
        if run and not _refers(run):
            low, high = sre_parse.SubPattern(state, run).getwidth()
            with contextlib.suppress(re.error, TypeError, ValueError):
                parts.append(Part(_compile(state, list(run)), low == high))
        run.clear()

    for item in _flat(state, items):
        if _width(state, [item]) > PART_CHARS:
            close()  # a gap
        elif _width(state, [*run, item]) > PART_CHARS:
            close()
            run.append(item)
        else:
            run.append(item)
    close()
    return tuple(parts)


def spread_branches(pattern: re.Pattern[str]) -> tuple[Branch, ...]:
    """The branches of `pattern` whose match can be longer than a part, each as its parts
    (none: every match of it is whole in one piece)."""
    if pattern.flags & re.DEBUG:
        return ()
    parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    if parsed.getwidth()[1] <= PART_CHARS:
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
    """How far one rule's branches got in the line being read: the parts found in order."""

    def __init__(self, name: str, branches: tuple[Branch, ...]) -> None:
        self.name = name
        self.branches = branches
        self.found = [0] * len(branches)

    def start(self, head: str) -> None:
        """A new long line, whose first scanned MiB is `head`: matched there as a line, so a
        branch's last part is looked for in the pieces past it only."""
        self.found = [0] * len(self.branches)
        for index, branch in enumerate(self.branches):
            self.found[index] = self._advance(branch, 0, head, len(branch) - 1, len(head))

    def piece(self, text: str, led: int) -> bool:
        """Search the next piece (`text`, its first `led` characters the end of what came
        before): whether a branch's parts are now all found, the last one past `led`."""
        for index, branch in enumerate(self.branches):
            found = self._advance(branch, self.found[index], text, len(branch), led)
            if found == len(branch):
                return True
            self.found[index] = found
        return False

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


def _ends_past(pattern: re.Pattern[str], text: str, pos: int, led: int) -> bool:
    """Whether a match of `pattern` from `pos` ends past `led` (one ending before it was in the
    text before; a match past `led` starts at most `PART_CHARS` before it)."""
    pos = max(pos, led - PART_CHARS)
    while (match := pattern.search(text, pos)) is not None:
        if match.end() > led:
            return True
        pos = match.start() + 1
    return False
