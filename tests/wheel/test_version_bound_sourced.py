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

from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.versionbound import _sourced

_PARTS = st.sampled_from(["pkg", "_C", "__init__", "a.b", "x"])
_SUFFIXES = st.sampled_from([".py", ".so", ".cpython-311-x86_64-linux-gnu.so", ".pyc", ""])
_SCHEMES = st.sampled_from(["purelib", "platlib", "data", "scripts", "headers"])


def _modules_of_source(path: str) -> set[str]:
    head, _, name = path.rpartition("/")
    stem, _, suffix = name.partition(".")
    if suffix != "py":
        return set()
    if stem != "__init__":
        return {path[: len(path) - len(name)] + stem}
    if "/" not in head:  # the top of site-packages is no package
        return set()
    # Package `head`'s own source: its `__init__` module's, and its own unless it is an
    # `__init__` (`pkg/__init__/`: module `pkg/__init__` is package `pkg`'s `__init__`).
    return {f"{head}/__init__"} | ({head} if head.rpartition("/")[2] != "__init__" else set())


@st.composite
def _cases(draw: st.DrawFn) -> tuple[list[InstalledFile], list[str]]:
    module = st.builds(lambda head, stem: "/".join([*head, stem]), st.lists(_PARTS), _PARTS)
    modules = draw(st.lists(module, max_size=6))
    # Paths near the modules' own (each one's two source paths, and a part more or less) and
    # paths of any parts.
    near = [
        f"{m}{end}" for m in modules for end in (".py", "/__init__.py", "/__init__/__init__.py")
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


@settings(max_examples=600, deadline=None)
@given(_cases())
def test_the_modules_with_a_source_are_those_a_source_names(
    case: tuple[list[InstalledFile], list[str]],
) -> None:
    files, modules = case
    sources = {
        module
        for f in files
        if f.scheme in ("purelib", "platlib")
        for module in _modules_of_source(f.path)
    }
    assert _sourced(files, modules) == {m for m in modules if m in sources}
