"""The `.pth` files people ship, and the modules they import, in their shapes: kept, with a
module they do not import changed, each passes (no W702). A name computed at run time reaches
every module of the wheel (`test_pth_hook_computed.py`); these compute names only where no code
runs at start (a meta path finder's `find_spec`, for names no start imports: its branches for
the names asked at start are certain, `test_pth_hook_finders.py`), or not at all, so the rule
leaves them as they were. Checked on the wheels themselves too (hooks72: `audit` of setuptools
84.2.1, coverage 7.18.0, pywin32 312, protobuf 3.20.3 and matplotlib 3.3.4 listed the same
modules run before and after; hooks73: `wheels` of each against itself, and of setuptools
75.1.0, listed the same surfaces before and after the decorator, finder and folding rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import CHANGED
from wheel.test_pth_imports import PRECEDENCE, _pair
from wheel.test_pth_leaving_site import _runs_in_a_venv, _w702

DISTUTILS_HACK = b"""\
import sys
import os


def enabled():
    return os.environ.get('SETUPTOOLS_USE_DISTUTILS', 'local') == 'local'


class DistutilsMetaFinder:
    def find_spec(self, fullname, path, target=None):
        method_name = 'spec_for_{fullname}'.format(**locals())
        method = getattr(self, method_name, lambda: None)
        return method()

    def spec_for_distutils(self):
        import importlib
        mod = importlib.import_module('setuptools._distutils')
        return importlib.util.spec_from_loader('distutils', None, origin=mod.__file__)

    def spec_for_sensitive_tests(self):
        self.spec_for_distutils = lambda: None

    sensitive_tests = ['test.test_distutils']


for name in DistutilsMetaFinder.sensitive_tests:
    setattr(DistutilsMetaFinder, f'spec_for_{name}', DistutilsMetaFinder.spec_for_sensitive_tests)

DISTUTILS_FINDER = DistutilsMetaFinder()


def add_shim():
    DISTUTILS_FINDER in sys.meta_path or insert_shim()


def insert_shim():
    sys.meta_path.insert(0, DISTUTILS_FINDER)
"""

NSPKG = (  # setuptools' `-nspkg.pth` template, as protobuf 3.20 ships it for `google`
    b"import sys, types, os;has_mfs = sys.version_info > (3, 5);"
    b"p = os.path.join(sys._getframe(1).f_locals['sitedir'], *('demo_ns',));"
    b"importlib = has_mfs and __import__('importlib.util');"
    b"has_mfs and __import__('importlib.machinery');"
    b"m = has_mfs and sys.modules.setdefault('demo_ns', importlib.util.module_from_spec("
    b"importlib.machinery.PathFinder.find_spec('demo_ns', [os.path.dirname(p)])));"
    b"m = m or sys.modules.setdefault('demo_ns', types.ModuleType('demo_ns'));"
    b"mp = (m or []) and m.__dict__.setdefault('__path__',[]);(p not in mp) and mp.append(p)\n"
)
OLD_NSPKG = (  # the template before importlib (matplotlib's `mpl_toolkits` in its 3.3 wheels)
    b"import sys, types, os;p = os.path.join(sys._getframe(1).f_locals['sitedir'], "
    b"*('demo_ns',));ie = os.path.exists(os.path.join(p,'__init__.py'));"
    b"m = not ie and sys.modules.setdefault('demo_ns', types.ModuleType('demo_ns'));"
    b"mp = (m or []) and m.__dict__.setdefault('__path__',[]);(p not in mp) and mp.append(p)\n"
)

VIRTUALENV = b"""\
import os
import sys

_DISTUTILS_PATCH = "distutils.dist", "setuptools.dist"


class _Finder:
    fullname = None
    lock = []

    def find_spec(self, fullname, path, target=None):
        if fullname in _DISTUTILS_PATCH and self.fullname is None:
            from importlib.util import find_spec

            self.fullname = fullname
            try:
                spec = find_spec(fullname, path)
            finally:
                self.fullname = None
            old = getattr(spec.loader, "exec_module", None)
            return spec

    @staticmethod
    def exec_module(old, module):
        old(module)


sys.meta_path.insert(0, _Finder())
"""

EDITABLE_FINDER = b"""\
import sys
from importlib.machinery import ModuleSpec, PathFinder
from importlib.machinery import all_suffixes as module_suffixes
from importlib.util import spec_from_file_location
from itertools import chain
from pathlib import Path

MAPPING = {'demo': '/src/demo'}
NAMESPACES = {}
PATH_PLACEHOLDER = '__editable__.demo-1.0.finder' + ".__path_hook__"


class _EditableFinder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname in MAPPING:
            return cls._find_spec(fullname, Path(MAPPING[fullname]))
        parent, _, child = fullname.rpartition(".")
        if parent and parent in MAPPING:
            return PathFinder.find_spec(fullname, path=[MAPPING[parent]])
        return None

    @classmethod
    def _find_spec(cls, fullname, candidate_path):
        init = candidate_path / "__init__.py"
        candidates = (candidate_path.with_suffix(x) for x in module_suffixes())
        for candidate in chain([init], candidates):
            if candidate.exists():
                return spec_from_file_location(fullname, candidate)
        return None


class _EditableNamespaceFinder:
    @classmethod
    def _path_hook(cls, path):
        if path == PATH_PLACEHOLDER:
            return cls
        raise ImportError


def install():
    if not any(finder == _EditableFinder for finder in sys.meta_path):
        sys.meta_path.append(_EditableFinder)
    if not NAMESPACES:
        return
    if not any(hook == _EditableNamespaceFinder._path_hook for hook in sys.path_hooks):
        sys.path_hooks.append(_EditableNamespaceFinder._path_hook)
"""

PYWIN32_BOOTSTRAP = b"""\
try:
    import pywin32_system32
except ImportError:
    pass
else:
    import os

    for path in pywin32_system32.__path__:
        if os.path.isdir(path):
            os.add_dll_directory(path)
            break
"""

COVERAGE_LINE = (
    b'import sys; exec(\'import os\\n\\nif os.getenv("COVERAGE_PROCESS_START") or '
    b'os.getenv("COVERAGE_PROCESS_CONFIG"):\\n try:\\n  import coverage\\n except:\\n  pass\\n'
    b' else:\\n  coverage.process_startup(slug="pth")\')\n'
)
COVERAGE = b"""\
import os


def process_startup(slug=None):
    if not os.getenv("COVERAGE_PROCESS_START"):
        return None
    from coverage.control import Coverage
    return Coverage()
"""

HOOKS = {
    "setuptools' distutils-precedence.pth": {
        "distutils-precedence.pth": PRECEDENCE,
        "_distutils_hack/__init__.py": DISTUTILS_HACK,
    },
    "a -nspkg.pth namespace line": {"demo_ns-1.0-py3.11-nspkg.pth": NSPKG, "demo_ns/x.py": b""},
    "an older -nspkg.pth line": {"demo_ns-1.0-py3.8-nspkg.pth": OLD_NSPKG, "demo_ns/x.py": b""},
    "virtualenv's _virtualenv.pth": {
        "_virtualenv.pth": b"import _virtualenv\n",
        "_virtualenv.py": VIRTUALENV,
    },
    "an editable install's finder": {
        "__editable__.demo-1.0.pth": b"import __editable___demo_1_0_finder; "
        b"__editable___demo_1_0_finder.install()\n",
        "__editable___demo_1_0_finder.py": EDITABLE_FINDER,
    },
    "pywin32.pth": {
        "pywin32.pth": b"# .pth file for the PyWin32 extensions\nwin32\nwin32\\lib\nPythonwin\n"
        b"# And some hackery to deal with environments where the post_install script\n"
        b"# isn't run.\nimport pywin32_bootstrap\n",
        "win32/lib/pywin32_bootstrap.py": PYWIN32_BOOTSTRAP,
    },
    "coverage's a1_coverage.pth": {
        "a1_coverage.pth": COVERAGE_LINE,
        "coverage/__init__.py": COVERAGE,
        "coverage/control.py": b"class Coverage:\n    pass\n",
    },
}


@pytest.mark.parametrize("kept", HOOKS.values(), ids=list(HOOKS))
def test_a_real_hook_kept_with_an_unrelated_module_changed_passes(
    tmp_path: Path, kept: dict[str, bytes]
) -> None:
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert not _runs_in_a_venv(tmp_path, new)
    assert code == 0, report["findings"]
    assert not _w702(report)
    surfaces = {s["key"]: s["summary"] for s in report["execution_surfaces"]["patch"]}
    assert not any("any module" in summary for summary in surfaces.values()), surfaces
