"""Stop 71's targets for `scripts/fuzz_cli.py`: the backends `wheels --source` now reads (flit,
pdm-backend, poetry-core, scikit-build-core), `setup.py`'s `get_version(write_to=…)`, a version
module's tuple and commit id, the modules a `.pth` line imports in turn, a log line over the
1 MiB scanned, and inspect_ai score values.

`prepare71(corpus)` writes their seeds under `corpus/v71-*/`:

* `v71-src-*`: a project whose backend's settings ship `src/…` as `pkg/` beside a complete old
  copy `legacy/pkg/`; the patch wheel ships the legacy `auth.py`: the seed fails (W402, exit 1);
* `v71-setuppy-*`: a vLLM-like `setup.py` (`get_version(write_to=…)`, METADATA `1.0+cu128`);
  in `edited` the patch ships a `_version.py` with an import added, which no `setup.py` may
  pass; `kept` passes and is run for robustness;
* `v71-version-*`: the version module (tuple, commit id) mutated, METADATA `1.0` or (setup.py)
  `1.0+cu128`: an exit 0 on a module whose code differs is listed for review;
* `v71-hook-*`: `demo.pth` imports `demo_hook`, whose imports (mutated) may reach the changed
  `demo_inner.py`; CPython's `site.addsitedir` on the patch's files says whether
  `demo_inner` runs at start: `wheels` exiting 0 when it does is a finding;
* `v71-logs-long`: a patch log with an error rule's text in a line over 1 MiB: exit 0 is a
  finding;
* `v71-scores`: inspect_ai JSON logs, the patch's score values mutated: exit 0 under
  `--fail-on score-drop` where inspect's `value_to_float` reads the patch lower is a finding.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import fuzz_mutators71 as m71
import wheelkit
from fuzz_target import Target
from fuzz_targets70 import _module_edited, _pair, _read_tree, _source_setup, commit_tree

from k3diff.logs.normalize import TERMINAL_CODES

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from provenance.versiontemplates import SCM_10, scm_module  # noqa: E402

AUTH = b"SECRET = 'new'\n\n\ndef check(token):\n    return token == SECRET\n"
LEGACY_AUTH = b"def check(token):\n    return True\n"
SYSTEM = b'[build-system]\nrequires = ["%s"]\nbuild-backend = "%s"\n\n[project]\nname = "engine"\nversion = "1.0"\n\n'  # fmt: skip

# name -> (pyproject.toml, the package's directory)
BACKENDS: dict[str, tuple[bytes, str]] = {
    "flit": (SYSTEM % (b"flit_core>=3.4", b"flit_core.buildapi")
             + b'[tool.flit.module]\nname = "pkg"\n', "src/pkg"),
    "pdm": (SYSTEM % (b"pdm-backend", b"pdm.backend")
            + b'[tool.pdm.build]\npackage-dir = "src"\nincludes = ["src/pkg"]\n', "src/pkg"),
    "poetry": (SYSTEM % (b"poetry-core", b"poetry.core.masonry.api")
               + b'[tool.poetry]\npackages = [{include = "pkg", from = "src"}]\n', "src/pkg"),
    "skbuild-list": (SYSTEM % (b"scikit-build-core", b"scikit_build_core.build")
                     + b'[tool.scikit-build]\nwheel.packages = ["src/pkg"]\n', "src/pkg"),
    "skbuild-table": (SYSTEM % (b"scikit-build-core", b"scikit_build_core.build")
                      + b'[tool.scikit-build]\nwheel.packages = {pkg = "src/realname"}\n',
                      "src/realname"),
}  # fmt: skip
SETUP_PY = (
    b"from setuptools import setup\nfrom setuptools_scm import get_version\n\n"
    b'version = get_version(write_to="src/realname/_version.py")\n'
    b'setup(\n    name="engine",\n    version=version + "+cu128",\n    packages=["pkg"],\n'
    b'    package_dir={"pkg": "src/realname"},\n)\n'
)
SETUP_PYPROJECT = (
    b'[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\n'
    b'build-backend = "setuptools.build_meta"\n'
)


def _tree(package: str, generated: bool = False) -> dict[str, bytes]:
    tree = {
        f"{package}/__init__.py": b"",
        f"{package}/auth.py": AUTH,
        "legacy/pkg/__init__.py": b"",
        "legacy/pkg/auth.py": LEGACY_AUTH,
        "README.md": b"engine\n",
    }
    if generated:
        tree[".gitignore"] = f"{package}/_version.py\n".encode()
    return tree


def _write(folder: Path, files: Mapping[str, bytes]) -> None:
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)


def _source_argv(corpus: Path, f: Path) -> list[str]:
    return ["wheels", *_pair(f), "--source", str(f.parent / "repo"), "--commit", "HEAD"]


def _backend_seeds(corpus: Path) -> list[Target]:
    targets = []
    for name, (content, package) in BACKENDS.items():
        folder = corpus / f"v71-src-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        _write(folder / "tree", _tree(package))
        (folder / "pyproject.toml").write_bytes(content)
        base = {"pkg/__init__.py": b"", "pkg/auth.py": AUTH}
        wheelkit.make_wheel(folder / "base", "engine", "1.0", base)
        wheelkit.make_wheel(folder / "patch", "engine", "1.0", {**base, "pkg/auth.py": LEGACY_AUTH})
        targets.append(
            Target(
                f"v71-src-{name}",
                f"v71-src-{name}/pyproject.toml",
                _source_argv,
                m71.BACKEND_MUTATORS,
                fails=True,
                excused="(detected",
                setup=_source_setup("pyproject.toml"),
            )
        )
    return targets


def _commit_of(tree: Mapping[str, bytes], probe: Path) -> str:
    commit = commit_tree(probe, tree)
    shutil.rmtree(probe)
    return commit


def _setup_py_seeds(corpus: Path) -> list[Target]:
    """`edited`: the patch's `_version.py` holds an import (fails whatever setup.py says);
    `kept`: the module as setuptools-scm writes it (passes where setup.py still names it)."""
    targets = []
    tree = {**_tree("src/realname", True), "pyproject.toml": SETUP_PYPROJECT}
    files = {"pkg/__init__.py": b"", "pkg/auth.py": AUTH}
    for name, fails in (("edited", True), ("kept", False)):
        folder = corpus / f"v71-setuppy-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        _write(folder / "tree", tree)
        (folder / "setup.py").write_bytes(SETUP_PY)
        wheelkit.make_wheel(folder / "base", "engine", "1.0+cu128", files)

        def setup(work: Path, mutated: Path, fails: bool = fails) -> None:
            """Commit the mutated setup.py; the patch ships the module made at that commit."""
            _source_setup("setup.py")(work, mutated)
            commit = subprocess.run(
                ["git", "-C", str(work / "repo"), "rev-parse", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            module = scm_module("1.0", SCM_10, f"g{commit[:9]}")
            module += b"import os\n" if fails else b""
            wheelkit.make_wheel(
                work / "patch", "engine", "1.0+cu128", {**files, "pkg/_version.py": module}
            )

        targets.append(
            Target(f"v71-setuppy-{name}", f"v71-setuppy-{name}/setup.py",
                   lambda c, f: ["wheels", *_pair_v(f, "1.0+cu128"), "--source",
                                 str(f.parent / "repo"), "--commit", "HEAD"],
                   m71.SETUP_PY_MUTATORS, fails=fails, setup=setup)
        )  # fmt: skip
    return targets


def _pair_v(f: Path, version: str) -> list[str]:
    name = f"engine-{version}-py3-none-any.whl"
    return [str(f.parent / "base" / name), str(f.parent / "patch" / name)]


def _version_seeds(corpus: Path) -> list[Target]:
    """The module mutated, as setuptools-scm writes it by pyproject.toml (METADATA `1.0`) or
    by setup.py's `get_version(write_to=…)` (METADATA `1.0+cu128`)."""
    targets = []
    scm_pyproject = (
        SETUP_PYPROJECT + b'\n[project]\nname = "engine"\ndynamic = ["version"]\n\n'
        b'[tool.setuptools]\npackages = ["pkg"]\n\n[tool.setuptools.package-dir]\n'
        b'pkg = "src/realname"\n\n[tool.setuptools_scm]\nversion_file = '
        b'"src/realname/_version.py"\n'
    )
    for name, config, version in (
        ("toml", {"pyproject.toml": scm_pyproject}, "1.0"),
        ("setuppy", {"pyproject.toml": SETUP_PYPROJECT, "setup.py": SETUP_PY}, "1.0+cu128"),
    ):
        folder = corpus / f"v71-version-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        tree = {**_tree("src/realname", True), **config}
        _write(folder / "tree", tree)
        commit = _commit_of(tree, folder / "probe")
        module = scm_module("1.0", SCM_10, f"g{commit[:9]}")
        (folder / "_version.py").write_bytes(module)
        files = {"pkg/__init__.py": b"", "pkg/auth.py": AUTH}
        wheelkit.make_wheel(
            folder / "base", "engine", version, {**files, "pkg/_version.py": module}
        )

        def setup(work: Path, mutated: Path, files: dict[str, bytes] = files,
                  version: str = version) -> None:  # fmt: skip
            commit_tree(work / "repo", _read_tree(work / "tree"))
            wheelkit.make_wheel(work / "patch", "engine", version,
                                {**files, "pkg/_version.py": mutated.read_bytes()})  # fmt: skip

        targets.append(
            Target(f"v71-version-{name}", f"v71-version-{name}/_version.py",
                   lambda c, f, v=version: ["wheels", *_pair_v(f, v), "--source",
                                            str(f.parent / "repo"), "--commit", "HEAD"],
                   m71.VERSION_MODULE_MUTATORS, setup=setup, review=_module_edited)
        )  # fmt: skip
    return targets


# --- the modules a .pth line imports ---------------------------------------------------------

MARK = b"import builtins\nbuiltins.__dict__['_k3fuzz_inner'] = 1\nX = 1\ndef deco(f):\n    return f\n"  # fmt: skip
HOOK_FILES = {
    "demo_pkg/__init__.py": b"__all__ = ['c']\n",
    "demo_pkg/a.py": b"X = 1\n",
    "demo_pkg/c.py": b"import demo_inner\nfrom demo_inner import deco\n",
    "demo_pkg/boot.py": b"def start():\n    import demo_inner\n\ndef install():\n    pass\n",
    "demo_pkg/cycle_a.py": b"import demo_pkg.cycle_b\n",
    "demo_pkg/cycle_b.py": b"import demo_pkg.cycle_a\nfrom . import c\n",
    "demo_pkg/deep/__init__.py": b"",
    **{f"demo_pkg/deep/d{n}.py": f"import demo_pkg.deep.d{n + 1}\n".encode() for n in range(1, 20)},
    "demo_pkg/deep/d20.py": b"import demo_inner\n",
}
HOOK_SEED = b"import demo_hook\n" + m71.PTH_SEP + b"import os\nimport demo_pkg.c\n\n\ndef install():\n    pass\n"  # fmt: skip
PTH_WHEEL = "demo-1.0-py3-none-any.whl"


def _hook_files(data: bytes, inner: bytes) -> dict[str, bytes]:
    pth, _, hook = data.partition(m71.PTH_SEP)
    return {**HOOK_FILES, "demo.pth": pth, "demo_hook.py": hook, "demo_inner.py": inner}


def _hook_setup(work: Path, mutated: Path) -> None:
    """Base and patch ship the mutated hook and `.pth`; only `demo_inner.py` differs."""
    data = mutated.read_bytes()
    wheelkit.make_wheel(work / "base", "demo", "1.0", _hook_files(data, b"X = 0\ndef deco(f):\n    return f\n"))  # fmt: skip
    wheelkit.make_wheel(work / "patch", "demo", "1.0", _hook_files(data, MARK))


def runs_at_start(seed: bytes, data: bytes) -> str | None:
    """Whether CPython, `site.addsitedir` on the patch's files, imports `demo_inner` (a line
    that `exec`s a string is documented as not followed: not listed)."""
    if b"exec(" in data.partition(m71.PTH_SEP)[0]:
        return None
    with tempfile.TemporaryDirectory(prefix="k3fuzz-site-") as tmp:
        _write(Path(tmp), _hook_files(data, MARK))
        probe = (
            "import builtins, site, sys\nsite.addsitedir(sys.argv[1])\n"
            "print('RAN' if '_k3fuzz_inner' in builtins.__dict__ else 'NOT')\n"
        )
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", "-c", probe, tmp], capture_output=True, timeout=20
            )
        except subprocess.TimeoutExpired:
            return None
    if b"RAN" in done.stdout:
        return "exit 0 while CPython runs the changed demo_inner at start"
    return None


def _hook_seeds(corpus: Path) -> list[Target]:
    folder = corpus / "v71-hook"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "demo_hook.py").write_bytes(HOOK_SEED)
    return [
        Target("v71-hook-wheels", "v71-hook/demo_hook.py",
               lambda c, f: ["wheels", str(f.parent / "base" / PTH_WHEEL),
                             str(f.parent / "patch" / PTH_WHEEL)],
               m71.HOOK_MUTATORS, setup=_hook_setup, review=runs_at_start),
        Target("v71-hook-audit", "v71-hook/demo_hook.py",
               lambda c, f: ["audit", str(f.parent / "patch" / PTH_WHEEL)],
               m71.HOOK_MUTATORS, setup=_hook_setup),
    ]  # fmt: skip


# --- a log line over the 1 MiB scanned -------------------------------------------------------

BASE_LOG = (
    b"INFO 05-12 10:07:00 [api_server.py:1] vLLM API server version 0.11.0\n"
    b"INFO:     Started server process [4242]\nINFO:     Waiting for application startup.\n"
    b"INFO:     Application startup complete.\n"
    b'INFO:     127.0.0.1:50242 - "POST /v1/completions HTTP/1.1" 200 OK\n'
)


def error_kept(seed: bytes, data: bytes) -> str | None:
    """Whether the patch log still holds an error rule's text whole (then it must fail)."""
    try:
        text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    except (OSError, EOFError, zlib.error):
        return None
    shown = TERMINAL_CODES.sub("", text.decode("latin-1"))  # as a terminal shows it: an escape
    for error in m71.ERRORS:  # cut by the filler may take the error's first letter (ESC [ 2 C)
        if TERMINAL_CODES.sub("", error.decode("latin-1")) in shown:
            return "exit 0 on a log holding an error rule's text"
    return None


def _log_seeds(corpus: Path) -> list[Target]:
    folder = corpus / "v71-logs"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "base.log").write_bytes(BASE_LOG)
    line = b"x" * (3 * m71.MIB) + m71.ERRORS[0] + b"\n"
    (folder / "patch.log").write_bytes(BASE_LOG + line)
    return [
        Target("v71-logs-long", "v71-logs/patch.log",
               lambda c, f: ["logs", str(f.parent / "base.log"), str(f)],
               m71.LONG_LINE_MUTATORS, review=error_kept),
    ]  # fmt: skip


# --- inspect_ai score values -----------------------------------------------------------------

SAMPLES = 1000
_WORDS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}


def inspect_float(value: object) -> float | None:
    """inspect_ai's `value_to_float()` (src/inspect_ai/scorer/_metric.py), None where it raises;
    a value it warns about is 0."""
    if isinstance(value, int | float | bool):
        return float(value) if abs(value) < 1e308 else None  # float() raises past its range
    if isinstance(value, str) and value in _WORDS:
        return _WORDS[value]
    if isinstance(value, str):
        low = value.lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        if low.replace(".", "").isnumeric():
            try:
                return float(low)
            except ValueError:
                return None
    return 0.0


def _judged(log: dict[str, list[dict[str, dict[str, dict[str, object]]]]]) -> list[object]:
    return [sample["scores"]["judge"]["value"] for sample in log["samples"]]


def score_dropped(seed: bytes, data: bytes) -> str | None:
    """Whether inspect scores the patch's samples lower than the base's (the seed) on 10 or
    more of them of 1,000, and none higher (McNemar p <= 0.002): then `--fail-on score-drop`
    must fail."""
    try:
        base, patch = _judged(json.loads(seed)), _judged(json.loads(data))
    except (ValueError, RecursionError, AttributeError, KeyError, TypeError):
        return None
    if len(base) != len(patch):
        return None
    lost = gained = 0
    for b, p in zip(base, patch, strict=True):
        if isinstance(p, dict):
            return None  # one metric per key: another comparison
        low, high = inspect_float(p), inspect_float(b)
        if low is None or high is None:
            return None  # inspect raises: no score of its to hold k3diff to
        lost, gained = lost + (low < high), gained + (low > high)
    if lost >= 10 and not gained:
        return f"exit 0 where inspect scores {lost} samples lower, none higher"
    return None


def _score_seeds(corpus: Path) -> list[Target]:
    from responses.eval_logs import inspect_sample, write_json_log

    folder = corpus / "v71-scores"
    shutil.rmtree(folder, ignore_errors=True)
    samples = [inspect_sample(i, 1, f"q{i}", "42", {"judge": "C"}) for i in range(SAMPLES)]
    write_json_log(folder / "base.json", samples)
    write_json_log(folder / "patch.json", samples)
    return [
        Target("v71-scores", "v71-scores/patch.json",
               lambda c, f: ["responses", str(f.parent / "base.json"), str(f),
                             "--fail-on", "score-drop"],
               m71.SCORE_MUTATORS, review=score_dropped),
    ]  # fmt: skip


def prepare71(corpus: Path) -> list[Target]:
    """Write stop 71's seeds under `corpus`; its targets."""
    return [
        *_backend_seeds(corpus),
        *_setup_py_seeds(corpus),
        *_version_seeds(corpus),
        *_hook_seeds(corpus),
        *_log_seeds(corpus),
        *_score_seeds(corpus),
    ]
