"""`wheels --source`: a CMake file CMake itself refuses to parse stops the check (src73).

CMake parses a whole file before running any of it and refuses the build at the first thing
its grammar does not allow (CMake 3.25: ``Parse error.  Function missing ending ")".  End of
file reached.``), and checks that its ``if``/``endif`` and other blocks nest (``Flow control
statements are not properly nested.``). k3diff's reader went on: ``set(X`` took the rest of the file as its
arguments, the ``install(FILES fixes/auth.py …)`` after it was never seen, and a wheel
reverting ``pkg/sub/auth.py`` to the package's old file matched, exit 0 (fuzz72 seed 74). Each
shape below is refused by ``cmake -P`` (3.25.1 and 4.4.5; 1,600 mutants of stop 72's fuzz
seeds, each read alike by both and by k3diff), and now stops the check, exit 2, naming the
file and line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_provenance_cmake_install import INSTALL_FIX, PACKAGES, SKBUILD, TARGETS, TOP, _stopped

REFUSED = {
    "unclosed call": (b"set(X\n", "CMakeLists.txt line 3: a call with no closing ')'"),
    "unclosed nested call": (b"set(X (a)\n", "line 3: a call with no closing ')'"),
    "unterminated quote": (b'message("x)\n', "line 3: an unterminated quoted argument"),
    "unterminated bracket": (b"set(X [[a)\n", "line 3: an unterminated bracket argument"),
    "unterminated bracket comment": (b"#[[ a\n", "line 3: an unterminated bracket comment"),
    "a '#' in an argument": (b"set(X a#b)\n", "line 3: a call with no closing ')'"),
    "a backslash ending a line": (b"set(X a\\\n", "line 3: a bad character"),
    "bracket touching": (b"set(X [[a]]b)\n", "line 3: an argument touching the bracket"),
    "stray endif": (b"if(A)\nendif()\nendif()\n", "line 5: a stray endif()"),
    "else after else": (b"if(A)\nelse()\nelse()\nendif()\n", "line 5: a stray else()"),
    "crossed blocks": (b"foreach(f a)\nif(A)\nendforeach()\nendif()\n", "line 5: a stray"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_file_cmake_refuses_to_parse_stops_the_check(tmp_path: Path, case: str) -> None:
    before, said = REFUSED[case]

    stderr = _stopped(tmp_path, SKBUILD + PACKAGES, TOP + before + INSTALL_FIX)

    assert said in stderr
    assert "which CMake refuses" in stderr


@pytest.mark.parametrize(
    "cmake",
    [
        TOP + TARGETS + b"set(A 1) " + INSTALL_FIX,
        TOP + b"x " + INSTALL_FIX,
        TOP + b"install\n(FILES fixes/auth.py DESTINATION pkg/sub)\n",
        TOP + b"#[[ the fix ]] " + INSTALL_FIX,
    ],
    ids=["two commands on a line", "text before a command", "newline before '('", "comment"],
)
def test_a_command_where_cmake_allows_none_stops_the_check(tmp_path: Path, cmake: bytes) -> None:
    """Each read as installing the fix (exit 1 for the old file): CMake builds nothing."""
    assert "which CMake refuses" in _stopped(tmp_path, SKBUILD + PACKAGES, cmake)


def test_a_file_no_build_reads_is_parsed_too(tmp_path: Path) -> None:
    """Every CMake file of the project is read for its installs (an ``include()`` may name
    it by a variable): one CMake would refuse is not passed over."""
    more = {"cmake/rules.cmake": b"set(X\n" + INSTALL_FIX}

    stderr = _stopped(tmp_path, SKBUILD + PACKAGES, TOP + TARGETS, **more)

    assert "cmake/rules.cmake line 1: a call with no closing ')'" in stderr


def test_a_block_left_open_stops_the_check(tmp_path: Path) -> None:
    """The install under the unclosed ``if()`` is not at the top level either: said as the
    block CMake refuses, at its line."""
    stderr = _stopped(tmp_path, SKBUILD + PACKAGES, TOP + b"if(A)\n" + INSTALL_FIX)

    assert "CMakeLists.txt line 3: if() with no end, which CMake refuses" in stderr
