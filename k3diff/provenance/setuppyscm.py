"""The version module a ``setup.py`` has setuptools-scm write, read by `ast` and never run.

vLLM's ``setup.py`` calls ``get_version(write_to="vllm/_version.py")`` (``from setuptools_scm
import get_version``), then appends ``+cu128``, ``.precompiled`` or another local segment to
the version it gives ``setup()``: the module states the version setuptools-scm made, METADATA
that version extended (prov71: every vLLM pair failed ``--source`` with W402). Only that call
shape is read: a call of setuptools-scm's ``get_version``, by a name ``from setuptools_scm
import get_version`` binds (``as`` another name included) or as an attribute of a name ``import
setuptools_scm`` binds, anywhere in the file, with literal arguments only:

* ``write_to="…"``, relative to ``root`` (a string, the first argument or ``root=``; ``.`` when
  not given: the project's directory, which the build runs ``setup.py`` in);
* ``version_file="…"`` with ``relative_to=__file__``, relative to ``setup.py``'s directory
  (setuptools-scm asserts ``relative_to`` for it).

``relative_to`` must be absent or ``__file__`` (``root`` is then relative to ``setup.py``'s
directory too). A call with ``*args`` or ``**kwargs``, more than one positional argument, or any
of these not a literal names nothing: its module stays compared with the commit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from k3diff.provenance.setuppyparse import parsed_setup_py

_MODULE = "setuptools_scm"
_FUNCTION = "get_version"


@dataclass(frozen=True)
class ScmCall:
    """One ``get_version`` call's module, as written in ``setup.py``."""

    setting: str
    """``write_to`` or ``version_file``."""
    root: str
    """The call's ``root`` (``.`` when not given), relative to ``setup.py``'s directory."""
    path: str
    """The module's path: relative to `root` for ``write_to``, to ``setup.py``'s directory for
    ``version_file``."""


def scm_calls(data: bytes, label: str) -> list[ScmCall]:
    """Each module a ``get_version(…)`` call of `data` (``setup.py``, `label` its path) has
    setuptools-scm write, in the file's order; none where it does not parse."""
    if _MODULE.encode() not in data:  # no import binds it: not walked (setup.py may be 256 KiB)
        return []
    module = parsed_setup_py(data, label)  # the layout reader's parse (`setuppyparse`)
    if module is None:
        return []
    names, modules = _bindings(module)
    if not names and not modules:
        return []
    found: list[ScmCall] = []
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and _calls_get_version(node.func, names, modules):
            found += _written(node)
    return found


def _bindings(module: ast.Module) -> tuple[set[str], set[str]]:
    """The names setuptools-scm's ``get_version`` is bound to, and those its module is."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module == _MODULE and not node.level:
            names.update(a.asname or a.name for a in node.names if a.name == _FUNCTION)
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names if a.name == _MODULE)
    return names, modules


def _calls_get_version(func: ast.expr, names: set[str], modules: set[str]) -> bool:
    if isinstance(func, ast.Name):
        return func.id in names
    return (
        isinstance(func, ast.Attribute)
        and func.attr == _FUNCTION
        and isinstance(func.value, ast.Name)
        and func.value.id in modules
    )


def _written(call: ast.Call) -> Iterator[ScmCall]:
    """The modules `call` writes, where every argument read is a literal."""
    if len(call.args) > 1 or any(isinstance(a, ast.Starred) for a in call.args):
        return
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords:  # **options may hold any of them
        return
    root_node = call.args[0] if call.args else keywords.get("root")
    root = "." if root_node is None else _string(root_node)
    relative_to = keywords.get("relative_to")
    from_file = isinstance(relative_to, ast.Name) and relative_to.id == "__file__"
    if root is None or (relative_to is not None and not from_file):
        return
    if (write_to := _string(keywords.get("write_to"))) is not None:
        yield ScmCall("write_to", root, write_to)
    if from_file and (version_file := _string(keywords.get("version_file"))) is not None:
        yield ScmCall("version_file", root, version_file)


def _string(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
