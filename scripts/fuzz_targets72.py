"""Stop 72's targets for `scripts/fuzz_cli.py`: what `wheels --source` reads of a
scikit-build-core `CMakeLists.txt`, hatchling and scikit-build-core exclude patterns, a
`.gitignore` and `hatch.toml`; hooks whose imports are computed names; `audit --manifest`
lines; release-set file names; rules spread across a long line's 1 MiB cut; and the samples
header's `server_identity` and `log_format`.

`prepare72(corpus)` writes their seeds under `corpus/v72-*/`, each with its oracle:

* `v72-cmake`: `install(FILES fixes/auth.py DESTINATION pkg/sub)` ships the fix over the
  package's old `src/pkg/sub/auth.py`; the patch reverts to the old file (fails, exit 1). An
  exit 0 while the mutated file still holds that line is listed for review;
* `v72-exclude-hatch`, `v72-exclude-skbuild`, `v72-gitignore`: the build leaves out
  `pkg/testing/fake_auth.py`, which the patch ships (W412, exit 1); an exit 0 where `pathspec`
  (what hatchling and scikit-build-core match with) says the patterns leave it out is a finding;
* `v72-hatch-toml`: stop 70's hatch project configured in `hatch.toml` (fails, exit 1);
* `v72-computed`: stop 71's `.pth` hook, its imports computed names; CPython's `site` says
  whether the changed `demo_inner` runs at start: exit 0 when it does is a finding;
* `v72-manifest`: `audit WHEEL --manifest`: exit 0 where `sha256sum -c --ignore-missing`, run
  beside the wheel, fails the manifest is a finding;
* `v72-sets`: release sets of the demo wheel under many names (robustness, time);
* `v72-spread`: a patch log whose long line holds a rule's match spread across the cut: exit 0
  where `re.search` of an error rule (or the `--rule`) on the whole line matches is a finding;
* `v72-identity-*`: the samples header's `server_identity` and `log_format` edited (triage:
  an exit 0 on a header saying `one-server` is listed for review).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import shutil
import subprocess
import tempfile
import zlib
from pathlib import Path

import fuzz_mutators72 as m72
import pathspec
import wheelkit
from fuzz_target import Target
from fuzz_targets70 import _pair, _source_setup
from fuzz_targets71 import BASE_LOG, _hook_setup, _write, runs_at_start
from fuzz_targets71 import PTH_WHEEL as HOOK_WHEEL

from k3diff.logs.normalize import TERMINAL_CODES
from k3diff.logs.rules import BUILTIN_RULES, MULTILINE_RULES
from k3diff.provenance.ignorepatterns import compiled

WHEEL = "engine-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
OLD = b"def check(token, secret):\n    return token == secret\n"
SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
SKBUILD = (
    b'[build-system]\nrequires = ["scikit-build-core"]\n'
    b'build-backend = "scikit_build_core.build"\n\n[project]\nname = "engine"\nversion = "1.0"\n\n'
    b'[tool.scikit-build]\nwheel.packages = ["src/pkg"]\n'
)
HATCH = (
    b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
    b'[project]\nname = "engine"\nversion = "1.0"\n\n[tool.hatch.build.targets.wheel]\n'
    b'packages = ["src/pkg"]\n'
)
CMAKE = (
    b"cmake_minimum_required(VERSION 3.15)\nproject(pkg LANGUAGES CXX)\n"
    b"install(TARGETS _core LIBRARY DESTINATION ${SKBUILD_PROJECT_NAME})\n"
    b"install(FILES fixes/auth.py DESTINATION pkg/sub)\n"
)
INSTALL_FIX = b"install(FILES fixes/auth.py DESTINATION pkg/sub)"


def _git_argv(c: Path, f: Path) -> list[str]:
    return ["wheels", *_pair(f), "--source", str(f.parent / "repo"), "--commit", "HEAD"]


def _seed(folder: Path, tree: dict[str, bytes], seed: str, data: bytes,
          base: dict[str, bytes], patch: dict[str, bytes]) -> None:  # fmt: skip
    shutil.rmtree(folder, ignore_errors=True)
    _write(folder / "tree", tree)
    (folder / seed).write_bytes(data)
    wheelkit.make_wheel(folder / "base", "engine", "1.0", base)
    wheelkit.make_wheel(folder / "patch", "engine", "1.0", patch)


def _install_kept(seed: bytes, data: bytes) -> str | None:
    if INSTALL_FIX in data.split(b"\n"):
        return "review: exit 0 with the install(FILES fixes/auth.py ...) line kept"
    return None


def _cmake_seeds(corpus: Path) -> list[Target]:
    tree = {"pyproject.toml": SKBUILD, "src/pkg/__init__.py": b"", "src/pkg/sub/__init__.py": b"",
            "src/pkg/sub/auth.py": OLD, "fixes/auth.py": SAFE}  # fmt: skip
    base = {"pkg/__init__.py": b"", "pkg/sub/__init__.py": b"", "pkg/sub/auth.py": SAFE}
    _seed(corpus / "v72-cmake", tree, "CMakeLists.txt", CMAKE, base,
          {**base, "pkg/sub/auth.py": OLD})  # fmt: skip
    return [Target("v72-cmake", "v72-cmake/CMakeLists.txt", _git_argv, m72.CMAKE_MUTATORS,
                   setup=_source_setup("CMakeLists.txt"), review=_install_kept)]  # fmt: skip


LEFT_OUT = "src/pkg/testing/fake_auth.py"
TESTING = {"src/pkg/__init__.py": b"", "src/pkg/util.py": b"X = 2\n",
           "src/pkg/testing/__init__.py": b"", LEFT_OUT: b"BYPASS = True\n"}  # fmt: skip
BUILT = {"pkg/__init__.py": b"", "pkg/util.py": b"X = 2\n"}


def _excluded(patterns: list[str], path: str) -> bool:
    """Whether k3diff reads `patterns` as keeping `path` (not `None`: it claims to read them
    all) where `pathspec.GitIgnoreSpec`, which both backends match with, leaves it out."""
    if compiled(patterns).excludes(path) is not False:
        return False  # left out by k3diff too, or not claimed (a negation, an escape ...)
    try:
        return bool(pathspec.GitIgnoreSpec.from_lines(patterns).match_file(path))
    except (ValueError, TypeError, re.error):
        return False


def _toml_excludes(data: bytes) -> list[str] | None:
    import tomllib

    try:
        doc = tomllib.loads(data.decode("utf-8"))
        hatch = doc["tool"]["hatch"]["build"]["targets"]["wheel"].get("exclude")
        return list(hatch) if hatch is not None else None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return None


def _hatch_left_out(seed: bytes, data: bytes) -> str | None:
    patterns = _toml_excludes(data)
    if patterns and all(isinstance(p, str) for p in patterns) and _excluded(patterns, LEFT_OUT):
        return "exit 0: k3diff reads the exclude as keeping a file pathspec leaves out"
    return None


def _skbuild_left_out(seed: bytes, data: bytes) -> str | None:
    import tomllib

    try:
        patterns = tomllib.loads(data.decode("utf-8"))["tool"]["scikit-build"]["wheel"]["exclude"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    if all(isinstance(p, str) for p in patterns) and _excluded(
        patterns, "pkg/testing/fake_auth.py"
    ):
        return "exit 0: k3diff reads wheel.exclude as keeping a file pathspec leaves out"
    return None


def _gitignore_left_out(seed: bytes, data: bytes) -> str | None:
    with tempfile.NamedTemporaryFile("wb", prefix="k3fuzz-gi-") as out:  # read as hatchling does
        out.write(data)
        out.flush()
        try:
            with open(out.name, encoding="utf-8") as lines:
                patterns = lines.readlines()
        except UnicodeDecodeError:
            return None
    if _excluded(patterns, LEFT_OUT):
        return "exit 0: k3diff reads .gitignore as keeping a file pathspec leaves out"
    return None


def _exclude_seeds(corpus: Path) -> list[Target]:
    patch = {**BUILT, "pkg/testing/fake_auth.py": b"BYPASS = True\n"}
    targets = []
    for name, place, data, tree, mutators, review in (
        ("exclude-hatch", "pyproject.toml", HATCH + b'exclude = ["src/pkg/testing"]\n', {},
         m72.EXCLUDE_MUTATORS, _hatch_left_out),
        ("exclude-skbuild", "pyproject.toml", SKBUILD + b'wheel.exclude = ["pkg/testing/"]\n', {},
         m72.EXCLUDE_MUTATORS, _skbuild_left_out),
        ("gitignore", ".gitignore", b"*.egg-info/\nfake_auth.py\n", {"pyproject.toml": HATCH},
         m72.GITIGNORE_MUTATORS, _gitignore_left_out),
    ):  # fmt: skip
        _seed(corpus / f"v72-{name}", {**TESTING, **tree}, place, data, BUILT, patch)
        targets.append(Target(f"v72-{name}", f"v72-{name}/{place}", _git_argv, mutators,
                              setup=_source_setup(place), review=review))  # fmt: skip
    return targets


HATCH_TOML = (
    b'[version]\nsource = "vcs"\n\n[build.hooks.vcs]\nversion-file = "src/realname/_version.py"\n\n'
    b'[build.targets.wheel]\npackages = ["src/realname"]\nsources = {"src/realname" = "pkg"}\n'
)


def _hatch_toml_seeds(corpus: Path) -> list[Target]:
    tree = {
        "pyproject.toml": HATCH.split(b"[tool.hatch")[0].replace(b'"hatchling"', b'"hatchling", "hatch-vcs"'),
        "src/realname/__init__.py": b"", "src/realname/auth.py": SAFE, "legacy/pkg/__init__.py": b"",
        "legacy/pkg/auth.py": OLD, ".gitignore": b"src/realname/_version.py\n",
    }  # fmt: skip
    base = {"pkg/__init__.py": b"", "pkg/auth.py": SAFE}
    _seed(corpus / "v72-hatch-toml", tree, "hatch.toml", HATCH_TOML, base,
          {**base, "pkg/auth.py": OLD})  # fmt: skip
    return [Target("v72-hatch-toml", "v72-hatch-toml/hatch.toml", _git_argv, m72.HATCH_MUTATORS,
                   fails=True, excused="(detected", setup=_source_setup("hatch.toml"))]  # fmt: skip


def _computed_seeds(corpus: Path) -> list[Target]:
    folder = corpus / "v72-computed"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    seed = b"import demo_hook\n" + m72.m71.PTH_SEP + b"import os\n"
    (folder / "demo_hook.py").write_bytes(seed)
    return [Target("v72-computed", "v72-computed/demo_hook.py",
                   lambda c, f: ["wheels", str(f.parent / "base" / HOOK_WHEEL),
                                 str(f.parent / "patch" / HOOK_WHEEL)],
                   m72.COMPUTED_MUTATORS, setup=_hook_setup, review=runs_at_start)]  # fmt: skip


_WHEEL_BYTES: list[bytes] = []


def _sha256sum_fails(seed: bytes, data: bytes) -> str | None:
    """`sha256sum -c --ignore-missing` of the manifest beside the wheel alone."""
    with tempfile.TemporaryDirectory(prefix="k3fuzz-sum-") as tmp:
        (Path(tmp) / WHEEL).write_bytes(_WHEEL_BYTES[0])
        (Path(tmp) / "SUMS").write_bytes(data)
        done = subprocess.run(["sha256sum", "-c", "--ignore-missing", "SUMS"], cwd=tmp,
                              capture_output=True, timeout=60)  # fmt: skip
    if done.returncode != 0:
        return "exit 0 where sha256sum -c fails the manifest"
    return None


def _manifest_seeds(corpus: Path) -> list[Target]:
    folder = corpus / "v72-manifest"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "dist").mkdir(parents=True)
    shutil.copy(corpus / "base" / WHEEL, folder / "dist" / WHEEL)
    _WHEEL_BYTES.append((folder / "dist" / WHEEL).read_bytes())
    shutil.copy(corpus / "manifest" / "SHA256SUMS", folder / "SHA256SUMS")
    return [Target("v72-manifest", "v72-manifest/SHA256SUMS",
                   lambda c, f: ["audit", str(f.parent / "dist" / WHEEL), "--manifest", str(f)],
                   m72.MANIFEST_MUTATORS, review=_sha256sum_fails)]  # fmt: skip


def _sets_setup(work: Path, mutated: Path) -> None:
    """`base NAME` / `patch NAME` lines: the demo wheel copied under each name (200 at most)."""
    data = (work / "wheel.bin").read_bytes()
    for line in mutated.read_bytes().decode("utf-8", "replace").splitlines()[:200]:
        side, _, name = line.partition(" ")
        if side in ("base", "patch") and name and "/" not in name and "\x00" not in name:
            (work / side).mkdir(exist_ok=True)
            with contextlib.suppress(OSError):
                (work / side / name).write_bytes(data)
    for side in ("base", "patch"):
        (work / side).mkdir(exist_ok=True)


def _sets_seeds(corpus: Path) -> list[Target]:
    folder = corpus / "v72-sets"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(corpus / "base" / WHEEL, folder / "wheel.bin")
    (folder / "names.txt").write_text(f"base {WHEEL}\npatch {WHEEL}\n")
    return [Target("v72-sets", "v72-sets/names.txt",
                   lambda c, f: ["wheels", str(f.parent / "base"), str(f.parent / "patch")],
                   m72.SET_MUTATORS, setup=_sets_setup)]  # fmt: skip


_ORACLE_RULES = [r.pattern for r in BUILTIN_RULES
                 if r.severity.value == "error" and r.name not in MULTILINE_RULES]  # fmt: skip
_ORACLE_RULES.append(re.compile(m72.USER_RULE.partition("=")[2]))


def rule_on_whole_line(seed: bytes, data: bytes) -> str | None:
    """Whether `re.search` of an error rule on some whole line of the patch log (each part
    between carriage returns, as k3diff documents it; escapes stripped) matches: then the patch
    must not pass."""
    try:
        raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    except (OSError, EOFError, zlib.error):
        return None
    for line in raw.split(b"\n"):
        text = TERMINAL_CODES.sub("", line.decode("utf-8", "replace").rstrip("\r"))
        for part in text.split("\r"):  # a carriage return starts the line over (docs/logs.md)
            for rule in _ORACLE_RULES:
                if rule.search(part):
                    return f"exit 0 where re.search of {rule.pattern[:30]!r} matches a line"
    return None


def _spread_seeds(corpus: Path) -> list[Target]:
    folder = corpus / "v72-spread"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "base.log").write_bytes(BASE_LOG)
    (folder / "patch.log").write_bytes(BASE_LOG)
    return [Target("v72-spread", "v72-spread/patch.log",
                   lambda c, f: ["logs", str(f.parent / "base.log"), str(f), "--rule",
                                 m72.USER_RULE],
                   m72.SPREAD_MUTATORS, review=rule_on_whole_line)]  # fmt: skip


def _one_server(seed: bytes, data: bytes) -> str | None:
    try:
        identity = json.loads(data.split(b"\n")[0])["run"]["server_identity"]
    except (ValueError, KeyError, TypeError):
        return None
    if isinstance(identity, dict) and identity.get("result") == "one-server":
        return "review: exit 0 on a header whose server_identity says one-server"
    return None


def _identity_seeds(corpus: Path) -> list[Target]:
    return [
        Target("v72-identity-triage", "run/samples.jsonl",
               lambda c, f: ["triage", str(c / "cmp.json"), str(f)], m72.IDENTITY_MUTATORS,
               review=_one_server),
        Target("v72-identity-telemetry", "run/samples.jsonl",
               lambda c, f: ["telemetry", str(f)], m72.IDENTITY_MUTATORS),
        Target("v72-identity-report", "run/samples.jsonl",
               lambda c, f: ["report", str(f), "--out", str(f.parent / "bundle")],
               m72.IDENTITY_MUTATORS),
    ]  # fmt: skip


def prepare72(corpus: Path) -> list[Target]:
    """Write stop 72's seeds under `corpus`; its targets."""
    return [
        *_cmake_seeds(corpus),
        *_exclude_seeds(corpus),
        *_hatch_toml_seeds(corpus),
        *_computed_seeds(corpus),
        *_manifest_seeds(corpus),
        *_sets_seeds(corpus),
        *_spread_seeds(corpus),
        *_identity_seeds(corpus),
    ]
