"""Counts and byte sizes in the text and Markdown reports carry thousands separators, as the
headers already did (`12,248 entries`): a W101 detail, the Differences and Entries by kind tables,
audit's sizes. The JSON keeps plain integers."""

from __future__ import annotations

import json
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from k3diff.output import plural


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    base_lib = wheelkit.elf_bytes(b"\x90" * 15000)
    patch_lib = wheelkit.elf_bytes(b"\x90" * 15040)
    many = {f"pkg/data/f{i:04}.txt": b"%d\n" % i for i in range(1000)}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", {**many, "pkg/_n.so": base_lib})
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**many, "pkg/_n.so": patch_lib})
    return base, patch


def test_plural_separates_thousands() -> None:
    assert plural(1, "byte") == "1 byte"
    assert plural(15096, "byte") == "15,096 bytes"
    assert plural(1234567, "entry") == "1,234,567 entries"


def test_wheels_text_and_markdown_separate_thousands_and_json_does_not(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    with_sizes = {}
    for fmt in ("text", "markdown"):
        result = run_k3diff("wheels", base, patch, "--format", fmt)
        assert result.exit_code == 1, result.stderr
        with_sizes[fmt] = result.stdout
        sizes = [len(wheelkit.elf_bytes(b"\x90" * n)) for n in (15000, 15040)]
        assert f"{sizes[0]:,} -> {sizes[1]:,} bytes" in result.stdout  # W101's detail
        assert f" {sizes[0]:,} " in result.stdout and f" {sizes[1]:,} " in result.stdout
        assert " 1,000 " in result.stdout  # the Entries by kind `other` row: 1,000 files
    document = json.loads(run_k3diff("wheels", base, patch, "--format", "json").stdout)
    native = next(e for e in document["entries"] if e["path"] == "pkg/_n.so")
    assert isinstance(native["base_size"], int)
    assert document["summary"]["other"]["total"] == 1000


def test_audit_sizes_separate_thousands(tmp_path: Path) -> None:
    base, _ = _pair(tmp_path)
    size = base.stat().st_size
    assert size >= 1000
    text = run_k3diff("audit", base)
    assert f"{size:,} bytes" in text.stdout
    markdown = run_k3diff("audit", base, "--format", "markdown")
    assert f"| {size:,} " in markdown.stdout
    document = json.loads(run_k3diff("audit", base, "--format", "json").stdout)
    assert document["artifacts"][0]["size"] == size
