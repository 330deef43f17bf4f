"""Source archives in release directories, as pip weighs them beside the wheels: where no wheel
fits an interpreter, or the archive holds a later version, pip builds it (release77: every
archive was listed as "not a wheel" and passed over, so a patch directory whose sdist pip
builds everywhere, or where the patch dropped a compared wheel, passed with exit 0)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest
from cli_support import run_k3diff
from packaging.version import Version

from .wheelset_support import CP312, LIB, _engine, write

_WINDOWS = "cp312-cp312-win_amd64"


def _sdist(directory: Path, name: str, version: str, body: bytes = b"X = 1\n") -> Path:
    """A real sdist (`NAME-VERSION.tar.gz`: PKG-INFO, pyproject.toml, the package)."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = f"{name}-{version}"
    members = {
        f"{stem}/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{stem}/pyproject.toml": b'[build-system]\nrequires = ["setuptools"]\n',
        f"{stem}/{name}/__init__.py": body,
    }
    path = directory / f"{stem}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size, info.mtime = len(data), 0
            archive.addfile(info, io.BytesIO(data))
    return path


def _wheels(root: Path, base: list[str], patch: list[str]) -> None:
    for side, version, tags in (("base", "1.0", base), ("patch", "1.1", patch)):
        for tag in tags:
            write(root / side, "engine", version, tag, _engine(version, LIB))


def test_a_later_sdist_beside_compared_wheels_is_refused(tmp_path: Path) -> None:
    """pip ranks the version first: a 1.2 sdist beside the compared 1.1 wheels is what pip
    builds on every interpreter (release77: exit 0, the sdist passed over)."""
    _wheels(tmp_path, [CP312], [CP312])
    _sdist(tmp_path / "patch", "engine", "1.2")
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert f"pip installs base wheel base/engine-1.0-{CP312}.whl and builds patch source " in (
        result.stderr
    )
    assert "archive patch/engine-1.2.tar.gz on CPython" in result.stderr
    assert "nothing compared them" in result.stderr


def test_a_wheel_dropped_for_an_sdist_is_refused(tmp_path: Path) -> None:
    """The patch dropped its Windows wheel and ships an sdist: a Windows CPython 3.12 installed
    the base's wheel and now builds the sdist (release77: one-sided, exit 0)."""
    _wheels(tmp_path, [CP312, _WINDOWS], [CP312])
    _sdist(tmp_path / "patch", "engine", "1.1")
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert f"pip installs base wheel base/engine-1.0-{_WINDOWS}.whl and builds patch" in (
        result.stderr
    )
    assert "on CPython 3.12 on win_amd64" in result.stderr


def test_two_sdists_pip_builds_are_refused(tmp_path: Path) -> None:
    """Where no wheel fits (a system none installs on), pip builds each release's sdist, and
    nothing compared them (release77: exit 0)."""
    _wheels(tmp_path, [CP312], [CP312])
    _sdist(tmp_path / "base", "engine", "1.0")
    _sdist(tmp_path / "patch", "engine", "1.1", b"X = 2\n")
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "pip builds base source archive base/engine-1.0.tar.gz and builds patch source " in (
        result.stderr
    )
    assert "pip wheel --no-deps ARCHIVE" in result.stderr
    # named on a Python pip runs on, not the first Python the tags tell apart (newuser77: real
    # MarkupSafe and PyYAML release directories were refused "on CPython 3.0")
    where = " on CPython 3.12 on a system none of the project's platform wheels installs on, "
    assert where in result.stderr


def test_the_same_sdist_on_both_sides_is_not_refused(tmp_path: Path) -> None:
    _wheels(tmp_path, [CP312], [CP312])
    (tmp_path / "patch").mkdir(exist_ok=True)
    data = _sdist(tmp_path / "base", "engine", "1.0").read_bytes()
    (tmp_path / "patch" / "engine-1.0.tar.gz").write_bytes(data)
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def test_a_pure_wheel_beside_sdists_is_what_pip_installs(tmp_path: Path) -> None:
    """A `py3-none-any` wheel fits every Python 3 interpreter: pip never builds the sdists."""
    _wheels(tmp_path, ["py3-none-any"], ["py3-none-any"])
    _sdist(tmp_path / "base", "engine", "1.0")
    _sdist(tmp_path / "patch", "engine", "1.1", b"X = 2\n")
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def test_a_one_sided_sdist_needs_allow_unpaired(tmp_path: Path) -> None:
    """An sdist added where the base installs nothing is one-sided, as an added wheel is: only
    `--allow-unpaired` accepts it (release77: exit 0 without it)."""
    _wheels(tmp_path, [CP312], [CP312])
    _sdist(tmp_path / "patch", "engine", "1.1")
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "pip builds patch source archive patch/engine-1.1.tar.gz on " in result.stderr
    assert "where the other release installs nothing: one-sided" in result.stderr
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 0, allowed.stderr
    # listed as weighed, not as passed over (newuser77: "(patch: not a wheel)" alone)
    # newuser78: "weighed as pip weighs it beside the wheels" was jargon
    listed = "- patch/engine-1.1.tar.gz (patch: not a wheel: a source archive (sdist); k3diff "
    assert listed + "checks where pip would build it instead of installing a wheel" in (
        allowed.stdout
    )


@pytest.mark.parametrize("name", ["engine-1.2.zip", "Engine-1.2.TAR.GZ", "engine-1.2.tar.bz2"])
def test_every_archive_pip_builds_from_is_weighed(tmp_path: Path, name: str) -> None:
    _wheels(tmp_path, [CP312], [CP312])
    with zipfile.ZipFile(tmp_path / "patch" / name, "w") as archive:
        archive.writestr("engine-1.2/PKG-INFO", "Metadata-Version: 2.1\nName: engine\n")
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert f"patch source archive patch/{name}" in result.stderr


def test_an_sdist_of_another_project_or_no_version_is_passed_over(tmp_path: Path) -> None:
    _wheels(tmp_path, [CP312], [CP312])
    _sdist(tmp_path / "patch", "engine-tools", "1.2")
    (tmp_path / "patch" / "engine-latest.tar.gz").write_bytes(b"")
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def _linked_from_a_page(root: Path) -> None:
    """The patch directory's `notes.html` links a wheel in a subdirectory."""
    write(root / "base", "engine", "1.0", "py3-none-any", {"engine/__init__.py": b"X = 1\n"})
    write(root / "patch", "engine", "1.0", "py3-none-any", {"engine/__init__.py": b"X = 1\n"})
    write(root / "patch" / "extra", "engine", "2.0", "py3-none-any", {"engine/__init__.py": b""})
    page = '<html><body><a href="extra/engine-2.0-py3-none-any.whl">2.0</a></body></html>'
    (root / "patch" / "notes.html").write_text(page)


def test_an_html_page_in_a_release_directory_is_refused(tmp_path: Path) -> None:
    """pip reads it as a page of links and installs the 2.0 wheel it links (review77a: exit 0,
    the page listed as a file that is not a wheel)."""
    _linked_from_a_page(tmp_path)
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("k3diff: error: patch/notes.html: an HTML file in a release")


def test_pip_installs_what_a_page_in_the_directory_links(tmp_path: Path) -> None:
    """pip 26 itself, on CPython 3.12 on glibc 2.17 x86_64, from that patch directory."""
    from .test_wheelset_pipchoice import _GLIBC_2_17, _pip_choice

    _linked_from_a_page(tmp_path)
    found = _pip_choice(tmp_path / "patch", ("3.12", [], _GLIBC_2_17))
    assert found == "engine-2.0-py3-none-any.whl"


@pytest.mark.parametrize("name", ["engine-2.0.tar.gz", "engine-2.0-py3-none-any.whl"])
def test_a_directory_named_as_an_archive_is_refused(tmp_path: Path, name: str) -> None:
    """pip --find-links lists `engine-2.0.tar.gz/` by its name and builds it as a project
    (pip 26: `Processing ./patch/engine-2.0.tar.gz`; review77a: passed over, exit 0)."""
    write(tmp_path / "base", "engine", "1.0", "py3-none-any", {"engine/__init__.py": b"X = 1\n"})
    write(tmp_path / "patch", "engine", "1.0", "py3-none-any", {"engine/__init__.py": b"X = 1\n"})
    project = tmp_path / "patch" / name
    (project / "engine").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "engine"\nversion = "2.0"\n')
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(f"k3diff: error: patch/{name}: a directory named as a")


def test_the_same_sdist_named_as_another_version_is_refused(tmp_path: Path) -> None:
    """The base's 1.0 sdist copied into the patch as `engine-1.1.tar.gz`: pip builds it on
    CPython 3.11, finds version 1.0, discards it and installs the patch's 1.0.5 wheel, never
    compared (pip 26: `Discarding ... engine-1.1.tar.gz`; review77a: same bytes, exit 0)."""
    write(tmp_path / "base", "engine", "1.0", CP312, _engine("1.0", LIB))
    sdist = _sdist(tmp_path / "base", "engine", "1.0")
    write(tmp_path / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))
    (tmp_path / "patch" / "engine-1.1.tar.gz").write_bytes(sdist.read_bytes())
    write(tmp_path / "patch", "engine", "1.0.5", "py3-none-any", {"engine/__init__.py": b""})
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    expected = "builds base source archive base/engine-1.0.tar.gz and builds patch source "
    assert expected + "archive patch/engine-1.1.tar.gz" in result.stderr


def test_pip_goes_on_past_an_sdist_whose_build_excludes_the_python(tmp_path: Path) -> None:
    """pip 26 learns an sdist's Requires-Python only by building it, and where it excludes the
    Python goes on to the next version: the same 2.0 sdist in both releases, built requiring
    3.13, sends pip on CPython 3.12 to the 1.0 wheels, where the patch installs its added
    platform wheel in place of the base's compared pure one (checked with pip 26.3 on 3.11;
    release78: the sdist was taken as fitting every Python, so the added wheel was one-sided,
    exit 0)."""
    pure = {"engine/__init__.py": b""}
    write(tmp_path / "base", "engine", "1.0", "py3-none-any", pure)
    write(tmp_path / "patch", "engine", "1.0", "py3-none-any", pure)
    write(tmp_path / "patch", "engine", "1.0", CP312, _engine("1.0", LIB))
    sdist = _sdist(tmp_path / "base", "engine", "2.0")
    (tmp_path / "patch" / sdist.name).write_bytes(sdist.read_bytes())
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    added = f"--allow-unpaired: patch wheel patch/engine-1.0-{CP312}.whl is not one-sided: "
    assert result.stderr.startswith(f"k3diff: error: {added}pip installs it on CPython 3.12 on")
    past = " (if what pip builds from the 2.0 source archives requires another Python), where "
    assert past + "the base release installed base/engine-1.0-py3-none-any.whl" in result.stderr
    # the sdist built, the patch's wheel is never chosen; past it, the pure wheels pair alone
    (tmp_path / "patch" / f"engine-1.0-{CP312}.whl").unlink()
    alone = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert alone.exit_code == 0, alone.stderr


def test_past_the_same_sdist_pip_builds_the_next_versions_sdists(tmp_path: Path) -> None:
    """Where the same 3.0 sdist's build excludes the Python, pip builds each release's 2.0
    sdist, other bytes (pip 26.3 on 3.11: `engine-2.0.tar.gz` of each directory; release78:
    the 3.0 archives taken as built everywhere, exit 0)."""
    pure = {"engine/__init__.py": b""}
    for side in ("base", "patch"):
        write(tmp_path / side, "engine", "1.0", "py3-none-any", pure)
        _sdist(tmp_path / side, "engine", "2.0", f"SIDE = {side!r}\n".encode())
    sdist = _sdist(tmp_path / "base", "engine", "3.0")
    (tmp_path / "patch" / sdist.name).write_bytes(sdist.read_bytes())
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    built = "pip builds base source archive base/engine-2.0.tar.gz and builds patch source "
    assert result.stderr.startswith(f"k3diff: error: {built}archive patch/engine-2.0.tar.gz on ")
    assert "(if what pip builds from the 3.0 source archives requires another Python)" in (
        result.stderr
    )


def test_the_readings_of_archive_names_are_capped(tmp_path: Path) -> None:
    """Each `-` of an archive's name is a project pip may take it for, read with a version
    parse: 1,000 names of 60 `-` a side pass k3diff's cap of 100,000 readings, refused before
    any is read (release78: 10,000 names of 116 `-` a side took 10 s, exit 0)."""
    _wheels(tmp_path, [CP312], [CP312])
    for side in ("base", "patch"):
        for n in range(1_000):
            (tmp_path / side / f"x{n}-{'-'.join(['1'] * 60)}.tar.gz").write_bytes(b"")
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("k3diff: error: patch: the source archives' names hold more")
    assert "than k3diff's cap of 100,000 a run" in result.stderr


def test_each_choice_finds_the_versions_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each version of source archives weighs the project again, and each choice walks each
    release's versions from the highest: they are listed highest first, so that finding their
    order is one pass a choice, not a sort (review78b: 490 sdist versions a side, named by
    versions of 110 parts, took 7.4 s CPU under the checks' cap, exit 0, 0.2 s before
    release78; a sort of the versions on each of 982 choices made 10.5 million comparisons)."""
    pure = {"engine/__init__.py": b""}
    for side in ("base", "patch"):
        write(tmp_path / side, "engine", "1.0", "py3-none-any", pure)
    for version in range(2, 102):
        sdist = _sdist(tmp_path / "base", "engine", f"{version}.0")
        (tmp_path / "patch" / sdist.name).write_bytes(sdist.read_bytes())
    compared = [0]
    less = Version.__lt__

    def counted(self: Version, other: Version) -> bool:
        compared[0] += 1
        return less(self, other)

    monkeypatch.setattr(Version, "__lt__", counted)
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    # 101 ways the archives answer, on 2 Pythons, each 4 walks over 101 versions: 102,472
    # comparisons in all (a sort of the versions on each walk: 401,097)
    assert compared[0] < 150_000, compared[0]
