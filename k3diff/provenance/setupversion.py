"""The version setuptools writes into METADATA, read from the commit as setuptools reads it.

* ``[project]`` listing ``version`` in ``dynamic``: ``[tool.setuptools.dynamic] version``,
  ``{attr = "pkg.__version__"}`` or ``{file = "VERSION"}`` (or a list of files); without it
  setuptools-scm sets it where ``[build-system] requires`` names it, else setup.cfg or
  setup.py may;
* ``setup.py``: a ``setup(version="…")`` literal (any other ``version=``, a
  ``use_scm_version=``, or ``**kwargs`` sets it by code k3diff does not run);
* ``setup.cfg`` ``[metadata] version`` (`setupcfg`, as setuptools reads it): ``attr:
  pkg.__version__``, ``file: VERSION`` or the version itself.

``attr`` reads the module setuptools finds (`_place`: by the configuration's ``package_dir``,
else in the project's directory or its ``src/``, never where the wheel's paths alone place
it) without importing it (`versionsources.module_attribute`); a
``file`` is read stripped, as setuptools strips it.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping

from k3diff.escape import shortened
from k3diff.provenance.lookup import Lookup
from k3diff.provenance.projectfiles import Built, ProjectFiles
from k3diff.provenance.setupcfg import read_setup_cfg
from k3diff.provenance.setuppykeywords import SETUP_CALLS_CAP, calls_capped, setup_keywords
from k3diff.provenance.setuppyparse import parsed_setup_py
from k3diff.provenance.versionconfig import SETUPTOOLS_SCM
from k3diff.provenance.versionsources import Said, module_attribute

_SCM = "setuptools-scm derives it from git tags and the commits since, which k3diff does not read"


def setuptools_version(
    files: ProjectFiles,
    lookup: Lookup,
    document: Mapping[str, object],
    project: Mapping[str, object] | None,
    requires: Collection[str],
) -> Built | Said:
    """The version setuptools builds for the project (`document`: its pyproject.toml,
    `project` its ``[project]`` table, `requires` its build requirements' names)."""
    label = f"{files.directory}pyproject.toml"
    tool = document.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    setuptools = tool.get("setuptools")
    dynamic = setuptools.get("dynamic") if isinstance(setuptools, dict) else None
    stated = dynamic.get("version") if isinstance(dynamic, dict) else None
    if project is not None and stated is not None:
        setting = f"{label} [tool.setuptools.dynamic] version"
        if isinstance(stated, dict) and "attr" in stated:
            return _attr(files, lookup, stated["attr"], f"{setting} attr")
        if isinstance(stated, dict) and "file" in stated:
            return _file(files, stated["file"], f"{setting} file")
        return Said(f"{setting} is neither attr nor file")
    if SETUPTOOLS_SCM in requires and (project is not None or "setuptools_scm" in tool):
        return Said(_SCM)
    from_setup_py = _setup_py(files)
    if from_setup_py is not None:
        return from_setup_py
    return _setup_cfg(files, lookup)


def _setup_py(files: ProjectFiles) -> Built | Said | None:
    """``setup(version="…")`` of the project's setup.py; None where it sets none."""
    path = f"{files.directory}setup.py"
    if path not in files.tree and path not in files.links:
        return None
    data = files.read(path)
    if isinstance(data, Said):
        return data
    module = parsed_setup_py(data, path)
    if module is None:
        return Said(f"{path} does not parse")
    found: list[Built | Said] = []
    calls = 0
    for node in ast.walk(module):
        if not isinstance(node, ast.Call) or _name(node.func) != "setup":
            continue
        calls += 1
        if calls > SETUP_CALLS_CAP:  # caps80: each call's ** mapping read again
            return Said(calls_capped(path))
        keywords = setup_keywords(node, module)  # source78: setup(**{"version": …})
        if keywords is None or "use_scm_version" in keywords:
            found.append(Said(f"{path} line {node.lineno}: setup() may set it by code"))
        elif "version" in keywords:
            value = keywords["version"]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.append(Built(value.value, f"{path} line {node.lineno} setup(version=…)"))
            else:
                found.append(Said(f"{path} line {node.lineno}: setup() sets it by code"))
    if not found:
        return None
    said = [f for f in found if isinstance(f, Said)]
    if said:
        return said[0]
    if len({f.version for f in found if isinstance(f, Built)}) > 1:
        return Said(f"{path}'s setup() calls state different versions")
    return found[0]


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _setup_cfg(files: ProjectFiles, lookup: Lookup) -> Built | Said:
    """``[metadata] version`` of the project's setup.cfg."""
    path = f"{files.directory}setup.cfg"
    if path not in files.tree and path not in files.links:
        return Said("no configuration states it (setuptools would write 0.0.0)")
    data = files.read(path)
    if isinstance(data, Said):
        return data
    config = read_setup_cfg(data, path)
    if isinstance(config, str):
        return Said(config)
    stated = config.get("metadata", "version")
    if stated is None:
        return Said(f"no configuration states it ({path} has no [metadata] version)")
    value = stated.strip()
    setting = f"{path} [metadata] version"
    if value.startswith("attr:"):
        return _attr(files, lookup, value.removeprefix("attr:"), setting)
    if value.startswith("file:"):
        names = [name.strip() for name in value.removeprefix("file:").split(",")]
        return _file(files, names, setting)
    return Built(value, setting)


def _attr(files: ProjectFiles, lookup: Lookup, value: object, setting: str) -> Built | Said:
    """``pkg.mod.NAME``: NAME of ``pkg/mod.py`` or ``pkg/mod/__init__.py``, where the source
    check places those wheel paths."""
    parts = value.strip().split(".") if isinstance(value, str) else []
    if len(parts) < 2 or not all(part.isidentifier() for part in parts):
        return Said(f"{setting} {shortened(repr(value), 200)} is no module attribute k3diff reads")
    *module, name = parts
    wheel_paths = ("/".join(module) + ".py", "/".join(module) + "/__init__.py")
    for repo_path in (_place(files, lookup, p) for p in wheel_paths):
        if repo_path is None:
            return Said(f"{setting}: the project and its src/ both hold {'.'.join(module)}")
        if files.holds(repo_path):  # review78f: one in a submodule is not proven (W413)
            data = files.read(repo_path)
            if isinstance(data, Said):
                return data
            found = module_attribute(data, name)
            if isinstance(found, Said):
                return Said(f"{repo_path} ({setting}): {found.reason}")
            return Built(found, f"{repo_path} {name} ({setting})")
    return Said(f"{setting}: the commit holds no module {'.'.join(module)} where it looks")


def _place(files: ProjectFiles, lookup: Lookup, wheel_path: str) -> str | None:
    """Where setuptools finds `wheel_path`'s module: by the configuration's ``package_dir``
    (or the prefix given) as the source check places it; where the layout was detected from
    the wheel's own paths, in the project's directory or its ``src/`` (setuptools' own
    places), so the wheel's paths choose no other copy to read the version from; None where
    both hold it (which one setuptools reads depends on its discovery, not read)."""
    if lookup.layout.origin != "detected":
        return lookup.repo_path(wheel_path)
    places = [f"{files.directory}{wheel_path}", f"{files.directory}src/{wheel_path}"]
    held = [place for place in places if files.holds(place)]
    if len(held) == 2:
        return None
    return held[0] if held else places[0]


def _file(files: ProjectFiles, value: object, setting: str) -> Built | Said:
    """The files `value` names (one, or a list), joined by newlines and stripped."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names:
        return Said(f"{setting} names no file")
    texts, paths = [], []
    for name in names:
        named = files.named(name, setting)
        if isinstance(named, Said):
            return named
        path, data = named
        paths.append(path)
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            return Said(f"{path} ({setting}) is not UTF-8")
    return Built("\n".join(texts).strip(), f"{', '.join(paths)} ({setting})")
