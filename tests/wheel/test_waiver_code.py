"""A glob waiver on "RECORD does not vouch for this entry" never covers code (wheels61 item 2).
pip 26 installs a file RECORD does not list (or lists with another hash) like any other, and
Python runs it: `import pkg.extra` an unlisted `pkg/extra.py`, `site` an unlisted `.pth`. So a
waiver for `wheels`' W302 or audit's A105-style codes covers a module, bytecode, `.pth`,
extension or copied script only by its exact path; `pkg/*` still waives `pkg/notes.txt`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from wheel.pipinstall import pip_install

FILES = {"pkg/__init__.py": b"x = 1\n"}


def _waivers(tmp_path: Path, code: str, *paths: str) -> Path:
    path = tmp_path / "waivers.toml"
    path.write_text(
        "".join(
            f'[[waiver]]\ncode = "{code}"\npath = "{p}"\nreason = "seen {p}"\n\n' for p in paths
        )
    )
    return path


def _severities(stdout: str) -> dict[tuple[str, str], str]:
    return {(f["code"], f["path"]): f["severity"] for f in json.loads(stdout)["findings"]}


def test_pip_installs_an_unlisted_module_and_python_runs_it(tmp_path: Path) -> None:
    """The premise, with the newest pip: RECORD's silence stops nothing."""
    files = {"pkg/__init__.py": b"from pkg import extra\n", "pkg/extra.py": b"print('ran')\n"}
    wheel = wheelkit.make_wheel(
        tmp_path, "pkg", "1.0", files, record_overrides={"pkg/extra.py": None}
    )
    installed = pip_install(wheel, tmp_path / "target")
    assert installed.ok, installed.output
    assert "site-packages/pkg/extra.py" in installed.tree
    code = f"import sys; sys.path.insert(0, {str(tmp_path / 'target')!r}); import pkg"
    ran = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert ran.stdout == "ran\n", ran.stderr


@pytest.mark.parametrize(
    "member",
    ["pkg/extra.py", "pkg/extra.pyc", "zz_hook.pth", "pkg/_ext.abi3.so", "pkg/Extra.PY",
     "pkg-1.1.data/scripts/tool"],
)  # fmt: skip
def test_wheels_a_glob_w302_waiver_never_covers_unlisted_code(tmp_path: Path, member: str) -> None:
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", FILES)
    extra = {member: b"print('x')\n", "pkg/notes.txt": b"notes\n"}
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "pkg", "1.1", {**FILES, **extra},
        record_overrides=dict.fromkeys(extra),
    )  # fmt: skip
    glob = _waivers(tmp_path, "W302", "*")
    result = run_k3diff("wheels", base, patch, "--waivers", glob, "--format", "json")
    assert result.exit_code == 1, result.stdout
    found = _severities(result.stdout)
    assert found[("W302", member)] == "error"
    assert found[("W302", "pkg/notes.txt")] == "info"  # a glob still waives a data file
    exact = _waivers(tmp_path, "W302", "*", member)
    result = run_k3diff("wheels", base, patch, "--waivers", exact)
    verdict = result.stdout.strip().splitlines()[-1]
    assert result.exit_code in (0, 1), result.stderr
    assert f"W302 {member} — seen {member}" in verdict, verdict
    assert "1 × W302" not in verdict, verdict


@pytest.mark.parametrize("member", ["pkg/extra.py", "zz_hook.pth", "pkg-1.0.data/scripts/tool"])
def test_audit_a_glob_a105_waiver_never_covers_unlisted_code(tmp_path: Path, member: str) -> None:
    extra = {member: b"print('x')\n", "pkg/notes.txt": b"notes\n"}
    wheel = wheelkit.make_wheel(
        tmp_path, "pkg", "1.0", {**FILES, **extra}, record_overrides=dict.fromkeys(extra)
    )
    result = run_k3diff("audit", wheel, "--waivers", _waivers(tmp_path, "A105", "*"))
    assert result.exit_code == 1, result.stdout
    assert f"A105 {member}" in result.stdout
    result = run_k3diff("audit", wheel, "--waivers", _waivers(tmp_path, "A105", "*", member))
    assert result.exit_code == 0, result.stdout
    assert f"A105 {member} — seen {member}" in result.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("command", ["wheels", "audit"])
def test_a_glob_waiver_that_only_globbed_code_says_so(tmp_path: Path, command: str) -> None:
    """newuser61: `waiver 1 (W302 black/*) matched no finding (stale?)` when the glob did match
    an unlisted module, refused because code is waived by its exact path."""
    code = "W302" if command == "wheels" else "A105"
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "pkg", "1.0", {**FILES, "pkg/sneaky.py": b"print('x')\n"},
        record_overrides={"pkg/sneaky.py": None},
    )  # fmt: skip
    waivers = _waivers(tmp_path, code, "pkg/*")
    wheels = [base, patch] if command == "wheels" else [patch]
    result = run_k3diff(command, *wheels, "--waivers", waivers)
    said = (
        f"- unused: waiver 1 ({code} pkg/*) matches pkg/sneaky.py only by glob; "
        "code is waived by its exact path"
    )
    assert said in result.stdout, result.stdout
    assert "matched no finding" not in result.stdout
    result = run_k3diff(command, *wheels, "--waivers", waivers, "--format", "json")
    (unused,) = json.loads(result.stdout)["waivers"]["unused"]
    assert unused["glob_only"] == ["pkg/sneaky.py"]
