"""A RECORD that does not describe the archive: the next step says the fix, not only a waiver.

words72: a setuptools wheel with `dist.py` edited after the build (RECORD as it was) got one
next step, a waiver. The fix is a wheel whose RECORD is written anew: rebuilt from its source,
or repacked by the `wheel` package's `wheel pack` from the wheel the build wrote (`wheel
unpack` checks every file against RECORD: wheel 0.43.0's refuses this one, `Hash mismatch
for file 'setuptools/dist.py'`, and a `wheel pack` of the build's wheel, edited, audits clean)."""

from __future__ import annotations

import json
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

ORIGINAL = b"def run(x):\n    return x + 1\n"
FILES = {"engine/__init__.py": b"VERSION = '1.0'\n", "engine/model.py": ORIGINAL}
REPACK = "wheel pack DIR/engine-1.0"


def _stale_pair(tmp_path: Path) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", FILES)
    stale_row = f"engine/model.py,{wheelkit.record_hash(ORIGINAL)},{len(ORIGINAL)}"
    edited = {**FILES, "engine/model.py": ORIGINAL + b"# patched\n"}
    patch = wheelkit.make_wheel(
        tmp_path / "p", "engine", "1.0", edited, record_overrides={"engine/model.py": stale_row}
    )
    return base, patch


def test_the_next_steps_say_to_rebuild_or_repack_before_the_waiver(tmp_path: Path) -> None:
    base, patch = _stale_pair(tmp_path)
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 1
    steps = result.stdout.split("Next steps\n", 1)[1].split("\n")
    assert steps[0].startswith(
        "  2 × W302 on 1 file: RECORD does not describe the archive (its files or RECORD "
        "changed after the wheel was built"
    )
    # words73: the rebuild names its commands
    assert (
        "rebuild the wheel from its source (python -m build --wheel, or pip wheel --no-deps -w "
        "dist .: its build backend writes RECORD)" in steps[0]
    )
    assert (
        "(wheel unpack BUILT.whl -d DIR, which refuses a file that does not match its RECORD "
        "hash)" in steps[0]
    )
    assert f"repack with {REPACK}, which writes RECORD anew" in steps[0]
    assert steps[1].startswith("  or accept each reviewed file with a waiver")


def test_markdown_shows_the_commands_as_code(tmp_path: Path) -> None:
    base, patch = _stale_pair(tmp_path)
    text = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    assert "`wheel unpack BUILT.whl -d DIR`" in text and f"`{REPACK}`" in text


def test_the_bundle_says_the_fix_too(tmp_path: Path) -> None:
    base, patch = _stale_pair(tmp_path)
    document = tmp_path / "w.json"
    assert run_k3diff("wheels", base, patch, "--format", "json", "-o", document).exit_code == 1
    assert run_k3diff("report", document, "--out", tmp_path / "bundle").exit_code == 1
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    steps = [step["step"] for step in summary["next_steps"]]
    assert "2 × W302 on 1 file: RECORD does not describe the archive" in steps[0]
    assert REPACK in steps[0]
    assert steps[1].startswith("or accept each reviewed file with a waiver")


def test_a_file_name_holding_shell_syntax_is_quoted_in_the_step(tmp_path: Path) -> None:
    """words73: the step wrote `wheel pack DIR/engine$(touch pwned)-1.0` as the file name
    gave it, and the line pasted into a shell ran `touch pwned`."""
    base, patch = _stale_pair(tmp_path)
    hostile = patch.with_name("engine$(touch pwned)-1.0-py3-none-any.whl")
    patch.rename(hostile)
    result = run_k3diff("wheels", base, hostile)
    assert "repack with wheel pack 'DIR/engine$(touch pwned)-1.0', which" in result.stdout
    assert "wheel pack DIR/engine$(" not in result.stdout
