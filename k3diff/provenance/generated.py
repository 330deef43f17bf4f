"""The wheel files the build wrote, by the configuration at the commit, held to their tool's
template (`versionconfig` says which, `versiontemplate` whether it holds).

A file is looked for among those the configuration of the project that builds the wheel names
(`SourceLayout.project`: the configuration the layout was read from, or the one nearest above
the package's place), whatever other project's configuration lies nearer the file: a vendored
project inside the package that names its own ``_version.py`` is not the build that made this
wheel (review70c: the nearest configuration was read, and a module the patch added there passed
`generated`, exit 0).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from k3diff.provenance.blobs import WheelFiles
from k3diff.provenance.git import GitRepo
from k3diff.provenance.lookup import Lookup
from k3diff.provenance.versionconfig import WrittenFile, written_files
from k3diff.provenance.versiontemplate import MODULE_CAP, TemplateCheck, check_template


@dataclass(frozen=True)
class Generated:
    """A wheel file the configuration says the build writes, and whether it is the template."""

    written: WrittenFile
    """Which tool writes it, and where the configuration says so."""
    refused: str | None
    """None where it is the tool's template stating the wheel's version, else what is not."""
    stated: str | None = None
    """The version the module states where it holds and METADATA's extends it by local
    segments (vLLM's ``0.11.0``, METADATA ``0.11.0+cu128``), else None."""
    unsure: bool = False
    """k3diff cannot render what the tool writes (`refused` says why), so does not hold it."""

    def refusal(self) -> str | None:
        """``setuptools-scm writes it (pyproject.toml …), but this is not what it writes: line
        26: an import``; None where it holds."""
        if self.refused is None:
            return None
        written = self.written
        but = "k3diff cannot render what it writes" if self.unsure else "this is not what it writes"
        return f"{written.tool} writes it ({written.origin}), but {but}: {self.refused}"


def generated_files(
    git: GitRepo,
    lookup: Lookup,
    files: WheelFiles,
    candidates: Iterable[str],
    version: str | None,
    commits: Collection[str] = (),
) -> dict[str, Generated]:
    """Wheel path -> `Generated` for each of `candidates` (wheel paths the commit does not hold
    as they are) that the building project's configuration names as a module the build
    writes; a commit it states must be one of `commits` (the source check's)."""
    python = sorted(path for path in candidates if path.endswith(".py"))
    if not python:
        return {}
    project = lookup.layout.project
    writes = written_files(git, lookup.tree, lookup.links, project)
    # The first module named at each place, looked up, not scanned for each path (review71a: a
    # 256 KiB setup.py of 6,800 get_version calls made 10,000 wheel paths take 4 s).
    first: dict[tuple[bool, str], int] = {}
    for at, written in enumerate(writes):
        first.setdefault((written.in_wheel, written.path), at)
    found = {}
    for path in python:
        named = (first.get((True, path)), first.get((False, lookup.repo_path(path))))
        index = min((a for a in named if a is not None), default=None)
        if index is not None:
            held = _held(writes[index], files, path, version, commits)
            found[path] = Generated(writes[index], held.refused, held.stated)
    return found


def _held(
    written: WrittenFile,
    files: Mapping[str, object],
    path: str,
    version: str | None,
    commits: Collection[str],
) -> TemplateCheck:
    data = files[path]
    if not isinstance(data, bytes):  # streamed: over the text-diff cap, far over the template
        return TemplateCheck(f"over {MODULE_CAP // 1024} KiB, not read")
    return check_template(written.tool, data, version, written.extended, commits)
