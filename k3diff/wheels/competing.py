"""Unpaired wheels pip installs where the other release installs a wheel: no one-sided wheel for
`--allow-unpaired` to accept.

`--allow-unpaired` accepts a wheel on one side only: a platform or a Python a release added or
dropped. It is one-sided when, on every interpreter pip installs it on, pip installs nothing
of the other release's project. pip chooses one wheel of a project per interpreter: the highest
version, then the best-ranked tag, then the highest build tag. So on each interpreter the
project's wheels tell apart (`wheels.interpreters`) each release's choice is taken; where both
choose one, the two must be a compared pair. An unpaired wheel chosen there (`cp312-none-any`
beside the compared `py3-none-any`; `1.2-py3-none-any` beside the compared 1.1 platform wheel;
`macosx_10_9_universal2` added where the compared pair moved from macOS 10.13 to 11.0), or
two paired wheels of different pairs, is refused (exit 2) naming the two to compare (stop 76:
each of these passed, exit 0; wheel-against-wheel rules missed a third wheel) with the command
that compares them, `k3diff wheels BASE PATCH` (newuser76: it advised `--base BASE --patch
PATCH`, which pairs by shared tags as the set did, so it compared nothing: exit 1, nothing
paired). A wheel only chosen where the other release chooses none (a `manylinux2014` or
`android_21` wheel added beside a newer compared one, `cp37-abi3` beside `cp39-abi3`, a pure
fallback added beside platform wheels) is one-sided.

pip weighs the directories' source archives too (`wheels.releasesources`): where it builds one
(no wheel fits, or the archive holds a later version) beside a wheel, or beside the other
release's archive holding other bytes, nothing compared what it installs, so that is refused
(exit 2; release77: passed over, exit 0), and an archive built where the other release installs
nothing is one-sided (only `--allow-unpaired` accepts it); where what pip builds from an
archive requires another Python, pip goes on to the next version, so that is weighed too
(`source_scenarios`; release78: exit 0 where pip 26.3 installed an uncompared wheel). The
choice weighs each wheel's
Requires-Python (`pipchoice`), read by the comparison, so it is made once the pairs are
compared (its cap is weighed on the filenames before any wheel is read).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from k3diff.errors import InputError, UsageError
from k3diff.wheels.choicememo import ChoiceMemo
from k3diff.wheels.interpreters import Machine, Python, admits
from k3diff.wheels.pipchoice import Candidate, Choice, choices_on, wheel_candidate
from k3diff.wheels.releasesources import (
    SameBytes,
    SourceArchive,
    archive_versions,
    refuse_many_readings,
)
from k3diff.wheels.setpairing import Pairing

MAX_CHECKS = 1_000_000
"""Checks the projects' wheels may take in one run, all projects together (k3diff's cap, exit
2 past it; review76d: a cap per project let 8,000 projects take 27 s): each Python times each
wheel's Python values and each machine, and each machine times each wheel's platform values. A
release names a few Pythons and systems (stop 76: 104 wheels a side, for 8 Pythons and 13
platforms, tell 19 Pythons and 18 machines apart, 79,408 checks, 0.02 s; 13 million checks took
10 s, so the cap costs under a second)."""


@dataclass(frozen=True)
class _Compared:
    """What the run compared, and what it accepts uncompared."""

    pairs: frozenset[tuple[int, int]]
    """(id of base wheel, id of patch wheel) of each pair."""
    paired: frozenset[int]
    """Ids of every paired wheel."""
    allow_unpaired: bool
    """`--allow-unpaired`: else an unpaired wheel fails the set (exit 1) and is not weighed."""
    same_bytes: SameBytes = field(default_factory=lambda: SameBytes({}))

    def refused(self, base: Candidate, patch: Candidate) -> bool:
        """Whether pip choosing the two on one interpreter is refused here: a source archive
        beside anything but the same bytes named as the same version always (nothing compared
        what pip builds; where the version its name states is not the one it builds, pip
        discards it and goes on to the next version: review77a, the base's sdist copied as
        the patch's `engine-1.1.tar.gz` passed, exit 0, and pip 26 installed an older,
        uncompared wheel)."""
        if base.wheel is None or patch.wheel is None:
            return (
                base.wheel is not None
                or patch.wheel is not None
                or base.version != patch.version
                or not self.same_bytes(base.path, patch.path)
            )
        if (id(base.wheel), id(patch.wheel)) in self.pairs:
            return False
        return self.allow_unpaired or {id(base.wheel), id(patch.wheel)} <= self.paired


RequiresPython = Mapping[int, str | None]
"""Id of a wheel -> the Requires-Python of its METADATA (the comparison reads a pair's, the run
an unpaired wheel's as it opens it), None where it states none."""


@dataclass(frozen=True)
class ChoiceCheck:
    """Each project's wheels and source archives, both releases', to weigh once the wheels'
    Requires-Python are read."""

    compared: _Compared
    projects: tuple[tuple[str, tuple[Candidate, ...]], ...]
    """Each project both releases hold (name, its candidates), by name."""
    memo: ChoiceMemo = field(default_factory=ChoiceMemo)
    """What the run's earlier weighings made (`choicememo`)."""

    def refuse(self, requires_python: RequiresPython) -> None:
        """UsageError (exit 2) naming the first two wheels pip installs on one interpreter, one
        of each release, that were not compared with each other, or a source archive pip builds
        there beside anything but the same bytes (or, without `--allow-unpaired`, beside
        nothing); where the chosen file's Requires-Python excludes the Python, pip goes on to
        the next version (`pipchoice.choices_on`). InputError past `MAX_CHECKS`."""
        total = 0
        for name, candidates in self.projects:
            read = tuple(
                c if c.wheel is None else replace(c, requires=requires_python.get(id(c.wheel)))
                for c in candidates
            )
            plan = plan_project(name, read, MAX_CHECKS - total, self.memo)
            total += plan.work
            _refuse_cost(plan, total, self.compared)
            _refuse_project(plan, self.compared, self.memo)


def choice_check(
    pairing: Pairing,
    allow_unpaired: bool = True,
    sources: tuple[Sequence[SourceArchive], Sequence[SourceArchive]] = ((), ()),
    memo: ChoiceMemo | None = None,
) -> ChoiceCheck:
    """What to weigh (nothing without `allow_unpaired` where a wheel is unpaired: it fails the
    set already, exit 1); InputError at once where the filenames alone pass `MAX_CHECKS`, before
    any wheel is read. `memo`: the run's (`choicememo`), handed on to the final check."""
    memo = memo or ChoiceMemo()
    compared = _Compared(
        frozenset((id(base), id(patch)) for base, patch in pairing.pairs),
        frozenset(id(wheel) for pair in pairing.pairs for wheel in pair),
        allow_unpaired,
    )
    if not allow_unpaired and (pairing.only_base or pairing.only_patch):
        return ChoiceCheck(compared, (), memo)
    refuse_many_readings((*sources[0], *sources[1]))
    projects: dict[str, list[Candidate]] = {}
    sides = (
        (*(base for base, _ in pairing.pairs), *pairing.only_base),
        (*(patch for _, patch in pairing.pairs), *pairing.only_patch),
    )
    for side, wheels in enumerate(sides):
        for wheel in wheels:
            if (candidate := wheel_candidate(wheel, side)) is not None:
                projects.setdefault(wheel.key_name, []).append(candidate)
        for archive in sources[side]:
            for project, version in archive_versions(archive):
                source = Candidate(None, archive.path, side, None, version, ())
                projects.setdefault(project, []).append(source)
    both = tuple(
        (name, tuple(candidates))
        for name, candidates in sorted(projects.items())
        if {c.side for c in candidates} == {0, 1}
    )
    total = 0
    for name, candidates in both:
        plan = plan_project(name, candidates, MAX_CHECKS - total, memo)
        total += plan.work
        _refuse_cost(plan, total, compared)
    return ChoiceCheck(compared, both, memo)


def refuse_competing(
    pairing: Pairing,
    allow_unpaired: bool = True,
    sources: tuple[Sequence[SourceArchive], Sequence[SourceArchive]] = ((), ()),
    requires_python: RequiresPython | None = None,
) -> None:
    """`choice_check(...).refuse(requires_python)`: the whole check at once."""
    choice_check(pairing, allow_unpaired, sources).refuse(requires_python or {})


@dataclass(frozen=True)
class Plan:
    """One project's wheels, and the interpreters they tell apart."""

    name: str
    candidates: Sequence[Candidate]
    pythons: Sequence[Python]
    machines: Sequence[Machine]
    work: int
    """Checks its choices take (`MAX_CHECKS`)."""
    more: bool
    """Whether it tells more Pythons apart than `pythons` holds (past the cap)."""


def plan_project(
    name: str, candidates: Sequence[Candidate], room: int, memo: ChoiceMemo | None = None
) -> Plan:
    """The project's interpreters, made only up to the `room` left under `MAX_CHECKS` (each
    machine takes a check per platform value of each wheel, each Python one per Python value
    and machine, and one per machine for each source archive), so that a plan past the cap is
    never made whole. A project of source archives alone is weighed on one stand-in Python."""
    parts = [candidate.parts for candidate in candidates if candidate.parts is not None]
    archives = len(candidates) - len(parts)
    most_machines = room // max(1, sum(len(p[2]) for p in parts)) + 1
    memo = memo or ChoiceMemo()
    found_machines = memo.machines(parts, most_machines + 1)
    per_python = sum(len(p[0]) + len(found_machines) for p in parts)
    per_python += archives * len(found_machines)
    per_python *= 1 + len({c.version for c in candidates if c.parts is None})
    stated = [c.requires for c in candidates if c.requires]
    per_python += sum(text.count(",") + 1 for text in stated)
    most_pythons = room // max(1, per_python) + 1
    found_pythons = memo.pythons(parts, stated, most_pythons + 1) or [_ANY_PYTHON]
    work = len(found_pythons) * per_python
    work += len(found_machines) * sum(len(p[2]) for p in parts)
    more = len(found_machines) > most_machines or len(found_pythons) > most_pythons
    return Plan(name, candidates, found_pythons, found_machines, work, more)


_ANY_PYTHON = Python("any Python", (3, 0), None, ())
"""The Python a project named by source archives alone is weighed on (each fits every one)."""


def _refuse_cost(plan: Plan, total: int, compared: _Compared) -> None:
    """InputError where the checks of the project and those before it pass `MAX_CHECKS`
    (review76d: 8,000 projects of two empty files, each under the cap alone, took 27 s)."""
    if total <= MAX_CHECKS:
        return
    candidates = plan.candidates
    first = next((c for c in candidates if id(c.wheel) not in compared.paired), candidates[0])
    directory = first.path.parent
    option = "--allow-unpaired: " if compared.allow_unpaired else ""
    others = f", {total:,} with the projects before it" if total > plan.work else ""
    more = " or more" if plan.more else ""
    raise InputError(
        f"{directory}: {option}project {plan.name}: its {_files(candidates)} "
        f"tell {len(plan.pythons):,}{more} Pythons and {len(plan.machines):,} machines "
        f"apart: {plan.work:,}{more} checks of which wheel pip installs{others}, over k3diff's "
        f"cap of {MAX_CHECKS:,} checks a run: compare fewer wheels at a time (--base/--patch)"
    )


def _files(candidates: Sequence[Candidate]) -> str:
    """`12 wheels`, or where some are source archives `12 archives (2 wheels, 10 source
    archives)` (newuser78: "its 12 wheels" where most were sdists)."""
    sources = sum(1 for c in candidates if c.wheel is None)
    if not sources:
        return f"{len(candidates):,} wheels"
    wheels = len(candidates) - sources
    return f"{len(candidates):,} archives ({wheels:,} wheels, {sources:,} source archives)"


PIP_RUNS_FROM = (3, 10)
"""The oldest Python pip 26 runs on (its Requires-Python): `each_choice` weighs the Pythons from
it on first, so that a refusal names an interpreter a user runs (newuser77: two releases'
MarkupSafe sdists were refused "on CPython 3.0", where no pip runs, not on CPython 3.11)."""


def each_choice(plan: Plan, memo: ChoiceMemo | None = None) -> Iterator[tuple[str, Choice]]:
    """Each release's choice on each interpreter the project's files tell apart, as pip
    installs by default and then with `--pre`, with where it is (`CPython 3.12 on ...`): the
    Pythons pip 26 runs on first (`PIP_RUNS_FROM`), then the older ones, each in plan order;
    on each, as pip builds the source archives and, past each of their versions, as their
    builds exclude the Python (`source_scenarios`). Each choice is made once a run (`memo`:
    the same files, interpreter and answers of their Requires-Python)."""
    memo = memo or ChoiceMemo()
    candidates = plan.candidates
    files = memo.files(plan.name, candidates)
    by_platform = [memo.by_platform(m, candidates) for m in plan.machines]
    scenarios = source_scenarios(candidates)
    # highest version first (in plan order within one), so that `choices_on` finds each
    # release's versions in order: sorting them is one pass, not a sort on each choice
    by_version = sorted(range(len(candidates)), key=lambda n: candidates[n].version, reverse=True)
    for python in sorted(plan.pythons, key=lambda python: python.version < PIP_RUNS_FROM):
        ranks, python_key = memo.by_python(python, candidates), memo.intern(python)
        # the files that may fit the Python (`choices_on` passes over the others)
        fits = [n for n in by_version if candidates[n].parts is None or ranks[n] != _NEITHER]
        fitting, by_python = [candidates[n] for n in fits], [ranks[n] for n in fits]
        stated = [admits(c.requires, python) for c in fitting]
        admitted = [
            stated if p is None else _both(stated, [p[n] for n in fits]) for p, _ in scenarios
        ]
        kept = sorted(range(len(fits)), key=lambda at: files.place[id(fitting[at])])
        answers = [memo.intern(tuple(each[at] for at in kept)) for each in admitted]
        for machine, platform_ranks in zip(plan.machines, by_platform, strict=True):
            where = f"{python.name} on {machine.name}"
            machine_key = memo.machine_key(machine)
            on_platform = [platform_ranks[n] for n in fits]
            for (_, said), answer, each in zip(scenarios, answers, admitted, strict=True):
                make = partial(choices_on, fitting, by_python, on_platform, each)
                choices = memo.choice(files, (python_key, machine_key, answer), make)
                for pre, chosen in enumerate(choices):
                    yield where + said + (" (pip --pre)" if pre else ""), chosen


_NEITHER = (None, None)
"""`pipchoice.python_rank` of a wheel the Python takes none of the tags of."""


def _both(stated: Sequence[bool], past: Sequence[bool]) -> list[bool]:
    return [a and b for a, b in zip(stated, past, strict=True)]


def source_scenarios(
    candidates: Sequence[Candidate],
) -> list[tuple[list[bool] | None, str]]:
    """How the project's source archives may answer the Python: built (their Requires-Python
    admits it), then, for each version of them from the highest, excluding it from that
    version up (each candidate: whether it stays admitted), with the words that say so. pip
    26 learns an archive's Requires-Python only by building its metadata (never from its
    PKG-INFO), and where it excludes the Python goes on to the next version (checked with pip
    26.3: an sdist whose build requires Python 3.13 beside the same sdist in the base made
    pip on 3.11 install the patch's older, uncompared wheel; k3diff took the archive as
    fitting every Python, exit 0). k3diff runs no build, so each answer is weighed; the same
    bytes named as one version build alike in both releases, so the releases' archives of a
    version are weighed as answering together."""
    versions = sorted({c.version for c in candidates if c.wheel is None}, reverse=True)
    scenarios: list[tuple[list[bool] | None, str]] = [(None, "")]
    for version in versions:
        past = [c.wheel is not None or c.version < version for c in candidates]
        said = f" (if what pip builds from the {version} source archives requires another Python)"
        scenarios.append((past, said))
    return scenarios


def _refuse_project(plan: Plan, compared: _Compared, memo: ChoiceMemo) -> None:
    """The refusal for the first interpreter where one project's chosen wheels were not
    compared with each other, or a chosen source archive is not the other side's."""
    one_sided: UsageError | None = None
    for where, chosen in each_choice(plan, memo):
        for base in chosen[0]:
            for patch in chosen[1]:
                if compared.refused(base, patch):
                    _refuse(base, patch, where, compared)
        if not compared.allow_unpaired and one_sided is None:
            one_sided = _one_sided_source(chosen, where)
    if one_sided is not None:
        raise one_sided


_BUILD_IT = (
    "k3diff compares wheels, not what pip builds from a source archive: build its wheel "
    "(pip wheel --no-deps ARCHIVE) and compare that, or compare the wheels alone: move the "
    "source archives out of the directories, or give the wheels with --base/--patch"
)


def _refuse(base: Candidate, patch: Candidate, where: str, compared: _Compared) -> None:
    """UsageError naming the two wheels (or source archives) pip installs on `where`, never
    compared."""
    if base.wheel is None or patch.wheel is None:
        raise UsageError(
            f"pip {_takes(base)} and {_takes(patch)} on {where}, and nothing compared them: "
            f"{_BUILD_IT}"
        )
    if id(base.wheel) not in compared.paired:
        lead = f"--allow-unpaired: base wheel {base.path} is not one-sided: pip installs it on "
        lead += f"{where}, where the patch release installs {patch.path}"
    elif id(patch.wheel) not in compared.paired:
        lead = f"--allow-unpaired: patch wheel {patch.path} is not one-sided: pip installs it on "
        lead += f"{where}, where the base release installed {base.path}"
    else:
        lead = f"pip installs base wheel {base.path} and patch wheel {patch.path} on {where}"
        lead += ", each paired with another wheel"
    command = shlex.join(["k3diff", "wheels", str(base.path), str(patch.path)])
    raise UsageError(f"{lead}, and nothing compared them; compare them on their own: {command}")


def _takes(candidate: Candidate) -> str:
    return f"{'builds' if candidate.wheel is None else 'installs'} {candidate.what}"


def _one_sided_source(chosen: Choice, where: str) -> UsageError | None:
    """The refusal of a source archive pip builds on `where` where the other release installs
    nothing: one-sided, which only `--allow-unpaired` accepts (as it does a wheel); raised
    once no interpreter has two choices nothing compared (that refusal says more)."""
    for mine, other in ((chosen[0], chosen[1]), (chosen[1], chosen[0])):
        source = next((c for c in mine if c.wheel is None), None)
        if source is not None and not other:
            return UsageError(
                f"pip {_takes(source)} on {where}, where the other release installs nothing: "
                f"one-sided, and nothing compared it (--allow-unpaired accepts it); {_BUILD_IT}"
            )
    return None
