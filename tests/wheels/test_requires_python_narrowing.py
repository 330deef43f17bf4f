"""A patch whose METADATA Requires-Python admits fewer Pythons than the base's fails, as a patch
whose tags install on fewer systems does (W630, waivable): pip 26 installs a wheel only on a
Python its Requires-Python admits (narrow77: `none` → `>=3.13` or `>=3.9` → `>=3.11` passed,
exit 0). A specifier packaging cannot read admits every Python, as pip ignores it with a
warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .wheelset_support import write

_BODY = {"engine/__init__.py": b"X = 1\n"}
_ABI3 = "cp39-abi3-manylinux_2_17_x86_64"


def _run(
    tmp_path: Path, tag: str, base: str | None, patch: str | None, *args: str
) -> tuple[int, list[str]]:
    base_wheel = write(tmp_path / "base", "engine", "1.0", tag, _BODY, base)
    patch_wheel = write(tmp_path / "patch", "engine", "1.1", tag, _BODY, patch)
    result = run_k3diff("wheels", base_wheel, patch_wheel, "--format", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return result.exit_code, [f["detail"] for f in report["findings"] if f["code"] == "W630"]


@pytest.mark.parametrize(
    ("tag", "base", "patch", "lost"),
    [
        ("py3-none-any", None, ">=3.13", "CPython 3.0-3.12, GraalPy 3.10-3.12, PyPy 3.6-3.11 on"),
        (_ABI3, ">=3.9", ">=3.11", "on CPython 3.9-3.10 on glibc 2.17+ x86_64"),
        # A micro bound: CPython 3.9.0 installs the base and not the patch.
        ("py3-none-any", ">=3.9", ">=3.9.1", "on CPython 3.9, PyPy 3.9 on"),
        # An upper bound past the versions a tag names is judged up to it.
        ("py3-none-any", None, "<3.25", "on CPython 3.25+, free-threaded CPython 3.25+ on"),
        ("py3-none-any", ">=3.9", ">=3.9, !=3.12.*", "on CPython 3.12, GraalPy 3.12 on"),
        # The base's cannot be read: pip installs it on every Python.
        ("py3-none-any", "3.9 or later", ">=3.11", "on CPython 3.0-3.10, GraalPy 3.10,"),
    ],
)
def test_a_narrowed_requires_python_fails(
    tmp_path: Path, tag: str, base: str | None, patch: str, lost: str
) -> None:
    exit_code, details = _run(tmp_path, tag, base, patch)
    assert exit_code == 1 and len(details) == 1, details
    assert lost in details[0]
    said = f"Requires-Python {base or 'none'}) and not the patch ({tag}; Requires-Python {patch})"
    assert said in details[0]


@pytest.mark.parametrize(
    ("base", "patch"),
    [
        (">=3.11", ">=3.9"),
        (">=3.9", None),
        (">=3.9", ">=3.9"),
        (">=3.9", "~=3.9"),
        # The patch's cannot be read: pip 26 warns and installs it on every Python.
        (">=3.9", "3.9 or later"),
    ],
)
def test_a_widened_or_unreadable_patch_requires_python_passes(
    tmp_path: Path, base: str, patch: str | None
) -> None:
    assert _run(tmp_path, "py3-none-any", base, patch) == (0, [])


def test_a_narrowed_requires_python_is_waived_as_w630_is(tmp_path: Path) -> None:
    exit_code, _ = _run(tmp_path, _ABI3, ">=3.9", ">=3.11", "--ignore", "W630")
    assert exit_code == 0
    waivers = tmp_path / "waivers.toml"
    waivers.write_text('[[waiver]]\ncode = "W630"\npath = ""\nreason = "3.9 and 3.10 dropped"\n')
    assert _run(tmp_path, _ABI3, ">=3.9", ">=3.11", "--waivers", str(waivers))[0] == 0


def test_tags_and_requires_python_narrowed_together_are_said_once(tmp_path: Path) -> None:
    """The patch's tags drop 3.9 and its Requires-Python 3.10: one finding, both lost."""
    base_wheel = write(tmp_path / "base", "engine", "1.0", _ABI3, _BODY, ">=3.9")
    patch_tag = "cp310-abi3-manylinux_2_17_x86_64"
    patch_wheel = write(tmp_path / "patch", "engine", "1.1", patch_tag, _BODY, ">=3.11")
    result = run_k3diff("wheels", base_wheel, patch_wheel, "--format", "json")
    details = [f["detail"] for f in json.loads(result.stdout)["findings"] if f["code"] == "W630"]
    assert result.exit_code == 1 and len(details) == 1
    assert "on CPython 3.9-3.10 on glibc 2.17+ x86_64" in details[0]
