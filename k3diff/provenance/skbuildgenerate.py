"""The files scikit-build-core's ``[[tool.scikit-build.generate]]`` writes, held to their
template rendered for the wheel's version.

Each entry renders its ``template`` (or the file ``template-path`` names, read as
``Path.read_text`` reads it, newlines made ``\\n``) by ``string.Template(…).substitute`` of the
project's metadata, and writes it (``build/wheel.py``): at ``path`` under the wheel's package
area (``location = "install"``, the default) before CMake installs and the packages' files are
copied, each only where no file stands, or over the project's own file at ``path``
(``"source"``) before the packages are copied. Either way the wheel ships the rendered file,
never the commit's copy there: a real build (scikit-build-core 1.1.2) of a commit holding a
stale ``src/pkg/_version.py`` stating 0.9 shipped ``__version__ = "1.0"``, while a wheel
shipping the stale copy matched the commit, exit 0 (src73). ``location = "build"`` writes into
the build tree, which ships only by a CMake ``install()`` (read by `cmakeinstall`).

A file such an entry writes is `generated` where it is the template rendered exactly (k3diff
renders ``$version``, ``${version}`` and ``$$``, with ``string.Template`` as scikit-build-core
does, and the wheel's METADATA Version); any other content, or a template naming other metadata
(``${name}``, ``${description}``…) or k3diff cannot read, fails (W401, W402), the commit's copy
never matching. An entry that is not read (not a table of strings, an
``[[tool.scikit-build.overrides]]`` entry that may set ``generate``) stops the check.
"""

from __future__ import annotations

import posixpath
import string
from collections.abc import Mapping

from packaging.version import InvalidVersion, Version

from k3diff.escape import shortened
from k3diff.provenance.blobs import WheelFiles
from k3diff.provenance.configdocuments import CONFIG_CAP, scikit_build_document
from k3diff.provenance.generated import Generated
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.lookup import Lookup
from k3diff.provenance.skbuildentries import GenerateEntry, generate_entries
from k3diff.provenance.versionconfig import WrittenFile

SCIKIT_BUILD_CORE = "scikit-build-core"


def generated_by_skbuild(
    git: GitRepo, lookup: Lookup, files: WheelFiles, version: str | None
) -> dict[str, Generated]:
    """Wheel path -> `Generated` for each of the wheel's files (matching the commit or not) a
    ``generate`` entry of the building project writes; `SourceError` where an entry is not
    read."""
    project, tree = lookup.layout.project, lookup.tree
    label = f"{project}pyproject.toml"
    document = scikit_build_document(git, tree, lookup.links, project)
    tool = document.get("tool") if document is not None else None
    skbuild = tool.get("scikit-build") if isinstance(tool, dict) else None
    if not isinstance(skbuild, dict):
        return {}
    entries = generate_entries(skbuild, label, f"{git.label}: {label}")
    placed = dict(lookup.layout.package_dirs)
    by_repo: dict[str, list[str]] = {}
    for path in files:
        by_repo.setdefault(lookup.repo_path(path), []).append(path)
    found: dict[str, Generated] = {}
    for entry in entries:
        if entry.location == "install":
            # A file CMake installs or wheel.force-include copies there comes after, over it.
            targets = [entry.place] if entry.place in files and entry.place not in placed else []
        else:
            targets = by_repo.get(project + entry.place, [])
        for path in targets:
            written = WrittenFile(path, SCIKIT_BUILD_CORE, entry.origin, True, replaces=True)
            found[path] = _held(
                git, tree, lookup.links, project, entry, files[path], version, written
            )
    return found


def _held(
    git: GitRepo,
    tree: Mapping[str, str],
    links: frozenset[str],
    project: str,
    entry: GenerateEntry,
    data: object,
    version: str | None,
    written: WrittenFile,
) -> Generated:
    """Whether the wheel's `data` is `entry`'s template rendered for `version`."""
    template = entry.template
    if template is None:
        text = _template_file(git, tree, links, project, entry.template_path or "")
        if not isinstance(text, tuple):
            return Generated(written, text, unsure=True)
        template = text[0]
    rendered = _render(template, version)
    if not isinstance(rendered, tuple):
        return Generated(written, rendered, unsure=True)
    if not isinstance(data, bytes):
        return Generated(written, f"over {CONFIG_CAP // 1024} KiB, not read")
    text = rendered[0]
    if data not in (text.encode(), text.replace("\n", "\r\n").encode()):  # Linux, Windows
        return Generated(written, f"not its template rendered for version {version}")
    return Generated(written, None)


def _template_file(
    git: GitRepo, tree: Mapping[str, str], links: frozenset[str], project: str, path: str
) -> tuple[str] | str:
    """(the text of `path`, relative to the project, as ``read_text`` reads it), or why not
    read."""
    place = posixpath.normpath(project + path)
    shown = shortened(path, 200)
    if path.startswith("/") or place.startswith("../") or place == ".." or place in links:
        return f"its template-path {shown} is outside the project or a link, not read"
    oid = tree.get(place)
    if oid is None:
        return f"its template-path {shown} is not at the source commit"
    if blob_sizes(git, [oid])[oid] > CONFIG_CAP:
        return f"its template-path {shown} is over {CONFIG_CAP // 1024} KiB, not read"
    try:
        text = dict(iter_blobs(git, [oid]))[oid].decode("utf-8")
    except UnicodeDecodeError:
        return f"its template-path {shown} is not UTF-8 (the build fails)"
    return (text.replace("\r\n", "\n").replace("\r", "\n"),)


def _render(template: str, version: str | None) -> tuple[str] | str:
    """(`template` rendered as scikit-build-core renders it), or why k3diff does not."""
    rendering = string.Template(template)
    if not rendering.is_valid():
        return "its template holds a '$' string.Template refuses (the build fails)"
    names = sorted(set(rendering.get_identifiers()) - {"version"})
    if names:
        return f"its template names ${{{shortened(names[0], 100)}}}, which k3diff does not render"
    try:
        normal = str(Version(version or ""))
    except InvalidVersion:
        return f"the wheel's METADATA Version {version!r} is not a version"
    return (rendering.substitute(version=normal),)
