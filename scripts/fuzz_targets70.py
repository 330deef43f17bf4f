"""Stop 70's targets for `scripts/fuzz_cli.py`: the build configuration `wheels --source` reads,
version modules the build writes, `.pth` path lines, and the samples log's `run.keys` and
`/perf_metrics` drains (start-up, per batch, closing).

`prepare70(corpus)` writes their seeds under `corpus/v70-*/`:

* `v70-src-*`: a project whose configuration maps package `pkg` to `src/realname` (setuptools
  in pyproject.toml, setup.cfg or setup.py; hatchling's `packages`/`only-include` + `sources`;
  maturin's `python-source`; a subproject `python/`; with setuptools-scm, hatch-vcs or versioneer
  settings) beside a complete old copy `legacy/pkg/`. The patch wheel ships the legacy
  `auth.py`: the seed fails (W402/W401, exit 1), and a mutated configuration (committed, in a real
  git repository, by the target's `setup`) that passes is listed for review;
* `v70-version-*`: a setuptools-scm and a versioneer project whose patch wheel ships the version
  module the build writes (the mutated seed): an exit 0 on a module whose code differs is listed;
* `v70-pth-*`: a wheel whose `.pth` names the `sitecustomize.py` it installs under the prefix
  (fails), and one with plain path lines;
* `v70-perf-*`: `k3diff sample` runs of tests/sample/test_telemetry_cold_proof.py and
  test_telemetry_cold_drains.py (stored in scripts/fuzz_seeds70/), whose header and drains get
  mutated through `telemetry`, `report`; the demo's run through `triage` and `report`.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import fuzz_mutators70 as m70
import wheelkit
from fuzz_target import Target

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from provenance.repokit import git  # noqa: E402
from provenance.versiontemplates import SCM_10, scm_module, versioneer_module  # noqa: E402

AUTH = b"SECRET = 'new'\n\n\ndef check(token):\n    return token == SECRET\n"
LEGACY_AUTH = b"def check(token):\n    return True\n"
SETUPTOOLS = b'[build-system]\nrequires = ["setuptools>=64"%s]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "engine"\nversion = "1.0"\n\n'  # fmt: skip
HATCH = b'[build-system]\nrequires = ["hatchling"%s]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "engine"\nversion = "1.0"\n\n'  # fmt: skip
PACKAGE_DIR = b'[tool.setuptools]\npackages = ["pkg"]\n\n[tool.setuptools.package-dir]\npkg = "src/realname"\n'  # fmt: skip
PTH_WHEEL = "demo-1.0-py3-none-any.whl"
SOURCES = b'sources = {"src/realname" = "pkg"}\n'

# name -> (configuration file, its place in the repository, content, the package's directory)
CONFIGS: dict[str, tuple[str, str, bytes, str]] = {
    "toml": ("pyproject.toml", "", SETUPTOOLS % b"" + PACKAGE_DIR, "src/realname"),
    "cfg": (
        "setup.cfg", "",
        b"[metadata]\nname = engine\n\n[options]\npackages = pkg\npackage_dir =\n"
        b"    pkg = src/realname\n",
        "src/realname",
    ),
    "py": (
        "setup.py", "",
        b'from setuptools import setup\n\nsetup(\n    name="engine",\n    packages=["pkg"],\n'
        b'    package_dir={"pkg": "src/realname"},\n)\n',
        "src/realname",
    ),
    "hatch": (
        "pyproject.toml", "",
        HATCH % b"" + b'[tool.hatch.build.targets.wheel]\npackages = ["src/realname"]\n' + SOURCES,
        "src/realname",
    ),
    "hatch-only": (
        "pyproject.toml", "",
        HATCH % b"" + b'[tool.hatch.build.targets.wheel]\nonly-include = ["src/realname"]\n'
        + SOURCES,
        "src/realname",
    ),
    "maturin": (
        "pyproject.toml", "",
        b'[build-system]\nrequires = ["maturin>=1"]\nbuild-backend = "maturin"\n\n[project]\n'
        b'name = "engine"\nversion = "1.0"\n\n[tool.maturin]\npython-source = "python"\n',
        "python/pkg",
    ),
    "sub": (
        "pyproject.toml", "python/",
        SETUPTOOLS % b"" + b'[tool.setuptools]\npackages = ["pkg"]\n\n'
        b'[tool.setuptools.package-dir]\npkg = "realname"\n',
        "python/realname",
    ),
    "scm": (
        "pyproject.toml", "",
        SETUPTOOLS % b', "setuptools-scm>=8"' + PACKAGE_DIR
        + b'\n[tool.setuptools_scm]\nversion_file = "src/realname/_version.py"\n',
        "src/realname",
    ),
    "hatch-vcs": (
        "pyproject.toml", "",
        HATCH % b', "hatch-vcs"' + b'[tool.hatch.version]\nsource = "vcs"\n\n'
        b'[tool.hatch.build.hooks.vcs]\nversion-file = "src/realname/_version.py"\n\n'
        b'[tool.hatch.build.targets.wheel]\npackages = ["src/realname"]\n' + SOURCES,
        "src/realname",
    ),
    "versioneer": (
        "setup.cfg", "",
        b"[options]\npackages = pkg\npackage_dir =\n    pkg = src/realname\n\n[versioneer]\n"
        b"VCS = git\nstyle = pep440\nversionfile_source = src/realname/_version.py\n"
        b"versionfile_build = pkg/_version.py\ntag_prefix = v\n",
        "src/realname",
    ),
}  # fmt: skip
_MUTATORS = {"pyproject.toml": m70.TOML_MUTATORS, "setup.cfg": m70.CFG_MUTATORS,
             "setup.py": m70.PY_MUTATORS}  # fmt: skip


def _tree(package: str, generated: bool) -> dict[str, bytes]:
    tree = {
        f"{package}/__init__.py": b"",
        f"{package}/auth.py": AUTH,
        "legacy/pkg/__init__.py": b"",
        "legacy/pkg/auth.py": LEGACY_AUTH,
        "README.md": b"engine\n",
    }
    if generated:
        tree[".gitignore"] = f"{package}/_version.py\n".encode()
        tree["versioneer.py"] = b"# versioneer 0.29\n"
    return tree


def commit_tree(repo: Path, files: Mapping[str, bytes], links: Mapping[str, bytes] = {}) -> str:
    """A repository at `repo` committing `files` (and `links`: path -> link target) once, with
    the tests' fixed identity and date (the same commit id each time); its id."""
    repo.mkdir(parents=True)
    for path, data in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(data)
    for path, target in links.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).unlink(missing_ok=True)
        (repo / path).symlink_to(target.decode("utf-8", "surrogateescape"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", "c0")
    return git(repo, "rev-parse", "HEAD")


def _read_tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file()}  # fmt: skip


def _source_setup(place: str) -> Callable[[Path, Path], None]:
    """Commit the work's `tree/` with the mutated configuration at `place` as `repo/`."""

    def setup(work: Path, mutated: Path) -> None:
        files, links = _read_tree(work / "tree"), {}
        data = mutated.read_bytes()
        if data.startswith(m70.LINK):
            links[place] = data[len(m70.LINK) :]
        else:
            files[place] = data
        commit_tree(work / "repo", files, links)

    return setup


def _wheel_setup(files: Mapping[str, bytes], at: str, version: str, repo: bool = False
                 ) -> Callable[[Path, Path], None]:  # fmt: skip
    """Build `patch/` shipping `files` and the mutated file at `at` (and commit `tree/`)."""

    def setup(work: Path, mutated: Path) -> None:
        if repo:
            commit_tree(work / "repo", _read_tree(work / "tree"))
        wheelkit.make_wheel(work / "patch", "engine", version, {**files, at: mutated.read_bytes()})

    return setup


def _source_seeds(corpus: Path) -> list[Target]:
    targets = []
    for name, (config, project, content, package) in CONFIGS.items():
        folder = corpus / f"v70-src-{name}"
        generated = name in ("scm", "hatch-vcs", "versioneer")
        shutil.rmtree(folder, ignore_errors=True)
        for path, data in _tree(package, generated).items():
            (folder / "tree" / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / "tree" / path).write_bytes(data)
        (folder / config).write_bytes(content)
        base = {"pkg/__init__.py": b"", "pkg/auth.py": AUTH}
        if generated:
            module = versioneer_module("1.0", None) if name == "versioneer" else scm_module("1.0")
            base["pkg/_version.py"] = module
        wheelkit.make_wheel(folder / "base", "engine", "1.0", base)
        patch = {**base, "pkg/auth.py": LEGACY_AUTH}
        wheelkit.make_wheel(folder / "patch", "engine", "1.0", patch)
        targets.append(
            Target(
                f"v70-src-{name}",
                f"v70-src-{name}/{config}",
                lambda c, f: [
                    "wheels",
                    *_pair(f),
                    "--source",
                    str(f.parent / "repo"),
                    "--commit",
                    "HEAD",
                ],
                _MUTATORS[config],
                fails=True,  # sub: exit 2 (legacy/ is in no project), never 0
                seed_exit=2 if name == "sub" else None,
                excused="(detected; ",
                setup=_source_setup(project + config),
            )
        )
    return targets


def _pair(f: Path) -> list[str]:
    name = "engine-1.0-py3-none-any.whl"
    return [str(f.parent / "base" / name), str(f.parent / "patch" / name)]


def _code(data: bytes) -> str | None:
    try:
        return ast.dump(ast.parse(data))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _module_edited(seed: bytes, data: bytes) -> str | None:
    if _code(seed) != _code(data):
        return "review: an edited version module accepted as generated"
    return None


def _version_seeds(corpus: Path) -> list[Target]:
    targets = []
    for tool in ("scm", "versioneer"):
        config, project, content, package = CONFIGS[tool]
        folder = corpus / f"v70-version-{tool}"
        shutil.rmtree(folder, ignore_errors=True)
        tree = {**_tree(package, True), project + config: content}
        for path, data in tree.items():
            (folder / "tree" / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / "tree" / path).write_bytes(data)
        commit = commit_tree(folder / "probe", tree)
        shutil.rmtree(folder / "probe")
        version = "1.0"
        base = {"pkg/__init__.py": b"", "pkg/auth.py": AUTH}
        if tool == "scm":
            module = scm_module(version, SCM_10, f"g{commit[:9]}")
        else:
            module = versioneer_module(version, commit)
        wheelkit.make_wheel(folder / "base", "engine", version, {**base, "pkg/_version.py": module})
        (folder / "_version.py").write_bytes(module)
        targets.append(
            Target(
                f"v70-version-{tool}",
                f"v70-version-{tool}/_version.py",
                lambda c, f: [
                    "wheels",
                    *_pair(f),
                    "--source",
                    str(f.parent / "repo"),
                    "--commit",
                    "HEAD",
                ],
                m70.MODULE_MUTATORS,
                setup=_wheel_setup(base, "pkg/_version.py", version, repo=True),
                review=_module_edited,
            )
        )
    return targets


def _pth_seeds(corpus: Path) -> list[Target]:
    targets = []
    customize = {"demo/__init__.py": b"", "demo-1.0.data/data/share/demo/sitecustomize.py":
                 b"import os\n"}  # fmt: skip
    for name, pth, files, fails in (
        ("customize", b"# paths\n../../../share/demo\n", customize, True),
        ("plain", b"# paths\nextra\nlib/more\n", {"demo/__init__.py": b""}, False),
    ):
        folder = corpus / f"v70-pth-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / "demo.pth").write_bytes(pth)
        base = files if fails else {**files, "demo.pth": pth}
        wheelkit.make_wheel(folder / "base", "demo", "1.0", base)
        for command in ("wheels", "audit"):
            targets.append(
                Target(
                    f"v70-pth-{name}-{command}",
                    f"v70-pth-{name}/demo.pth",
                    (
                        lambda c, f: [
                            "wheels",
                            str(f.parent / "base" / PTH_WHEEL),
                            str(f.parent / "patch" / PTH_WHEEL),
                        ]
                    )
                    if command == "wheels"
                    else (lambda c, f: ["audit", str(f.parent / "patch" / PTH_WHEEL)]),
                    m70.PTH_MUTATORS,
                    fails=fails and command == "wheels",
                    setup=_demo_wheel(files),
                )
            )
    return targets


def _demo_wheel(files: Mapping[str, bytes]) -> Callable[[Path, Path], None]:
    def setup(work: Path, mutated: Path) -> None:
        wheelkit.make_wheel(
            work / "patch", "demo", "1.0", {**files, "demo.pth": mutated.read_bytes()}
        )

    return setup


def _samples_seeds(corpus: Path, k3diff: Path) -> list[Target]:
    for side in ("fail", "pass"):
        folder = corpus / f"v70-perf-{side}"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(ROOT / "scripts" / "fuzz_seeds70" / f"perf-{side}", folder)
        subprocess.run(
            [str(k3diff), "telemetry", "samples.jsonl", "--expect", "cache-reuse",
             "--format", "json", "-o", "telemetry.json"],
            cwd=folder, capture_output=True, check=False,
        )  # fmt: skip
    expect = ["--expect", "cache-reuse"]
    return [
        Target("v70-telemetry-header", "v70-perf-fail/samples.jsonl",
               lambda c, f: ["telemetry", str(f), *expect], m70.HEADER_MUTATORS, fails=True),
        Target("v70-telemetry-drains", "v70-perf-fail/perf_metrics.jsonl",
               lambda c, f: ["telemetry", str(f.parent / "samples.jsonl"), *expect],
               m70.DRAIN_MUTATORS, fails=True),
        Target("v70-telemetry-drains-pass", "v70-perf-pass/perf_metrics.jsonl",
               lambda c, f: ["telemetry", str(f.parent / "samples.jsonl"), *expect],
               m70.DRAIN_MUTATORS),
        Target("v70-telemetry-header-pass", "v70-perf-pass/samples.jsonl",
               lambda c, f: ["telemetry", str(f), *expect], m70.HEADER_MUTATORS),
        Target("v70-report-drains", "v70-perf-fail/perf_metrics.jsonl",
               lambda c, f: ["report", "telemetry.json", "samples.jsonl", "--out", "again"],
               m70.DRAIN_MUTATORS, fails=True),
        Target("v70-report-samples", "v70-perf-pass/samples.jsonl",
               lambda c, f: ["report", str(f), "--out", "bundle"], m70.HEADER_MUTATORS),
        Target("v70-triage-keys", "run/samples.jsonl",
               lambda c, f: ["triage", str(c / "cmp.json"), str(f)], m70.HEADER_MUTATORS),
        Target("v70-report-keys", "run/samples.jsonl",
               lambda c, f: ["report", str(f), "--out", str(f.parent / "bundle")],
               m70.HEADER_MUTATORS),
    ]  # fmt: skip


def prepare70(corpus: Path, k3diff: Path) -> list[Target]:
    """Write stop 70's seeds under `corpus`; its targets."""
    return [
        *_source_seeds(corpus),
        *_version_seeds(corpus),
        *_pth_seeds(corpus),
        *_samples_seeds(corpus, k3diff),
    ]
