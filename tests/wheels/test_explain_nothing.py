"""`--explain` with no changed native entry: the report says it was asked and found nothing to
explain, instead of printing what a run without `--explain` prints."""

from __future__ import annotations

import json
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from .wheelset_support import release_sets

NOTHING = "--explain: no changed native entry to explain"
FILES = {"pkg/__init__.py": b"X = 1\n", "pkg/_native.so": wheelkit.elf_bytes(b"\x90" * 64)}


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", FILES)
    patch_files = {**FILES, "pkg/__init__.py": b"X = 2\n"}  # Python changed, native not
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", patch_files)
    return base, patch


def test_text_and_markdown_say_there_was_nothing_to_explain(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    text = run_k3diff("wheels", base, patch, "--explain")
    assert text.exit_code == 0, text.stderr
    assert NOTHING in text.stdout.splitlines()
    markdown = run_k3diff("wheels", base, patch, "--explain", "--format", "markdown")
    assert "`--explain`: no changed native entry to explain" in markdown.stdout.splitlines()
    plain = run_k3diff("wheels", base, patch)
    assert "--explain" not in plain.stdout


def test_json_says_explain_was_asked_and_only_then(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    asked = run_k3diff("wheels", base, patch, "--explain", "--format", "json")
    assert json.loads(asked.stdout)["explain"] is True
    plain = run_k3diff("wheels", base, patch, "--format", "json")
    assert "explain" not in json.loads(plain.stdout)


def test_a_changed_native_entry_is_explained_not_announced_as_missing(tmp_path: Path) -> None:
    base, _ = _pair(tmp_path)
    changed = {**FILES, "pkg/_native.so": wheelkit.elf_bytes(b"\xcc" * 64)}
    patch = wheelkit.make_wheel(tmp_path / "changed", "pkg", "1.0", changed)
    result = run_k3diff("wheels", base, patch, "--explain")
    assert "Native explanations" in result.stdout and NOTHING not in result.stdout


def test_release_set_pairs_know_explain_was_asked(tmp_path: Path) -> None:
    release_sets(tmp_path, solo=False)
    result = run_k3diff("wheels", "base", "patch", "--explain", "--format", "json", cwd=tmp_path)
    document = json.loads(result.stdout)
    assert all(pair["wheels"]["explain"] is True for pair in document["pairs"])
    text = run_k3diff("wheels", "base", "patch", "--explain", cwd=tmp_path)
    assert NOTHING in text.stdout.splitlines()
