"""Is a version module the build wrote what its tool writes, stating the wheel's version?

A module the build writes (`versionconfig`) is compared with no commit, and it runs at import
like any other: a patch could hide code there. So it passes only as the tool's template, read by
`ast` and never run, statement by statement:

* setuptools-scm's (and hatch-vcs', which writes setuptools-scm's, 6 to 10): literal
  assignments of ``__version__``/``version`` (a string), ``__version_tuple__``/
  ``version_tuple`` (a tuple of numbers and strings), ``__commit_id__``/``commit_id`` (git
  hex, ``g`` before it or not, or None) and ``__all__`` (those names); their annotations, of
  names and subscripts only (``tuple[int | str, ...]``, evaluated at import without ``from
  __future__ import annotations``); ``TYPE_CHECKING = False`` and the ``if TYPE_CHECKING:``
  block of typing imports and aliases that never runs, its ``else:`` setting the aliases to
  ``object``;
* versioneer's short form (its ``SHORT_VERSION_PY``): ``import json``, ``version_json = '…'``
  (a JSON object) and ``def get_versions(): return json.loads(version_json)``, exactly.

Module docstrings and comments are allowed, and ``from __future__ import annotations`` (no other
feature, no ``as``). Each name is assigned once, as the tools assign it (a reader of the first
assignment would see another value than Python leaves), and ``__all__`` names only names the
module assigns. The version stated (``__version__``, ``version``, versioneer's JSON
``"version"``) must be the wheel's METADATA Version (PEP 440 normalised): a version module copied
from another build is not this build's. Where the build script may append local segments to the
version it had the tool write (vLLM's ``setup.py``: ``0.11.0+cu128`` in METADATA,
``0.11.0`` in ``_version.py``; `versionconfig.WrittenFile.extended`), METADATA's may be the
stated version with local segments appended, and nothing else.

The tuple stated (``__version_tuple__``, ``version_tuple``) must be what setuptools-scm writes
for the version stated (`scm_tuples`: prov71, ``version_tuple = (9, 9)`` passed), and the commit
stated (``__commit_id__``, ``commit_id``, versioneer's ``full-revisionid``) the one the source
check compares with (one of its range's): the stated-commit reader (W408) reads a top-level
package's module only, and a deeper one naming another commit passed (review71a). versioneer's
``"dirty"`` must be false for the same reason: W411 reads a top-level package's ``"dirty":
true``, and a deeper module's dirty build passed ``generated``, exit 0 (prov71b).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from packaging.version import Version

from k3diff.escape import shortened
from k3diff.provenance.versionconfig import VERSIONEER
from k3diff.provenance.versiontuples import scm_tuples

MODULE_CAP = 64 * 1024
"""Largest version module read (bytes); the tools write well under 1 KiB."""
_VERSION = ("__version__", "version")
_TUPLE = ("__version_tuple__", "version_tuple")
_COMMIT = ("__commit_id__", "commit_id")
_SCM_NAMES = frozenset((*_VERSION, *_TUPLE, *_COMMIT))
_NODE = re.compile(r"g?(?:[0-9a-f]{4,40}|[0-9a-f]{64})")
"""A commit id as setuptools-scm writes it from git (``g`` and the abbreviated id, or the id
from ``.git_archival.txt``): hex, held to the source check's commit (here, and by W408 in a
top-level package's module); anything else (``'main'``, ``'unknown'``) was said and passed
(prov71)."""
_ALIASES = frozenset(("VERSION_TUPLE", "COMMIT_ID"))
_TYPE_NAMES = frozenset(("str", "int", "tuple", "Tuple", "Union", "Optional", *_ALIASES))
_COMMIT_HEX = re.compile(r"[0-9a-f]{4,40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class Node:
    """A commit id a version module states: setuptools-scm's ``commit_id``, versioneer's
    ``full-revisionid``."""

    text: str


Stated = str | tuple[int | str, ...] | Node
"""What a version module states: a version, a version tuple, or a commit id."""
_GET_VERSIONS = ast.dump(ast.parse("def get_versions():\n    return json.loads(version_json)\n"))
_STATEMENTS = {
    ast.Import: "an import",
    ast.ImportFrom: "an import",
    ast.FunctionDef: "a function definition",
    ast.AsyncFunctionDef: "a function definition",
    ast.ClassDef: "a class definition",
    ast.Try: "a try",
    ast.If: "an if",
    ast.For: "a loop",
    ast.While: "a loop",
    ast.With: "a with",
    ast.Expr: "an expression statement",
    ast.AugAssign: "an augmented assignment",
    ast.Delete: "a del",
}


class _NotTemplate(Exception):
    """What in the module the tool does not write."""


@dataclass(frozen=True)
class TemplateCheck:
    """Whether a version module is its tool's template stating the wheel's version."""

    refused: str | None
    """None where it is, else what is not: ``line 26: an import``, ``__version__ is '9.9',
    not the wheel's METADATA Version 1.1``."""
    stated: str | None = None
    """The version it states, where it holds and METADATA's extends it by local segments
    (vLLM's ``0.11.0`` for ``0.11.0+cu128``), else None."""


def check_template(
    tool: str,
    data: bytes,
    version: str | None,
    extended: bool = False,
    commits: Collection[str] = (),
) -> TemplateCheck:
    """Whether `data` is `tool`'s template stating `version` (the wheel's METADATA Version;
    `extended`: or a version it extends by local segments) and, where it states a commit, one
    of `commits` (the source check's: full ids)."""
    refused = _not_template(tool, data, version, extended, commits)
    if not isinstance(refused, tuple):
        return TemplateCheck(refused)
    stated = refused[0]
    return TemplateCheck(None, None if _normal(stated) == _normal(version or "") else stated)


def _not_template(
    tool: str, data: bytes, version: str | None, extended: bool, commits: Collection[str]
) -> str | tuple[str]:
    """What is not the template, else (the version stated,)."""
    if len(data) > MODULE_CAP:
        return f"over {MODULE_CAP // 1024} KiB, not read"
    try:
        module = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "not Python that parses"
    try:
        stated = list(_versioneer(module) if tool == VERSIONEER else _setuptools_scm(module))
    except _NotTemplate as error:
        return str(error)
    versions = [(name, value) for name, value in stated if isinstance(value, str)]
    if not versions:
        return "it states no version"
    if version is None:
        return "the wheel has no METADATA Version to hold it to"
    for name, value in versions:
        if not _holds(value, version, extended):
            extension = " or it extended by local segments" if extended else ""
            said = shortened(repr(value), 200)
            return f"{name} is {said}, not the wheel's METADATA Version {version}{extension}"
    for name, told in stated:
        if isinstance(told, tuple) and not any(told in scm_tuples(v) for _, v in versions):
            stated_version = versions[0][1]
            expected = shortened(repr(scm_tuples(stated_version)[0]), 200)
            return (
                f"{name} is {shortened(repr(told), 200)}, not {expected} as setuptools-scm "
                f"writes for {shortened(stated_version, 200)}"
            )
    for name, told in stated:
        if isinstance(told, Node) and commits and not _built(told.text, commits):
            which = "the source commit" if len(commits) == 1 else "a commit of the range"
            return f"{name} is {shortened(repr(told.text), 200)}, not {which}"
    return (versions[0][1],)


def _built(node: str, commits: Collection[str]) -> bool:
    """Whether `node` (``g`` and hex as setuptools-scm writes it, or hex) abbreviates one of
    `commits`: a module nested deeper than the stated-commit reader looks (W408 reads a
    top-level package's) stated another commit and passed (review71a)."""
    hexa = node.removeprefix("g")  # no hex begins with it
    return _COMMIT_HEX.fullmatch(hexa) is not None and any(c.startswith(hexa) for c in commits)


def _holds(stated: str, version: str, extended: bool) -> bool:
    """Whether `stated` is `version` (PEP 440 normalised), or, `extended`, `version` less
    local segments appended to it (``0.11.0`` or ``0.11.0+g1a2b3c4`` for
    ``0.11.0+g1a2b3c4.cu128``)."""
    if _normal(stated) == _normal(version):
        return True
    try:
        mine, theirs = Version(stated), Version(version)
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return False
    if not extended or mine.public != theirs.public or theirs.local is None:
        return False
    own = mine.local.split(".") if mine.local else []
    return theirs.local.split(".")[: len(own)] == own


def _normal(version: str) -> str:
    try:
        return str(Version(version))
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return version


def _refused(node: ast.stmt, what: str) -> _NotTemplate:
    return _NotTemplate(f"line {node.lineno}: {what}")


def _statement(node: ast.stmt) -> str:
    if isinstance(node, ast.Expr | ast.Assign | ast.AnnAssign) and _has_call(node):
        return "a call"
    if isinstance(node, ast.Assign):
        return f"an assignment to {', '.join(ast.unparse(t)[:80] for t in node.targets)}"
    return _STATEMENTS.get(type(node), f"a statement it does not write ({type(node).__name__})")


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(inner, ast.Call) for inner in ast.walk(node))


def _docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _setuptools_scm(module: ast.Module) -> Iterator[tuple[str, Stated]]:
    """(name, version or tuple) of each version and version tuple assignment; `_NotTemplate`
    at the first statement the template does not hold."""
    type_checking = False  # set False by the module before its `if TYPE_CHECKING:`
    assigned: set[str] = set()
    exported: list[str] = []
    for node in module.body:
        if _docstring(node) or _future_annotations(node):
            continue
        if isinstance(node, ast.Assign):
            names = _names(node, node.targets)
            if names == ["TYPE_CHECKING"]:
                if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                    raise _refused(node, f"TYPE_CHECKING = {ast.unparse(node.value)}, not False")
                _once(node, names, assigned)
                type_checking = True
                continue
            yield from _literal(node, names, node.value)
            _once(node, names, assigned)
            if "__all__" in names and isinstance(node.value, ast.List | ast.Tuple):
                exported = [str(e.value) for e in node.value.elts if isinstance(e, ast.Constant)]
        elif isinstance(node, ast.AnnAssign):
            (name,) = _names(node, [node.target])
            if name not in _SCM_NAMES or not _is_type(node.annotation):
                raise _refused(node, f"an annotation that is not a type ({ast.unparse(node)})")
            if node.value is not None:
                yield from _literal(node, [name], node.value)
                _once(node, [name], assigned)
        elif isinstance(node, ast.If) and _is_name(node.test, "TYPE_CHECKING"):
            if not type_checking:
                raise _refused(node, "if TYPE_CHECKING with no TYPE_CHECKING = False before it")
            _type_checking_block(node)
        else:
            raise _refused(node, _statement(node))
    if unassigned := [name for name in exported if name not in assigned]:
        raise _NotTemplate(f"__all__ names {', '.join(unassigned)}, which it does not assign")


def _future_annotations(node: ast.stmt) -> bool:
    """``from __future__ import annotations``, as vcs-versioning writes it: another feature, or
    ``as`` binding the feature to a name (``__getattr__``, ``__all__``), is not the template."""
    return (
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and not node.level
        and [(alias.name, alias.asname) for alias in node.names] == [("annotations", None)]
    )


def _once(node: ast.stmt, names: list[str], assigned: set[str]) -> None:
    """Add `names` to `assigned`, refusing a name assigned before: the tools assign each once,
    and a second assignment is what the module holds at run time where a reader of the first
    saw another (review70c: a second ``__commit_id__``, or versioneer's ``version_json`` saying
    ``"dirty": true`` of another commit, passed generated)."""
    for name in names:
        if name in assigned:
            raise _refused(node, f"a second assignment to {name}")
        assigned.add(name)


def _names(node: ast.stmt, targets: list[ast.expr]) -> list[str]:
    if not all(isinstance(target, ast.Name) for target in targets):
        raise _refused(node, "an assignment to something other than a name")
    return [target.id for target in targets if isinstance(target, ast.Name)]


def _literal(node: ast.stmt, names: list[str], value: ast.expr) -> Iterator[tuple[str, Stated]]:
    """Each of `names` set to a literal of its kind; (name, value) for a version or tuple."""
    if _has_call(value):
        raise _refused(node, "a call")
    for name in names:
        if name == "__all__":
            ok = isinstance(value, ast.List | ast.Tuple) and all(
                isinstance(e, ast.Constant) and e.value in _SCM_NAMES for e in value.elts
            )
        elif name in _VERSION:
            ok = isinstance(value, ast.Constant) and isinstance(value.value, str)
        elif name in _TUPLE:
            ok = isinstance(value, ast.Tuple) and all(
                isinstance(e, ast.Constant) and type(e.value) in (int, str) for e in value.elts
            )
        elif name in _COMMIT:
            ok = isinstance(value, ast.Constant) and (
                value.value is None
                or (isinstance(value.value, str) and _NODE.fullmatch(value.value) is not None)
            )
        else:
            raise _refused(node, f"an assignment to {name}")
        if not ok:
            raise _refused(node, f"{name} = {ast.unparse(value)[:80]}, not what it writes")
        if name in _VERSION and isinstance(value, ast.Constant) and isinstance(value.value, str):
            yield name, value.value
        elif name in _COMMIT and isinstance(value, ast.Constant) and value.value is not None:
            yield name, Node(str(value.value))
        elif name in _TUPLE and isinstance(value, ast.Tuple):
            parts = [e.value for e in value.elts if isinstance(e, ast.Constant)]
            yield name, tuple(p for p in parts if isinstance(p, int | str))  # checked: no bool


def _type_checking_block(node: ast.If) -> None:
    """`if TYPE_CHECKING:` (never true at run time): typing imports and the aliases; `else:`
    the aliases set to `object`."""
    for inner in node.body:
        if isinstance(inner, ast.ImportFrom) and inner.module == "typing" and not inner.level:
            continue
        if isinstance(inner, ast.Assign) and _alias(inner) and _is_type(inner.value):
            continue
        raise _refused(inner, f"{_statement(inner)} under if TYPE_CHECKING")
    for inner in node.orelse:
        if isinstance(inner, ast.Assign) and _alias(inner) and _is_name(inner.value, "object"):
            continue
        raise _refused(inner, f"{_statement(inner)} under the else of if TYPE_CHECKING")


def _alias(node: ast.Assign) -> bool:
    """`VERSION_TUPLE = …` or `COMMIT_ID = …`, one name assigned."""
    return len(node.targets) == 1 and _names(node, node.targets)[0] in _ALIASES


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_type(node: ast.expr) -> bool:
    """A type expression of the template's names: evaluating it calls nothing of the wheel's."""
    if isinstance(node, ast.Name):
        return node.id in _TYPE_NAMES
    if isinstance(node, ast.Constant):
        return node.value is None or node.value is Ellipsis
    if isinstance(node, ast.Subscript):
        return _is_type(node.value) and _is_type(node.slice)
    if isinstance(node, ast.Tuple):
        return all(_is_type(element) for element in node.elts)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.BitOr) and _is_type(node.left) and _is_type(node.right)
    return False


def _versioneer(module: ast.Module) -> Iterator[tuple[str, Stated]]:
    """versioneer's short form: ("version_json version", version) from its JSON."""
    assigned: set[str] = set()
    for node in module.body:
        if _docstring(node):
            continue
        if isinstance(node, ast.Import) and [(a.name, a.asname) for a in node.names] == [
            ("json", None)
        ]:
            continue
        if isinstance(node, ast.FunctionDef):
            if ast.dump(ast.Module([node], [])) != _GET_VERSIONS:
                raise _refused(
                    node, f"a function other than versioneer's get_versions ({node.name})"
                )
            continue
        if isinstance(node, ast.Assign) and _names(node, node.targets) == ["version_json"]:
            _once(node, ["version_json"], assigned)
            value = node.value
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                raise _refused(node, "version_json that is not a string literal")
            try:
                document = json.loads(value.value)
            except (ValueError, RecursionError):
                document = None
            stated = document.get("version") if isinstance(document, dict) else None
            if not isinstance(stated, str):
                raise _refused(node, "version_json states no version")
            if (dirty := document.get("dirty", "absent")) is not False:
                said = shortened(json.dumps(dirty), 80)
                raise _refused(node, f'version_json "dirty" is {said}, not false: a dirty build')
            yield 'version_json "version"', stated
            if (revision := document.get("full-revisionid")) is not None:
                yield 'version_json "full-revisionid"', Node(str(revision))
            continue
        if isinstance(node, ast.Assign):
            raise _refused(node, f"an assignment to {', '.join(_names(node, node.targets))}")
        raise _refused(node, _statement(node))
