"""A135 from setuptools' own statements of an sdist's name and version: `setup.cfg`'s
`[metadata]` and the keywords of `setup.py`'s `setup(...)` call (docs77: an sdist whose
`setup.py` said `setup(name="other")`, or whose `setup.cfg` did, passed, exit 0, where pip builds
"other" and `pip install NAME` from an index refuses the sdist as inconsistent).

Read only where setuptools builds the sdist (no `pyproject.toml`, none naming a backend, or one
naming `setuptools.build_meta`) and only for what setuptools takes from them: a name
`[project]` states decides (setuptools ignores the others'), as does a version it states; one it
lists in `dynamic` is the others' to give, unless `[tool.setuptools.dynamic]` computes it.
Between the two, a keyword given to `setup(...)` wins over `setup.cfg`'s (setuptools fills the
metadata from `setup.cfg` only where the call left it unset).

Nothing is run. `setup.py` is parsed by `ast` (at most `SETUP_CAP` bytes: 16 MiB of Python took
41 s and 10 GB to parse) and only a keyword of a call to a function named `setup` (or setuptools'
`setup` imported under another name) whose value is a string literal is compared; a computed one
(`version=get_version()`, `**kwargs`) is not, and leaves `setup.cfg`'s unread too, since it may
set the field; a file that does not parse is not judged (setuptools stops on it). `setup.cfg` is
read as setuptools reads it, by `--source`'s reader (`k3diff.provenance.setupcfg`: option names
as setuptools names them, the later winning; its interpolation bounded); `attr:` and `file:`
values are computed, not compared; a file that reader refuses is A135, unchecked. A member
k3diff does not read (a link, a sparse file, over the cap) where its value would decide is A135
too, unchecked, as an unread `pyproject.toml` is.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping

from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import InvalidVersion, Version

from k3diff.audit.sdistread import SdistRead, last_of
from k3diff.escape import shortened
from k3diff.provenance.setupcfg import read_setup_cfg
from k3diff.provenance.setuptoolsconfig import names_setup, setup_names
from k3diff.wheel.codes import Code, Finding

Identity = tuple[NormalizedName, Version]
"""A project name (PEP 503) and version (PEP 440), normalised."""

Pyproject = Mapping[str, object] | None
"""The sdist's `pyproject.toml` as `tomllib` reads it (`{}`: none), None where it is unread or
not TOML (pip stops on it there)."""

SETUP_CAP = 128 * 1024
"""Largest `setup.py` or `setup.cfg` read: 5× vLLM 0.10.1's `setup.py` (25 KB, the largest of 14
real sdists read), half `--source`'s `CONFIG_CAP`, as `ast` takes about 700 bytes of memory a
byte of Python (an sdist whose `setup.py` is 256 KiB of `a=1` lines: `audit` peaked at 189 MB;
at 128 KiB, 110 MB and 0.3 s of CPU; 29 MB before it was read)."""

FIELDS = ("name", "version")
_COMPUTED = ("attr:", "file:")


def same_identity(stated: tuple[object, object], named: Identity) -> bool:
    """Whether a stated (name, version) is `named`, both normalised."""
    name, version = stated
    if not isinstance(name, str) or not isinstance(version, str):
        return False
    try:
        return canonicalize_name(name) == named[0] and Version(version) == named[1]
    except InvalidVersion:
        return False


def setuptools_findings(
    read: SdistRead, top: str, named: Identity, pyproject: Pyproject
) -> list[Finding]:
    """A135 per value `setup.py` or `setup.cfg` gives setuptools for a field setuptools takes
    from them (`_left_to_setuptools`) otherwise than the file name."""
    wanted = _left_to_setuptools(pyproject)
    if not wanted:
        return []
    found: list[Finding] = []
    given = _setup_py_keywords(read, f"{top}/setup.py", wanted, found)
    rest = tuple(field for field in wanted if field not in given)
    if rest:
        given |= _setup_cfg_metadata(read, f"{top}/setup.cfg", rest, found)
    if "name" in wanted and "name" not in given:  # setuptools names it (`derived_names`)
        given |= derived_names(read, top)
    for field, (path, values) in given.items():
        for value in dict.fromkeys(v for v in values if v is not None):  # computed: not compared
            stated = (value, str(named[1])) if field == "name" else (str(named[0]), value)
            if same_identity(stated, named):
                continue
            shown = named[0] if field == "name" else named[1]
            found.append(
                Finding(
                    Code.A135,
                    path,
                    f"{_base(path)} gives setuptools {field} {shortened(repr(value), 200)}, the "
                    f"file name {shown}: pip builds that {field}, and `pip install {named[0]}` "
                    "from an index refuses the sdist as inconsistent",
                )
            )
    return found


def _left_to_setuptools(pyproject: Pyproject) -> tuple[str, ...]:
    """The fields setuptools takes from `setup.py`/`setup.cfg` (none where it does not build)."""
    if pyproject is None:
        return ()
    system = pyproject.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    if backend is not None and not (
        isinstance(backend, str) and backend.split(":")[0].strip() == "setuptools.build_meta"
    ):
        return ()
    project = pyproject.get("project")
    if not isinstance(project, dict):
        return FIELDS
    dynamic = project.get("dynamic", [])
    tool = pyproject.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    computed = setuptools.get("dynamic") if isinstance(setuptools, dict) else None
    if (
        "version" not in project
        and isinstance(dynamic, list)
        and "version" in dynamic
        and not (isinstance(computed, dict) and "version" in computed)
    ):
        return ("version",)
    return ()


Given = dict[str, tuple[str, tuple[str | None, ...]]]
"""Per field given, the member that gives it and each value it gives (None: computed)."""


def _member(read: SdistRead, path: str, found: list[Finding]) -> bytes | None:
    """The member's bytes; None, with an A135 (unchecked), where it is there but not read."""
    data = read.top_files.get(path)
    if data is not None and len(data) <= SETUP_CAP:
        return data
    last = last_of(read, path)
    if last is None:
        return None
    if last.isreg() and not last.issparse():
        why = f"{_base(path)} of {last.size:,} bytes, over k3diff's cap of {SETUP_CAP:,}"
    else:
        why = f"{_base(path)} is not a regular file (a link, directory or special file)"
    found.append(Finding(Code.A135, path, f"{why}: the name and version pip builds unchecked"))
    return None


def _base(path: str) -> str:
    return path.rpartition("/")[2]


def _setup_py_keywords(
    read: SdistRead, path: str, wanted: tuple[str, ...], found: list[Finding]
) -> Given:
    """The wanted fields the `setup(...)` calls of `setup.py` give (a `**` splat: each,
    computed)."""
    data = _member(read, path, found)
    if data is None:
        return {}
    tree = _parsed(data, path)
    if tree is None:
        return {}  # setuptools cannot run it either
    values: dict[str, list[str | None]] = {}
    names, modules = setup_names(tree)  # review77c: `from setuptools import setup as s` passed
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not _is_setup(node.func, names, modules):
            continue
        for keyword in node.keywords:
            if keyword.arg is None:  # **kwargs may hold any field
                for field in wanted:
                    values.setdefault(field, []).append(None)
            elif keyword.arg in wanted:
                value = keyword.value
                literal = value.value if isinstance(value, ast.Constant) else None
                if _no_name(keyword.arg, literal):
                    continue  # no name: setuptools names it (`_no_name`)
                values.setdefault(keyword.arg, []).append(
                    literal if isinstance(literal, str) else None
                )
    return {field: (path, tuple(given)) for field, given in values.items()}


def _is_setup(func: ast.expr, names: set[str], modules: set[str]) -> bool:
    return _called(func) == "setup" or names_setup(func, names, modules)


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _setup_cfg_metadata(
    read: SdistRead, path: str, wanted: tuple[str, ...], found: list[Finding]
) -> Given:
    """The wanted fields `setup.cfg`'s `[metadata]` gives, as setuptools reads it
    (`read_setup_cfg`: review77c, the `configparser` defaults read `Name = other` beside
    `name = demo` as a duplicate, a file of bare CR line endings as one line, and expanded
    `%(…)s` without bound: each passed, exit 0, or a 4 KiB file ran 5 minutes); one it cannot
    read is A135, unchecked (setuptools fails on it, or k3diff's caps leave it unread)."""
    data = _member(read, path, found)
    if data is None:
        return {}
    config = read_setup_cfg(data, _base(path))
    if isinstance(config, str):
        found.append(
            Finding(Code.A135, path, f"{config}: the name and version pip builds unchecked")
        )
        return {}
    values = {field: config.get("metadata", field) for field in wanted}
    return {
        field: (path, (None if value.strip().startswith(_COMPUTED) else value.strip(),))
        for field, value in values.items()
        if value is not None and not _no_name(field, value.strip())
    }


def derived_names(read: SdistRead, top: str) -> Given:
    """The name setuptools gives a project whose ``setup.py`` and ``setup.cfg`` give none,
    or an empty one (``ConfigDiscovery.analyse_name``): its one package, else its one module,
    where ``setup()``'s ``packages``/``py_modules`` list them literally (a call giving neither,
    or an empty list, leaves them to ``setup.cfg``'s ``[options]``). Several packages (their
    common parent, where it has an ``__init__.py``), a computed list (``find_packages()``,
    ``find:``) or none (discovery) are not read. review78a: ``setup(name="",
    packages=["other"])`` in ``demo-1.0.tar.gz`` passed after holds78, exit 0, where
    setuptools 84 built ``other-1.0``; so did the call without ``name``."""
    path, calls = f"{top}/setup.py", [ast.Call(ast.Name("setup"), [], [])]  # no setup.py
    data = read.top_files.get(path)
    if data is not None and len(data) <= SETUP_CAP:
        tree = _parsed(data, path)
        names, modules = setup_names(tree) if tree else (set(), set())
        calls = [
            node
            for node in ast.walk(tree or ast.Module([], []))
            if isinstance(node, ast.Call) and _is_setup(node.func, names, modules)
        ]
    elif path in read.top_files or last_of(read, path) is not None:
        return {}  # not read: said by `_member`
    derived: list[str] = []
    for call in calls:
        keywords = {k.arg: k.value for k in call.keywords}
        lists = [_literal_list(keywords[f]) if f in keywords else [] for f in _MODULES]
        lists = [
            _cfg_list(read, f"{top}/setup.cfg", f) if one == [] else one
            for one, f in zip(lists, _MODULES, strict=True)
        ]
        for one in lists:
            if one is None or None in keywords:
                break  # computed, or a ** mapping: not known
            if len(one) == 1:
                derived.append(one[0])
                break
    where = path if data is not None else f"{top}/setup.cfg"
    return {"name": (where, tuple(derived))} if derived else {}


_MODULES = ("packages", "py_modules")


@functools.lru_cache(maxsize=1)
def _parsed(data: bytes, path: str) -> ast.Module | None:
    """`setup.py` parsed once for `_setup_py_keywords` and `derived_names`; None where it
    does not parse."""
    try:
        return ast.parse(data, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _literal_list(node: ast.expr) -> list[str] | None:
    """A ``setup()`` keyword's list (tuple) of strings; None where it is computed."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    ok = isinstance(value, list | tuple) and all(isinstance(one, str) for one in value)
    return list(value) if ok else None


def _cfg_list(read: SdistRead, path: str, field: str) -> list[str] | None:
    """``setup.cfg``'s ``[options]`` `field` split as setuptools' ``_parse_list`` splits it;
    None where it is computed (``find:``) or the file is not read ([] where it has none)."""
    data = read.top_files.get(path)
    if data is None or len(data) > SETUP_CAP:
        return None if last_of(read, path) is not None else []
    config = read_setup_cfg(data, _base(path))
    value = config.get("options", field) if not isinstance(config, str) else "find:"
    if value is None:
        return []
    if value.strip().startswith(("find:", "find_namespace:")):
        return None
    items = value.splitlines() if "\n" in value else value.split(",")
    return [item.strip() for item in items if item.strip()]


def _no_name(field: str, value: object) -> bool:
    """Whether `value` of `field` is no name to setuptools: an empty one (``setup(name="")``,
    ``name =``) is as none given, and setuptools names the project from its packages or
    modules (`derived_names`; holds78: A135 said ``''`` against the file name, where
    setuptools 84 built ``pkg-1.0`` from ``setup(name="", packages=["pkg"])``). setup.cfg's
    name is read then."""
    return field == "name" and value == ""
