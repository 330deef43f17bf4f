"""A CMake file's command invocations, read as CMake's own parser reads them
(``cmListFileCache.cxx`` over ``cmListFileLexer``), or the first place it refuses.

CMake parses a whole file before running any of it, and refuses the file, so the build, at
the first thing its grammar does not allow: a call with no closing ``)``, an unterminated
quoted or bracket argument or bracket comment, a command name not followed by ``(``, text
where a command name belongs, a second command on a line, a bad character (NUL, a backslash
ending a line outside a quoted argument), a bracket argument not separated from the argument
before or after it, blocks that do not nest (``Flow control statements are not properly
nested``). Checked against ``cmake -P`` (3.25.1 and 4.4.5) on 1,600 mutants of stop 72's fuzz
seeds: each refused, or not, by both alike. A reader that went on past one (fuzz72 seed 74: ``set(X`` read to the
file's end) saw no ``install(FILES …)`` after it, and a wheel the commit cannot build
matched, exit 0: `Refused` says where, and the source check stops.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_SPACE = re.compile(rb"[ \t\r]+")
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET = re.compile(rb"\[(=*)\[")
_QUOTED = re.compile(rb'"(?:[^\\"]|\\[\s\S])*"')
"""A quoted argument: any byte but ``\\`` and ``"``, or an escape of any one (a newline too)."""
_UNQUOTED = re.compile(rb'(?:[^ \0\t\r\n()#\\"]|\\[^\0\n])+')
"""A run of an unquoted argument (``[`` and ``=`` within, as the lexer allows after its first
byte; a bracket argument's opening is tried first)."""
_LEGACY = re.compile(rb'"(?:\$\([A-Za-z0-9_]*\)|[^\0\r\n()#\\"]|\\[^\0\n])*"')
"""A quoted part inside an unquoted argument (``-Da="b c"``: one argument, the lexer's
``ArgumentUnquotedLegacy``)."""
NOT_LITERAL = frozenset('$;\\@["')
"""Characters of an argument that is not a literal: a variable, a list, an escape, a
generator expression's ``$<``, a bracket argument, a legacy quoted part."""
_OK, _TOUCHING, _NEVER = 0, 1, 2
"""Whether the next argument may follow without a space (``ParseFunction``'s separation): a
quoted or unquoted one may touch one before it (CMake warns), none may touch a bracket
argument or comment."""
_BOM = b"\xef\xbb\xbf"
_OPENERS = {"if": "endif", "foreach": "endforeach", "while": "endwhile"}
_OPENERS |= {"function": "endfunction", "macro": "endmacro", "block": "endblock"}
_CLOSERS = {closer: opener for opener, closer in _OPENERS.items()}


@dataclass(frozen=True)
class Command:
    """One command invocation of a CMake file."""

    name: str
    """Lower case, as CMake compares command names."""
    args: tuple[str, ...]
    """The arguments as written: a quoted one's text between its quotes, ``[`` for a bracket
    argument (not read), ``(`` and ``)`` for nested parentheses."""
    literal: bool
    """Every argument is a literal: no variable, escape, list, bracket argument, nested
    parenthesis or comment among them."""
    line: int
    top: bool
    """At the file's top level (in no ``if``, loop, function, macro or block), before any
    ``return()``."""


@dataclass(frozen=True)
class Refused:
    """Where CMake refuses to parse a file."""

    line: int
    why: str
    """``a call with no closing ')'``."""


class _Refusal(Exception):
    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.refused = Refused(line, why)


def commands(data: bytes) -> list[Command] | Refused:
    """Each command invocation of the CMake file `data`, with its block depth, or where
    CMake refuses the file."""
    try:
        return list(_Reader(data).commands())
    except _Refusal as refusal:
        return refusal.refused


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, len(_BOM) if data.startswith(_BOM) else 0
        self._counted, self._line = 0, 1

    def line(self, at: int | None = None) -> int:
        """The line `at` (the reader's place by default) is on; counted forward only."""
        at = self.at if at is None else at
        if at >= self._counted:
            self._line += self.data.count(b"\n", self._counted, at)
            self._counted = at
            return self._line
        return self._line - self.data.count(b"\n", at, self._counted)

    def refuse(self, why: str, at: int | None = None) -> _Refusal:
        return _Refusal(self.line(at), why)

    def commands(self) -> Iterator[Command]:
        """``ParseFile``: spaces, newlines, comments, and a command only after a newline."""
        data, returned, newline = self.data, False, True
        blocks: list[tuple[str, int]] = []  # each open block's command ('else' too) and line
        while self.at < len(data):
            byte = data[self.at : self.at + 1]
            if byte in b" \t\r":
                self.at = self.space_end()
            elif byte == b"\n":
                self.at, newline = self.at + 1, True
            elif byte == b"#":
                newline = self.comment() and newline
            elif (name := _IDENTIFIER.match(data, self.at)) is not None:
                if not newline:
                    raise self.refuse("a second command on one line, which CMake refuses")
                start, self.at = self.at, name.end()
                args, literal = self.arguments(start)
                command = name.group().decode("ascii").lower()
                line = self.line(start)
                yield Command(command, args, literal, line, not blocks and not returned)
                self.nest(blocks, command, line)
                returned = returned or command == "return"  # review72a: under an if() too
                newline = False
            else:
                raise self.refuse("text where a command name belongs, which CMake refuses")
        if blocks:
            raise _Refusal(blocks[-1][1], f"{blocks[-1][0]}() with no end, which CMake refuses")

    @staticmethod
    def nest(blocks: list[tuple[str, int]], command: str, line: int) -> None:
        """`blocks` after `command` at `line`, as CMake checks a file's flow control before
        running any of it (``Flow control statements are not properly nested``: a stray
        ``endif()`` was passed over, and an ``install(FILES …)`` after it read)."""
        top = blocks[-1][0] if blocks else None
        if command in _OPENERS:
            blocks.append((command, line))
        elif command in ("elseif", "else") and top == "if":
            blocks[-1] = ("if" if command == "elseif" else "else", line)
        elif command in _CLOSERS and (
            top == _CLOSERS[command] or (command, top) == ("endif", "else")
        ):
            blocks.pop()
        elif command in _CLOSERS or command in ("elseif", "else"):
            raise _Refusal(line, f"a stray {command}(), which CMake refuses")

    def space_end(self) -> int:
        space = _SPACE.match(self.data, self.at)
        return self.at + 1 if space is None else space.end()

    def comment(self) -> bool:
        """Past the comment at the reader's '#': True for a line comment (to its line's end),
        False for a bracket comment (past its ``]]``), after which a command may not follow
        on the same line."""
        data = self.data
        bracket = _BRACKET.match(data, self.at + 1)
        if bracket is None:
            end = data.find(b"\n", self.at)
            self.at = len(data) if end < 0 else end
            return True
        self.at = self.bracket_end(bracket, "bracket comment")
        return False

    def bracket_end(self, bracket: re.Match[bytes], what: str) -> int:
        close = self.data.find(b"]" + bracket.group(1) + b"]", bracket.end())
        if close < 0:
            raise self.refuse(f"an unterminated {what}, which CMake refuses")
        return close + len(bracket.group(1)) + 2

    def arguments(self, start: int) -> tuple[tuple[str, ...], bool]:
        """``ParseFunction`` from just past the command's name: spaces, '(', the arguments
        to the matching ')'; the arguments and whether each is a literal."""
        data = self.data
        if (space := _SPACE.match(data, self.at)) is not None:
            self.at = space.end()
        if data[self.at : self.at + 1] != b"(":
            raise self.refuse("a command name not followed by '(', which CMake refuses")
        self.at += 1
        args: list[str] = []
        literal, depth, separated = True, 0, _OK
        while self.at < len(data):
            byte = data[self.at : self.at + 1]
            bracket = _BRACKET.match(data, self.at) if byte == b"[" else None
            if byte in b" \t\r":
                self.at, separated = self.space_end(), _OK
            elif byte == b"\n":
                self.at, separated = self.at + 1, _OK
            elif byte == b"#":
                separated = _OK if self.comment() else _NEVER
                literal = False
            elif byte in b"()":
                if byte == b")" and not depth:
                    self.at += 1
                    return tuple(args), literal and not any(NOT_LITERAL & set(a) for a in args)
                depth += 1 if byte == b"(" else -1
                args.append(byte.decode())
                self.at, literal = self.at + 1, False
                separated = _OK if byte == b"(" else _TOUCHING
            elif bracket is not None:
                if separated != _OK:
                    raise self.refuse(
                        "a bracket argument touching the one before it, which CMake refuses"
                    )
                end = self.bracket_end(bracket, "bracket argument")
                args.append("[")
                self.at, literal, separated = end, False, _NEVER
            else:
                if separated == _NEVER:
                    raise self.refuse(
                        "an argument touching the bracket before it, which CMake refuses"
                    )
                args.append(self.argument(byte))
                separated = _TOUCHING
        raise self.refuse("a call with no closing ')', which CMake refuses", start)

    def argument(self, byte: bytes) -> str:
        """A quoted or unquoted argument at the reader's place, as written."""
        data = self.data
        if byte == b'"':
            quoted = _QUOTED.match(data, self.at)
            if quoted is None:
                raise self.refuse("an unterminated quoted argument, which CMake refuses")
            self.at = quoted.end()
            return quoted.group()[1:-1].decode("utf-8", "replace")
        start = self.at
        while (run := _UNQUOTED.match(data, self.at) or _LEGACY.match(data, self.at)) is not None:
            self.at = run.end()
        if self.at == start:
            raise self.refuse("a bad character (NUL, or a '\\' ending a line), which CMake refuses")
        return data[start : self.at].decode("utf-8", "replace")
