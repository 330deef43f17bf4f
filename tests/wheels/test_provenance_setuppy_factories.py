"""`wheels --source`: a ``setup`` an installed package makes, or command classes it returns.

jupyter_packaging's ``setup(cmdclass=create_cmdclass("js"))`` and
``cmdclass=wrap_installers(post_develop=npm_builder())``, ``from cmake_setup import setup`` and
cmake-build-extension's ``setup(**c.kwargs())`` each passed a wheel keeping the file the
package's CMake installs over, exit 0 (review79d: the names are only called). Each now stops,
exit 2, naming ``setup.py``, its line and the package.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _stopped_at
from .test_provenance_cmake_unread import _passes_with
from .test_provenance_setuppy_cmake import SETUPTOOLS
from .test_provenance_setuppy_nested_imports import HEAD, _repo

KW = b'name="pkg", packages=["pkg", "pkg.sub"], package_dir={"": "src"}'
JP = b"from jupyter_packaging import create_cmdclass, wrap_installers, npm_builder\n"
SHAPES = {
    "create_cmdclass": (
        HEAD + JP + b"setup(" + KW + b", cmdclass=create_cmdclass('js'))\n",
        "setup.py line 4: cmdclass is create_cmdclass('js'), made by jupyter_packaging; "
        "jupyter_packaging is a package the commit holds no file of",
    ),
    "wrap_installers": (
        HEAD + JP + b"setup(" + KW + b", cmdclass=wrap_installers(post_develop=npm_builder()))\n",
        "setup.py line 4: cmdclass is wrap_installers(post_develop=npm_builder()), made by "
        "jupyter_packaging;",
    ),
    "a mapping by name": (
        HEAD + JP + b"cmds = create_cmdclass('js')\nsetup(" + KW + b", cmdclass=cmds)\n",
        "setup.py line 4: cmdclass is create_cmdclass('js'), made by jupyter_packaging;",
    ),
    "an entry": (
        HEAD + JP + b"setup(" + KW + b", cmdclass={'develop': wrap_installers()})\n",
        "setup.py line 4: cmdclass is wrap_installers(), made by jupyter_packaging;",
    ),
    "inside a mapping": (
        HEAD + JP + b"setup(" + KW + b", cmdclass={**create_cmdclass('js'), 'x': dict})\n",
        "setup.py line 4: cmdclass is create_cmdclass('js'), made by jupyter_packaging;",
    ),
    "a branch": (
        HEAD + JP + b"setup(" + KW + b", cmdclass=create_cmdclass() if os.name else {})\n",
        "setup.py line 4: cmdclass is create_cmdclass(), made by jupyter_packaging;",
    ),
    "an update": (
        HEAD + JP + b"c = {}\nc.update(create_cmdclass())\nsetup(" + KW + b", cmdclass=c)\n",
        "setup.py line 5: cmdclass is create_cmdclass(), made by jupyter_packaging;",
    ),
    "in a ** mapping": (
        HEAD + JP + b"setup(" + KW + b", **{'version': '1', 'cmdclass': create_cmdclass()})\n",
        "setup.py line 4: a ** mapping of setup is create_cmdclass(), made by jupyter_packaging;",
    ),
    "setup from an installed package": (
        b"from cmake_setup import setup\nsetup(" + KW + b")\n",
        "setup.py line 2: setup is called, from cmake_setup; cmake_setup is a package the "
        "commit holds no file of",
    ),
    "its setup as an attribute": (
        b"import cmake_setup as cs\ncs.setup(" + KW + b")\n",
        "setup.py line 2: setup is called, from cmake_setup;",
    ),
    "a ** mapping": (
        HEAD + b"import cmake_build_extension as c\nsetup(**c.kwargs())\n",
        "setup.py line 4: a ** mapping of setup is c.kwargs(), made by cmake_build_extension; "
        "cmake_build_extension is a package the commit holds no file of",
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_setup_or_command_classes_an_installed_package_makes_stop(
    tmp_path: Path, shape: str
) -> None:
    setup_py, said = SHAPES[shape]

    stopped = _stopped_at(tmp_path, _repo(tmp_path, {"setup.py": setup_py}), REVERTED)

    assert said in stopped
    assert "(it comes from the build's environment, if there at all), so k3diff reads" in stopped


def test_calls_giving_other_keywords_or_known_setups_still_check(tmp_path: Path) -> None:
    """``version=get_version()``, ``ext_modules=mypycify(…)``, ``find_packages()``,
    setuptools-scm's keyword, ``setup`` of setuptools or distutils by any spelling, a
    ``cmdclass`` a module of the project makes, and versioneer's ``get_cmdclass()`` of an
    installed versioneer (no ``versioneer.py`` in the commit)."""
    setup_py = (
        b"import setuptools\nimport distutils.core\nfrom setuptools import find_packages\n"
        b"from mypyc.build import mypycify\nfrom pkg_version import get_version\n"
        b"import versioneer\nfrom helpers import cmds\nfrom jupyter_packaging import describe\nif 0:\n    distutils.core.setup()\n"
        b"setuptools.setup(" + KW + b", version=get_version(), ext_modules=mypycify([]),\n"
        b"    use_scm_version=True, cmdclass={**versioneer.get_cmdclass(), **cmds()},\n"
        b"    install_requires=find_packages(), **{'description': describe()})\n"
    )
    helpers = b"def cmds():\n    return {}\n"
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py, "helpers.py": helpers})


FACTORIES = {
    "a ** mapping a function of setup.py returns": (
        HEAD + JP + b"def kwargs():\n    return {'cmdclass': create_cmdclass('js')}\n"
        b"setup(" + KW + b", **kwargs())\n",
        "setup.py line 5: a ** mapping of setup is create_cmdclass('js'), made by "
        "jupyter_packaging;",
    ),
    "cmdclass a function returns by a name": (
        HEAD + JP + b"def cmds():\n    c = wrap_installers()\n    return c\n"
        b"setup(" + KW + b", cmdclass=cmds())\n",
        "setup.py line 5: cmdclass is wrap_installers(), made by jupyter_packaging;",
    ),
    "a function calling a function": (
        HEAD + JP + b"def inner():\n    return create_cmdclass()\n"
        b"def outer():\n    return dict(inner())\nsetup(" + KW + b", cmdclass=outer())\n",
        "setup.py line 5: cmdclass is create_cmdclass(), made by jupyter_packaging;",
    ),
}


@pytest.mark.parametrize("shape", list(FACTORIES), ids=list(FACTORIES))
def test_what_a_function_of_setup_py_returns_is_read(tmp_path: Path, shape: str) -> None:
    """``setup(**kwargs())`` or ``cmdclass=cmds()`` of a function ``setup.py`` defines, which
    returns what an installed package's factory makes: each passed, exit 0, the call of the
    project's own function not read (cython80)."""
    setup_py, said = FACTORIES[shape]

    stopped = _stopped_at(tmp_path, _repo(tmp_path, {"setup.py": setup_py}), REVERTED)

    assert said in stopped


def test_a_function_of_setup_py_returning_known_classes_still_checks(tmp_path: Path) -> None:
    """Cython 3.2.1's shape: a function of ``setup.py`` building ``setup``'s keywords from
    setuptools' classes and the project's own, recursion included."""
    setup_py = HEAD + (
        b"from setuptools.command.sdist import sdist\n"
        b"def cmds(n=0):\n    if n:\n        return cmds(n - 1)\n"
        b"    return {'sdist': sdist}\n"
        b"def kwargs():\n    return {'cmdclass': cmds(2), 'version': describe()}\n"
        b"def describe():\n    return '1.0'\n"
        b"setup(" + KW + b", **kwargs())\n"
    )
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py})


HELPER = b"from jupyter_packaging import create_cmdclass\n"
PROJECT = {
    "a function of a project module by name": (
        {
            "setup.py": HEAD + b"from helpers import kwargs\nsetup(" + KW + b", **kwargs())\n",
            "helpers.py": HELPER
            + b"def kwargs():\n    return {'cmdclass': create_cmdclass('js')}\n",
        },
        "helpers.py line 3 (kwargs(), which setup.py line 4 gives setup): a ** mapping of setup "
        "is create_cmdclass('js'), made by jupyter_packaging; jupyter_packaging is a package "
        "the commit holds no file of",
    ),
    "an attribute of a module of a package": (
        {
            "setup.py": HEAD + b"from tools import helpers\nsetup(" + KW + b", "
            b"cmdclass=helpers.cmds())\n",
            "tools/__init__.py": b"",
            "tools/helpers.py": b"from . import made\ndef cmds():\n    return made.cmds()\n",
            "tools/made.py": HELPER + b"C = create_cmdclass('js')\ndef cmds():\n    return C\n",
        },
        "tools/made.py line 2 (helpers.cmds(), which setup.py line 4 gives setup): cmdclass is "
        "create_cmdclass('js'), made by jupyter_packaging;",
    ),
    "a mapping a project module binds": (
        {
            "setup.py": HEAD + b"import helpers\nsetup(" + KW + b", cmdclass=helpers.CMDS)\n",
            "helpers.py": HELPER + b"CMDS = create_cmdclass('js')\n",
        },
        "helpers.py line 2 (helpers.CMDS, which setup.py line 4 gives setup): cmdclass is "
        "create_cmdclass('js'), made by jupyter_packaging;",
    ),
    "a function it does not define": (
        {
            "setup.py": HEAD + b"import helpers\nsetup(" + KW + b", **helpers.kwargs())\n",
            "helpers.py": HELPER + b"from functools import partial\n"
            b"def make(n):\n    return {'cmdclass': create_cmdclass(n)}\nkwargs = partial(make, 'js')\n",
        },
        "setup.py line 4: a ** mapping of setup is helpers.kwargs(), which the project's "
        "helpers returns: kwargs is no function it defines or imports, not read, and may",
    ),
    "a lambda it binds": (
        {
            "setup.py": HEAD + b"import helpers\nsetup(" + KW + b", **helpers.kwargs())\n",
            "helpers.py": HELPER + b"kwargs = lambda: {'cmdclass': create_cmdclass('js')}\n",
        },
        "helpers.py line 2 (helpers.kwargs(), which setup.py line 4 gives setup): a ** mapping "
        "of setup is create_cmdclass('js'), made by jupyter_packaging;",
    ),
    "a lambda of setup.py": (
        {
            "setup.py": HEAD + HELPER + b"kwargs = lambda: {'cmdclass': create_cmdclass('js')}\n"
            b"setup(" + KW + b", **kwargs())\n",
        },
        "setup.py line 4: a ** mapping of setup is create_cmdclass('js'), made by "
        "jupyter_packaging;",
    ),
    "import *": (
        {
            "setup.py": HEAD + b"from helpers import *\nsetup(" + KW + b", **kwargs())\n",
            "helpers/__init__.py": b"from .impl import *\n",
            "helpers/impl.py": HELPER
            + b"def kwargs():\n    return {'cmdclass': create_cmdclass()}\n",
        },
        "helpers/impl.py line 3 (kwargs(), which setup.py line 4 gives setup): a ** mapping of "
        "setup is create_cmdclass(), made by jupyter_packaging;",
    ),
    "a module import * binds": (
        {
            "setup.py": HEAD
            + b"from helpers import *\nsetup("
            + KW
            + b", **jp.create_cmdclass())\n",
            "helpers.py": b"import jupyter_packaging as jp\nVERSION = jp.describe()\n",
        },
        "helpers.py line 1 (jp.create_cmdclass(), which setup.py line 4 gives setup): a ** "
        "mapping of setup is jp.create_cmdclass(), made by jupyter_packaging;",
    ),
    "a computed name": (
        {
            "setup.py": HEAD + b"import helpers\nsetup(" + KW + b", **getattr(helpers, 'kw')())\n",
            "helpers.py": HELPER + b"def kw():\n    return {'cmdclass': create_cmdclass('js')}\n",
        },
        "setup.py line 4: a ** mapping of setup is getattr(helpers, 'kw')(), which the "
        "project's helpers gives by a computed name, not read, and may",
    ),
}


@pytest.mark.parametrize("shape", list(PROJECT), ids=list(PROJECT))
def test_what_a_project_module_returns_or_binds_is_read(tmp_path: Path, shape: str) -> None:
    """``from helpers import kwargs; setup(**kwargs())`` with ``helpers.py`` returning
    ``{"cmdclass": create_cmdclass("js")}``, and its shapes: each passed, exit 0 (cython80's
    left pass, review80c); a call of the project's module not read stops."""
    files, said = PROJECT[shape]

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert said in stopped


def test_what_a_project_module_returns_of_known_classes_still_checks(tmp_path: Path) -> None:
    """A project module's function returning setuptools' classes, its own, another module's
    (a relative import, a re-export, ``import *`` of one, a builtin ``import *`` leaves alone)
    and an installed package's values of other keywords."""
    files = {
        "setup.py": HEAD
        + b"import tools.helpers as h\nfrom tools import kwargs\nfrom star import *\n"
        b"setup(" + KW + b", cmdclass=h.cmds(), **kwargs(), **dict(sorted({})), **more())\n",
        "tools/__init__.py": b"from .helpers import kwargs\n",
        "tools/helpers.py": b"from setuptools.command.sdist import sdist\n"
        b"from jupyter_packaging import describe\nfrom .more import more\n"
        b"def cmds():\n    return {'sdist': sdist, **more()}\n"
        b"def kwargs():\n    return {'cmdclass': cmds(), 'version': describe()}\n",
        "tools/more.py": b"class Mine:\n    pass\ndef more():\n    return {'mine': Mine}\n",
        "star.py": b"from tools.more import *\n",
    }
    _passes_with(tmp_path / "a", SETUPTOOLS, **files)
