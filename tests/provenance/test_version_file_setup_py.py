"""vLLM's `_version.py`, which `get_version(write_to=…)` in `setup.py` writes, is generated.

vLLM's `setup.py` calls setuptools-scm's `get_version(write_to="vllm/_version.py")` and appends
a local segment (`+cu128`, `.precompiled`) to the version it gives `setup()`: no pyproject.toml
setting names the module, so every vLLM pair failed `--source` with W402 (absent), exit 1. The
call is now read from `setup.py` by `ast` (literal arguments only, never run), and METADATA's
Version may extend the module's by local segments. A real build (setuptools-scm 10.3.4,
`python -m build --no-isolation`) of such a project one commit after tag `v0.11.0rc1` wrote a
`_version.py` stating `0.11.0rc2.dev1+g75c804988` in a wheel whose METADATA says
`0.11.0rc2.dev1+g75c804988.cu128`: these tests build the same shapes.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

from provenance.repokit import make_repo
from provenance.versiontemplates import SCM_10, scm_module

PYPROJECT = b"""\
[build-system]
requires = ["cmake>=3.26.1", "setuptools>=77.0.3,<80.0.0", "setuptools-scm>=8.0", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "vllm"
dynamic = ["version"]

[tool.setuptools_scm]
# no extra settings needed, presence enables setuptools-scm
"""
SETUP_PY = b"""\
import os
import sys

from setuptools import setup
from setuptools_scm import get_version


def get_vllm_version() -> str:
    if env_version := os.getenv("VLLM_VERSION_OVERRIDE"):
        os.environ["SETUPTOOLS_SCM_PRETEND_VERSION"] = env_version
        return get_version(write_to="vllm/_version.py")

    version = get_version(write_to="vllm/_version.py")
    sep = "+" if "+" not in version else "."  # dev versions might contain +
    if os.getenv("VLLM_USE_PRECOMPILED"):
        version += f"{sep}precompiled"
    elif "sdist" not in sys.argv:
        version += f"{sep}cu128"
    return version


setup(version=get_vllm_version())
"""
GENERATED_BY = "setuptools-scm (setup.py get_version(write_to=…))"


def _run(
    tmp_path: Path,
    sources: dict[str, bytes],
    stated: str,
    metadata: str,
    package: str = "vllm",
    version_tuple: tuple[int | str, ...] | None = None,
) -> tuple[int, dict[str, Any], str]:
    """Commits A and B of `sources` (B changes `core.py`); the patch built from B at version
    `metadata`, its `_version.py` stating `stated` (``{node}``: B's abbreviated id) and
    `version_tuple` (`scm_module`'s where None), checked against B."""
    core = next(path for path in sources if path.endswith("core.py"))
    _a, b = make_repo(tmp_path / "repo", [sources, {core: b"STEP = 2\n"}])
    node = f"g{b[:9]}"
    stated, metadata = stated.format(node=node), metadata.format(node=node)
    if version_tuple is not None:
        version_tuple = tuple(
            v.format(node=node) if isinstance(v, str) else v for v in version_tuple
        )
    files = {f"{package}/__init__.py": b"", f"{package}/core.py": b"STEP = 1\n"}
    base = wheelkit.make_wheel(
        tmp_path / "base", package, "0.10.0+cu128",
        {**files, f"{package}/_version.py": scm_module("0.10.0")},
    )  # fmt: skip
    patch = wheelkit.make_wheel(
        tmp_path / "patch", package, metadata,
        {**files, f"{package}/core.py": b"STEP = 2\n",
         f"{package}/_version.py": scm_module(stated, SCM_10, node, version_tuple)},
    )  # fmt: skip
    code, report = run_json("wheels", base, patch, "--source", tmp_path / "repo", "--commit", b)
    return code, report, b


def _sources(setup_py: bytes = SETUP_PY, pyproject: bytes = PYPROJECT) -> dict[str, bytes]:
    return {
        "pyproject.toml": pyproject,
        "setup.py": setup_py,
        ".gitignore": b"vllm/_version.py\n",
        "vllm/__init__.py": b"",
        "vllm/core.py": b"STEP = 1\n",
    }


def _source(report: dict[str, Any], path: str) -> dict[str, Any]:
    (entry,) = [e for e in report["entries"] if e["path"] == path]
    source: dict[str, Any] = entry["source"]
    return source


def _failing(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize(
    ("stated", "metadata", "version_tuple"),
    [
        ("0.11.1.dev3+{node}", "0.11.1.dev3+{node}.cu128", None),
        (  # as the real build wrote it
            "0.11.0rc2.dev1+{node}",
            "0.11.0rc2.dev1+{node}.precompiled",
            (0, 11, 0, "rc2", "dev1", "{node}"),
        ),
        ("0.11.0", "0.11.0+cu128", None),  # a release: setup.py's sep is "+"
        ("0.11.0", "0.11.0", None),  # VLLM_VERSION_OVERRIDE: the version as setuptools-scm made
    ],
)
def test_vllm_setup_py_version_module_is_generated(
    tmp_path: Path, stated: str, metadata: str, version_tuple: tuple[int | str, ...] | None
) -> None:
    code, report, b = _run(tmp_path, _sources(), stated, metadata, version_tuple=version_tuple)

    assert code == 0, _failing(report)
    source = _source(report, "vllm/_version.py")
    assert (source["status"], source["repo_path"]) == ("generated", "vllm/_version.py")
    assert source["generated_by"] == GENERATED_BY
    assert _source(report, "vllm/core.py")["status"] == "match"
    wheels = sorted((tmp_path / "base").glob("*.whl")) + sorted((tmp_path / "patch").glob("*.whl"))
    text = run_k3diff("wheels", *wheels, "--source", tmp_path / "repo", "--commit", b)
    assert text.exit_code == 0, text.stdout
    # Each version as it is stated (src72: METADATA's was said to be the module's).
    stated, metadata = stated.format(node=f"g{b[:9]}"), metadata.format(node=f"g{b[:9]}")
    said = (
        f"version {metadata} as METADATA states"
        if stated == metadata
        else f"stating version {stated}, which METADATA's {metadata} extends by local segments"
    )
    assert (
        f"vllm/_version.py: generated by {GENERATED_BY}, {said}: held to the tool's template, "
        "not to the commit"
    ) in text.stdout


@pytest.mark.parametrize(
    ("stated", "metadata", "said"),
    [
        ("0.11.0", "0.12.0+cu128", "__version__ is '0.11.0', not the wheel's METADATA Version"),
        ("0.11.0+cu129", "0.11.0+cu128", "__version__ is '0.11.0+cu129', not"),
        ("0.11.0+{node}", "0.11.0+cu128.{node}", "__version__ is '0.11.0+g"),  # not at its start
        ("0.11.0.dev1", "0.11.0+cu128", "__version__ is '0.11.0.dev1', not"),
    ],
)
def test_only_local_segments_appended_extend_the_stated_version(
    tmp_path: Path, stated: str, metadata: str, said: str
) -> None:
    code, report, _b = _run(tmp_path, _sources(), stated, metadata)

    assert code == 1
    assert _failing(report) == [("W402", "vllm/_version.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W402"]
    assert finding["detail"].startswith(
        "vllm/_version.py does not exist at the source commit; setuptools-scm writes it "
        "(setup.py get_version(write_to=…)), but this is not what it writes: "
    )
    assert said in finding["detail"]
    assert finding["detail"].endswith("or it extended by local segments")


def test_a_pyproject_version_file_is_not_extended(tmp_path: Path) -> None:
    """setuptools-scm writes METADATA's Version itself where pyproject.toml configures it: only
    a setup.py, which may append to it, extends it."""
    pyproject = PYPROJECT.replace(b"# no extra", b'version_file = "vllm/_version.py"\n# no')
    sources = _sources(b"from setuptools import setup\n\nsetup()\n", pyproject)

    code, report, _b = _run(tmp_path, sources, "0.11.0", "0.11.0+cu128")

    assert code == 1
    assert _failing(report) == [("W402", "vllm/_version.py")]


@pytest.mark.parametrize(
    "setup_py",
    [
        SETUP_PY.replace(b'write_to="vllm/_version.py"', b"write_to=os.path.join('vllm', 'v')"),
        SETUP_PY.replace(b'write_to="vllm/_version.py"', b"**{'write_to': 'vllm/_version.py'}"),
        SETUP_PY.replace(
            b"from setuptools_scm import get_version", b"from mytools import get_version"
        ),
        SETUP_PY.replace(b'write_to="vllm', b'relative_to="x/y.py", write_to="vllm'),
        SETUP_PY.replace(b'write_to="vllm/_version.py"', b'version_file="vllm/_version.py"'),
        SETUP_PY.replace(b'write_to="vllm/_version.py"', b'"..", write_to="vllm/_version.py"'),
    ],
    ids=["not-literal", "double-star", "not-setuptools-scm", "relative-to", "no-relative-to", "up"],
)
def test_a_call_k3diff_cannot_read_names_no_module(tmp_path: Path, setup_py: bytes) -> None:
    """Only literal arguments name the module; setuptools-scm asserts `relative_to` for
    `version_file`; a `root` above the repository places it outside."""
    code, report, _b = _run(tmp_path, _sources(setup_py), "0.11.0", "0.11.0+cu128")

    assert code == 1
    assert _failing(report) == [("W402", "vllm/_version.py")]
    assert _source(report, "vllm/_version.py")["generated_by"] is None


@pytest.mark.parametrize(
    "backend", ['build-backend = "flit_core.buildapi"', 'backend-path = ["."]']
)
def test_setup_py_is_read_only_where_setuptools_builds(tmp_path: Path, backend: str) -> None:
    pyproject = PYPROJECT.replace(b'build-backend = "setuptools.build_meta"', backend.encode())

    code, report, _b = _run(tmp_path, _sources(pyproject=pyproject), "0.11.0", "0.11.0")

    assert code == 1
    assert ("W402", "vllm/_version.py") in _failing(report)
    assert _source(report, "vllm/_version.py")["generated_by"] is None


@pytest.mark.parametrize(
    ("call", "setting"),
    [
        ('scm.get_version(root="..", relative_to=__file__, write_to="python/engine/_version.py")',
         "write_to"),
        ('scm.get_version(relative_to=__file__, version_file="engine/_version.py")',
         "version_file"),
    ],
)  # fmt: skip
def test_module_attribute_call_in_a_subproject(tmp_path: Path, call: str, setting: str) -> None:
    """`import setuptools_scm as scm` in `python/setup.py`: `write_to` is under `root` (".."
    here: the repository), `version_file` under setup.py's directory (`relative_to=__file__`)."""
    setup_py = (
        f"import setuptools_scm as scm\nfrom setuptools import setup\n\nsetup(version={call})\n"
    )
    sources = {
        "python/setup.py": setup_py.encode(),
        "python/engine/__init__.py": b"",
        "python/engine/core.py": b"STEP = 1\n",
        "README.md": b"engine\n",
    }
    code, report, _b = _run(tmp_path, sources, "1.0+{node}", "1.0+{node}", package="engine")

    assert code == 0, _failing(report)
    source = _source(report, "engine/_version.py")
    assert (source["status"], source["repo_path"]) == ("generated", "python/engine/_version.py")
    assert source["generated_by"] == f"setuptools-scm (python/setup.py get_version({setting}=…))"


def test_setup_py_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The layout reader and the version module reader share one parse of `setup.py` (src72:
    vLLM's, which names setuptools-scm, was parsed by each: up to 256 KiB twice)."""
    parsed: list[str] = []
    parse = ast.parse

    def counted(source: Any, filename: Any = "<unknown>", *args: Any, **kwargs: Any) -> Any:
        parsed.append(str(filename))
        return parse(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted)
    unique = SETUP_PY + f"# {tmp_path}\n".encode()  # parsed by no other test

    code, report, _b = _run(tmp_path, _sources(unique), "0.11.0", "0.11.0+cu128")

    assert code == 0, _failing(report)
    assert parsed.count("setup.py") == 1
