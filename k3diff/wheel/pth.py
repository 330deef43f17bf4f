"""A `.pth` file read as every supported Python's `site.addpackage` reads it.

Up to Python 3.12, `site` opens the file in the locale's encoding (UTF-8 on the systems wheels
are audited for) with universal newlines (`\\n`, `\\r`, `\\r\\n`): a UTF-8 byte order mark stays
at the start of the first line, so an `import` line behind one is a path line there. From 3.13,
`site` reads the bytes, decodes them as `utf-8-sig` (the mark is dropped) and splits them with
`str.splitlines`, which also breaks at form feeds, vertical tabs, `\\x1c`-`\\x1e`, `\\x85` and the
Unicode line and paragraph separators. Either way a line starting with `#` is a comment, a blank
line is skipped, and a line starting with `import` and a space or tab is executed at every
interpreter start; every other line is a path. A line may so run on one range of versions only.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from enum import StrEnum

_BOM = "\ufeff"


class PthRuns(StrEnum):
    """Which Pythons execute a `.pth` line."""

    EVERY = "every Python"
    MODERN = "Python 3.13 and later"
    LEGACY = "Python 3.12 and earlier"


@dataclass(frozen=True)
class PthLine:
    """One meaningful line of a `.pth` file."""

    text: str
    """The line as written (without its newline, nor a leading byte order mark)."""
    executable: bool
    """True when `site` executes it on some supported Python (it starts with `import`); else a
    path added to sys.path."""
    runs_on: PthRuns | None = None
    """The Pythons that execute it (None for a path line)."""


def _executes(line: str) -> bool:
    return line.startswith(("import ", "import\t"))


def _meaningful(line: str) -> bool:
    return not line.startswith("#") and line.strip() != ""


def legacy_lines(data: bytes) -> list[str]:
    """The lines Python 3.12 and earlier read (byte order mark kept, universal newlines)."""
    text = data.decode("utf-8", errors="replace")
    return [line.rstrip("\n") for line in io.StringIO(text, newline=None)]


def modern_lines(data: bytes) -> list[str]:
    """The lines Python 3.13 and later read (`utf-8-sig`, `str.splitlines`)."""
    return data.decode("utf-8-sig", errors="replace").splitlines()


def pth_lines(data: bytes) -> tuple[PthLine, ...]:
    """The meaningful lines of a `.pth` file's bytes, each saying which Pythons execute it, in
    the order 3.13 reads them (then lines only older Pythons read)."""
    modern = [line for line in modern_lines(data) if _meaningful(line)]
    legacy = [line for line in legacy_lines(data) if _meaningful(line)]
    runs_modern = {line for line in modern if _executes(line)}
    runs_legacy = {line.removeprefix(_BOM) for line in legacy if _executes(line)}
    order = [*modern, *(line.removeprefix(_BOM) for line in legacy)]
    found: list[PthLine] = []
    seen: set[str] = set()
    for text in order:
        if text in seen:
            continue
        seen.add(text)
        new, old = text in runs_modern, text in runs_legacy
        runs = (
            (PthRuns.EVERY if old else PthRuns.MODERN) if new else PthRuns.LEGACY if old else None
        )
        found.append(PthLine(text, runs is not None, runs))
    return tuple(found)


def pth_summary(lines: tuple[PthLine, ...]) -> str:
    """`N executable lines run at every start, M path lines`, with the lines that only some
    Pythons run counted apart."""
    executable = sum(1 for line in lines if line.executable)
    paths = len(lines) - executable
    summary = (
        f"{executable} executable line{'s' if executable != 1 else ''} run at every start, "
        f"{paths} path line{'s' if paths != 1 else ''}"
    )
    for runs in (PthRuns.MODERN, PthRuns.LEGACY):
        count = sum(1 for line in lines if line.runs_on is runs)
        if count:
            summary += f" ({count} executed only on {runs.value})"
    return summary


def line_numbers(content: str) -> dict[str, int]:
    """The number of each line of a `.pth`'s content, as 3.13 splits it (else as 3.12 does)."""
    numbers: dict[str, int] = {}
    for lines in (content.removeprefix(_BOM).splitlines(), legacy_lines(content.encode())):
        for number, line in enumerate(lines, 1):
            numbers.setdefault(line.removeprefix(_BOM), number)
    return numbers
