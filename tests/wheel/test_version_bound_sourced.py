"""W629 spares a module with a source (`pkg/_C.py`, `pkg/_C/__init__.py`; package `pkg`'s
extension `pkg/__init__.cpython-….so` by `pkg/__init__.py`, w629c): `_sourced` looks up each
judged module's source paths instead of deriving every source's module. Held to that
derivation (a module file's path less `.py`, its name of no other dot and not `__init__`; a
package's `__init__.py` for the package below site-packages and its `__init__` module) on
paths made of the parts that make it hard: `__init__` at any depth, dots in directories, the
top level."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.extplatforms import AS_WRITTEN, NTFS_POSIX, PATH_BLIND, WINDOWS
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.versionbound import _sourced

_PARTS = st.sampled_from(["pkg", "_C", "__init__", "__INIT__", "a.b", "x"])
_SUFFIXES = st.sampled_from(
    [".py", ".so", ".cpython-311-x86_64-linux-gnu.so", ".pyc", "", ".PY", ".pyw", ".Pyw"]
)
_SYSTEMS = {"linux": AS_WRITTEN, "windows": WINDOWS, "macos": PATH_BLIND, "cygwin": NTFS_POSIX}
"""Each way a system's `FileFinder` reads a source's case: Linux's as written; Windows' with
its suffix lowered, `.pyw` a source, a package's `__init__` in any case; macOS's, Cygwin's and
MSYS2's as written but a package's `__init__` in any case (their file systems')."""
_SCHEMES = st.sampled_from(["purelib", "platlib", "data", "scripts", "headers"])


def _modules_of_source(path: str, system: str) -> set[str]:
    head, _, name = path.rpartition("/")
    windows = system == "windows"
    sources = ("py", "pyw") if windows else ("py",)
    found = set()
    # A module file: found in the directory's listing, its name as written, its suffix lowered
    # on Windows.
    stem, _, suffix = name.partition(".")
    if stem != "__init__" and (suffix.lower() if windows else suffix) in sources:
        found.add(path[: len(path) - len(name)] + stem)
    # A package's `__init__`: found by its path, in any case where the file system ignores case;
    # its package's and its `__init__` module's (`pkg/__init__/`: module `pkg/__init__` is
    # package `pkg`'s `__init__`, not a package); the top of site-packages is no package.
    stem, _, suffix = (name if system == "linux" else name.lower()).partition(".")
    if stem == "__init__" and suffix in sources and "/" in head:
        found.add(f"{head}/__init__")
        if head.rpartition("/")[2] != "__init__":
            found.add(head)
    return found


@st.composite
def _cases(draw: st.DrawFn) -> tuple[list[InstalledFile], list[str]]:
    module = st.builds(lambda head, stem: "/".join([*head, stem]), st.lists(_PARTS), _PARTS)
    modules = draw(st.lists(module, max_size=6))
    # Paths near the modules' own (each one's two source paths, and a part more or less) and
    # paths of any parts.
    near = [
        f"{m}{end}"
        for m in modules
        for end in (".py", "/__init__.py", "/__init__/__init__.py", ".PY", ".pyw", "/__INIT__.Py")
    ] + [m.rpartition("/")[0] + ".py" for m in modules]
    paths = st.one_of(
        st.sampled_from(near) if near else st.nothing(),
        st.builds(
            lambda parts, end: "/".join(parts) + end, st.lists(_PARTS, min_size=1), _SUFFIXES
        ),
    )
    files = [
        InstalledFile(f"e{order}", draw(_SCHEMES), path, order)
        for order, path in enumerate(draw(st.lists(paths, max_size=12)))
    ]
    return files, [f"/{m}" if draw(st.booleans()) else m for m in modules]


@settings(max_examples=1500, deadline=None)
@given(_cases(), st.sampled_from(sorted(_SYSTEMS)))
def test_the_modules_with_a_source_are_those_a_source_names(
    case: tuple[list[InstalledFile], list[str]], system: str
) -> None:
    files, modules = case
    sources = {
        module
        for f in files
        if f.scheme in ("purelib", "platlib")
        for module in _modules_of_source(f.path, system)
    }
    assert _sourced(files, modules, _SYSTEMS[system]) == {m for m in modules if m in sources}
