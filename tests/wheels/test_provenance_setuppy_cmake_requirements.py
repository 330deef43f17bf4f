"""`wheels --source`: a ``setup.py`` naming CMake only as a requirement does not stop the check
(setupstop76); one that may run it still does.

``setup_requires=["cmake"]``, ``install_requires=["cmake >= 3.26"]`` and the like install PyPI's
``cmake`` package and run nothing, but any string whose first word was ``cmake`` stopped the
check, exit 2, as vLLM's ``cmake_build_ext`` does. A string held only as a requirement's data
(a list, a dict, a name nothing else reads) is now passed over; one that may reach a program's
command line (a call's argument, a name read elsewhere, a ``requires=`` of another function or
of the script's own ``setup``) still counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from k3diff.provenance.setuppycmake import cmake_line

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _repo, _stopped_at
from .test_provenance_cmake_unread import _passes_with
from .test_provenance_setuppy_cmake import CMAKE, SETUPTOOLS

HEAD = b"import os\nimport subprocess\nimport setuptools\nfrom setuptools import setup\n"
REQUIREMENTS = {
    "setup_requires": b'setup(name="pkg", setup_requires=["cmake"])\n',
    "a specifier": b'setup(name="pkg", install_requires=["cmake >= 3.26", "ninja"])\n',
    "a marker": b'setup(name="pkg", install_requires=["cmake; sys_platform == \'linux\'"])\n',
    "extras_require": b'setup(name="pkg", extras_require={"cmake": ["cmake"], "b": ["x"]})\n',
    "a name": b'REQUIRES = ["cmake", "ninja"]\nsetup(name="pkg", install_requires=REQUIRES)\n',
    "names added to": (
        b'BUILD = []\nBUILD.append("cmake")\nBUILD += ["cmake3"]\nALL = BUILD + ["ninja"]\n'
        b'setuptools.setup(name="pkg", setup_requires=ALL if True else [])\n'
    ),
}
RUNS = {
    "a name read by a call": (
        b'CMAKE = "cmake"\nsetup(name="pkg", setup_requires=[CMAKE])\n'
        b'subprocess.check_call([CMAKE, "--install", "."])\n'
    ),
    "a list read by a call": (
        b'REQS = ["cmake"]\nsetup(name="pkg", setup_requires=REQS)\n'
        b'subprocess.check_call(REQS + ["--install", "."])\n'
    ),
    "a list joined": (
        b'REQS = ["cmake"]\nsetup(name="pkg", setup_requires=REQS)\nos.system(" ".join(REQS))\n'
    ),
    "added to a command": b'cmd = []\ncmd.append("cmake")\nsubprocess.check_call(cmd)\n',
    "another function's requires": (
        b"def run(requires):\n    subprocess.check_call(requires)\n\n\n"
        b'run(requires=["cmake", "--install", "."])\n'
    ),
    "the script's own setup": (
        b"def setup(**kw):\n    subprocess.check_call(kw['setup_requires'])\n\n\n"
        b'setup(setup_requires=["cmake", "--install", "."])\n'
    ),
    "run inside a requirement": (
        b'setup(install_requires=[subprocess.check_call(["cmake", "--install", "."]) and "x"])\n'
    ),
    "read by name": b'REQS = ["cmake"]\nsetup(setup_requires=REQS)\nexec("import os")\n',
    "a requirement beside a run": (
        b'setup(name="pkg", setup_requires=["cmake"])\n'
        b'subprocess.check_call(["cmake", "--build", "."])\n'
    ),
}
RUN_BACK = b'subprocess.check_call(%s + ["--install", "."])\n'
READ_BACK = {  # review76f: each passed (None), exit 0, on setupstop76's merge
    "a command class reading its requirements back": (
        b"class B(build_ext):\n    def run(self):\n        "
        + RUN_BACK % b"self.distribution.setup_requires"
        + b'\n\nsetup(setup_requires=["cmake"], cmdclass={"build_ext": B})\n'
    ),
    "getattr": (
        b'setup(setup_requires=["cmake"])\n' + RUN_BACK % b'getattr(dist, "setup_" + "requires")'
    ),
    "a frame's globals": (
        b'REQS = ["cmake"]\nsetup(setup_requires=REQS)\n'
        + RUN_BACK % b'sys._getframe().f_globals["REQS"]'
    ),
    "the module's attribute": (
        b'REQS = ["cmake"]\nsetup(setup_requires=REQS)\n' + RUN_BACK % b"sys.modules[__name__].REQS"
    ),
    "a setup imported from the repository": (
        b'from build_helpers import setup\nsetup(requires=["cmake", "--install", "."])\n'
    ),
    "a star import": b'from build_helpers import *\nsetup(requires=["cmake", "--install", "."])\n',
    "another module's setup": (
        b'import build_helpers\nbuild_helpers.setup(requires=["cmake", "--install", "."])\n'
    ),
    "setuptools' setup replaced": (
        b"setuptools.setup = lambda **kw: subprocess.check_call(kw['requires'])\n"
        b'setuptools.setup(requires=["cmake", "--install", "."])\n'
    ),
    "setattr": (
        b'setattr(setuptools, "setup", lambda **kw: subprocess.check_call(kw["requires"]))\n'
        b'setuptools.setup(requires=["cmake", "--install", "."])\n'
    ),
    "a distribution installing its requirements": (
        b"class D(setuptools.Distribution):\n    def fetch_build_eggs(self, requires):\n"
        b"        subprocess.check_call(requires)\n\n\n"
        b'setup(distclass=D, setup_requires=["cmake", "--install", "."])\n'
    ),
    "a distribution reading its arguments": (
        b"class D(setuptools.Distribution):\n    def __init__(self, attrs):\n"
        b'        subprocess.check_call(attrs["install_requires"])\n\n\n'
        b'setup(distclass=D, install_requires=["cmake", "--install", "."])\n'
    ),
    "a distribution reading each argument": (
        b"class D(setuptools.Distribution):\n    def __init__(self, attrs):\n"
        b"        [subprocess.check_call(v) for v in attrs.values()]\n\n\n"
        b'setup(distclass=D, install_requires=["cmake", "--install", "."])\n'
    ),
    "inspect.getmembers": (
        b'setup(setup_requires=["cmake"])\n'
        + RUN_BACK % b'dict(inspect.getmembers(dist))["setup_" + "requires"]'
    ),
    "operator.attrgetter": (
        b'setup(setup_requires=["cmake"])\n'
        + RUN_BACK % b'operator.attrgetter("setup_" + "requires")(dist)'
    ),
}
READ_FIRST = {  # the line of the `cmake`, after HEAD's four and the two below
    "a command class reading its requirements back": 12,
    "getattr": 7,
    "a frame's globals": 7,
    "the module's attribute": 7,
    "a setup imported from the repository": 8,
    "a star import": 8,
    "another module's setup": 8,
    "setuptools' setup replaced": 8,
    "setattr": 8,
    "a distribution installing its requirements": 12,
    "a distribution reading its arguments": 12,
    "a distribution reading each argument": 12,
    "inspect.getmembers": 7,
    "operator.attrgetter": 7,
}
READ_HEAD = b"import sys\nfrom setuptools.command.build_ext import build_ext\n"
FIRST = {  # the line of the first string that may run CMake, after HEAD's four
    "a name read by a call": 5,
    "a list read by a call": 5,
    "a list joined": 5,
    "added to a command": 6,
    "another function's requires": 9,
    "the script's own setup": 9,
    "run inside a requirement": 5,
    "read by name": 5,
    "a requirement beside a run": 6,
}


@pytest.mark.parametrize("setup_py", list(REQUIREMENTS.values()), ids=list(REQUIREMENTS))
def test_cmake_as_a_requirement_names_no_program(setup_py: bytes) -> None:
    """Each shape stopped the check (a line) before; a requirement runs nothing."""
    assert cmake_line(ast.parse(HEAD + setup_py)) is None


@pytest.mark.parametrize("shape", list(RUNS), ids=list(RUNS))
def test_cmake_that_may_run_still_counts(shape: str) -> None:
    """A string a call, a command or an unread ``setup`` may take still names the program."""
    assert cmake_line(ast.parse(HEAD + RUNS[shape])) == FIRST[shape]


@pytest.mark.parametrize("shape", list(READ_BACK), ids=list(READ_BACK))
def test_cmake_read_back_from_a_requirement_still_counts(shape: str) -> None:
    """A requirement a command class or the script reads back, or a ``setup`` not
    setuptools', may be a command line: each passed before (None)."""
    assert cmake_line(ast.parse(HEAD + READ_HEAD + READ_BACK[shape])) == READ_FIRST[shape]


def test_a_setup_py_running_cmake_its_distribution_requires_stops(tmp_path: Path) -> None:
    """``setup_requires=["cmake"]`` run by a command class through
    ``self.distribution.setup_requires``: exit 2 (it was exit 0, the fix CMake installs never
    compared; review76f)."""
    setup_py = HEAD + READ_HEAD + READ_BACK["a command class reading its requirements back"]
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "setup.py runs CMake (line 12), whose CMake installs files" in said


def test_a_setup_py_requiring_cmake_checks(tmp_path: Path) -> None:
    """``setup_requires=["cmake"]`` beside a package the commit holds: exit 0 (it was exit 2,
    ``setup.py runs CMake (line 5)``)."""
    setup_py = HEAD + REQUIREMENTS["names added to"]
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py})


def test_a_setup_py_running_a_required_cmake_stops(tmp_path: Path) -> None:
    """The same requirement read by ``subprocess.check_call`` still stops the check."""
    setup_py = HEAD + RUNS["a list read by a call"]
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "setup.py runs CMake (line 5), whose CMake installs files" in said


@pytest.mark.parametrize("command", [b"cmake >= 3.26", b"cmake @ native"])
def test_a_specifier_run_as_a_command_stops(tmp_path: Path, command: bytes) -> None:
    """``os.system("cmake >= 3.26")`` configures the directory ``3.26``: a specifier outside a
    requirement may be a command line (review76f: exit 0, the specifier passed over anywhere)."""
    setup_py = HEAD + b'os.system("' + command + b'")\nsetup(name="pkg")\n'
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "setup.py runs CMake (line 5), whose CMake installs files" in said


@pytest.mark.parametrize(
    "lines",
    [
        [f"a{i}=[a{i + 1}]" for i in range(17_500)] + ["print(a17500)"],
        ["X=[" + "+".join(["a"] * 900) + "]"] * 70,
    ],
    ids=["a chain of names", "deep sums"],
)
def test_a_hostile_setup_py_is_read_in_linear_time(lines: list[str]) -> None:
    """256 KiB of names each read into the next took 58 s CPU, 128 KiB of 900-deep ``a+a+…``
    12 s (a pass per name dropped, a walk up per name): now well under a second or two. The
    time is measured (review76f), not asserted: no timing assertions in unit tests."""
    module = ast.parse(
        "from setuptools import setup\nsetup(setup_requires=['cmake'])\n" + "\n".join(lines)
    )
    assert cmake_line(module) is None


ALIASED = {
    "a module alias": b'import setuptools as st\nst.setup(name="pkg", setup_requires=["cmake"])\n',
    "distutils' core": (
        b'from distutils import core\ncore.setup(name="pkg", requires=["cmake >= 3.26"])\n'
    ),
    "setup by another name": (
        b'from setuptools import setup as build\nbuild(name="pkg", setup_requires=["cmake"])\n'
    ),
}
NOT_SETUPTOOLS = {
    "another module as setuptools": (
        b'import build_helpers as setuptools\nsetuptools.setup(requires=["cmake", "--install"])\n'
    ),
    "an alias bound again": (
        b'import setuptools as st\nimport build_helpers as st\nst.setup(requires=["cmake"])\n'
    ),
    "an alias assigned": (
        b'import setuptools as st\nst = build_helpers\nst.setup(requires=["cmake", "--install"])\n'
    ),
    "another module's setup by another name": (
        b'from build_helpers import setup as build\nbuild(requires=["cmake", "--install"])\n'
    ),
}


@pytest.mark.parametrize("setup_py", list(ALIASED.values()), ids=list(ALIASED))
def test_setuptools_setup_by_an_alias_requiring_cmake_checks(
    tmp_path: Path, setup_py: bytes
) -> None:
    """``import setuptools as st; st.setup(setup_requires=["cmake"])`` is setuptools' ``setup``:
    exit 0 (it was exit 2, ``setup.py runs CMake (line 2)``: only ``setuptools.setup`` and
    ``setup`` were read as setuptools')."""
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py})


@pytest.mark.parametrize("setup_py", list(NOT_SETUPTOOLS.values()), ids=list(NOT_SETUPTOOLS))
def test_a_setup_not_setuptools_by_its_name_still_stops(tmp_path: Path, setup_py: bytes) -> None:
    """A module imported as ``setuptools``, or a name bound to another module too, may run
    its ``requires=``: ``import build_helpers as setuptools`` passed (exit 0) before."""
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py})

    said = _stopped_at(tmp_path, repo, REVERTED)

    line = setup_py.count(b"\n")
    assert f"setup.py runs CMake (line {line}), whose CMake installs files" in said
