"""gitignore-style patterns as hatchling and scikit-build-core match them, where k3diff can say.

Both backends match a file's path with ``pathspec.GitIgnoreSpec`` (hatchling's ``exclude`` and
the ``.gitignore`` it reads, scikit-build-core's ``wheel.exclude``), which k3diff does not
depend on. The patterns read here are those whose meaning every pathspec release agrees on, each
matching what pathspec 1.x's ``GitIgnoreSpecPattern`` matches: segments of literal
characters, ``*``, ``?`` and simple ``[…]`` classes, ``**`` as a whole segment, a leading or
inner ``/`` anchoring at the root, a trailing ``/`` matching what is under a directory. A
negation (``!…``, whose precedence over directory matches pathspec releases changed), an escape,
a leading space, a complement ``[!…]`` (which matches a ``/`` too) or another bracket form is
not read: a path such a pattern may decide is `None`, never claimed either way.

pathspec's regex backtracks: ``*a*a*a*a*a*a*b`` against a 120-character name took it (and
k3diff's translation, review72a) over a minute. Here each run of segments between two ``**``
and each part of a segment between two ``*`` is matched where it first can be, in an atomic
group that is not tried again: the same answer (the parts are of fixed length, so the first
place leaves the most room for the rest), in time about linear in the path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_CLASS = re.compile(r"\[!?[A-Za-z0-9_.]+\]")
_PLAIN = re.compile(r"[^*?\[\]\\!]")
_SPACE = re.compile(r"[^\S ]")
"""Whitespace but a space (a tab, ``\\x0b``, ``\\x85``, ``\\u3000`` …): pathspec releases strip it
from a pattern's ends differently (review72a: 0.12.1 read ``\\x0b/a?`` as ``/a?``), so a
pattern holding it is not read."""
PATTERNS_CAP = 1_000
"""Most patterns read from one source; past it none is read (`Patterns.undecided`): each path
is matched against each (review72a: 10,000 took 2.5 s for 2,000 paths; GitHub's Python
``.gitignore`` template holds under 200 lines)."""


@dataclass(frozen=True)
class Patterns:
    """A list of gitignore-style patterns, compiled where k3diff reads them."""

    regexes: tuple[re.Pattern[str], ...]
    """One per pattern read, matched (`re.match`) against a path relative to the patterns'
    root."""
    undecided: str | None = None
    """The first pattern not read (an escape, a range …), shown, else None."""
    negated: bool = False
    """A negation (``!…``) is among them: it may take a match back, so none is claimed."""

    def excludes(self, path: str) -> bool | None:
        """Whether `path` matches: True where a read pattern matches it and no negation
        could take it back; False where no pattern could; None where one not read could."""
        if self.negated:
            return None
        if "\n" in path:  # pathspec's '.' stops at a newline, each release's its own way
            return None
        if any(regex.match(path) for regex in self.regexes):
            return True
        return False if self.undecided is None else None


def compiled(lines: Iterable[str]) -> Patterns:
    """`lines` (a ``.gitignore``'s, or a setting's list) as `Patterns`."""
    regexes = []
    undecided: str | None = None
    for count, line in enumerate(lines):
        if count >= PATTERNS_CAP:
            return Patterns((), f"over {PATTERNS_CAP:,} patterns")
        text = line.rstrip("\r\n").rstrip(" ")
        if not text or text.startswith("#") or text == "/":
            continue
        if text.startswith("!"):
            return Patterns((), text[:200], negated=True)
        regex = _regex(text)
        if regex is None:
            undecided = undecided or text[:200]
        else:
            regexes.append(regex)
    return Patterns(tuple(regexes), undecided)


def _regex(pattern: str) -> re.Pattern[str] | None:
    """The pattern as pathspec 1.x's ``GitIgnoreSpecPattern`` translates it, or None for one
    not read."""
    if pattern.startswith(" ") or "\\" in pattern or _SPACE.search(pattern):
        return None
    segments = pattern.split("/")
    if not segments[0]:
        del segments[0]
    elif (len(segments) == 1 or (len(segments) == 2 and not segments[1])) and segments[0] != "**":
        segments.insert(0, "**")  # no inner '/': matched at any depth
    if not segments:
        return None
    if not segments[-1]:
        segments[-1] = "**"
    segments = [s for i, s in enumerate(segments) if not (i and s == "**" == segments[i - 1])]
    if segments in (["**"], ["**", "*"], ["**", "*", "**"]):
        return None  # the whole tree, or every directory: read as nothing, not guessed
    leading, trailing = segments[0] == "**", len(segments) > 1 and segments[-1] == "**"
    groups: list[list[str]] = [[]]  # the segments' regexes between one '**' and the next
    for segment in segments[int(leading) : len(segments) - int(trailing)]:
        glob = None if segment == "**" else _glob(segment)
        if segment == "**":
            groups.append([])
        elif glob is None:
            return None
        else:
            groups[-1].append(glob)
    pieces = []
    for index, group in enumerate(groups):
        before = ("(?:.+?/)??" if leading else "") if index == 0 else "(?:/.+?)??/"
        after = "(?=/)" if index < len(groups) - 1 else "/" if trailing else "(?:/|$)"
        pieces.append(f"(?>{before}{'/'.join(group)}{after})")
    return re.compile("^" + "".join(pieces), re.DOTALL)


def _glob(segment: str) -> str | None:
    """A segment's regex: ``*`` alone is ``[^/]+``; within one ``*`` is ``[^/]*``, each part
    between two matched where it first can be (atomic), ``?`` one character, ``[…]`` a class
    of literal characters."""
    if segment == "*":
        return "[^/]+"
    chunks = [_chunk(chunk) for chunk in re.split(r"\*+", segment)]
    if any(chunk is None for chunk in chunks):
        return None
    if len(chunks) == 1:
        return chunks[0]
    middle = "".join(f"(?>[^/]*?{chunk})" for chunk in chunks[1:-1])
    return f"{chunks[0]}{middle}[^/]*{chunks[-1]}"


def _chunk(text: str) -> str | None:
    """A regex for `text`, a segment's part between two ``*``: literal characters, ``?``
    and classes, each one character."""
    out, at = [], 0
    while at < len(text):
        char = text[at]
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            match = _CLASS.match(text, at)
            if match is None or match.group().startswith("[!"):
                return None  # a complement matches '/' too, in pathspec: a chunk past a segment
            out.append(match.group())
            at = match.end()
            continue
        elif _PLAIN.match(char):
            out.append(re.escape(char))
        else:
            return None
        at += 1
    return "".join(out)
