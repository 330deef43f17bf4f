"""Build backends whose layout k3diff does not read: the source check stops.

A backend decides which files the wheel ships and at which paths. k3diff reads, statically, the
settings of setuptools (named, or none named: PEP 517's legacy path), hatchling, maturin, flit,
pdm-backend, poetry-core and scikit-build-core (`buildconfig`), and of py-build-cmake, which
ships its module's directory and stops where CMake runs (`cmakebackends`). Another backend's
files were taken for a setuptools layout and detection by paths chose the package's directory
(backend75): meson-python (numpy, scipy, pandas, scikit-learn) ships what ``meson.build``'s
``install_sources`` name, at the ``subdir`` they name, so a fix installed from ``fixes/auth.py``
as ``pkg/sub/auth.py`` left the old ``src/pkg/sub/auth.py`` compared, and a wheel reverting to
it matched, exit 0. Only a build says what such a backend installs (meson-python's is meson's
install plan, known once ``meson setup`` has run), so the run stops with the advice to compare
a wheel built from the commit. So does the project's own backend (``backend-path``): its code,
at the commit, builds the wheel, whatever backend it wraps, and none of it runs here. holds78
read PyYAML 6.0.2's ``packaging/_pyyaml_pep517.py``: it re-exports each hook of
``setuptools.build_meta`` through a wrapper that hands ``config_settings`` to ``setup.py``, and
writes nothing itself; a repository of its sdist with ``setuptools.build_meta`` named instead
passes. The stop stays: that the module only delegates is known by reading its code, which
any line of the commit may change (a hook writing ``pkg/auth.py`` before delegating ships
it), and the message says so rather than "whose layout k3diff does not read".
"""

from __future__ import annotations

from collections.abc import Mapping

from k3diff.escape import shortened

SETUPTOOLS_BACKENDS = frozenset({"setuptools.build_meta", "setuptools.build_meta:__legacy__"})
"""`[build-system] build-backend` values that are setuptools; none given is setuptools too
(PEP 517's legacy path, `setup.py`)."""
READ_BACKENDS = SETUPTOOLS_BACKENDS | frozenset(
    {
        "hatchling.build",
        "maturin",
        "flit_core.buildapi",
        "pdm.backend",
        "poetry.core.masonry.api",
        "scikit_build_core.build",
        "py_build_cmake.build",
    }
)
"""`[build-system] build-backend` values whose layout k3diff reads (`buildconfig`), or which
ship the package's directory as found (py-build-cmake without CMake)."""

ADVICE = "compare a wheel built from the commit with this one (k3diff wheels BUILT RELEASED)"


def unread_backend(directory: str, document: Mapping[str, object]) -> str | None:
    """Why the layout of the project in `directory` (its parsed ``pyproject.toml``
    `document`) is not read, said after the repository's label: its backend is the project's
    own (``backend-path``) or one not in `READ_BACKENDS`; None where it is read, none is named
    (setuptools), or the value is no backend any frontend builds with (not a table, not a
    string: said where a configuration is read, as before)."""
    system = document.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    if not isinstance(system, dict) or not isinstance(backend, str):
        return None
    label = f"{directory}pyproject.toml"
    name = shortened(repr(backend), 200)
    if "backend-path" in system:
        paths = shortened(repr(system["backend-path"]), 200)
        return (
            f"{label} builds with its own backend {name} (backend-path {paths}): code of the "
            "commit, which the build imports and runs, and which may write or change any file "
            f"the wheel ships, whatever backend it wraps; k3diff runs none of it: {ADVICE}"
        )
    if backend in READ_BACKENDS:
        return None
    return f"{label} builds with {name}, a backend whose layout k3diff does not read: {ADVICE}"
