"""The project's modules a build imports, each read once a run, under one budget.

`setuppylocal.modules_cmake` reads the modules ``setup.py`` imports, those each ``cmdclass``
setting names and those each ``attr:`` version imports, and those they import in turn: up to
five readings of a project, each parsing and walking its modules again with a budget of its
own (review78i: five naming one module of a million words took ~9.9 s; stop 78's note). A
module is read here once a run (keyed by its blob id: its bytes), what the readers ask of it
kept (`ModuleReading`, not its tree), and the words parsed and those of modules naming CMake
counted once, against one budget for the run (`FOLLOWED_WORDS_CAP`, `NAMED_WORDS_CAP`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from k3diff.provenance.cmakebackends import skbuild_imported
from k3diff.provenance.git import GitRepo
from k3diff.provenance.setuppycmake import cmake_line
from k3diff.provenance.setuppyimports import ModuleScan, scan_module, word_count
from k3diff.provenance.setuppyvalues import ValueUses, value_uses

NAMED_WORDS_CAP = 200_000
"""Most words (`word_count`) of the modules naming CMake (`ModuleScan.cmake`), all together,
read further by `cmake_line`, some five walks of each: more stop the run before it reads them.
review78i: 120 modules of ``x=a+a+…`` lines each holding ``setup(install_requires=["cmake"])``,
a million words, took 9.4 s of CPU (10.9 s before cython78), one of them 11.6 s and 640 MB."""


@dataclass(frozen=True)
class ModuleReading:
    """What the readers of what a build runs ask of one module, read once."""

    scan: ModuleScan | None
    """Its imports and loaded names (`scan_module`); None where it is not Python k3diff
    parses."""
    cmake: int | None
    """The line of its first ``cmake`` run (`cmake_line`), read where its scan may name CMake
    and the budget of `NAMED_WORDS_CAP` allowed; None where there is none."""
    skbuild: bool
    """Whether it imports scikit-build (``skbuild``)."""
    uses: ValueUses | None
    """The names it imports from packages outside the standard library and the known ones,
    and how it uses them (`value_uses`); None where it is not read."""


class ModuleReadings:
    """A run's readings of modules by blob id, and its budget: the words of each module path
    read, counted once (a memo, kept on the run's `GitRepo`: a path is counted once however
    many readings reach it, and two paths of one blob each, as they were before)."""

    def __init__(self) -> None:
        self.read: dict[str, ModuleReading] = {}
        self.counts: dict[str, int] = {}
        """Words (`word_count`) per blob id read."""
        self.counted: set[str] = set()
        """The paths whose words `words` holds."""
        self.words = 0
        """Words of the module paths read this run."""
        self.named: set[str] = set()
        """The paths whose words `named_words` holds."""
        self.named_words = 0
        """Words of those naming CMake (`ModuleScan.cmake`), read further by `cmake_line`."""

    def count(self, paths: dict[str, str], blobs: dict[str, bytes]) -> int:
        """Count, once a run, the words of the module `paths` (path -> blob id) not counted
        yet (`blobs`: the bytes of each blob not read yet, `reading` reads them); the run's
        words so far."""
        for oid, data in blobs.items():
            if oid not in self.counts:
                self.counts[oid] = word_count(data)
        for path, oid in paths.items():
            if path not in self.counted:
                self.counted.add(path)
                self.words += self.counts[oid]
        return self.words

    def reading(self, path: str, oid: str, data: bytes) -> tuple[ModuleReading, bool]:
        """The reading of the module at `path` whose blob `oid` holds `data` (counted by
        `count`), made once; and whether it names CMake past `NAMED_WORDS_CAP` with the paths
        naming CMake read before it (not read further: `cmake_line` walks it some five
        times)."""
        kept = self.read.get(oid)
        parsed = None
        if kept is None:
            try:
                parsed = ast.parse(data, path)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                parsed = None
        scan = kept.scan if kept is not None else None if parsed is None else scan_module(parsed)
        if scan is None:
            return self.read.setdefault(oid, ModuleReading(None, None, False, None)), False
        if scan.cmake and path not in self.named:
            self.named.add(path)
            self.named_words += self.counts[oid]
        over = scan.cmake and self.named_words > NAMED_WORDS_CAP
        if parsed is not None:  # its first reading
            line = cmake_line(parsed) if scan.cmake and not over else None
            uses = None if over else value_uses(parsed)
            kept = self.read[oid] = ModuleReading(scan, line, skbuild_imported(scan.imports), uses)
        assert kept is not None
        return kept, over


def module_readings(git: GitRepo) -> ModuleReadings:
    """The readings of modules of the run reading `git`."""
    kept = git.memo.setdefault("module readings", ModuleReadings())
    assert isinstance(kept, ModuleReadings)
    return kept
