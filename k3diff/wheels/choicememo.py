"""Pip's choice made once a run: a release set weighs it three times (the cap on the filenames,
the choice pairing, and the final check once the wheels' Requires-Python are read:
`wheels.competing`), over the same files and mostly the same interpreters. What each weighing
makes is kept here and handed to the next: a project's machines and Pythons (for the same
files and Requires-Python values), each file's rank on each interpreter, and each choice on an
interpreter (for the same files and the same answer of their Requires-Python). Nothing here
changes what is chosen; a run makes one `ChoiceMemo` (`releaseset.compare_release_sets`), and a
caller giving none gets a fresh one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TypeVar

from k3diff.wheel.tagsharing import Parts
from k3diff.wheels.interpreters import Machine, Python, machines, pythons
from k3diff.wheels.pipchoice import Candidate, Choice, platform_rank, python_rank

_T = TypeVar("_T")
_UNSEEN = object()

PythonRanks = tuple[tuple[int | None, int | None], ...]
"""Each candidate's rank on one Python (`pipchoice.python_rank`)."""
Chosen = tuple[tuple[frozenset[int], frozenset[int]], ...]
"""A choice on one interpreter, as pip installs by default and with `--pre`: each release's
chosen candidates, by their places in the project's files ordered by release and path."""


@dataclass(frozen=True)
class _Made:
    """A list made one at a time up to a length, and whether it holds every item."""

    items: list[object]
    whole: bool


@dataclass(frozen=True)
class ProjectFiles:
    """A project's files as one weighing lists them, and their places by release and path."""

    key: int
    """The project's name and files (`ChoiceMemo.intern`)."""
    candidates: Sequence[Candidate]
    order: Sequence[int]
    """The candidates' indices, by release and path."""
    place: Mapping[int, int]
    """Id of each candidate -> its place in `order`."""

    def listed(self, places: frozenset[int]) -> list[Candidate]:
        """The candidates at `places`, highest version first, then as the weighing lists them."""
        candidates = self.candidates
        if len(places) < 2:
            return [candidates[self.order[at]] for at in places]
        indices = sorted(self.order[at] for at in places)
        indices.sort(key=lambda n: candidates[n].version, reverse=True)
        return [candidates[n] for n in indices]


@dataclass(frozen=True)
class ChoiceMemo:
    """What a run's weighings of pip's choice have made, for the next to take."""

    _lists: dict[Hashable, _Made] = field(default_factory=dict)
    _python_ranks: dict[tuple[int, Parts | None], tuple[int | None, int | None]] = field(
        default_factory=dict
    )
    _platform_ranks: dict[tuple[int, Parts | None], int | None] = field(default_factory=dict)
    _choices: dict[Hashable, Chosen] = field(default_factory=dict)
    _interned: dict[Hashable, int] = field(default_factory=dict)

    def intern(self, value: Hashable) -> int:
        """A number for the value, the same each time it is given (so that a key holding a long
        tuple is hashed once, not on each lookup)."""
        return self._interned.setdefault(value, len(self._interned))

    def machines(self, parts: Sequence[Parts], count: int) -> list[Machine]:
        """`list(islice(machines(parts), count))`."""
        return self._first(("machines", tuple(parts)), lambda: machines(parts), count)

    def pythons(self, parts: Sequence[Parts], stated: Sequence[str], count: int) -> list[Python]:
        """`list(islice(pythons(parts, stated), count))`."""
        key = ("pythons", tuple(parts), tuple(stated))
        return self._first(key, lambda: pythons(parts, stated), count)

    def by_python(self, python: Python, candidates: Sequence[Candidate]) -> PythonRanks:
        """Each candidate's rank on the Python."""
        ranks, key = self._python_ranks, self.intern(python)
        found: list[tuple[int | None, int | None]] = []
        for candidate in candidates:
            rank = ranks.get((key, candidate.parts))
            if rank is None:
                rank = ranks[key, candidate.parts] = python_rank(python, candidate.parts)
            found.append(rank)
        return tuple(found)

    def by_platform(self, machine: Machine, candidates: Sequence[Candidate]) -> list[int | None]:
        """Each candidate's rank on the machine's platform values."""
        ranks, key = self._platform_ranks, self.machine_key(machine)
        found: list[int | None] = []
        for candidate in candidates:
            rank = ranks.get((key, candidate.parts), _UNSEEN)
            if rank is _UNSEEN:
                rank = ranks[key, candidate.parts] = platform_rank(machine, candidate.parts)
            found.append(rank)  # type: ignore[arg-type]
        return found

    def machine_key(self, machine: Machine) -> int:
        """The machine's number (`intern`): its name and its platform values' ranks."""
        return self.intern((machine.name, tuple(machine.platforms.items())))

    def files(self, name: str, candidates: Sequence[Candidate]) -> ProjectFiles:
        """The project's files as `choice` keeps them: by release and path."""
        order = sorted(range(len(candidates)), key=lambda n: _file(candidates[n]))
        key = self.intern((name, tuple(_file(candidates[n]) for n in order)))
        place = {id(candidates[n]): at for at, n in enumerate(order)}
        return ProjectFiles(key, candidates, order, place)

    def choice(
        self, files: ProjectFiles, key: Hashable, make: Callable[[], tuple[Choice, Choice]]
    ) -> tuple[Choice, Choice]:
        """The choice `make` makes among the files, made once for the files and `key` (the
        interpreter, and which files their Requires-Python admit, in `files.order`) whatever
        order a weighing lists the files in; given back in the order `pipchoice.choices_on`
        gives (highest version first, then as the weighing lists them)."""
        chosen = self._choices.get((files.key, key))
        if chosen is None:
            place = files.place
            chosen = tuple(
                (frozenset(place[id(c)] for c in base), frozenset(place[id(c)] for c in patch))
                for base, patch in make()
            )
            self._choices[files.key, key] = chosen
        default, pre = ((files.listed(base), files.listed(patch)) for base, patch in chosen)
        return default, pre

    def _first(self, key: Hashable, make: Callable[[], Iterator[_T]], count: int) -> list[_T]:
        made = self._lists.get(key)
        if made is None or (not made.whole and len(made.items) < count):
            items: list[object] = list(islice(make(), count))
            made = self._lists[key] = _Made(items, len(items) < count)
        return made.items[:count]  # type: ignore[return-value]


def _file(candidate: Candidate) -> tuple[int, str]:
    return candidate.side, str(candidate.path)
