"""Where a project's build may run CMake, whose files go into the wheel: the files a
scikit-build-core project's CMake installs, read from the commit's CMake files (`cmakeinstall`),
or the source check stopped (`SourceError`) where they are not read: another backend running
CMake (`cmakebackends`), a ``setup.py`` not read or a module of the project's own that it
imports (`setuppylocal`), CMake files too many, too large or links."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from k3diff.errors import SourceError
from k3diff.escape import shortened
from k3diff.provenance.cmakebackends import ADVICE, stop_other_cmake
from k3diff.provenance.cmakeinstall import Unreadable, cmake_installs
from k3diff.provenance.configdocuments import CONFIG_CAP, builder_of, project_config
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.scikitbuildconfig import cmake_layout, install_doubt
from k3diff.provenance.setuppylocal import imported_cmake
from k3diff.provenance.setuppyparse import parsed_setup_py

CMAKE_FILES_CAP = 2_000
"""Most CMake files (``CMakeLists.txt``, ``*.cmake``) of a project read for its installs."""
CMAKE_BYTES_CAP = 4 * 1024 * 1024
"""Most bytes of those files read, all together: each costs the reader up to a microsecond
(review72a: a 256 KiB file of ``x(`` took 0.22 s, so 2,000 of them, each within the caps
above, about 7 minutes, all held in memory at once)."""


def cmake_installs_of(
    git: GitRepo,
    tree: Mapping[str, str],
    links: Collection[str],
    directory: str,
    document: Mapping[str, object],
) -> list[tuple[str, str, str]]:
    """The files the CMake of the scikit-build-core project in `directory` installs into the
    wheel (`cmakeinstall`), each read from the commit's CMake files under it; the source check
    stops (`SourceError`) where one is not read: such a file may stand at any wheel path, over
    the package's file there (src72: a fixed ``fixes/auth.py`` CMake installed over the old
    ``src/pkg/sub/auth.py`` had the old one compared, and a wheel keeping it matched, exit 0)."""
    settings = cmake_layout(document)
    if settings is None:
        return []
    stop = f"{git.label}: {directory}pyproject.toml builds with scikit-build-core, whose CMake"
    advice = ADVICE
    if isinstance(settings, str):
        raise SourceError(
            f"{stop} installs under a place k3diff does not read ({settings}): {advice}"
        )
    top, install_dir = settings
    paths = [
        path
        for path in (*tree, *links)
        if path.startswith(directory)
        and (path.rpartition("/")[2] == "CMakeLists.txt" or path.endswith(".cmake"))
    ]
    linked = [path for path in paths if path in links]
    sizes = blob_sizes(git, [tree[path] for path in paths if path in tree])
    total = sum(sizes[tree[path]] for path in paths if path in tree)  # a blob per path read
    large = any(s > CONFIG_CAP for s in sizes.values()) or total > CMAKE_BYTES_CAP
    if linked or len(paths) > CMAKE_FILES_CAP or large:
        why = f"{linked[0]} is a symbolic link" if linked else "its files are too many or large"
        raise SourceError(f"{stop} files are not read ({why}): {advice}")
    contents = dict(iter_blobs(git, sorted({tree[path] for path in paths})))
    files = {path[len(directory) :]: contents[tree[path]] for path in paths}
    entries = frozenset(
        p[len(directory) :].split("/")[0] for p in (*tree, *links) if p.startswith(directory)
    )
    read = cmake_installs(files, top, install_dir, entries, document)
    if isinstance(read, Unreadable):
        raise SourceError(f"{stop} at {shortened(directory + read.reason, 400)}: {advice}")
    if read and (doubt := install_doubt(document)) is not None:
        raise SourceError(f"{stop} installs files, but {doubt}: {advice}")
    return read


def stop_cmake_runs(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> None:
    """Stop (`SourceError`) where the project in `directory` may run CMake (vllm76, review76a):
    another backend than scikit-build-core's own, its ``setup.py`` or a module of its own that
    imports; setuptools building and ``setup.py`` a link, over `CONFIG_CAP` or not Python."""
    read = project_config(git, tree, links, directory)
    document = read.pyproject if isinstance(read.pyproject, Mapping) else {}
    builder, path, setup_py = builder_of(document), directory + "setup.py", read.files["setup.py"]
    data = setup_py if isinstance(setup_py, bytes) else None
    held = path in tree or path in links
    if builder is None and held and (data is None or parsed_setup_py(data, path) is None):
        raise SourceError(
            f"{git.label}: {path} is not read (a symbolic link, over {CONFIG_CAP // 1024} KiB "
            f"or not Python), and may run CMake, whose files go into the wheel: {ADVICE}"
        )

    def is_file(name: str) -> bool:
        return directory + name in tree or directory + name in links

    stop_other_cmake(git.label, directory, document, builder, data, is_file)
    module = parsed_setup_py(data, path) if builder is None and data is not None else None
    if module is not None and (what := imported_cmake(git, tree, links, directory, module)):
        raise SourceError(f"{git.label}: {what}: {ADVICE}")
