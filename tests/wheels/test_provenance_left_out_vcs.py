"""`wheels --source`: what hatchling leaves out, as its walk and its one list of patterns do
(src73).

A real build (hatchling 1.33, ``python -m build --no-isolation``) of a commit holding
``pkg/__pycache__/cached.py`` and ``pkg/.venv/v.py`` shipped neither, though its ``.gitignore``
said ``!__pycache__/`` and ``!.venv/`` (the walk never enters those directories); it shipped
``dist/d.py`` and ``pkg/keep.pyc`` for ``!/dist`` and ``!*.pyc`` (a ``.gitignore`` line comes
after hatchling's defaults in the one list it matches, the last matching pattern deciding); it
left out ``pkg/hg_ex.py``, named in the glob section of an ``.hgignore`` beside the
``.gitignore`` (both are read), but not ``pkg/hg_re.py``, named in its regexp section; and it
shipped ``pkg/neg.py``, which the ``.gitignore`` names and an ``exclude`` of ``!pkg/neg.py``
takes back (``exclude`` comes last).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

from .test_provenance_left_out import BUILT, FILES, HATCH, _check, _failing

FAKE = FILES["pkg/testing/fake_auth.py"]


@pytest.mark.parametrize("directory", ["__pycache__", ".venv", ".tox"])
@pytest.mark.parametrize(
    "gitignore", [b"", b"!__pycache__/\n!.venv/\n!.tox/\n"], ids=["", "negated in .gitignore"]
)
def test_a_file_in_a_directory_hatchling_never_walks_is_left_out(
    tmp_path: Path, directory: str, gitignore: bytes
) -> None:
    """The patch ships the commit's ``pkg/__pycache__/fake_auth.py``: matched, exit 0."""
    later: dict[str, bytes | None] = {f"src/pkg/{directory}/fake_auth.py": FAKE}
    if gitignore:
        later[".gitignore"] = gitignore
    patch = {**BUILT, f"pkg/{directory}/fake_auth.py": FAKE}

    code, report = _check(tmp_path, HATCH, BUILT, patch, later)

    assert code == 1
    assert _failing(report) == [("W412", f"pkg/{directory}/fake_auth.py")]
    assert f"never walks a {directory} directory" in str(report["findings"])


def test_an_hgignore_glob_pattern_leaves_a_file_out_beside_a_gitignore(tmp_path: Path) -> None:
    hgignore = b"syntax: glob\nsrc/pkg/testing/\n"
    later: dict[str, bytes | None] = {".gitignore": b"*.log\n", ".hgignore": hgignore}
    patch = {**BUILT, "pkg/testing/fake_auth.py": FAKE}

    code, report = _check(tmp_path, HATCH, BUILT, patch, later)

    assert code == 1
    assert _failing(report) == [("W412", "pkg/testing/fake_auth.py")]
    assert "hatchling, by .gitignore and .hgignore," in str(report["findings"])


def test_an_hgignore_regexp_pattern_is_not_read_by_hatchling(tmp_path: Path) -> None:
    later: dict[str, bytes | None] = {".hgignore": b"src/pkg/testing/\n"}  # regexp by default
    patch = {**BUILT, "pkg/testing/fake_auth.py": FAKE}

    code, report = _check(tmp_path, HATCH, BUILT, patch, later)

    assert code == 0, _failing(report)


def test_an_exclude_negation_takes_back_a_gitignore_pattern(tmp_path: Path) -> None:
    """It was W412 (the ``.gitignore``'s pattern read on its own), exit 1."""
    pyproject = HATCH + b'exclude = ["!src/pkg/testing/"]\n'
    later: dict[str, bytes | None] = {".gitignore": b"src/pkg/testing/\n"}
    patch = {**BUILT, "pkg/testing/fake_auth.py": FAKE}

    code, report = _check(tmp_path, pyproject, BUILT, patch, later)

    assert code == 0, _failing(report)


def test_a_gitignore_negation_takes_back_hatchlings_dist_default(tmp_path: Path) -> None:
    """``/dist`` was read as leaving ``dist/d.py`` out for certain, so a patch dropping the
    module the commit's build ships passed without W410, exit 0."""
    pyproject = HATCH.replace(b'packages = ["src/pkg"]', b'packages = ["dist"]')
    modules = {"dist/__init__.py": b"", "dist/d.py": b"D = 1\n"}
    tree = {**modules, "pyproject.toml": pyproject, ".gitignore": b"!/dist\n"}
    make_repo(tmp_path / "repo", [tree])
    base = wheelkit.make_wheel(tmp_path / "b", "dist", "1.0", modules)
    patch = wheelkit.make_wheel(tmp_path / "p", "dist", "1.0", {"dist/__init__.py": b""})

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD"
    )

    assert code == 1
    assert ("W410", "dist/d.py") in [(f["code"], f["path"]) for f in report["findings"]]


@pytest.mark.parametrize("form", ["text", "markdown"])
def test_the_source_table_says_a_file_the_build_leaves_out_is_left_out(
    tmp_path: Path, form: str
) -> None:
    """The row read ``match`` (only that its content is the commit's) beside W412."""
    pyproject = HATCH + b'exclude = ["src/pkg/testing"]\n'
    tree = {"src/" + path: data for path, data in FILES.items()}
    make_repo(
        tmp_path / "repo", [tree | {"src/pkg/util.py": b"X = 2\n", "pyproject.toml": pyproject}]
    )
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", BUILT)
    patched = {**BUILT, "pkg/testing/fake_auth.py": FAKE}
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patched)
    args = ("--source", tmp_path / "repo", "--commit", "HEAD", "--format", form)

    result = run_k3diff("wheels", base, patch, *args)

    assert result.exit_code == 1, result.stderr
    rows = [line for line in result.stdout.splitlines() if "fake_auth.py" in line]
    source_row = [line for line in rows if "0aa1326aa30c" in line or "left out" in line]
    assert len(source_row) == 1, rows
    assert "left out" in source_row[0] and "match" not in source_row[0]
