"""`wheels --source`: a command class of an installed package reaching ``setup`` by more than
a literal ``cmdclass`` mapping naming it.

A ``setup.py`` subclassing cmake-build-extension's ``BuildExtension``, binding its mapping to a
name or setting an item, importing ``*`` of it, or a module of the project importing it for
``setup.py`` or ``setup.cfg`` to name: each passed a wheel keeping the file its CMake installs
over, exit 0 (review78f). Each now stops, exit 2, naming the module, its line and the package.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _stopped_at
from .test_provenance_cmake_unread import SETUP_PY, _passes_with
from .test_provenance_config_stops import SETUP_CFG
from .test_provenance_setuppy_cmake import SETUPTOOLS
from .test_provenance_setuppy_nested_imports import HEAD, _repo

CBE = b"from cmake_build_extension import BuildExtension\n"
CALL = b'setup(name="pkg", packages=["pkg", "pkg.sub"], package_dir={"": "src"}, cmdclass=%s)\n'
NAMED = SETUP_CFG + b"cmdclass =\n    build_ext = helpers.Build\n"
SHAPES = {
    "a subclass": (
        {"setup.py": HEAD + CBE + b"class B(BuildExtension):\n    pass\n" + CALL % b"{'b': B}"},
        "setup.py line 4: BuildExtension, from cmake_build_extension, is used as a value, not "
        "only called; cmake_build_extension is a package the commit holds no file of",
    ),
    "a mapping by name": (
        {"setup.py": HEAD + CBE + b"CMDS = {'build_ext': BuildExtension}\n" + CALL % b"CMDS"},
        "setup.py line 4: BuildExtension, from cmake_build_extension, is used as a value",
    ),
    "an item set": (
        {"setup.py": HEAD + CBE + b"c = {}\nc['build_ext'] = BuildExtension\n" + CALL % b"c"},
        "setup.py line 5: BuildExtension, from cmake_build_extension, is used as a value",
    ),
    "import *": (
        {"setup.py": HEAD + b"from cmake_build_extension import *\n" + CALL % b"{'b': B}"},
        "setup.py line 3: *, from cmake_build_extension, is imported entirely; "
        "cmake_build_extension is a package the commit holds no file of",
    ),
    "__import__": (
        {"setup.py": HEAD + b"B = __import__('cmake_build_extension').B\n" + CALL % b"{'b': B}"},
        "setup.py line 3: cmake_build_extension, from cmake_build_extension, is imported by "
        "name; cmake_build_extension is a package the commit holds no file of (it comes from "
        "the build's environment, if there at all)",
    ),
    "a module importing it": (
        {
            "setup.py": HEAD + b"from helpers import BuildExtension as B\n" + CALL % b"{'b': B}",
            "helpers.py": CBE,
        },
        "helpers.py (which setup.py imports) line 1: BuildExtension, from "
        "cmake_build_extension, is imported and not used (another module may); "
        "cmake_build_extension is a package the commit holds no file of",
    ),
    "a module named numpy": (
        {
            "setup.py": HEAD + b"from numpy.x import B\n" + CALL % b"{'b': B}",
            "numpy/__init__.py": b"",
            "numpy/x.py": b"from cmake_build_extension import BuildExtension as B\n",
        },
        "numpy/x.py (which setup.py imports) line 1: B, from cmake_build_extension, is",
    ),
    "setup.cfg's, imported": (
        {"setup.py": HEAD + SETUP_PY, "setup.cfg": NAMED, "helpers.py": CBE},
        "helpers.py (which setup.cfg [options] cmdclass names) line 1: BuildExtension, from "
        "cmake_build_extension, is imported and not used (another module may); "
        "cmake_build_extension is a package the commit holds no file of",
    ),
    "setup.cfg's, a subclass": (
        {
            "setup.py": HEAD + SETUP_PY,
            "setup.cfg": NAMED,
            "helpers.py": b"import cmake_build_extension as c\nclass Build(c.BuildExtension):\n"
            b"    pass\n",
        },
        "helpers.py (which setup.cfg [options] cmdclass names) line 2: c, from "
        "cmake_build_extension, is used as a value, not only called; cmake_build_extension is "
        "a package the commit holds no file of",
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_an_installed_command_class_passed_on_stops_the_check(tmp_path: Path, shape: str) -> None:
    files, said = SHAPES[shape]

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert said in stopped
    assert (
        "(it comes from the build's environment, if there at all), so k3diff reads none of its code, which may run"
        in stopped
    )
    assert "CMake that installs files into the wheel: " in stopped
    assert "not read, and may run CMake" not in stopped  # stop 78's line, read as the module unread


def test_installed_packages_called_or_known_still_check(tmp_path: Path) -> None:
    """A function or class of an installed package called (``Version(…)``, ``tomli.loads``),
    an optional one tested (zstandard's ``if CFFI_BACKEND and cffi:``,
    ``cffi.__version__``), the standard
    library's names as values, and versioneer's subclass of cx_Freeze's
    ``build_exe`` (llvmlite's ``versioneer.py``)."""
    setup_py = HEAD + (
        b"import tomli\nfrom packaging.version import Version\nfrom os import path\n"
        b"import versioneer\nassert Version('1.0') and tomli.loads('') == {}\nP = path\n"
        b"try:\n    import cffi, pythran\nexcept ImportError:\n    cffi = pythran = None\n"
        b"if os and cffi and not pythran is None:\n    print(str(cffi.__version__))\n"
        b"C = versioneer.get_cmdclass()\n" + CALL % b"C"
    )
    versioneer = (
        b"import sys\nfrom setuptools.command.build_py import build_py\n"
        b"def get_cmdclass():\n    cmds = {'build_py': build_py}\n"
        b"    if 'cx_Freeze' in sys.modules:\n"
        b"        from cx_Freeze.dist import build_exe as _build_exe\n"
        b"        class cmd_build_exe(_build_exe):\n            pass\n"
        b"        cmds['build_exe'] = cmd_build_exe\n    return cmds\n"
    )
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py, "versioneer.py": versioneer})


def test_python_2_fallbacks_still_check(tmp_path: Path) -> None:
    """Python 2 standard-library modules a module imports where Python 3 never runs it: six's
    ``else: import StringIO`` of ``if PY3:`` (six.py, which ``setup.py`` imports for its
    version), pytz's ``except ImportError: from UserDict import DictMixin`` and old
    versioneer's ``import ConfigParser as configparser``. Each stopped the run (exit 2), a false
    hold on six 1.17.0, pytz 2025.2 and toolz 1.0.0 (newuser78b)."""
    setup_py = HEAD + b"import helpers\nimport versioneer\n" + CALL % b"{}"
    helpers = (
        b"import sys\nPY3 = sys.version_info[0] == 3\nif PY3:\n    import io as StringIO\n"
        b"else:\n    import StringIO\nBuffer = StringIO.StringIO\n"
        b"try:\n    from collections.abc import Mapping as DictMixin\n"
        b"except ImportError:\n    from UserDict import DictMixin\n"
        b"class Lazy(DictMixin):\n    pass\n"
    )
    versioneer = (
        b"try:\n    import configparser\nexcept ImportError:\n"
        b"    import ConfigParser as configparser\nP = configparser.ConfigParser\n"
    )
    files = {"setup.py": setup_py, "helpers.py": helpers, "versioneer.py": versioneer}
    _passes_with(tmp_path / "a", SETUPTOOLS, **files)


def test_cython_3_2_1_shapes_still_check(tmp_path: Path) -> None:
    """What Cython 3.2.1's ``setup.py`` imports of its own compiler passes on: 3.14's
    ``compression.zstd`` (``partial(zstd_compress, …)``, in ``try:``; a standard library
    module the Python running k3diff may lack), ``import __main__`` (pyximport), IPython's
    ``Magics`` subclassed (``Cython/Build/IpythonMagic.py``) and ``pythran.tables.MODULES``.
    Each stopped the run (exit 2), a false hold on Cython 3.2.1's sdist and wheels
    (cython80)."""
    setup_py = HEAD + b"import helpers\n" + CALL % b"{}"
    helpers = (
        b"from functools import partial\n"
        b"try:\n    from compression.zstd import compress as zstd_compress\n"
        b"except ImportError:\n    zstd_compress = None\n"
        b"else:\n    zstd_compress = partial(zstd_compress, options={})\n"
        b"import __main__\nMAIN = __main__\n"
        b"from IPython.core.magic import Magics\nclass CythonMagics(Magics):\n    pass\n"
        b"try:\n    import pythran\nexcept ImportError:\n    pythran = None\n"
        b"def supported():\n    return pythran.tables.MODULES['numpy']\n"
    )
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py, "helpers.py": helpers})


@pytest.mark.parametrize("module", ["compression", "__main__", "IPython", "pythran", "imp"])
def test_each_cython_shape_stopped_before(
    tmp_path: Path, module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of those names alone, as a value: a package the commit holds no file of would stop
    (``tools_cmake`` below, the control), these do not (`OTHER_STDLIB`, `KNOWN`); ``imp``, which
    Python 3.12 removed, is the standard library's whichever Python runs k3diff (run here as
    a Python without it, whose ``sys.stdlib_module_names`` lacks it)."""
    monkeypatch.setattr(sys, "stdlib_module_names", sys.stdlib_module_names - {"imp"})
    helpers = b"import %s as m\nM = m\n" % module.encode()
    setup_py = HEAD + b"import helpers\n" + CALL % b"{}"
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py, "helpers.py": helpers})
    control = {"setup.py": setup_py, "helpers.py": b"import tools_cmake as m\nM = m\n"}
    stopped = _stopped_at(tmp_path / "b", _repo(tmp_path / "b", control), REVERTED)
    assert "helpers.py (which setup.py imports) line 2: m, from tools_cmake, is used" in stopped


@pytest.mark.parametrize("name", ["compression", "imp", "json"])
def test_a_module_of_the_commit_of_a_standard_library_name_is_read(
    tmp_path: Path, name: str
) -> None:
    """A repository's own ``compression/`` (3.14's standard library), ``imp.py`` (3.12 removed
    it) or ``json.py``: ``setup.py``'s directory is first on ``sys.path``, so the commit's file
    runs, and it is read as the project's, whatever the standard library holds (review80c:
    `OTHER_STDLIB` names no module the commit holds)."""
    file = f"{name}/__init__.py" if name == "compression" else f"{name}.py"
    files = {
        "setup.py": HEAD + b"from %s import B\n" % name.encode() + CALL % b"{'build_ext': B}",
        file: CBE + b"B = BuildExtension\n",
    }

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert f"{file} (which setup.py imports) line 2: BuildExtension, from " in stopped
    assert "cmake_build_extension, is used as a value, not only called;" in stopped


def test_an_exception_class_an_except_clause_names_still_checks(tmp_path: Path) -> None:
    """versioneer 0.29's vendored ``versioneer.py``: ``import tomli as tomllib`` (Python before
    3.11) and ``except (tomllib.TOMLDecodeError, KeyError) as e:``; a class an ``except``
    clause names is matched against, not passed on. It stopped the run, exit 2 (review80c: a
    false hold on every project vendoring it, whose ``get_cmdclass()`` is read)."""
    setup_py = HEAD + b"import versioneer\n" + CALL % b"versioneer.get_cmdclass()"
    versioneer = (
        b"try:\n    import tomllib\nexcept ImportError:\n    import tomli as tomllib\n"
        b"def get_cmdclass():\n    try:\n        pp = tomllib.load(open('pyproject.toml', 'rb'))\n"
        b"    except (tomllib.TOMLDecodeError, KeyError) as e:\n        pass\n"
        b"    except tomllib.TOMLDecodeError:\n        pass\n    return {}\n"
    )
    files = {"setup.py": setup_py, "versioneer.py": versioneer}
    _passes_with(tmp_path / "a", SETUPTOOLS, **files)
