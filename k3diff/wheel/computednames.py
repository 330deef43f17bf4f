"""What code names at run time rather than as written: the reading `hookimports` leans on for
literals (`literal`, `called_name`, `getattr(m, 'go')` read as `m.go`), and the calls whose
module or function k3diff cannot name (`computed`), which make a hook reach every module of the
wheel, as a cap reached does.

Computed, each where the code that runs at start holds it (hooks72: a kept hook doing each
passed `wheels`, exit 0, while CPython's `site` ran the patch's changed module):

- an importing function (`__import__`, `importlib.import_module`, `importlib.util.find_spec`,
  `runpy.run_module`, `pkgutil.resolve_name`) given a name that is no literal, or a relative
  one against a package that is none (`__import__(name)`, `import_module('.b', pkg)`);
- `exec` or `eval` of something that is no literal string (`exec(text)`, `exec(compile(...))`);
- a module loaded from a path or a spec (`importlib.util.spec_from_file_location`, `runpy.run_path`,
  `imp.load_source`, a `SourceFileLoader`, a `zipimporter`): which file it runs is a path the
  code computes;
- a function looked up by a name that is no literal and called, or taken to call later
  (`getattr(m, name)()`, `f = getattr(m, name)`), or through a namespace by a key that is no
  literal (`globals()[name]()`, `sys.modules[name].go()`, `vars(m)[name]()`), or by `operator`'s
  `methodcaller` or `attrgetter`;
- an importing function, `exec` or `eval` taken as a value rather than called by its name
  (`map(__import__, names)`, `functools.partial(importlib.import_module, 'a')`, `e = exec`).

A literal `getattr(m, 'go')` is read as `m.go` (`getattr(importlib, 'import_module')('a')`
imports `a`): nothing computed, nor are strings joined of literals (`fold`). setuptools'
`_distutils_hack`, `-nspkg.pth` lines, `_virtualenv`, pywin32's bootstrap and editable finders
compute names only in a meta path finder's `find_spec`, and none for the names asked at start
(`finders`), so they stay as written (`tests/wheel/test_pth_real_hooks.py`).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from itertools import islice

from k3diff.wheel.fold import UNKNOWN, folded

_WORDS = (b"import", b"coding", b"exec", b"eval", b"compile", b"getattr", b"globals",
          b"vars", b"locals", b"breakpoint", b"help", b"__")  # fmt: skip
"""An ASCII source without these imports nothing and computes no name it calls (no coding
declaration spells `import` in other bytes, `\\u0069mport`, no string `exec`ed spells it
`\\x69mport`; hooks72: `__builtins__.__dict__['__imp' + 'ort__']('demo_inner')` spells neither,
and passed unparsed, exit 0; a dunder, `().__class__.__base__.__subclasses__()`, may reach any
loader; review72d: a `sitecustomize` of `help('demo_inner')`, pydoc's import, passed unparsed),
and is not parsed."""
_DEFINED = re.compile(rb"\bdef\s+([A-Za-z_]\w*)")
_READ = re.compile(rb"\.\s*([A-Za-z_]\w*)")
IMPORTING = {"__import__": "name", "import_module": "name", "find_spec": "name",
             "run_module": "mod_name", "resolve_name": "name", "_gcd_import": "name",
             "_find_and_load": "name"}  # fmt: skip
"""The functions that import (or run, or find the package of) the module their first argument
(or this keyword) names (fuzz72: `importlib._bootstrap._gcd_import('demo_inner')`, which
`import_module` calls, passed, exit 0, while `site` ran the changed module)."""
_BY_PATH = frozenset({"spec_from_file_location", "run_path", "load_source", "load_compiled",
                      "load_module", "exec_module",
                      "load_dynamic", "load_package", "SourceFileLoader", "SourcelessFileLoader",
                      "ExtensionFileLoader", "zipimporter"})  # fmt: skip
"""The functions that load (or make a loader of) a module from a path."""
_GETATTR = frozenset({"getattr", "getattr_static", "__getattribute__"})
"""What takes an attribute by a name given as a string, as `getattr` does (review74c: `inspect.
getattr_static(H, n)()`, `type.__getattribute__(H, n)()` passed, exit 0, while a venv ran it)."""
_BY_STRING = frozenset({"methodcaller", "attrgetter"})
"""`operator`'s functions that call or take by a name given as a string."""
RUNNING = frozenset({"exec", "eval", *IMPORTING, *_GETATTR}) - {"find_spec"}
"""The functions that run code, import, or take an attribute by a name: one taken as a value,
not called by name (`map(__import__, names)`, `e = exec`, review74c: `functools.reduce(getattr,
[n], H)()`, exit 0 while a venv ran it), is a call k3diff cannot read (`find_spec`, which
finders name, runs nothing itself)."""
_NAMESPACES = frozenset({"globals", "locals", "vars", "__dict__", "modules", "__builtins__",
                         "__globals__", "f_globals", "f_locals"})  # fmt: skip
"""What code subscripts to reach a function or module by a key (`globals()[name]`,
`sys.modules[name]`, `m.__dict__[name]`)."""
RUNNERS: dict[str, frozenset[str]] = {
    "builtins": frozenset({"help", "breakpoint"}),  # pydoc's `locate`; `PYTHONBREAKPOINT`
    "timeit": frozenset(), "code": frozenset(), "cProfile": frozenset(), "profile": frozenset(),
    "pdb": frozenset(), "trace": frozenset(), "doctest": frozenset(), "pydoc": frozenset(),
    "pickle": frozenset(), "_pickle": frozenset(), "shelve": frozenset(), "ctypes": frozenset(),
    "importlib._bootstrap": frozenset(), "importlib._bootstrap_external": frozenset(),
    "unittest.mock": frozenset(), "logging.config": frozenset(),
    "importlib.metadata": frozenset({"entry_points", "EntryPoint"}),
    "importlib_metadata": frozenset({"entry_points", "EntryPoint"}),
    "pkg_resources": frozenset({"iter_entry_points", "load_entry_point", "EntryPoint"}),
    "pkgutil": frozenset({"walk_packages", "get_loader", "find_loader"}),
    "runpy": frozenset({"_run_module_as_main", "_run_code", "_run_module_code"}),
    "warnings": frozenset({"_setoption", "_processoptions"}),
    "types": frozenset({"FunctionType", "LambdaType", "CodeType"}),
    "typing": frozenset({"get_type_hints", "ForwardRef", "_eval_type"}),  # review74c: `eval` of
    "inspect": frozenset({"get_annotations"}), "annotationlib": frozenset(),  # a string
    "functools": frozenset({"singledispatch", "singledispatchmethod"}),  # annotation
}  # fmt: skip
"""The functions (every function of a module where none is listed) that import or run what a
string names, beside `IMPORTING` and `exec`: `timeit.timeit('import a')`, `help('a')` (pydoc
imports it), `pickle.loads` (a pickle names the function it calls), `importlib._bootstrap`'s functions
but those `IMPORTING` reads as written, `unittest.mock.patch('a.X')`, an entry point's `load`, a function made of a
code object (review72d: each passed, exit 0, while a venv's `python -c pass` ran the module),
`typing.get_type_hints`, `inspect.get_annotations` and `functools.singledispatch` (its `register`),
which `eval` string annotations (review74c:
`def f(x: "__import__('a')")` then `typing.get_type_hints(f)` passed, exit 0, while a venv ran it)."""
_BUILTINS = frozenset({"builtins", "__builtins__"})
AROUND = 16
"""Nodes of what code subscripts looked through for a namespace (a chain may be 10,000 long)."""


def literal(node: ast.expr | None, here: dict[str, str] | None = None) -> object:
    """The value of a literal, or of strings joined of literals (`'demo' + '_inner'`, an
    f-string of literals, `'.'.join([...])`: `fold`), None where it is not certain (or of a
    name `here` gives: a module's `__name__`)."""
    if node is None:
        return None
    if isinstance(node, ast.Name) and here is not None:
        return here.get(node.id) or None
    value = folded(node)
    return None if value is UNKNOWN else value


KEYED = frozenset({"get", "setdefault", "pop"})
"""A namespace's methods that read it by a key (a literal one: one name, as `[...]` does)."""


def _by_key(node: ast.AST) -> ast.AST:
    """`m.__dict__.get('go')` (`.pop`, `.setdefault`) as `m.__dict__['go']` (review74c:
    `H.__dict__.get('go')()`, `globals().pop('_go')()` passed, exit 0, while a venv ran it)."""
    if not isinstance(node, ast.Call) or not node.args:
        return node
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in KEYED:
        return ast.Subscript(value=func.value, slice=node.args[0], ctx=ast.Load())
    return node


def attribute(node: ast.AST) -> tuple[ast.expr, str] | None:
    """The object and the name of an attribute code reads: `m.go`, and with a literal name
    `getattr(m, 'go')` (or `getattr(m, 'go', default)`), `vars(m)['go']`, `m.__dict__['go']`."""
    if isinstance(node, ast.Attribute):
        return node.value, node.attr
    node = _by_key(node)
    args = getattr_args(node)
    if args is not None and len(args) in (2, 3):
        name = literal(args[1])
        return (args[0], name) if isinstance(name, str) else None
    if isinstance(node, ast.Subscript) and isinstance(key := literal(node.slice), str):
        space = node.value  # `vars(m)['go']`, `m.__dict__['go']`
        if isinstance(space, ast.Call) and _namespace(space) == "vars" and len(space.args) == 1:
            return space.args[0], key
        if isinstance(space, ast.Attribute) and space.attr == "__dict__":
            return space.value, key
    return None


def special(name: str) -> bool:
    """A dunder or sunder method's name (`__init__`, `_missing_`): Python or a metaclass calls
    it."""
    return len(name) > 2 and name.startswith("_") and name.endswith("_")


def short_chain(node: ast.expr) -> bool:
    """Whether `node` is a name or a call, or attributes of one at most `AROUND` deep (each
    attribute of a chain 10,000 long read down to its head would be quadratic)."""
    for _ in range(AROUND):
        if not isinstance(node, ast.Attribute):
            return isinstance(node, (ast.Name, ast.Call))
        node = node.value
    return False


def namespace_key(node: ast.AST) -> str | None:
    """The literal key of a namespace subscripted (`globals()['go']`, `sys.modules['a']`), or
    read by `get`, `pop` or `setdefault`."""
    node = _by_key(node)
    if not isinstance(node, ast.Subscript) or _namespace(node.value) is None:
        return None
    key = literal(node.slice)
    return key if isinstance(key, str) else None


def called_name(func: ast.expr) -> str | None:
    """The name a call calls (`f` in `f()`, in `a.f()`, in `getattr(a, 'f')()` and in
    `__builtins__['f']()`, `globals().get('f')()`)."""
    func = _by_key(func)  # type: ignore[assignment]
    if isinstance(func, ast.Subscript):
        key = literal(func.slice)
        return key if isinstance(key, str) else None
    if isinstance(func, ast.Name):
        return func.id
    found = attribute(func)
    return None if found is None else found[1]


def computed(node: ast.Call) -> str | None:
    """How a call among the code that runs computes what it imports or calls, None where it
    names it as written (an importing function's name argument `hookimports` reads itself)."""
    func, line = node.func, node.lineno
    name = called_name(func)
    if name in ("exec", "eval") and _builtin(func):
        code = literal(node.args[0]) if node.args else ""
        return (
            None if isinstance(code, (str, bytes)) else f"`{name}` of computed code at line {line}"
        )
    if name in _BY_PATH:
        return f"a module loaded from a path (`{name}`) at line {line}"
    if name in _BY_STRING:
        return f"a call by a name `{name}` takes at line {line}"
    while isinstance(func, ast.Attribute):  # `sys.modules[name].go()`
        func = func.value
    if by_computed_name(func):
        return f"a call by a computed name at line {line}"
    return None


def unread_call(
    call: ast.Call, unnamed: bool, taken: set[str], function: tuple[str, ...] | None = None
) -> str:
    """How `call` computes what it imports or calls (`unnamed`: it is an importing function
    whose module k3diff cannot name; `taken`: names assigned a function taken by a computed
    name; `function`: the function it calls, where an import names it), empty where it does
    not."""
    func = call.func
    if unnamed:
        return f"`{called_name(func)}` of a computed name at line {call.lineno}"
    if isinstance(func, ast.Name) and func.id in taken:
        return f"a call by a computed name at line {call.lineno}"
    return computed(call) or runner(function or (), call.lineno)


def runner(function: tuple[str, ...], line: int) -> str:
    """How a call of `function` (`timeit.timeit`, `builtins.help`) imports or runs what a
    string names, as `RUNNERS` holds, empty where it does not (an `IMPORTING` function,
    `importlib._bootstrap._gcd_import`, imports the module its literal names: read as written,
    fuzz72)."""
    if function and function[-1] in IMPORTING:
        return ""
    for end in range(len(function) - 1, 0, -1):
        names = RUNNERS.get(".".join(function[:end]))
        if names is not None and (not names or function[end] in names):
            return (
                f"`{'.'.join(function)}`, which imports or runs what a string names, at line {line}"
            )
    return ""


def getattr_args(node: ast.AST) -> list[ast.expr] | None:
    """The object and name arguments of a `getattr(...)` call, or of one of `_GETATTR`
    (`inspect.getattr_static(m, n)`, `object.__getattribute__(m, n)`, `m.__getattribute__(n)`)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if name not in _GETATTR:
        return None
    if name == "__getattribute__" and isinstance(func, ast.Attribute):
        types = isinstance(func.value, ast.Name) and func.value.id in ("object", "type")
        return node.args if types else [func.value, *node.args]
    return node.args


def _builtin(func: ast.expr) -> bool:
    """Whether `func` is a builtin by its name (`exec`, `builtins.exec`,
    `__builtins__['exec']`), not a method of some object (`frame.eval(x)`)."""
    if isinstance(func, (ast.Name, ast.Subscript)):
        return True
    found = attribute(func)
    return found is not None and isinstance(found[0], ast.Name) and found[0].id in _BUILTINS


def by_computed_name(node: ast.expr) -> bool:
    """`getattr(m, name)` or `globals()[name]` (`vars(m)`, `m.__dict__`, `sys.modules`,
    `__builtins__`) by a key that is no literal: a function (or module) taken by a name the
    code computes, which a call (or a name assigned it, then called) calls."""
    args = getattr_args(node)
    if args is not None:
        return len(args) >= 2 and not isinstance(literal(args[1]), str)
    if not isinstance(node, ast.Subscript) or isinstance(literal(node.slice), str):
        return False
    around = islice(ast.walk(node.value), AROUND)  # `(b if isinstance(b, dict) else
    return any(map(_namespace, around))  # b.__dict__)[name]`


def _namespace(space: ast.AST) -> str | None:
    """Which namespace an expression is (`globals()`, `vars(m)`, `m.__dict__`, `sys.modules`,
    `__builtins__`), by its name."""
    space = space.func if isinstance(space, ast.Call) else space
    named = space.id if isinstance(space, ast.Name) else getattr(space, "attr", None)
    return named if named in _NAMESPACES else None


def importer(func: ast.expr, bound: dict[str, tuple[str, ...]]) -> str | None:
    """The function of `IMPORTING` `func` is: by its own name, or a name an import or an
    assignment bound to it (`from importlib import import_module as load`, `imp = __import__`)."""
    name = called_name(func)
    if isinstance(func, ast.Name) and len(bound.get(func.id, ())) > 1:
        name = bound[func.id][-1]
    return name if name in IMPORTING else None


def imported(
    call: ast.Call, bound: dict[str, tuple[str, ...]], here: dict[str, str]
) -> list[tuple[str, bool]] | None:
    """The modules `__import__(...)`, `import_module(...)` (or `find_spec`, which imports the
    package: taken as the module's import, more followed, never less), runpy's `run_module(...)`
    or pkgutil's `resolve_name('a.b:f')` (`a.b`) names with literal arguments (or the module's
    `__name__`, `__package__`; a `fromlist` of `*` imports those the package's `__all__` names:
    any below it, as does one not written as a literal); None where k3diff cannot name the
    module (`__import__(name)`, `import_module('.b', package)`: computed)."""
    called = importer(call.func, bound)
    if called is None:
        return []
    args = [*call.args, *(None for _ in range(5))]
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    written = args[0] or keywords.get(IMPORTING[called])
    if written is None:
        return []  # no name: the call fails
    name = literal(written, here)
    name = name.partition(":")[0] if called == "resolve_name" and isinstance(name, str) else name
    level: object = 0
    package: object = None  # run_module and resolve_name take no relative name
    if called in ("import_module", "find_spec"):
        package = literal(args[1] or keywords.get("package"), here)
    elif called == "__import__":
        package = here.get("__package__")
        level = literal(args[4] or keywords.get("level")) or 0
    if not isinstance(name, str) or not isinstance(level, int):
        return None
    if level < 0:
        return []
    if level > len(str(package).split(".")):  # above the top: the import fails (and a level
        return []  # of 10**9 spelt out made a string of 10**9 dots)
    name = "." * level + name
    if name.startswith("."):
        if not isinstance(package, str):
            return None
        try:
            name = importlib.util.resolve_name(name, package)
        except (ImportError, ValueError):
            return []
    if not name or called != "__import__":
        return [(name, False)] if name else []
    written = args[3] or keywords.get("fromlist")
    fromlist = literal(written)
    below = (
        [b for b in fromlist if isinstance(b, str)] if isinstance(fromlist, (list, tuple)) else []
    )
    unread = not isinstance(written, (ast.Constant, type(None))) and fromlist is None
    below += ["*"] if unread else []  # `fromlist=names`: any below it
    return [(name, "*" in below), *((f"{name}.{b}", False) for b in below if b != "*")]


def unparsed_names(source: bytes) -> tuple[frozenset[str], frozenset[str]] | None:
    """The methods an ASCII source with none of `_WORDS` may define and the attributes it may
    read, unparsed, as words after `def` and `.` (more, never less): it imports nothing; None
    where it has one of them (it is parsed)."""
    if not source.isascii() or any(word in source for word in _WORDS):
        return None
    methods = frozenset(m.decode() for m in _DEFINED.findall(source))
    return methods, frozenset(a.decode() for a in _READ.findall(source))
