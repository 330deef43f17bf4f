"""`wheels --source`: the files scikit-build-core's ``[[tool.scikit-build.generate]]`` writes
(src73).

A real build (scikit-build-core 1.1.2, ``python -m build --no-isolation``) of a commit holding
a stale ``src/pkg/_version.py`` (``__version__ = "0.9"``) with a ``generate`` entry for
``pkg/_version.py`` (``template = '__version__ = "${version}"'``) shipped ``__version__ =
"1.0"``; one with ``location = "source"`` and a ``template-path`` of ``\\r\\n`` lines and a
``$$`` shipped the rendered file with ``\\n`` lines and a ``$``. k3diff compared the stale
copy: a wheel shipping it matched the commit, exit 0. The file is now held to the template
rendered for the wheel's version: `generated` where it is exactly that, failing otherwise, the
commit's copy included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

from .test_provenance_backend_places import FILES
from .test_provenance_cmake_install import PACKAGES, SKBUILD

STALE = b'__version__ = "0.9"\n'
RENDERED = b'__version__ = "1.0"\n'
GENERATE = b"""
[[tool.scikit-build.generate]]
path = "pkg/_version.py"
template = '''__version__ = "${version}"
'''
"""
FROM_FILE = b"""
[[tool.scikit-build.generate]]
path = "src/pkg/_version.py"
template-path = "tmpl/version.py.in"
location = "source"
"""


def _check(
    tmp_path: Path, generate: bytes, shipped: bytes, **more: bytes
) -> tuple[int, dict[str, Any]]:
    tree = {"src/" + path: data for path, data in FILES.items()}
    tree |= {"src/pkg/_version.py": STALE, "pyproject.toml": SKBUILD + PACKAGES + generate}
    make_repo(tmp_path / "repo", [tree | more])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {**FILES, "pkg/_version.py": shipped})
    repo = tmp_path / "repo"
    return run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD", "--source-all")


def _source(report: dict[str, Any]) -> dict[str, Any]:
    return next(e["source"] for e in report["entries"] if e["path"] == "pkg/_version.py")


SHAPES = {
    "install": (GENERATE, {}),
    "source, template-path": (FROM_FILE, {"tmpl/version.py.in": b'__version__ = "$version"\r\n'}),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_commits_stale_copy_of_a_generated_file_does_not_match(
    tmp_path: Path, shape: str
) -> None:
    generate, more = SHAPES[shape]

    code, report = _check(tmp_path, generate, STALE, **more)

    assert code == 1
    source = _source(report)
    assert source["status"] == "mismatch"
    findings = str(report["findings"])
    assert "as the source commit holds it, which the build replaces" in findings
    assert (
        "scikit-build-core writes it (pyproject.toml [[tool.scikit-build.generate]] 1" in findings
    )


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_file_the_build_writes_is_generated(tmp_path: Path, shape: str) -> None:
    generate, more = SHAPES[shape]

    code, report = _check(tmp_path, generate, RENDERED, **more)

    assert code == 0
    source = _source(report)
    assert source["status"] == "generated"
    assert "[[tool.scikit-build.generate]] 1 (" in source["generated_by"]


def test_a_dollar_escape_and_crlf_lines_render_as_the_build_renders_them(tmp_path: Path) -> None:
    """``read_text`` makes the template's ``\\r\\n`` lines ``\\n``; ``$$`` is one ``$``."""
    template = b'__version__ = "${version}"\r\nPRICE = "$$5"\r\n'

    code, report = _check(
        tmp_path, FROM_FILE, RENDERED + b'PRICE = "$5"\n', **{"tmpl/version.py.in": template}
    )

    assert code == 0, report["findings"]


@pytest.mark.parametrize(
    ("template", "said"),
    [
        (b'template = "NAME = \\"${name}\\"\\n"', "names ${name}, which k3diff does not render"),
        (b'template = "X = $5"', "a '$' string.Template refuses"),
        (b'template-path = "tmpl/missing.in"', "is not at the source commit"),
    ],
    ids=["other metadata", "invalid placeholder", "missing template file"],
)
def test_a_template_k3diff_does_not_render_fails(
    tmp_path: Path, template: bytes, said: str
) -> None:
    generate = b'[[tool.scikit-build.generate]]\npath = "pkg/_version.py"\n' + template + b"\n"

    code, report = _check(tmp_path, generate, STALE)

    assert code == 1
    assert _source(report)["status"] == "mismatch"
    assert said in str(report["findings"])
    assert "k3diff cannot render what it writes" in str(report["findings"])


def test_a_build_location_writes_nothing_into_the_wheel(tmp_path: Path) -> None:
    generate = GENERATE.replace(b'path = "pkg/', b'location = "build"\npath = "pkg/')

    code, report = _check(tmp_path, generate, STALE)

    assert code == 0  # the package's copy ships, as the commit holds it
    assert _source(report)["status"] == "match"


def test_an_override_that_may_set_generate_stops_the_check(tmp_path: Path) -> None:
    override = b'\n[[tool.scikit-build.overrides]]\nif.platform-system = "linux"\n'
    override += b'generate = [{path = "pkg/_version.py", template = "X = 1"}]\n'
    tree = {"src/" + path: data for path, data in FILES.items()}
    tree |= {"src/pkg/_version.py": STALE, "pyproject.toml": SKBUILD + PACKAGES + override}
    make_repo(tmp_path / "repo", [tree])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {**FILES, "pkg/_version.py": STALE})

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert len(result.stderr.splitlines()) == 1
    assert "may set generate" in result.stderr
    assert "k3diff wheels BUILT RELEASED" in result.stderr


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_package_of_one_module_and_a_generated_one_is_read(tmp_path: Path, shape: str) -> None:
    """scikit-build-core's own example: ``src/pkg/__init__.py`` and a generated
    ``pkg/_version.py`` the commit does not hold. The configured place held 1 of the wheel's
    2 Python files, and a real build's wheel stopped the run, exit 2 (review73b): a file the
    build writes is not counted."""
    generate, more = SHAPES[shape]
    files = {"pkg/__init__.py": b"from ._version import __version__\n"}
    tree = {"src/pkg/__init__.py": files["pkg/__init__.py"]}
    tree |= {"pyproject.toml": SKBUILD + PACKAGES + generate, "CMakeLists.txt": b"project(p)\n"}
    make_repo(tmp_path / "repo", [tree | more])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {**files, "pkg/_version.py": b""})
    patch = wheelkit.make_wheel(
        tmp_path / "p", "pkg", "1.0", {**files, "pkg/_version.py": RENDERED}
    )

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD", "--source-all"
    )

    assert code == 0, report
    assert _source(report)["status"] == "generated"


def test_an_empty_template_path_stops_the_check(tmp_path: Path) -> None:
    """A real build of this commit failed (scikit-build-core read ``template-path = ""`` as
    ``.``, IsADirectoryError), while k3diff held the file to the inline template and a wheel
    shipping it rendered passed, exit 0: no build of the commit ships it."""
    generate = GENERATE + b'template-path = ""\n'
    tree = {"src/" + path: data for path, data in FILES.items()}
    tree |= {"pyproject.toml": SKBUILD + PACKAGES + generate}
    make_repo(tmp_path / "repo", [tree])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(
        tmp_path / "p", "pkg", "1.0", {**FILES, "pkg/_version.py": RENDERED}
    )

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert "an empty template-path" in result.stderr
