"""The modules a `.pth` file's executable lines import, and those they import in turn: the
wheel's files `site` so runs at every interpreter start, as it runs a `sitecustomize` (W702).

`site.addpackage` runs each executable line with `exec(line)`. k3diff parses it (`ast.parse`,
never run) and takes the modules it names (`hookimports.line_modules`). Importing `a.b.c` runs
`a`'s package `__init__` or its module file, then `a.b`'s, then `a.b.c`'s, each looked up in
site-packages by the import system of every system the wheel installs on
(`casereads.loaded_names`: a `.so` on Linux, `.pyd`, `.pyw` and suffixes in any case on
Windows, `__INIT__.py` where paths open in any case), and in each directory a path line of the
wheel puts on `sys.path` (`pthpaths.named_places`: pywin32's `import pywin32_bootstrap` finds
`win32/lib/pywin32_bootstrap.py` by its line `win32\\lib`).

Each module of the wheel so reached runs its top-level code, which may import more of the wheel
(`hookimports.module_imports`: not a function's body, unless code that runs names it): followed,
each file once, and said with its chain (`demo_inner: imported by demo.pth's line 1 → demo_hook at
every start`; pth71: a kept `import demo_hook` whose `demo_hook.py` imported a changed
`demo_inner.py` passed, exit 0, W201 alone, and a venv's `python -c pass` ran it). Where k3diff
cannot say what a reached module imports, it counts every module of the wheel as reached (fail
safe): its source does not parse here, is over `HOOK_CAP` or not source (an extension, a sourceless
`.pyc`), or the chain is `_DEPTH` modules deep, or `_FILES` sources (`_BYTES` bytes) were parsed. A
function of a module reached before that code reached since calls is followed by reading that
module again (`_Follow.pending`), as is a module's meta path finder, asked for each name
imported at start (`finders`), once code followed names `sys.meta_path`, or another piece of
the code followed spells a global it reads (`hookwords`). Lines past the part of the `.pth`
k3diff reads are not followed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from k3diff.wheel.boundnames import Module
from k3diff.wheel.casereads import CUSTOMIZE, loaded_names
from k3diff.wheel.computednames import unparsed_names
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.finders import METHODS, asked_at_start, finder_requests
from k3diff.wheel.hookbudget import TOKENS, token_count
from k3diff.wheel.hookbudget import Budget as Budget  # `audit`'s start-up surfaces read by it
from k3diff.wheel.hookimports import module_imports
from k3diff.wheel.hookwords import CHANGED, Spelt
from k3diff.wheel.importnames import Imports, Named
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.pth import PthLine, line_numbers
from k3diff.wheel.pthpaths import Place, places_of

HOOK_CAP = 1 << 20
"""Bytes of a reached module's source k3diff parses (a larger one may import anything)."""
_DEPTH = 16
"""Modules deep a chain is followed (one deeper may import anything)."""
_FILES = 256
"""Sources of reached modules parsed in all (those reached after may import anything)."""
_BYTES = 1 << 20
"""Bytes of reached modules' sources parsed in all (one past it may import anything): parsing
runs at about 5 MB/s, and a 150 KB wheel of 400 modules of 32 KiB each that one hook imports
took 4.5 s a pair at 8 MiB (pth71); setuptools' `_distutils_hack` is 7 KiB, coverage's whole
package 0.6 MiB."""
_SITE = "site-packages/"
_BY_SITE = "site"
"""What a module `sitecustomize` imports is imported by, in place of a `.pth`'s path."""
_ON = "/"  # `_places_tree`'s key of how a line names a place (no segment is `/`)
_SOURCES = (".py", ".pyw")
Reach = tuple[int, "InstalledFile", "_Runs"]
"""A file reached: its index, the file, and how it runs."""
How = tuple[str, str]
"""The `.pth` a chain starts at (its installed path), and the chain (`demo.pth's line 1 →
demo_hook`)."""


def imported_files(
    files: Sequence[InstalledFile],
    pths: Iterable[tuple[str, str | None, Iterable[PthLine]]],
    case: CaseRule,
    places: dict[Place, str],
    read: Callable[[InstalledFile], bytes | None],
) -> Iterator[tuple[InstalledFile, str, str]]:
    """Each file an executable line of a `.pth` (its installed path, content and lines) imports
    at every start, or a module so imported imports in turn (its source as `read` gives it, None
    where unreadable or over `HOOK_CAP`), and how (`demo_hook: imported by demo.pth's line 1 at
    every start`), and the `.pth` whose line does: from the top of site-packages, or from a place
    a path line puts on `sys.path` (`places`, `pthpaths.named_places`). `site` imports
    `sitecustomize` and `usercustomize` as a line would, so what the wheel's import in turn is
    followed too, said as `site`'s (`demo_inner: imported by site → sitecustomize at every
    start`; review71b: a changed `demo_inner` a kept `sitecustomize.py` imported passed, exit
    0)."""
    named = _Named(("", ""))  # each module imported (every prefix of a name) by its segments
    follow = _Follow(read)
    follow.record(Imports([((name,), False) for name in CUSTOMIZE], []), (_BY_SITE, "site"), named)
    for key, content, lines in pths:
        pth, numbers = key.rpartition("/")[2], None
        for line in lines:
            if not line.executable:
                continue
            imports = follow.left.line(line.text)
            follow.spelt.add((), "" if imports.unknown else line.text, False)  # the piece `()`
            if not (imports.modules or imports.calls or imports.unknown):
                continue
            numbers = line_numbers(content or "") if numbers is None else numbers
            number = numbers.get(line.text)
            how = key, f"{pth}'s line {number}" if number else pth
            follow.record(imports, how, named)
    fold = str.lower if case.path_blind else str
    tree = _places_tree(places, fold)
    follow.seen.update(named.modules())
    reached: dict[int, tuple[InstalledFile, _Runs]] = {}
    tops = None if tree or not named.below else _by_top(files)  # else each file is looked up
    depth = 0
    while named.below or named.every or follow.pending(reached):  # a file more, or the last
        depth += 1
        indices: Iterable[int] = (
            range(len(files))
            if tops is None or named.every
            else sorted({index for top in named.below for index in tops.get(top, ())})
        )
        found = [
            (index, file, runs)
            for index, file in zip(indices, map(files.__getitem__, indices), strict=True)
            if index not in reached and (runs := _reached(file, named, tree, fold, case))
        ]
        again = follow.pending(reached)  # reached before, a function of it called since
        following = _Named(("", ""))
        for index, file, runs in found:
            reached[index] = file, runs
            yield file, runs.summary, runs.how[0]
        for index, file, runs in [*found, *again]:
            follow.parse(index, file, runs, depth, following)
        named = following


@dataclass
class _Follow:
    """The modules followed so far: what each reached file was parsed for, the functions of
    each module called from elsewhere, and what was read (`_FILES`, `_BYTES`)."""

    read: Callable[[InstalledFile], bytes | None]
    seen: set[Module] = field(default_factory=set)
    requested: dict[Module, set[str]] = field(default_factory=dict)
    done: dict[int, frozenset[str]] = field(default_factory=dict)
    methods: dict[Module, frozenset[str]] = field(default_factory=dict)
    attributes: set[str] = field(default_factory=set)
    finders: bool = False  # code followed names `sys.meta_path` (`finders.asked_at_start`)
    parsed: int = 0
    budget: int = _BYTES
    left: Budget = field(default_factory=lambda: Budget())
    spelt: Spelt = field(default_factory=Spelt)  # the words of each piece (`hookwords`)

    def record(self, imports: Imports, how: How, following: _Named) -> None:
        """Name what code imports for the next round, and the functions it calls; where it
        computes a name it imports or calls, every module (as a cap reached)."""
        if imports.unknown:
            following.any_module((how[0], f"{how[1]} ({imports.unknown}"))
        if new := imports.attributes - self.attributes:  # a method of any module reached runs
            self.attributes |= new  # where code reads an attribute of its name (`p.activate()`)
            for module, methods in self.methods.items():
                self._call(module, methods & new)
        for module, every in imports.modules:
            if every or module not in self.seen:
                self.seen.add(module)
                following.add((module, every), how)
        for module, function in imports.calls:
            for head in _heads(module):
                self.requested.setdefault(head, set()).add(function)
        self.finders = self.finders or imports.finders
        asked = asked_at_start(self.seen) if self.finders else frozenset()
        for module, methods in self.methods.items() if asked else ():  # finders and loaders
            self._call(module, finder_requests(methods, asked) | self.spelt.changed(module))

    def _call(self, module: Module, functions: frozenset[str]) -> None:
        """Request `functions` of `module`, called from elsewhere."""
        if functions:
            self.requested.setdefault(module, set()).update(functions)

    def pending(self, reached: dict[int, tuple[InstalledFile, _Runs]]) -> list[Reach]:
        """The files reached and parsed whose module has a function called since."""
        return [
            (index, file, runs)
            for index, done in self.done.items()
            for file, runs in [reached[index]]
            if not self.requested.get(runs.module, set()) <= done
        ]

    def parse(self, index: int, file: InstalledFile, runs: _Runs, depth: int, into: _Named) -> None:
        """What importing the file runs (with the functions of it called), named `into` the
        next round; where k3diff cannot say, every module (fail safe)."""
        calls = frozenset(self.requested.get(runs.module, ()))
        fresh = calls - self.done.get(index, frozenset())
        self.done[index] = calls
        chain = runs.how[0], f"{runs.how[1]} → {'.'.join(runs.module)}"
        imports: Imports | None = None
        if depth > _DEPTH:
            why = f"a chain over {_DEPTH} modules deep"
        elif not file.path.lower().endswith(_SOURCES):
            why = "not source k3diff reads"
        elif (source := self.read(file)) is None:
            why = f"unread or over {HOOK_CAP >> 10} KiB"
        elif (plain := unparsed_names(source)) is not None:
            imports = Imports([], [], "", *plain)  # no import, no name computed: not parsed
            self.spelt.add(runs.module, source, bool(plain[0] & METHODS.keys()))
        elif (
            self.parsed >= _FILES
            or len(source) > self.budget
            or (tokens := token_count(source, self.left.tokens)) > self.left.tokens
        ):
            why = f"past the {_FILES} modules, {_BYTES >> 20} MiB or {TOKENS:,} tokens k3diff reads"
        else:
            self.parsed, self.budget = self.parsed + 1, self.budget - len(source)
            self.left.tokens -= tokens
            changes = {request for request in calls if request.startswith(CHANGED)}
            requested = fresh | changes if fresh - changes else calls  # with what changes
            imports = module_imports(source, runs.module, runs.package, requested, self.left.nodes)
            self.left.nodes -= imports.walked if imports is not None else 0
            why = "not parsed here"
            if imports is not None:
                self.spelt.add(runs.module, source, bool(imports.methods & METHODS.keys()))
                self.methods[runs.module] = imports.methods
                self._call(runs.module, imports.methods & self.attributes)
        if imports is None:
            into.any_module((chain[0], f"{chain[1]} ({why}"))
            return
        self.record(imports, chain, into)


def _reached(
    file: InstalledFile,
    named: _Named,
    tree: dict[str, Any],
    fold: Callable[[str], str],
    case: CaseRule,
) -> _Runs | None:
    """How `file` runs as a module `named` imports, from the top of site-packages or from a
    place a path line names (`tree`, `_places_tree`), if it does."""
    top = _imported(file.path, len(_SITE), named, case) if file.path.startswith(_SITE) else None
    if top is not None:
        return top
    for where, below in places_of(file) if tree else ():
        place, start = tree.get(where), 0
        while place is not None:  # each place a line names above the file, walked down
            on = place.get(_ON)
            found = _imported(below, start, named, case) if isinstance(on, str) else None
            if found is not None:
                return _Runs(found.module, found.package, found.how, on)
            end = below.find("/", start)
            place = None if end < 0 else place.get(fold(below[start:end]))
            start = end + 1
    return None


def _heads(chain: Module) -> Iterator[Module]:
    """The modules a call through `chain` may call a function of: the chain, and its first
    `_DEPTH` heads, the rest a class (`demo_hook.Hook.install()`: `install` of `demo_hook`; 16,
    not each: 200 chains of 2,000 attributes took 3.9 s)."""
    yield chain
    yield from (chain[:end] for end in range(1, min(len(chain) - 1, _DEPTH) + 1))


def _by_top(files: Sequence[InstalledFile]) -> dict[str, list[int]]:
    """The indices of site-packages' files by the top-level module they may be part of: a
    directory's name, a file's up to its first dot (and without a Windows debug build's `_d`),
    so that a round looks up the files of the modules it names alone (torch's 12,248 files
    with setuptools' `.pth` beside them: each looked up each round was 3 ms a round)."""
    found: dict[str, list[int]] = {}
    start = len(_SITE)
    for index, file in enumerate(files):
        path = file.path
        if path.startswith(_SITE):
            end = path.find("/", start)
            top = path[start:end] if end >= 0 else path[start:].partition(".")[0]
            found.setdefault(top, []).append(index)
            if end < 0 and top.endswith("_d"):
                found.setdefault(top[:-2], []).append(index)
    return found


def _places_tree(places: dict[Place, str], fold: Callable[[str], str]) -> dict[str, Any]:
    """The places path lines name as a tree of their (folded) segments, each named one's `_ON`
    saying how, so that a file's directories are looked up as its path is walked."""
    tree: dict[str, Any] = {}
    for (where, below), how in places.items():
        node = tree.setdefault(where, {})
        for segment in below.split("/") if below else ():
            node = node.setdefault(fold(segment), {})
        node.setdefault(_ON, how)
    return tree


def _imported(path: str, start: int, named: _Named, case: CaseRule) -> _Runs | None:
    """How the file at `path[start:]` below a `sys.path` entry runs as a module `named`
    imports (its directories looked up one by one, as far as the names imported go; below a
    module imported with all its own, `every`, any)."""
    package: _Named | None = named
    every = named if named.every else None
    directories = []
    while (end := path.find("/", start)) >= 0:
        segment = path[start:end]
        package = package.below.get(segment) if package is not None else None
        if package is None and every is None:
            return None
        every = every or (package if package is not None and package.every else None)
        start = end + 1
        directories.append(segment)
    for name in sorted(loaded_names(path[start:], case)):
        own = name == "__init__"  # a package's: its directory is the module
        if own and not directories:
            continue  # site-packages' own `__init__.py` is no module
        runs = package if own else package.below.get(name) if package is not None else None
        runs = runs or every
        if runs is not None:
            return _Runs(tuple(directories if own else [*directories, name]), own, runs.how)
    return None


@dataclass(frozen=True)
class _Runs:
    """A file reached: the module it is, whether a package's `__init__`, how it is imported
    (`demo.pth's line 1 → demo_hook`), and the place a path line names it is found in."""

    module: Module
    package: bool
    how: How
    on: str | None = None

    @property
    def imported(self) -> tuple[Module, bool]:
        """The module and whether it is a package, as `hookimports.module_imports` takes them."""
        return self.module, self.package

    @property
    def summary(self) -> str:
        """`demo_hook: imported by demo.pth's line 1 at every start[, from PLACE]`."""
        said = f"{'.'.join(self.module)}: imported by {self.how[1]} at every start"
        return f"{said}, from {self.on}" if self.on else said


@dataclass
class _Named:
    """A module imported: how (`demo.pth's line 1`), the modules below it imported, and whether
    every module below it may be (`from a import *`; at the top: any module at all)."""

    how: How
    below: dict[str, _Named] = field(default_factory=dict)
    every: bool = False

    def any_module(self, how: How) -> None:
        """Name every module for import (at the top: what k3diff cannot read may import any),
        `how` said as its reason (`demo.pth's line 1 → demo_hook (not parsed here`)."""
        if not self.every:
            self.every = True
            self.how = how[0], f"{how[1]}: it may import any module)"

    def add(self, named: Named, how: How) -> None:
        """Name a module (and every prefix of it) for import, `how`."""
        module, every = named
        node = self
        for segment in module:
            node = node.below.setdefault(segment, _Named(how))
        node.every = node.every or every

    def modules(self) -> Iterator[Module]:
        """Every module named below this one (walked, not recursed: a line may name one 8,000
        segments deep)."""
        stack: list[tuple[Module, _Named]] = [((), self)]
        while stack:
            above, node = stack.pop()
            for segment, below in node.below.items():
                yield (*above, segment)
                stack.append(((*above, segment), below))
