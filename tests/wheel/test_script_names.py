"""A script entry point lands where pip's script maker writes it: distlib reads the name from
the `NAME = VALUE` line pip hands it (`a tool = m:f` is the script ` tool`), and the file
system resolves `./tool` and `x/../tool` to `tool`. pip is the oracle: the scripts k3diff lists
are the files pip writes under `bin/`, and a generated script that overwrites a `.data/scripts`
file (which pip skips only for the entry point's own name) is W615."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
from wheel.rawwheel import write_wheel

FILES = {"demo/__init__.py": b"def main():\n    pass\n"}
DIST = "demo-2.0.dist-info"
DATA_SCRIPT = "demo-2.0.data/scripts/tool"


def _wheel(tmp_path: Path, name: str, data_script: str | None = None) -> Path:
    files = {
        **FILES,
        f"{DIST}/entry_points.txt": f"[console_scripts]\n{name} = demo:main\n".encode(),
    }
    if data_script is not None:
        files[data_script] = b"#!/bin/sh\necho data\n"
    return write_wheel(tmp_path, "demo", "2.0", files)


def _audit(wheel: Path) -> tuple[int, dict[str, str], set[str]]:
    """Exit code, each listed surface under `bin/` with its kind, and the finding codes."""
    result = run_k3diff("audit", wheel, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    artifact = json.loads(result.stdout)["artifacts"][0]
    surfaces = {
        s["key"]: s["kind"] for s in artifact["execution_surfaces"] if s["key"].startswith("bin/")
    }
    return result.exit_code, surfaces, {f["code"] for f in artifact["findings"]}


@pytest.mark.parametrize("name", ["./tool", "x/../tool", "a tool", "a\ttool", "tool"])
def test_a_script_is_listed_where_pip_writes_it(tmp_path: Path, name: str) -> None:
    wheel = _wheel(tmp_path / "w", name)
    installed = pip_install(wheel, tmp_path / "target")
    assert installed.ok, installed.output
    written = {path for path in installed.tree if path.startswith("bin/")}
    code, surfaces, found = _audit(wheel)
    assert (code, set(surfaces), found) == (0, written, set())


@pytest.mark.parametrize("name", ["./tool", "x/../tool"])
def test_a_script_written_over_a_data_script_is_w615(tmp_path: Path, name: str) -> None:
    """pip copies `.data/scripts/tool` (its name is not the entry point's `./tool`), then writes
    the generated script over it: what runs as bin/tool is not the file the report showed."""
    wheel = _wheel(tmp_path / "w", name, DATA_SCRIPT)
    installed = pip_install(wheel, tmp_path / "target")
    assert installed.ok, installed.output
    plain = _wheel(tmp_path / "plain", "tool")
    assert (
        pip_install(plain, tmp_path / "plain-target").tree["bin/tool"]
        == (installed.tree["bin/tool"])
    )  # the generated script, in both
    code, surfaces, found = _audit(wheel)
    assert code == 1 and "W615" in found
    assert surfaces == {"bin/tool": "script"}


def test_the_data_script_of_the_entry_points_own_name_is_skipped_not_w615(
    tmp_path: Path,
) -> None:
    wheel = _wheel(tmp_path / "w", "tool", DATA_SCRIPT)
    assert pip_install(wheel, tmp_path / "target").ok
    assert _audit(wheel) == (0, {"bin/tool": "script"}, set())


_BOTH = "def main():\n    pass\ndef other():\n    pass\n"


@pytest.mark.parametrize(
    ("lines", "first", "second"),
    [
        (
            "[console_scripts]\ntool = demo:main\n[gui_scripts]\ntool = demo:other\n",
            "console script 'tool'",
            "GUI script 'tool'",
        ),
        (
            "[gui_scripts]\ntool = demo:other\n[console_scripts]\ntool = demo:main\n",
            "console script 'tool'",
            "GUI script 'tool'",
        ),
        (
            "[console_scripts]\ntool = demo:main\n./tool = demo:other\n",
            "console script 'tool'",
            "console script './tool'",
        ),
    ],
)
def test_two_generated_scripts_on_one_file_are_w615_naming_both(
    tmp_path: Path, lines: str, first: str, second: str
) -> None:
    """pip writes every console script, then every GUI script, each over what is there: two
    entry points whose scripts resolve to one file leave the later one in bin/tool (`other`,
    pip says), so the report must not show two surfaces and pass: both commands fail W615,
    naming both and the winner."""
    files = {"demo/__init__.py": _BOTH.encode(), f"{DIST}/entry_points.txt": lines.encode()}
    wheel = write_wheel(tmp_path / "w", "demo", "2.0", files)
    installed = pip_install(wheel, tmp_path / "target")
    assert installed.ok, installed.output
    assert "import other" in (tmp_path / "target" / "bin" / "tool").read_text()
    result = run_k3diff("audit", wheel, "--format", "json")
    assert result.exit_code == 1, result.stdout
    artifact = json.loads(result.stdout)["artifacts"][0]
    (detail,) = [f["detail"] for f in artifact["findings"] if f["code"] == "W615"]
    earlier, later = (repr(f"{label} ({DIST}/entry_points.txt)") for label in (first, second))
    assert detail.index(earlier) < detail.index(later) and detail.endswith(f"{later} wins")
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": _BOTH.encode()})
    compared = run_k3diff("wheels", base, wheel, "--format", "json")
    assert compared.exit_code == 1
    report = json.loads(compared.stdout)
    assert [f["code"] for f in report["findings"] if f["code"] == "W615"] == ["W615"]
