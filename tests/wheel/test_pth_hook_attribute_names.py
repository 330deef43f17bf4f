"""An attribute taken by a name given as a string, other than by `getattr`, in code that runs at
start. Before (review74c), each of these passed `wheels` (exit 0, W201 alone) while a venv's
`python -c pass` ran the patch's `demo_inner`: a class's function no code names taken by a name
computed through `inspect.getattr_static`, `type.__getattribute__`, `object.__getattribute__`
or `functools.reduce(getattr, ...)` (`computednames.getattr_args`, `RUNNING`); a finder
module's constant changed by the module itself through `sys._getframe().f_globals`, a
function's `__globals__`, `inspect.getattr_static` or `object.__getattribute__`
(`finders.module_constants`); and one changed by another module through
`inspect.getattr_static`, `pkgutil.resolve_name` or `string.Formatter().get_field` of a name
spelt in two parts (`hookwords`), or named in a string of the module itself
(`pkgutil.resolve_name('demo_hook:MAPPING')`); a string annotation `typing.get_type_hints` or
`inspect.get_annotations` evaluates (`RUNNERS`); a class's `__dict__` written into a dict
(`d.update(x=H.__dict__)`) then read whole (`namespacereads.Spaces`); a function read by a
literal key through `.get`, `.pop`, `.setdefault` or a frame's `f_globals`, then called, which
was not followed (the key's name not read as called: `computednames.namespace_key`), and one
`functools.singledispatch`'s `register` evaluates the annotation of."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import LINE, kept_passes
from wheel.test_pth_hook_rebinding import FINDER, _fails

PUT = b"sys.meta_path.insert(0, F)\n"
GO = b"import sys\n\n\nclass H:\n    def go():\n        import demo_inner\n\n\n"
TAKEN = {
    "inspect.getattr_static": b"import inspect\ninspect.getattr_static(H, 'g' + chr(111))()\n",
    "type.__getattribute__": b"type.__getattribute__(H, 'g' + chr(111))()\n",
    "object.__getattribute__": b"object.__getattribute__(H, 'g' + chr(111))()\n",
    "functools.reduce(getattr)": (
        b"import functools\nfunctools.reduce(getattr, ['g' + chr(111)], H)()\n"
    ),
}


@pytest.mark.parametrize("taken", TAKEN.values(), ids=list(TAKEN))
def test_a_function_taken_by_a_computed_name_fails_its_body(tmp_path: Path, taken: bytes) -> None:
    _fails(tmp_path, {**LINE, "demo_hook.py": GO + taken})


OWN = {
    "f_globals": b"sys._getframe().f_globals['MAPPING']['sitecustomize'] = 1\n",
    "__globals__": b"(lambda: 0).__globals__['MAPPING']['sitecustomize'] = 1\n",
    "inspect.getattr_static": (
        b"import inspect\n\n"
        b"inspect.getattr_static(sys.modules[__name__], 'MAPPING')['sitecustomize'] = 1\n"
    ),
    "object.__getattribute__": (
        b"object.__getattribute__(sys.modules[__name__], 'MAPPING')['sitecustomize'] = 1\n"
    ),
}


@pytest.mark.parametrize("own", OWN.values(), ids=list(OWN))
def test_a_finder_constant_the_module_changes_unnamed_fails_its_branch(
    tmp_path: Path, own: bytes
) -> None:
    _fails(tmp_path, {**LINE, "demo_hook.py": FINDER + own + PUT})


EACH = b"for k in ('sitecustomize', 'linecache'):\n    "
OTHER = {
    "inspect.getattr_static": b"import inspect\nimport sys\n\n"
    + EACH
    + b"inspect.getattr_static(sys.modules['demo_hook'], 'MAP' + 'PING')[k] = 1\n",
    "pkgutil.resolve_name": b"import pkgutil\n\n"
    + EACH
    + b"pkgutil.resolve_name('demo_hook:MAP' + 'PING')[k] = 1\n",
    "string.Formatter().get_field": b"import string\nimport sys\n\nm = [sys.modules['demo_hook']]\n"
    + EACH
    + b"string.Formatter().get_field('0.MAP' + 'PING', m, {})[0][k] = 1\n",
}


@pytest.mark.parametrize("other", OTHER.values(), ids=list(OTHER))
def test_a_finder_constant_another_module_changes_unnamed_fails_its_branch(
    tmp_path: Path, other: bytes
) -> None:
    kept = {
        "demo.pth": b"import demo_hook, demo_other\n",
        "demo_hook.py": FINDER + PUT,
        "demo_other.py": other,
    }
    _fails(tmp_path, kept)


def test_an_attribute_taken_by_a_literal_name_passes(tmp_path: Path) -> None:
    hook = (
        GO + b"import inspect\n\ninspect.getattr_static(sys, 'flags')\n"
        b"object.__getattribute__(sys, 'flags')\nsys.__getattribute__('flags')\n"
    )
    kept_passes(tmp_path, {**LINE, "demo_hook.py": hook})


EVALUATED = {
    "typing.get_type_hints": b"import typing\n\n\ndef f(x: \"__import__('demo_' + 'inner')\"):\n"
    b"    pass\n\n\ntyping.get_type_hints(f)\n",
    "inspect.get_annotations": b"import inspect\n\n\ndef f(x: \"__import__('demo_' + 'inner')\"):\n"
    b"    pass\n\n\ninspect.get_annotations(f, eval_str=True)\n",
}


@pytest.mark.parametrize("evaluated", EVALUATED.values(), ids=list(EVALUATED))
def test_a_string_annotation_evaluated_fails_what_it_imports(
    tmp_path: Path, evaluated: bytes
) -> None:
    _fails(tmp_path, {**LINE, "demo_hook.py": evaluated})


def test_a_namespace_written_into_another_then_read_whole_fails(tmp_path: Path) -> None:
    read = b"d = {}\nd.update(x=H.__dict__)\n[v() for v in list(d['x'].values()) if callable(v)]\n"
    _fails(tmp_path, {**LINE, "demo_hook.py": GO + read})


def test_a_finder_constant_its_module_names_in_a_string_fails_its_branch(tmp_path: Path) -> None:
    own = b"import pkgutil\n\npkgutil.resolve_name('demo_hook:MAPPING')['sitecustomize'] = 1\n"
    _fails(tmp_path, {**LINE, "demo_hook.py": FINDER + own + PUT})


GO_TOP = b"import sys\n\n\ndef _go():\n    import demo_inner\n\n\n"
KEYED = {
    "`__dict__.get`": GO + b"H.__dict__.get('go')()\n",
    "`vars(...).get`": GO + b"vars(H).get('go')()\n",
    "`globals().get`": GO_TOP + b"globals().get('_go')()\n",
    "`globals().pop`": GO_TOP + b"globals().pop('_go')()\n",
    "`globals().setdefault`": GO_TOP + b"globals().setdefault('_go', None)()\n",
    "a frame's `f_globals`": GO_TOP + b"sys._getframe(0).f_globals['_go']()\n",
    "`functools.singledispatch`": b"import functools\n\n\n@functools.singledispatch\n"
    b"def f(x):\n    pass\n\n\n@f.register\ndef _(x: \"__import__('demo_' + 'inner')\"):\n"
    b"    pass\n",
}


@pytest.mark.parametrize("keyed", KEYED.values(), ids=list(KEYED))
def test_a_function_read_by_a_literal_key_and_called_fails_its_body(
    tmp_path: Path, keyed: bytes
) -> None:
    _fails(tmp_path, {**LINE, "demo_hook.py": keyed})
