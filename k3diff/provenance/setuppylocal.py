"""The project's own modules a ``setup.py`` imports, read for CMake as ``setup.py`` is.

A ``setup.py`` may run CMake from a module of its project: PyTorch's ``setup.py`` does
``from tools.setup_helpers.cmake import CMake`` and its command classes call that module's
``cmake``. ``setup.py``'s directory is first on ``sys.path`` when it runs, so an absolute
import whose module is a file of the project runs that file (and its packages'
``__init__.py``). review76a: such a module running ``cmake --install`` over
``pkg/sub/auth.py`` was not read, and a wheel keeping the old file matched, exit 0. So are
those it finds under a directory it puts on ``sys.path`` (`setuppypaths`: grpcio's
``src/python/grpcio/commands.py``, cmake77).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping, Sequence

from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.setuppyfactories import installed_factory
from k3diff.provenance.setuppyimports import (
    FOLLOWED_BYTES_CAP,
    FOLLOWED_CAP,
    FOLLOWED_WORDS_CAP,
    IMPORT_DEPTH_CAP,
    NAMES_CAP,
    followed_files,
    imported_names,
    module_files,
    own_package,
    package_of,
    scan_module,
    word_count,
)
from k3diff.provenance.setuppyinstalled import installed_command
from k3diff.provenance.setuppypaths import import_places
from k3diff.provenance.setuppyreadings import NAMED_WORDS_CAP, module_readings
from k3diff.provenance.setuppyscopes import Project
from k3diff.provenance.setuppyvalues import first_installed, installed_value
from k3diff.provenance.trees import link_over

MODULES_BYTES_CAP = 256 * 1024
"""Most bytes of imported modules read, all together, as of one ``setup.py``; more stop the
run (review76a: 64 modules of 256 KiB of ``x = 1`` lines each took 135 s, a parse and a walk
of each about 1 s on a loaded machine, twice a run)."""
MODULES_CAP = 64
"""Most imported modules read; more stop the run."""
_MAY = "may run CMake, whose CMake installs files into the wheel, not read"
_RUNS = "whose CMake installs files into the wheel, not read"


def imported_cmake(
    git: GitRepo,
    tree: Mapping[str, str],
    links: Collection[str],
    directory: str,
    module: ast.Module,
) -> str | None:
    """Which module of the project `module` (the parsed ``setup.py`` of the project in
    `directory`) imports, or a module of it imports in turn, runs CMake (``tools/cm.py, which
    setup.py imports, runs CMake (line 3), whose CMake installs files into the wheel, not
    read``), or why they are not read; None where none does."""
    imported = imported_names(scan_module(module))
    places = import_places(module, directory, (*tree, *links), imported)
    if isinstance(places, str):
        return f"{places} not read, and {_MAY}"
    named: dict[str, set[str | None]] = {}  # review79d: each package an import names it in
    for name in imported:
        for at in places:
            for path in module_files(name, at):
                named.setdefault(path, set()).add(package_of(path, at))
    what = modules_cmake(git, tree, links, sorted(named), "which setup.py imports", places, named)
    if what is not None:
        return what

    held = _held(tree, links, places)
    installed = installed_command(module, held)  # source78: cmake-build-extension's build_ext
    if installed is None:  # review78f: a subclass of it, a mapping by name, import *
        installed = installed_value(module, "setup.py", held, imported=False)
    project = _project(git, tree, links, places)  # review80c: `from helpers import kwargs`
    return installed or installed_factory(module, held, project)  # review79d: create_cmdclass


def _project(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], places: Sequence[str]
) -> Project:
    """The project's modules by name, parsed once each (`Project`): the file importing it runs
    at the first of `places` holding one (a package's ``__init__.py`` before a module), at most
    `MODULES_CAP` of them and `FOLLOWED_WORDS_CAP` words together (each was read by
    `modules_cmake` before, within its caps: a second parse at most)."""
    parsed: dict[str, tuple[str, ast.Module] | str | None] = {}
    counts = [0, 0]  # words, modules parsed

    def project(name: str) -> tuple[str, ast.Module] | str | None:
        if name in parsed:
            return parsed[name]
        base = name.replace(".", "/")
        files = [at + base + end for at in places for end in ("/__init__.py", ".py")]
        path = next((f for f in files if f in tree or f in links), None)
        if path is None or path in links:
            found = None if path is None else f"{path} is a symbolic link or submodule"
            return parsed.setdefault(name, found)
        if counts[1] >= MODULES_CAP:
            return f"{path} is over {MODULES_CAP} modules read for what they return"
        size = blob_sizes(git, [tree[path]]).get(tree[path], FOLLOWED_BYTES_CAP + 1)
        if size > FOLLOWED_BYTES_CAP:
            return parsed.setdefault(name, f"{path} is over {FOLLOWED_BYTES_CAP:,} bytes")
        data = dict(iter_blobs(git, [tree[path]])).get(tree[path], b"")
        counts[0] += word_count(data)
        counts[1] += 1
        if counts[0] > FOLLOWED_WORDS_CAP:
            over = f"over {FOLLOWED_WORDS_CAP:,} words with those read before it"
            return parsed.setdefault(name, f"{path} is {over}")
        try:
            return parsed.setdefault(name, (path, ast.parse(data, path)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return parsed.setdefault(name, f"{path} is not Python k3diff reads")

    return project


def _held(
    tree: Mapping[str, str], links: Collection[str], places: Sequence[str]
) -> Callable[[str], bool]:
    """Whether the commit holds a file importing a module name runs (at one of `places`)."""

    def held(name: str) -> bool:
        return any(f in tree or f in links for at in places for f in module_files(name, at))

    return held


def modules_cmake(
    git: GitRepo,
    tree: Mapping[str, str],
    links: Collection[str],
    paths: list[str],
    how: str,
    places: Sequence[str],
    named: Mapping[str, Collection[str | None]] | None = None,
) -> str | None:
    """Which of the modules at `paths` (those the commit holds, sorted; `how` the build runs
    them: ``which setup.py imports``), or of those they import in turn (absolute names found at
    `places`, `setuppyimports`), runs CMake, or why they are not read; None where none does.
    Those at `paths` at most `MODULES_CAP` modules and `MODULES_BYTES_CAP` bytes, with those
    imported in turn `FOLLOWED_CAP`, `FOLLOWED_BYTES_CAP` and `FOLLOWED_WORDS_CAP` (all of
    them), `IMPORT_DEPTH_CAP` imports deep. `named`: the packages each of `paths` is imported
    as (None: a top-level module), whose relative imports are followed from each; where it
    does not say, `own_package`'s."""
    every_link = frozenset(links)
    seen: set[str] = set()
    level, why = paths, dict.fromkeys(paths, how)
    packages = {
        path: set(named[path]) if named and path in named else {own_package(path, places)}
        for path in paths
    }
    known: set[str] = set()
    held = _held(tree, links, places)
    total = 0
    for depth in range(IMPORT_DEPTH_CAP + 1):
        them = how if depth == 0 else f"{how} or they import"
        for path in level:  # review77b, submod77: `tools/` a link or a submodule holding `cm.py`
            if path not in tree and (over := link_over(every_link, path)) not in (None, path):
                under = f"is under the symbolic link or submodule {over}"
                return f"{path}, {why[path]}, {under}, not read, and {_MAY}"
        files = [path for path in level if path in tree or path in links]
        seen |= set(files)
        if len(seen) > (MODULES_CAP if depth == 0 else FOLLOWED_CAP):
            many = f"{len(seen):,} modules of the project"
            most = MODULES_CAP if depth == 0 else FOLLOWED_CAP
            return f"{many}, {them}, are not read (over {most}), and {_MAY}"
        if linked := [path for path in files if path in links]:
            return f"{linked[0]}, {why[linked[0]]}, is a symbolic link or submodule, not read, and {_MAY}"
        sizes = blob_sizes(git, [tree[path] for path in files])
        total += sum(sizes[tree[path]] for path in files)
        if total > (limit := MODULES_BYTES_CAP if depth == 0 else FOLLOWED_BYTES_CAP):
            many = f"{', '.join(files[:3])}{' …' if len(files) > 3 else ''}"
            cap = f"{limit // 1024} KiB"
            return f"{many}, {them}, are over {cap} together, not read, and {_MAY}"
        memo = module_readings(git)
        blobs = dict(iter_blobs(git, sorted({tree[path] for path in files} - memo.read.keys())))
        if memo.count({path: tree[path] for path in files}, blobs) > FOLLOWED_WORDS_CAP:
            many = f"{', '.join(files[:3])}{' …' if len(files) > 3 else ''}"
            over = f"over {FOLLOWED_WORDS_CAP:,} words together with those read before them"
            return f"{many}, {them}, are {over}, not read, and {_MAY}"  # cython78: by the word
        following: dict[str, str] = {}
        for path in files:  # each module read once a run (`setuppyreadings`)
            read, over_named = memo.reading(path, tree[path], blobs.get(tree[path], b""))
            if read.scan is None:
                return f"{path}, {why[path]}, is not Python k3diff reads, and {_MAY}"
            if over_named:  # review78i: `cmake_line` costs five walks
                over = f"over {NAMED_WORDS_CAP:,} words with those before it that do"
                return f"{path}, {why[path]}, names CMake ({over}), not read, and {_MAY}"
            if read.cmake is not None:
                return f"{path}, {why[path]}, runs CMake (line {read.cmake}), {_RUNS}"
            if read.skbuild:
                return f"{path}, {why[path]}, builds with scikit-build (skbuild), {_RUNS}"
            uses = read.uses  # review78f: a class passed on
            if uses is not None and (said := first_installed(uses, f"{path} ({why[path]})", held)):
                return said
            scan = read.scan
            followed: dict[str, str | None] = {}
            for package in sorted(packages[path], key=lambda p: p or ""):
                for found, owner in followed_files(scan, package, places, known).items():
                    followed.setdefault(found, owner)
            if len(known) > NAMES_CAP:
                many = f"{len(known):,} module names"
                return f"{path}, {why[path]}, and those before it import {many} (over {NAMES_CAP}), not read, and {_MAY}"
            for found, owner in sorted(followed.items()):
                if found in seen or found in following:
                    continue
                if found in tree or found in links or link_over(every_link, found) is not None:
                    following[found] = f"which {path} imports"
                    packages.setdefault(found, {owner})
        level = sorted(following)
        why = following
        if not level:
            return None
    deep = f"imported {IMPORT_DEPTH_CAP + 1} imports deep"
    return f"{level[0]}, {why[level[0]]}, {deep} (over {IMPORT_DEPTH_CAP}), not read, and {_MAY}"
