"""The parts of a `k3diff.logs/1` document its checks read beside the findings (records76):
each side's stated counts and the files it read, each rule's counts, and the error lines a
user's `--warn-rule` counted as warnings (`downgraded`), written and read here so that the
checks (`k3diff.documents.logstally`, `k3diff.documents.logsdowngrade`) can import the reader."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from k3diff.fields import Fields
from k3diff.output import plural
from k3diff.sample.names import SIDES


@dataclass(frozen=True)
class SideTally:
    """What a side states of its findings (`base`, `patch`) and the files it read (`files`)."""

    error_lines: int
    warning_lines: int
    distinct: int
    overflow: int
    files: Mapping[str, int]
    """Each file read, by the name its findings' places give it, and its lines."""


def read_tallies(fields: Fields) -> dict[str, SideTally]:
    """Each side's tally (every field the schema requires)."""
    files = fields.each(
        "files", lambda f: (f.string("side", SIDES), f.string("path"), f.integer("lines"))
    )
    tallies = {}
    for side in SIDES:
        info = fields.object(side)
        tallies[side] = SideTally(
            error_lines=info.integer("error_lines"),
            warning_lines=info.integer("warning_lines"),
            distinct=info.integer("distinct"),
            overflow=info.integer("overflow"),
            files={path: lines for of, path, lines in files if of == side},
        )
    return tallies


def rule_count(fields: Fields) -> tuple[str, int, int, int]:
    """A rule's name, base and patch matches and the distinct messages new on the patch."""
    return (
        fields.string("name"),
        fields.integer("base"),
        fields.integer("patch"),
        fields.integer("new_on_patch"),
    )


Downgraded = tuple[tuple[str, str, int], ...]
"""(user warning rule, built-in error rule, lines)."""


def downgraded_json(downgraded: Downgraded) -> dict[str, object]:
    """The side's `downgraded`, written only where there is one."""
    if not downgraded:
        return {}
    return {"downgraded": [{"rule": r, "over": o, "lines": n} for r, o, n in downgraded]}


def read_downgraded(fields: Fields) -> dict[str, Downgraded]:
    """Each side's `downgraded` (empty where not written)."""
    read = {}
    for side in SIDES:
        info = fields.object(side)
        read[side] = (
            info.each(
                "downgraded",
                lambda d: (d.string("rule"), d.string("over"), d.integer("lines")),
            )
            if info.has("downgraded")
            else ()
        )
    return read


def downgraded_sentence(downgraded: Downgraded, side: str = "patch") -> str:
    """'--warn-rule gpu-noise counted as a warning 1 patch line that the built-in error rule
    cuda-error matches (user rules are tried first)' (newuser76: it read 'warning rules over
    error rules (--warn-rule gpu-noise): 1 patch line cuda-error matches counted as a warning',
    which a new user parsed as a rule named 'warning rules')."""
    rules = sorted({rule for rule, _over, _lines in downgraded})
    over = sorted({o for _rule, o, _lines in downgraded})
    lines = sum(n for _rule, _over, n in downgraded)
    match = "rule" if len(over) == 1 else "rules"
    matches = "matches" if len(over) == 1 else "match"
    counted = "a warning" if lines == 1 else "warnings"
    return (
        f"{' and '.join(f'--warn-rule {r}' for r in rules)} counted as {counted} "
        f"{plural(lines, f'{side} line')} that the built-in error {match} {', '.join(over)} "
        f"{matches} (user rules are tried first)"
    )
