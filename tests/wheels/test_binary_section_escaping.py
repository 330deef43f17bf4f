"""The 'Binary content, not diffed' section escapes the entry name like every other renderer."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff
from wheel.tricks import build

NAME = "demo/x` <img src=x> `\u202e.py"


def test_a_hostile_name_of_binary_content_is_escaped_in_text_and_markdown(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", {"demo/__init__.py": b"", NAME: b"x = 1\n"})
    patch = build(tmp_path / "p", "2.0", {"demo/__init__.py": b"", NAME: b"\x00\x01\x02binary"})
    text = run_k3diff("wheels", base, patch)
    section = text.stdout[text.stdout.index("Binary content, not diffed") :]
    assert "demo/x` <img src=x> `\\u202e.py" in section and "\u202e" not in text.stdout
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown")
    section = markdown.stdout[markdown.stdout.index("### Binary content, not diffed") :]
    line = next(line for line in section.splitlines() if line.startswith("- "))
    # A code span whose fence outlasts the name's backticks: the name cannot open HTML.
    assert line.startswith("- `` demo/x` <img src=x> `\\u202e.py ``: "), line
