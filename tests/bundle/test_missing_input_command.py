"""A responses document's capture missing: the command that writes the document anew names it
where `report` looked for it, the path the document records resolved against the document's
directory (where the command that wrote it ran), so that pasted from another directory it
reads the file the document means (lmrep68: it named the path as recorded, `patch.jsonl`, which
from the parent directory is no file, and the command failed)."""

from __future__ import annotations

import shlex
from pathlib import Path

from cli_support import run_k3diff
from triage.helpers import compare_texts


def test_the_command_names_a_missing_capture_under_the_document_s_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "run").mkdir()
    compare_texts(tmp_path / "run", {"k1": ("x", "y")})
    capture = (tmp_path / "run" / "patch.jsonl").read_bytes()
    (tmp_path / "run" / "patch.jsonl").unlink()
    result = run_k3diff("report", "run/cmp.json", "run/base.jsonl", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("k3diff: error: patch.jsonl: missing (run/cmp.json records it"), line
    command = shlex.split(line.split("`")[1])
    assert command[1:4] == ["responses", "run/base.jsonl", "run/patch.jsonl"], line
    # The capture put back, the command pasted from here remakes the document.
    (tmp_path / "run" / "patch.jsonl").write_bytes(capture)
    assert run_k3diff(*command[1:], cwd=tmp_path).exit_code == 1
    again = run_k3diff("report", "run/cmp.json", "run/base.jsonl", "run/patch.jsonl",
                       "--out", "o", cwd=tmp_path)  # fmt: skip
    assert again.exit_code == 1, again.stderr
