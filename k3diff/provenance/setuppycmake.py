"""A ``setup.py`` that runs CMake itself, from a command class of its own (vLLM's
``cmake_build_ext(build_ext)``: ``subprocess.check_call(["cmake", "--install", ".",
"--prefix", …, "--component", …])`` into setuptools' build directory).

setuptools runs ``build_ext`` after ``build_py``, so what CMake installs there ships over the
package's files: a real build (setuptools 65.5.0, CMake 3.25.1, ``pip wheel
--no-build-isolation``) of ``install(FILES fixes/auth.py DESTINATION pkg/sub COMPONENT _C)``
shipped the fix as ``pkg/sub/auth.py``, while k3diff compared the old ``src/pkg/sub/auth.py``
and a wheel keeping it matched, exit 0 (realsource75). The script's own code decides the
install prefix and components, so they are not read: the source check stops.

vLLM's shape was not read further (vllm76): its prefix is setuptools' build directory, the
wheel's root (``get_ext_fullpath(name)``'s directory, one level up per dot of the name: a real
build installed ``DESTINATION pkg/fa`` as ``pkg/fa/…``), but its CMake moves that prefix with
``install(CODE "set(CMAKE_INSTALL_PREFIX …/vllm/)")`` and lets a ``FetchContent`` project's
own ``install()`` rules run (``CMAKE_INSTALL_LOCAL_ONLY FALSE``), whose source is fetched or
taken from the builder's environment (``VLLM_FLASH_ATTN_SRC_DIR``): a real build of that shape
shipped the fetched project's ``sampling_params.py`` over the package's, so what it installs
may stand anywhere in the package, and nothing could be matched.
"""

from __future__ import annotations

import ast

_PROGRAMS = frozenset({"cmake", "cmake3", "cmake.exe"})
"""CMake's program names, as a command's first word (after any directory)."""


def cmake_line(module: ast.Module | None) -> int | None:
    """The first line of a parsed ``setup.py`` naming CMake as a program to run (a string
    or bytes whose first word is ``cmake``, as in ``["cmake", "--install", …]`` or
    ``"cmake --build ."``), or importing the ``cmake`` package (PyPI's, which holds the
    program); None where it names none. A ``setup.py`` that does not parse (None) is read
    elsewhere."""
    if module is None:
        return None
    lines = []
    for node in ast.walk(module):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            value = node.value  # review76a: ``[b"cmake", …]`` runs it as well
            text = value.decode("latin-1") if isinstance(value, bytes) else value
            words = text.split(maxsplit=1)
            if words and words[0].replace("\\", "/").rsplit("/", 1)[-1] in _PROGRAMS:
                lines.append(node.lineno)
        elif isinstance(node, ast.Import | ast.ImportFrom) and _imports_cmake(node):
            lines.append(node.lineno)
    return min(lines, default=None)


def _imports_cmake(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        names = [] if node.level else [node.module or ""]
    else:
        names = [alias.name for alias in node.names]
    return any(name == "cmake" or name.startswith("cmake.") for name in names)
