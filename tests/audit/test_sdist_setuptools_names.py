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
