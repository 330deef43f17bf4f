"""A project's configuration files read for how it builds before its layout is: one k3diff
cannot read, and the command classes they name, stop the source check.

``pyproject.toml`` names the backend that builds the project. One k3diff does not read (a
symbolic link, over `CONFIG_CAP`, a line of over `DOTS_CAP` dots, not TOML) was "not read"
and detection decided (cmake77): where it named py-build-cmake with a ``cmake`` table,
scikit-build-core or a backend of the project's own (``backend-path``), CMake or the
project's code installed a fixed ``fixes/auth.py`` over the package's old
``src/pkg/sub/auth.py``, k3diff compared the old file and a wheel keeping it matched, exit 0.
Which backend builds is not known then, so the run stops. So does a ``setup.cfg`` setuptools
reads and k3diff does not (a link, over the cap, past `setupcfg`'s caps: one setuptools fails
on builds nothing, and stays said as not read).

setuptools runs the command classes ``setup.cfg``'s ``[options] cmdclass`` or
``pyproject.toml``'s ``[tool.setuptools] cmdclass`` names (``build_ext = tools.cm.CMakeBuild``)
from the project's files (``expand.resolve_class``: the module under ``package_dir``'s
directory for its package, or the project's, as ``NAME.py``, ``NAME/__init__.py`` or another
``NAME.*``); one running ``cmake --install`` over the package was not read, exit 0 (cmake77).
Those modules are read as the ones ``setup.py`` imports (`setuppylocal`, the same caps).
"""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import NoReturn

from k3diff.errors import SourceError
from k3diff.escape import shortened
from k3diff.provenance.cmakebackends import ADVICE as CMAKE_ADVICE
from k3diff.provenance.commandpackages import command_packages, setup_py_command_packages
from k3diff.provenance.configdocuments import project_config
from k3diff.provenance.entrypointstops import build_entry_points
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.packagedirs import PackageDirs, Unread
from k3diff.provenance.setupcfg import SetupCfg
from k3diff.provenance.setuppyinstalled import installed_class
from k3diff.provenance.setuppylocal import MODULES_BYTES_CAP, modules_cmake
from k3diff.provenance.setuppyparse import parsed_setup_py
from k3diff.provenance.setuppypaths import import_places
from k3diff.provenance.setuptoolsconfig import from_pyproject, from_setup_config, from_setup_py
from k3diff.provenance.trees import link_over
from k3diff.provenance.unreadbackends import ADVICE, SETUPTOOLS_BACKENDS
from k3diff.provenance.versionsources import Said, module_attribute

_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", re.ASCII)
"""A command class's qualified name setuptools resolves within the project (``a.b.Class``)."""
_NAME_CAP = 1024
"""Longest command class name read."""
CLASSES_CAP = 64
"""Most command classes read of one setting; more stop the run (each is looked up in the
commit's files)."""


def stop_unread_config(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> None:
    """Stop (`SourceError`) where the project in `directory` ('' or ending in '/') has a
    ``pyproject.toml`` k3diff does not read, or setuptools builds it and its ``setup.cfg`` is
    not read or a command class either names runs CMake (or is not read)."""
    read = project_config(git, tree, links, directory)
    pyproject, setup_cfg = read.files["pyproject.toml"], read.files["setup.cfg"]
    document: Mapping[str, object] = {}
    if isinstance(pyproject, str):
        _stop_unread(git, pyproject)
    if isinstance(read.pyproject, Unread):
        _stop_unread(git, read.pyproject.reason)
    if read.pyproject is not None:
        document = read.pyproject
    if not _setuptools_builds(document):
        return  # another backend never reads setup.cfg nor [tool.setuptools]
    config = read.setup_cfg
    if isinstance(setup_cfg, str) and not isinstance(config, SetupCfg):
        _stop_unread(git, setup_cfg)  # a link; over the cap, naming a section k3diff reads
    if isinstance(config, str) and config.endswith("not read"):  # setuptools reads it
        _stop_unread(git, config)
    if isinstance(config, SetupCfg) and (why := command_packages(config, directory + "setup.cfg")):
        _stop_unread(git, why)
    data = read.files["setup.py"]
    module = parsed_setup_py(data, directory + "setup.py") if isinstance(data, bytes) else None
    if module is not None and (why := setup_py_command_packages(module, directory + "setup.py")):
        _stop_unread(git, why)
    if why := build_entry_points(git, tree, links, directory):
        _stop_unread(git, why)
    pyproject_classes = _pyproject_classes(document)
    cfg_classes = _setup_cfg_classes(config) if isinstance(config, SetupCfg) else []
    attrs = _version_attrs(document, config, directory)
    if not pyproject_classes and not cfg_classes and not attrs:
        return
    stated = [from_pyproject(document, directory + "pyproject.toml")]
    if isinstance(config, SetupCfg):
        stated.append(from_setup_config(config, directory + "setup.cfg"))
    places: list[str] = []
    if isinstance(data, bytes):  # else `stop_cmake_runs`
        stated.append(from_setup_py(data, directory + "setup.py"))
        places = _setup_py_places(
            git, tree, links, directory, data, [*pyproject_classes, *cfg_classes, *attrs.values()]
        )
    dirs = [pair for one in stated if isinstance(one, PackageDirs) for pair in one.dirs]
    found = (directory, dirs, places)
    _stop_cmdclass(git, tree, links, found, pyproject_classes, "pyproject.toml")
    _stop_cmdclass(git, tree, links, found, cfg_classes, "setup.cfg")
    for setting, value in attrs.items():
        _stop_version_attr(git, tree, links, found, setting, value)


def _setup_py_places(
    git: GitRepo,
    tree: Mapping[str, str],
    links: Collection[str],
    directory: str,
    data: bytes,
    classes: list[object],
) -> list[str]:
    """The directories ``setup.py`` (`data`) puts on ``sys.path`` before setuptools resolves
    the command classes: one not found where setuptools looks first is imported from there
    (``importlib.util.find_spec``; review77b: ``commands.CMakeBuild`` from ``build_tools/``,
    which ``setup.py`` inserted, passed, exit 0)."""
    module = parsed_setup_py(data, directory + "setup.py")
    if module is None:
        return []  # `stop_cmake_runs` stops on it
    names = [str(name).rpartition(".")[0] for name in classes]
    places = import_places(module, directory, (*tree, *links), names)
    if isinstance(places, str):
        _stop_unread(git, f"{places} not read")
    return places


def _stop_unread(git: GitRepo, reason: str) -> NoReturn:
    raise SourceError(
        f"{git.label}: {reason}: how the project builds is not known (the backend or a "
        f"command class it names may run CMake or code of the project's): {ADVICE}"
    )


def _setuptools_builds(document: Mapping[str, object]) -> bool:
    """Whether setuptools builds the project of `document` (no backend named, or one of
    setuptools', not the project's own)."""
    system = document.get("build-system")
    if not isinstance(system, dict):
        return "build-system" not in document
    backend = system.get("build-backend")
    if "backend-path" in system or not isinstance(backend, str | None):
        return False  # a frontend does not build with a list (fuzz70)
    return backend is None or backend in SETUPTOOLS_BACKENDS


def _pyproject_classes(document: Mapping[str, object]) -> list[object]:
    """The values of ``[tool.setuptools] cmdclass`` (a table of strings; else the table)."""
    tool = document.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    table = setuptools.get("cmdclass") if isinstance(setuptools, dict) else None
    if table is None:
        return []
    return list(table.values()) if isinstance(table, dict) else [table]


def _setup_cfg_classes(config: SetupCfg) -> list[object]:
    """The values of ``[options] cmdclass`` (``NAME = a.b.Class`` a line, or comma-separated
    on one: setuptools' ``_parse_dict``)."""
    value = config.get("options", "cmdclass")
    if value is None:
        return []
    items = value.splitlines() if "\n" in value else value.split(",")
    return [item.partition("=")[2].strip() for item in items if item.strip()]


def _stop_cmdclass(
    git: GitRepo,
    tree: Mapping[str, str],
    links: Collection[str],
    found: tuple[str, list[tuple[str, str]], list[str]],
    classes: list[object],
    where: str,
) -> None:
    """Stop where a command class of `classes` (named in `where`; `found`: the project's
    directory, its ``package_dir`` as its three files state it and the ``sys.path`` entries
    its ``setup.py`` adds) is not read, or its module of the project runs CMake."""
    directory = found[0]
    setting = f"{directory}{where} " + (
        "[options] cmdclass" if where == "setup.cfg" else "[tool.setuptools] cmdclass"
    )
    if len(classes) > CLASSES_CAP:
        _stop_unread(git, f"{setting} names {len(classes):,} classes, over {CLASSES_CAP}, not read")
    paths: dict[str, set[str | None]] = {}
    ordered = functools.cache(lambda: sorted({*tree, *links}))
    every_link = frozenset(links)

    def held(path: str) -> bool:
        return path in tree or path in links or link_over(every_link, path) is not None

    for name in classes:
        if not isinstance(name, str) or len(name) > _NAME_CAP or not _QUALIFIED.fullmatch(name):
            shown = shortened(repr(name), 200)
            _stop_unread(git, f"{setting} names {shown}, which k3diff does not resolve")
        module = str(name).rpartition(".")[0]
        if module.split(".")[0] == "skbuild":
            raise SourceError(
                f"{git.label}: {setting} names scikit-build's {shortened(str(name), 200)}, whose "
                f"CMake installs files into the wheel, not read: {CMAKE_ADVICE}"
            )
        files = _class_files(tree, links, found, module, ordered)
        if said := installed_class(setting, str(name), files, held):  # source78
            raise SourceError(f"{git.label}: {said}: {CMAKE_ADVICE}")
        for path in files:
            paths.setdefault(path, set()).add(_loaded_package(path, module))
    places = [directory, *found[2]]  # where the modules it imports in turn are found
    what = modules_cmake(git, tree, links, sorted(paths), f"which {setting} names", places, paths)
    if what is not None:
        raise SourceError(f"{git.label}: {what}: {CMAKE_ADVICE}")


def _version_attrs(
    document: Mapping[str, object], config: SetupCfg | str | None, directory: str
) -> dict[str, str]:
    """Setting -> ``pkg.mod.NAME`` of each ``attr:`` version setuptools may read
    (``[tool.setuptools.dynamic] version``, ``setup.cfg``'s ``[metadata] version``)."""
    found = {}
    tool = document.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    dynamic = setuptools.get("dynamic") if isinstance(setuptools, dict) else None
    version = dynamic.get("version") if isinstance(dynamic, dict) else None
    attr = version.get("attr") if isinstance(version, dict) else None
    if isinstance(attr, str):
        found[f"{directory}pyproject.toml [tool.setuptools.dynamic] version"] = attr.strip()
    stated = config.get("metadata", "version") if isinstance(config, SetupCfg) else None
    if stated is not None and stated.strip().startswith("attr:"):
        found[f"{directory}setup.cfg [metadata] version"] = stated.strip()[5:].strip()
    return found


def _stop_version_attr(
    git: GitRepo,
    tree: Mapping[str, str],
    links: Collection[str],
    found: tuple[str, list[tuple[str, str]], list[str]],
    setting: str,
    value: str,
) -> None:
    """Stop where setuptools imports the module of the ``attr:`` version `value` (review77b:
    its ``NAME`` no literal, so `StaticModule` fails and the module runs) and it runs CMake
    or is not read; a module setting it to a literal is not imported. A name that is no
    dotted Python name is said where the version is read."""
    if len(value) > _NAME_CAP or not _QUALIFIED.fullmatch(value):
        return
    module, _, name = value.rpartition(".")
    ordered = functools.cache(lambda: sorted({*tree, *links}))
    paths = sorted(_class_files(tree, links, found, module, ordered))
    own = module.replace(".", "/")
    held = [p for p in paths if p in tree and p.endswith((f"{own}.py", f"{own}/__init__.py"))]
    sizes = blob_sizes(git, [tree[path] for path in held])
    small = sorted({tree[p] for p in held if sizes[tree[p]] <= MODULES_BYTES_CAP})
    for data in dict(iter_blobs(git, small)).values():
        if not isinstance(module_attribute(data, name), Said):
            return  # read statically (`StaticModule`): nothing imported
    places = [found[0], *found[2]]
    named = {path: {_loaded_package(path, module)} for path in paths}
    what = modules_cmake(git, tree, links, paths, f"which {setting} imports", places, named)
    if what is not None:
        raise SourceError(f"{git.label}: {what}: {CMAKE_ADVICE}")


def _loaded_package(path: str, module: str) -> str | None:
    """The package directory of the file at `path` setuptools loads as (a package above)
    `module`: its directory for a dotted name or a package's ``__init__.py``, whose relative
    imports resolve there, whichever ``sys.path`` entry also holds it as a top-level module
    (review79d: ``tools/`` on ``sys.path`` made ``tools.m``'s ``from . import cm`` unread)."""
    if "." in module or path.endswith("__init__.py"):
        return posixpath.dirname(path) or None
    return None


def _class_files(
    tree: Mapping[str, str],
    links: Collection[str],
    found: tuple[str, list[tuple[str, str]], list[str]],
    module: str,
    ordered: Callable[[], list[str]],
) -> set[str]:
    """The files setuptools may load as `module` (`_module_files`), or import from a
    ``sys.path`` entry ``setup.py`` adds (`found`'s places), with each package's
    ``__init__.py``."""
    directory, dirs, places = found
    paths = _module_files(tree, links, directory, module, dirs, ordered)
    parts = module.split(".")
    for at in range(1, len(parts) + 1):
        base = "/".join(parts[:at])
        paths |= {place + base + end for place in places for end in (".py", "/__init__.py")}
    return paths


def _module_files(
    tree: Mapping[str, str],
    links: Collection[str],
    directory: str,
    module: str,
    dirs: Iterable[tuple[str, str]],
    ordered: Callable[[], list[str]],
) -> set[str]:
    """The files of the project setuptools may load as `module`: under the directory
    `package_dir` (`dirs`: wheel directory, project directory) gives its package or every
    package, under ``src/`` (found by discovery) or the project's own, ``NAME.py`` or
    ``NAME/__init__.py``, else any ``NAME.*`` (``iglob``), looked up in the commit's paths
    sorted (`ordered`), never scanned per name."""
    path = module.replace(".", "/")
    bases = {directory + path, directory + "src/" + path}
    for wheel, repo in dirs:
        if not wheel or (path + "/").startswith(wheel):
            bases.add((directory + repo + (path + "/")[len(wheel) :]).rstrip("/"))
    found = set()
    for base in bases:
        own = {p for p in (base + ".py", base + "/__init__.py") if p in tree or p in links}
        if link_over(frozenset(links), base + ".py") not in (None, base + ".py"):
            own.add(base + ".py")  # under a linked directory: `modules_cmake` says so
        if not own:
            paths = ordered()
            at = bisect.bisect_left(paths, base + ".")
            while at < len(paths) and paths[at].startswith(base + "."):
                own |= {paths[at]} if "/" not in paths[at][len(base) + 1 :] else set()
                at += 1
        found |= own
    return found
