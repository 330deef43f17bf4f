"""Entry points of metadata the commit holds that setuptools loads in a build.

setuptools loads the entry points of every distribution on ``sys.path`` in some groups while
it builds (`BUILD_GROUPS`: ``setuptools.finalize_distribution_options`` as the distribution is
made, ``distutils.commands`` for each command, ``egg_info.writers``, ...), found by
``importlib.metadata`` in any ``NAME.dist-info`` or ``NAME.egg-info`` directory of a
``sys.path`` entry; PEP 517's legacy path (no backend named, ``__legacy__``) puts the project's
directory first, as a ``setup.py`` inserting its own directory does. review78a: a committed
``evil.dist-info/entry_points.txt`` naming ``setuptools.finalize_distribution_options = evil =
tools.hook:hook`` ran the project's ``tools/hook.py`` in a setuptools 84 build, which k3diff
never read, and the check passed, exit 0, as a ``[global] command_packages`` did (holds78).
Such a file in the project's directory stops the check where it names one of those groups, or
is not read (a link, over `ENTRY_POINTS_CAP`); one naming only ``console_scripts`` (a committed
``pkg.egg-info``) does not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from k3diff.escape import shortened
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs

BUILD_GROUPS = frozenset(
    {
        "distutils.commands",
        "distutils.setup_keywords",
        "egg_info.writers",
        "setuptools.file_finders",
        "setuptools.finalize_distribution_options",
    }
)
"""The entry point groups setuptools 84 loads while it builds (``metadata.entry_points``)."""
ENTRY_POINTS_CAP = 64 * 1024
"""Largest ``entry_points.txt`` read."""


def build_entry_points(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> str | None:
    """Why the project in `directory` ('' or ending in '/') is not read where metadata in its
    directory names entry points setuptools loads in the build; None where none does."""
    linked = sorted(path for path in links if _metadata_file(path, directory, ""))
    linked += sorted(path for path in links if _metadata_file(path, directory))
    if linked:
        return f"{linked[0]} is a symbolic link, not read, where setuptools loads entry points"
    found = sorted(path for path in tree if _metadata_file(path, directory))
    sizes = blob_sizes(git, [tree[path] for path in found])
    for path in found:
        if sizes[tree[path]] > ENTRY_POINTS_CAP:
            return f"{path} is over {ENTRY_POINTS_CAP // 1024} KiB, not read"
    paths = {tree[path]: path for path in found}
    for oid, data in iter_blobs(git, sorted(paths)):
        text = data.decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines()]  # as ``importlib.metadata``
        groups = {line.strip("[]").strip() for line in lines if line[:1] + line[-1:] == "[]"}
        named = sorted(groups & BUILD_GROUPS)
        if named:
            return (
                f"{paths[oid]} names entry points setuptools loads in the build "
                f"({shortened(', '.join(named), 200)}): code of the project it runs, not read"
            )
    return None


def _metadata_file(path: str, directory: str, name: str = "/entry_points.txt") -> bool:
    """Whether `path` is an ``entry_points.txt`` of a metadata directory in `directory` (with
    `name` '': the directory)."""
    if not path.startswith(directory) or not path.endswith(name):
        return False
    folder = path[len(directory) : len(path) - len(name)]
    return "/" not in folder and folder.lower().endswith((".dist-info", ".egg-info"))
