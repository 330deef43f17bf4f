"""An sdist's name and version as setuptools builds them: `setup.py`'s `setup(...)` keywords and
`setup.cfg`'s `[metadata]` (docs77). A135 read them only from PKG-INFO and `pyproject.toml`'s
`[project]`: `setup(name="other")` or `[metadata] name = other` passed, exit 0, where pip
builds "other" and `pip install demo` from an index refuses the sdist. Nothing is run: a
literal keyword is compared, a computed one (`version=get_version()`) is not; and only where
setuptools takes the field from them (not where `[project]` states it, nor under another
backend)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from audit.helpers import audit_json, codes
from audit.sdistcraft import PKG_INFO, Member, link, tar_bytes

SETUPTOOLS = b'[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'


def _sdist(folder: Path, *members: Member) -> Path:
    path = folder / "demo-1.0.tar.gz"
    base = [Member("demo-1.0/PKG-INFO", PKG_INFO), *members]
    path.write_bytes(gzip.compress(tar_bytes(base), mtime=0))
    return path


def _setup_py(call: str) -> Member:
    return Member("demo-1.0/setup.py", f"from setuptools import setup\n{call}\n".encode())


def _setup_cfg(metadata: str) -> Member:
    return Member("demo-1.0/setup.cfg", f"[metadata]\n{metadata}\n".encode())


@pytest.mark.parametrize(
    ("members", "path", "said"),
    [
        ((_setup_py('setup(name="other", version="1.0")'),), "setup.py", "name 'other'"),
        ((_setup_py('setup(name="demo", version="2.0")'),), "setup.py", "version '2.0'"),
        ((_setup_py("import setuptools\nsetuptools.setup(version='0.9')"),), "setup.py", "'0.9'"),
        ((_setup_py("setup()"), _setup_cfg("name = other\nversion = 1.0")), "setup.cfg", "'other'"),
        ((_setup_py("setup()"), _setup_cfg("Version = %(x)s\nx = 3")), "setup.cfg", "'3'"),
        (
            (
                Member("demo-1.0/pyproject.toml", SETUPTOOLS + b'[project]\nname = "demo"\n'
                       b'dynamic = ["version"]\n'),
                _setup_py('setup(version="2.0")'),
            ),
            "setup.py",
            "version '2.0'",
        ),
    ],
    ids=["py-name", "py-version", "py-attribute", "cfg-name", "cfg-interpolated", "dynamic"],
)  # fmt: skip
def test_a_name_or_version_setuptools_builds_otherwise_fails(
    tmp_path: Path, members: tuple[Member, ...], path: str, said: str
) -> None:
    code, report = audit_json(_sdist(tmp_path, *members))
    assert (code, codes(report)) == (1, {"A135": 1}), report
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == f"demo-1.0/{path}"
    assert said in finding["detail"] and "pip install demo" in finding["detail"]


@pytest.mark.parametrize(
    "members",
    [
        (_setup_py('setup(name="Demo", version="1.0.0")'),),  # normalised alike
        (_setup_py("setup(name='demo', version=get_version())"),),  # computed: not compared
        (_setup_py("setup(**kwargs)"), _setup_cfg("name = other")),  # the call may set it
        (_setup_py('setup(name="demo")'), _setup_cfg("name = other")),  # the call's wins
        (_setup_py("setup()"), _setup_cfg("version = attr: demo.__version__")),
        (_setup_py("setup()"), _setup_cfg("name = demo\nversion = file: VERSION")),
        (
            Member("demo-1.0/pyproject.toml", SETUPTOOLS + b'[project]\nname = "demo"\n'
                   b'version = "1.0"\n'),
            _setup_py('setup(name="other", version="2.0")'),  # setuptools ignores them
        ),
        (
            Member("demo-1.0/pyproject.toml", b'[build-system]\nbuild-backend = "hatchling.build"\n'),
            _setup_py('setup(name="other")'),  # hatchling never runs it
        ),
        (_setup_py("setup("),),  # no Python: setuptools stops on it too
    ],
    ids=[
        "normalised", "computed", "splat", "keyword-wins", "cfg-attr", "cfg-file",
        "project-states", "other-backend", "not-python",
    ],
)  # fmt: skip
def test_what_setuptools_does_not_take_from_them_passes(
    tmp_path: Path, members: tuple[Member, ...]
) -> None:
    code, report = audit_json(_sdist(tmp_path, *members))
    assert (code, codes(report)) == (0, {}), report


def test_a_setup_py_not_read_fails_unchecked(tmp_path: Path) -> None:
    big = _setup_py('setup(name="other")\n' + "a = 1\n" * 25_000)
    code, report = audit_json(_sdist(tmp_path, big))
    assert (code, codes(report)) == (1, {"A135": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert "over k3diff's cap of 131,072" in finding["detail"]
    assert "unchecked" in finding["detail"]
    code, report = audit_json(_sdist(tmp_path, link("demo-1.0/setup.py", "../x.py")))
    assert codes(report)["A135"] == 1


@pytest.mark.parametrize(
    ("members", "path", "said"),
    [
        ((_setup_cfg("name = demo\nName = other"),), "setup.cfg", "name 'other'"),
        ((_setup_cfg("version = 1.0\nVERSION = 2.0"),), "setup.cfg", "version '2.0'"),
        ((_setup_cfg("Name = demo\n[DEFAULT]\nname = other"),), "setup.cfg", "name 'other'"),
        ((Member("demo-1.0/setup.cfg", b"[metadata]\rname = other\r"),), "setup.cfg", "'other'"),
        ((Member("demo-1.0/setup.py", b"from setuptools import setup as s\ns(name='other')"),),
         "setup.py", "name 'other'"),
    ],
    ids=["cfg-case-twice", "cfg-upper-version", "cfg-default-later", "cfg-cr-lines", "py-alias"],
)  # fmt: skip
def test_what_setuptools_reads_as_setuptools_reads_it_fails(
    tmp_path: Path, members: tuple[Member, ...], path: str, said: str
) -> None:
    """review77c: setuptools (84, a real build) made `other` 1.0 / `demo` 2.0 of each; k3diff's
    own `configparser` read refused `Name` beside `name` (a duplicate to its lower-casing
    parser: not judged), kept `[metadata]`'s `Name` over a later `[DEFAULT]` `name`, read bare
    CR endings as one line, and knew `setup` by that name only: each passed, exit 0."""
    code, report = audit_json(_sdist(tmp_path, *members))
    assert (code, codes(report)) == (1, {"A135": 1}), report
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == f"demo-1.0/{path}"
    assert said in finding["detail"], finding


def test_a_setup_cfg_interpolation_bomb_is_unchecked_in_time(tmp_path: Path) -> None:
    """review77c: 3 KiB of `%(a)s` references five levels deep ran `audit` 5 minutes, then out of
    memory, exit 2; now not read past `read_setup_cfg`'s cap: A135, unchecked."""
    lines = ["a0 = " + "x" * 1000] + [f"a{i} = " + f"%(a{i - 1})s" * 100 for i in range(1, 5)]
    bomb = _setup_cfg("\n".join([*lines, "name = %(a4)s"]))
    code, report = audit_json(_sdist(tmp_path, bomb))
    assert (code, codes(report)) == (1, {"A135": 1})
    (finding,) = report["artifacts"][0]["findings"]
    assert "interpolation expands past" in finding["detail"] and "unchecked" in finding["detail"]


@pytest.mark.parametrize(
    "members",
    [
        (_setup_py('setup(name="", version="1.0", packages=["demo"])'),),
        (_setup_py('setup(version="1.0", packages=["demo"])'), _setup_cfg("name =")),
    ],
    ids=["py-empty", "cfg-empty"],
)
def test_an_empty_name_is_no_name_to_setuptools(
    tmp_path: Path, members: tuple[Member, ...]
) -> None:
    """setuptools takes an empty name for none and names the project from its packages
    (setuptools 84 built ``pkg-1.0`` from ``setup(name="", packages=["pkg"])``): A135 said
    ``''`` against the file name, exit 1 (holds78)."""
    code, report = audit_json(_sdist(tmp_path, *members))
    assert (code, codes(report)) == (0, {}), report


def test_an_empty_name_leaves_setup_cfg_s_name_to_setuptools(tmp_path: Path) -> None:
    """``setup(name="")`` beside ``[metadata] name = other``: setuptools 84 builds ``other``
    (a name ``setup.py`` gives wins over setup.cfg's; an empty one does not)."""
    members = (_setup_py('setup(name="", version="1.0")'), _setup_cfg("name = other"))
    code, report = audit_json(_sdist(tmp_path, *members))
    assert (code, codes(report)) == (1, {"A135": 1}), report
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] == "demo-1.0/setup.cfg" and "'other'" in finding["detail"]


@pytest.mark.parametrize(
    "members",
    [
        (_setup_py('setup(name="", version="1.0", packages=["other"])'),),
        (_setup_py('setup(version="1.0", packages=["other"])'),),
        (_setup_py('setup(name="", version="1.0", py_modules=["other"])'),),
        (_setup_py('setup(version="1.0", packages=["a", "b"], py_modules=["other"])'),),
        (_setup_py('setup(version="1.0", packages=["other"])'), _setup_cfg("name =")),
        (_setup_py('setup(version="1.0", packages=[])'), _setup_cfg("name =\n[options]\npackages = other")),
        (
            Member("demo-1.0/pyproject.toml", SETUPTOOLS),
            Member("demo-1.0/setup.cfg", b"[metadata]\nversion = 1.0\n[options]\npackages = other\n"),
        ),
    ],
    ids=["py-empty", "py-none", "py-module", "py-module-after-packages", "cfg-empty", "cfg-packages", "no-setup-py"],
)  # fmt: skip
def test_the_name_setuptools_gives_a_project_naming_none_is_compared(
    tmp_path: Path, members: tuple[Member, ...]
) -> None:
    """No name, or an empty one: setuptools names the project from its one package, else its
    one module (setuptools 84 built ``other-1.0`` from each); review78a: after holds78 each
    passed, exit 0 (the first, third and fifth were A135 before it, the others never)."""
    code, report = audit_json(_sdist(tmp_path, *members))
    assert (code, codes(report)) == (1, {"A135": 1}), report
    (finding,) = report["artifacts"][0]["findings"]
    assert "name 'other'" in finding["detail"]


@pytest.mark.parametrize(
    "call",
    [
        'setup(version="1.0", packages=find_packages())',
        'setup(version="1.0", packages=["a", "b"])',
        'setup(version="1.0", packages=["demo"])',
        'setup(version="1.0", packages=pkgs, py_modules=["other"])',
    ],
    ids=["computed", "several", "the file's", "computed before a module"],
)
def test_a_name_setuptools_derives_otherwise_is_not_compared(tmp_path: Path, call: str) -> None:
    """A computed list or several packages (their common parent, not read): unchecked."""
    code, report = audit_json(_sdist(tmp_path, _setup_py(call)))
    assert (code, codes(report)) == (0, {}), report
