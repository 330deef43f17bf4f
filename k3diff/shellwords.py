"""The words of a command k3diff prints for a user to paste, quoted so that the line as printed
pastes as the same words.

`shlex.quote` alone is not enough where the command ends a one-line error (`report`'s "run `…`
again"): `cli.common.fail` folds every run of whitespace to one space and shows each control
character as an escape (`escape.text`), and under GitHub Actions `say` breaks a `##[` apart
(`escape.workflow_inert`). A word holding two spaces, a tab, a newline, a no-break space, an
escape character or `##[` was printed quoted, then changed on its way out: `--rule
'boom=BOOM  at'` read `--rule 'boom=BOOM at'`, a rule that no longer matches, and the pasted
command wrote a passing document in place of the failing one (review65b). Such a word is
written in ANSI-C quotes instead (`$'boom=BOOM\\x20\\x20at'`: bash, zsh, ksh, POSIX.1-2024
`sh`), each of those characters by its code, so that nothing on the way out touches it; every
other word stays as `shlex.quote` writes it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from k3diff import escape


def quote(word: str) -> str:
    """`word` as one shell word that reads the same after the line is printed."""
    quoted = shlex.quote(word)
    if "##[" not in quoted and escape.text(" ".join(quoted.split())) == quoted:
        return quoted
    return "$'" + "".join(map(_ansi_c, word)) + "'"


def not_option(path: str) -> str:
    """A file's `path` as a command's argument that no command reads as an option: one that
    starts with `-` as `./-…`, the same file (`audit .` names `-x.whl` so; review73c: its
    next step's `sha256sum -x.whl` was read as options)."""
    return f"./{path}" if path.startswith("-") else path


def path(word: str) -> str:
    """`quote` of `not_option(word)`: a file's path as one shell word."""
    return quote(not_option(word))


def join(words: Iterable[str]) -> str:
    """`words` as a command line (`shlex.join`, each word by `quote`)."""
    return " ".join(map(quote, words))


def _ansi_c(character: str) -> str:
    """One character inside `$'…'`: a backslash, a quote, `[`, whitespace and whatever
    `escape.text` would show otherwise by its code (a file name's byte that is not UTF-8, which
    Python holds as a lone surrogate, as that byte), the rest as it is."""
    if character in "\\'":
        return "\\" + character
    if character != "[" and not character.isspace() and escape.text(character) == character:
        return character
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name not UTF-8 (surrogateescape): that byte
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
