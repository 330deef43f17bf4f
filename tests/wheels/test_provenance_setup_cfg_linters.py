"""`wheels --source`: a ``setup.cfg`` too large to read that holds only linters' sections
(holds78). setuptools reads every section of it, and keeps a section's options for the command
of its name; k3diff reads ``[metadata]``, ``[options…]`` and ``[versioneer]``. A 300 KiB
``[flake8]``/``[tool:pytest]`` file, which setuptools 84 built the wheel with, stopped the check
(exit 2) as "over 256 KiB, not read"; its section headers are now scanned (to 1 MiB), and one
k3diff reads, or a file past the scan, still stops it."""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import make_repo

from .test_provenance_backend_places import FILES, REVERTED
from .test_provenance_cmake_install import _repo, _stopped_at
from .test_provenance_cmake_unread import _passes_with
from .test_provenance_config_stops import CM
from .test_provenance_setuppy_cmake import CMAKE, SETUPTOOLS

LINTERS = b"[flake8]\n" + b"".join(b"per-file-ignores%d = x.py:E%d\n" % (i, i) for i in range(9000))
LINTERS += b"\n[tool:pytest]\naddopts = -ra\n\n[mypy]\nstrict = true\n"


def test_a_large_setup_cfg_of_linters_leaves_the_check_as_it_was(tmp_path: Path) -> None:
    """Over 256 KiB of ``[flake8]``, ``[tool:pytest]`` and ``[mypy]``: nothing setuptools
    builds with, a wheel of the commit's files passes (exit 2 before)."""
    assert len(LINTERS) > 257 * 1024
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.cfg": LINTERS})


@pytest.mark.parametrize(
    "head",
    [b"[options]\n", b"  [Options]\n", b"[options.packages.find]\n", b"[ metadata ]\n"],
    ids=["options", "indented, another case", "options.packages.find", "metadata, spaces"],
)
def test_a_large_setup_cfg_naming_a_section_k3diff_reads_stops_the_check(
    tmp_path: Path, head: bytes
) -> None:
    """A section k3diff reads after the linters' (a command class running CMake may be named
    there), any header configparser may read as one: the run stops as before."""
    cfg = LINTERS + b"\n" + head + b"cmdclass =\n    build_py = tools.cm.CMakeBuild\n"
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.cfg": cfg, "src/tools/cm.py": CM})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert ": setup.cfg is over 256 KiB, not read: how the project builds is not known" in said


def test_a_setup_cfg_past_the_scan_stops_the_check(tmp_path: Path) -> None:
    """Past 1 MiB its headers are not scanned either."""
    cfg = b"[flake8]\n" + b"# padding\n" * (110 * 1024)
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.cfg": cfg})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert ": setup.cfg is over 256 KiB, not read: how the project builds is not known" in said


def test_a_large_setup_cfg_of_linters_between_the_root_and_the_package(tmp_path: Path) -> None:
    """``python/setup.cfg`` of linters' settings under a root ``setup.py`` that builds
    ``python/pkg/`` (review76a's shape), read with ``--source-prefix python/``: it stopped the
    check, exit 2; setuptools never reads it (only the root's)."""
    setup_py = (
        b"from setuptools import setup\nsetup(package_dir={'': 'python'}, packages=['pkg'])\n"
    )
    tree: dict[str, bytes | None] = {"python/" + path: data for path, data in FILES.items()}
    make_repo(tmp_path / "repo", [{**tree, "setup.py": setup_py, "python/setup.cfg": LINTERS}])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", FILES)

    for given in [(), ("--source-prefix", "python/")]:
        result = run_k3diff(
            "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD", *given
        )

        assert result.exit_code == 0, result.stderr
