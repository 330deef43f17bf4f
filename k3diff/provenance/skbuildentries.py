"""The entries of scikit-build-core's ``[[tool.scikit-build.generate]]``, as it reads them
(`skbuildgenerate` holds the files they write to their templates; `lookup` leaves those files
out of the count of the wheel's files a configured place must hold: src73's canonical shape,
``src/pkg/__init__.py`` and a generated ``pkg/_version.py``, stopped the run, review73b)."""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from k3diff.errors import SourceError
from k3diff.escape import shortened
from k3diff.provenance.configdocuments import scikit_build_document
from k3diff.provenance.git import GitRepo

_LOCATIONS = frozenset({"install", "build", "source"})
_ADVICE = "compare a wheel built from the commit with this one (k3diff wheels BUILT RELEASED)"


@dataclass(frozen=True)
class GenerateEntry:
    """One ``[[tool.scikit-build.generate]]`` table."""

    place: str
    """The wheel path (``install``) or project path (``source``) it writes, normalised."""
    location: str
    template: str | None
    """The inline template; None where ``template-path`` names the file."""
    template_path: str | None
    origin: str
    """``pyproject.toml [[tool.scikit-build.generate]] 1 (pkg/_version.py)``."""


def generate_entries(skbuild: Mapping[str, object], label: str, shown: str) -> list[GenerateEntry]:
    """Each entry of ``generate`` that writes into the wheel or the project (`shown`: the
    label with the repository's, for a stop)."""
    where = f"{shown} [[tool.scikit-build.generate]]"
    overrides = skbuild.get("overrides")
    if isinstance(overrides, list) and any(
        not isinstance(o, dict) or "generate" in o for o in overrides
    ):
        raise SourceError(
            f"{shown} [[tool.scikit-build.overrides]] may set generate where its if holds, "
            f"which k3diff does not read: a file it writes may stand at any wheel path: {_ADVICE}"
        )
    tables = skbuild.get("generate", [])
    if not isinstance(tables, list):
        raise SourceError(f"{where} is not a list of tables, not read: {_ADVICE}")
    found = []
    for number, table in enumerate(tables, 1):
        entry = _entry(table, f"{label} [[tool.scikit-build.generate]] {number}")
        if isinstance(entry, str):
            raise SourceError(f"{where} {number}: {entry}, not read: {_ADVICE}")
        if entry is not None:
            found.append(entry)
    return found


def _entry(table: object, origin: str) -> GenerateEntry | str | None:
    """The entry `table` as scikit-build-core reads it, None where it writes outside the wheel
    and the project (``build``, an absolute path, one leaving its root), or why not read."""
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        return "not a table of strings"
    path, location = table.get("path"), table.get("location", "install")
    template, template_path = table.get("template"), table.get("template-path") or None
    if not path or location not in _LOCATIONS or (not template and not template_path):
        return "no path, no template, or a location scikit-build-core refuses"
    if table.get("template-path") == "":
        # review73b: scikit-build-core reads it as the path '.', and the build fails
        # (IsADirectoryError), where k3diff rendered the inline template: exit 0.
        return "an empty template-path, which scikit-build-core reads as '.' (the build fails)"
    place = posixpath.normpath(path)
    if location == "build" or path.startswith("/") or place == ".." or place.startswith("../"):
        return None
    if "\\" in path or "\0" in path:
        return "a path with a backslash or NUL"
    shown = f"{origin} ({shortened(path, 200)})"
    return GenerateEntry(place, location, None if template_path else template, template_path, shown)


def generated_places(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], project: str
) -> tuple[frozenset[str], frozenset[str]]:
    """(the wheel paths ``install`` entries write, the repository paths ``source`` entries
    write over) of the scikit-build-core project in `project`; none where its ``generate`` is
    not read (`generate_entries` stops the check later, where the project builds the wheel)."""
    document = scikit_build_document(git, tree, links, project)
    tool = document.get("tool") if document is not None else None
    skbuild = tool.get("scikit-build") if isinstance(tool, dict) else None
    if not isinstance(skbuild, dict):
        return frozenset(), frozenset()
    try:
        entries = generate_entries(skbuild, "pyproject.toml", "pyproject.toml")
    except SourceError:
        return frozenset(), frozenset()
    installed = frozenset(e.place for e in entries if e.location == "install")
    return installed, frozenset(project + e.place for e in entries if e.location == "source")
