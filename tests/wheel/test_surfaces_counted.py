"""Many unchanged entry points are counted, not listed: what the patch changes stays in sight.

words72: a setuptools 75.1.0 -> 75.2.0 pair listed its 47 unchanged entry points (55 lines of
`wheels` and `audit` text) around the one `.pth` file that runs at every start. Text and
Markdown now list every changed, added or removed surface and what runs at every start, and
count the quiet rest by kind, naming `--format json`, which still lists every surface."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from wheel.test_installed_view import BASE_FILES
from wheel.test_surfaces import PRECEDENCE
from wheel.tricks import build

COMMANDS = [f"c{n}" for n in range(10)]


def _entry_points(version: str, lines: list[str]) -> dict[str, bytes]:
    text = "[distutils.commands]\n" + "".join(f"{line}\n" for line in lines)
    return {f"demo-{version}.dist-info/entry_points.txt": text.encode()}


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    files = {**BASE_FILES, "distutils-precedence.pth": PRECEDENCE}
    kept = [f"{name} = demo.cmd:{name}" for name in COMMANDS]
    base = build(
        tmp_path / "b", "1.0", {**files, **_entry_points("1.0", [*kept, "build = demo.cmd:b"])}
    )
    patch_points = [*kept, "build = demo.cmd:b2", "newcmd = demo.cmd:new"]
    patch = build(tmp_path / "p", "2.0", {**files, **_entry_points("2.0", patch_points)})
    return base, patch


def test_wheels_lists_the_changed_entry_points_and_counts_the_unchanged(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    result = run_k3diff("wheels", base, patch)
    text = result.stdout
    assert result.exit_code == 1 and "2 × W704" in text, text  # changed plugin entry points fail
    assert "entry-point distutils.commands:build: " in text and "demo.cmd:b2 [changed]" in text
    assert "entry-point distutils.commands:newcmd: " in text and "[added]" in text
    assert "distutils-precedence.pth: 1 executable line" in text  # runs at every start: listed
    assert (
        "  11 unchanged surfaces not listed: 10 entry points (distutils.commands 10), "
        "1 top-level name; --format json lists them\n"
    ) in text
    assert "distutils.commands:c0" not in text
    report = json.loads(run_k3diff("wheels", base, patch, "--format", "json").stdout)
    keys = {s["key"] for s in report["execution_surfaces"]["patch"]}
    assert {f"distutils.commands:{name}" for name in COMMANDS} <= keys


def test_wheels_markdown_counts_them_too(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    text = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    assert "- 11 unchanged surfaces not listed: 10 entry points" in text
    assert "; `--format json` lists them" in text
    assert "distutils.commands:c0" not in text


def test_audit_counts_the_entry_points_and_lists_what_runs(tmp_path: Path) -> None:
    _, patch = _pair(tmp_path)
    result = run_k3diff("audit", patch)
    assert result.exit_code == 0, result.stdout
    assert "    pth site-packages/distutils-precedence.pth: " in result.stdout
    assert (
        "    13 surfaces not listed: 12 entry points (distutils.commands 12), "
        "1 top-level name; --format json lists them\n"
    ) in result.stdout
    assert "distutils.commands:c0" not in result.stdout


def test_a_few_unchanged_surfaces_are_still_listed(tmp_path: Path) -> None:
    files = {**BASE_FILES, **_entry_points("1.0", ["build = demo.cmd:b"])}
    base = build(tmp_path / "b", "1.0", files)
    patch_files = {**BASE_FILES, **_entry_points("2.0", ["build = demo.cmd:b"])}
    patch = build(tmp_path / "p", "2.0", {**patch_files, "demo/util.py": b"x = 2\n"})
    text = run_k3diff("wheels", base, patch).stdout
    assert "-> demo.cmd:b [unchanged]" in text and "not listed" not in text
