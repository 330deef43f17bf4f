"""Long one-line statements for a terminal: one clause a line, indented, wrapped.

A statement that holds every number of a finding (a triage caveat, the `sample` summary's
headline) runs to several hundred characters, which a terminal shows as one long line. In text
it is said one clause a line (split at '; ' outside parentheses), each indented and wrapped at
`WIDTH` columns, words never split (a number, a URL or `α / 5` stays whole). JSON and Markdown
keep the one line.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

WIDTH = 100
"""Columns a clause is wrapped to."""


def split_clauses(text: str) -> list[str]:
    """`text` split at each '; ' outside parentheses."""
    clauses, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0 and text.startswith("; ", index):
            clauses.append(text[start:index])
            start = index + 2
    return [*clauses, text[start:]]


def fill(text: str, indent: str, subsequent: str) -> str:
    """`text` wrapped at WIDTH columns, its first line after `indent`, the others after
    `subsequent`; words never split."""
    return textwrap.fill(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=subsequent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def clause_lines(clauses: Sequence[str], last: bool = True) -> list[str]:
    """Each clause on lines of its own, indented two columns (four where it wraps), each but
    the last ending with ';' (`last=False`: the last one too, more follows)."""
    return [
        fill(clause + (";" if index < len(clauses) - 1 or not last else ""), "  ", "    ")
        for index, clause in enumerate(clauses)
    ]


def statement_lines(first: str, parts: Sequence[tuple[str, bool]], paste: str = "") -> str:
    """`first`, wrapped, then each part ('' or '; …') one clause a line: a part marked whole
    is one clause, the others are split at '; ' each on its own, so a parenthesis one leaves
    open never joins the clauses after it. A last clause that starts with `paste` (not '')
    says `paste` alone and its rest stands on the next line, never wrapped: a command to
    paste as it stands."""
    clauses = [
        clause
        for text, whole in parts
        if text
        for clause in ([text[2:]] if whole else split_clauses(text[2:]))
    ]
    command = []
    if paste and clauses and clauses[-1].startswith(paste):
        clauses[-1], command = paste.rstrip(), [f"    {clauses[-1][len(paste) :]}"]
    head = fill(first + (";" if clauses else ""), "", "    ")
    return "\n".join([head, *clause_lines(clauses), *command])
