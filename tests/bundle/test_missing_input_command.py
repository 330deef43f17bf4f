"""A responses document's capture missing: the command that writes the document anew names it
where `report` looked for it, the path the document records resolved against the document's
directory (where the command that wrote it ran), so that pasted from another directory it
reads the file the document means (lmrep68: it named the path as recorded, `patch.jsonl`, which
from the parent directory is no file, and the command failed)."""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

import wheelkit
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


def test_the_command_names_a_missing_input_where_it_lies_when_the_document_was_written_elsewhere(
    tmp_path: Path,
) -> None:
    """`k3diff audit dist/x.whl --manifest SHA256SUMS -o out/m.json`, then `report` given the
    document and the wheel: the manifest not given is named where it lies (`SHA256SUMS`), not
    under the document's directory (`out/SHA256SUMS`, no file: the pasted command failed,
    exit 2, on lmrep68; base68 named no command)."""
    files = {"demo/__init__.py": b""}
    wheel = wheelkit.make_wheel(tmp_path / "dist", "demo", "1.0", files)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  {wheel.name}\n")
    name = str(wheel.relative_to(tmp_path))
    (tmp_path / "out").mkdir()
    made = run_k3diff(
        "audit", name, "--manifest", "SHA256SUMS", "--format", "json", "-o", "out/m.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    result = run_k3diff("report", "out/m.json", name, "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "SHA256SUMS: missing (out/m.json records it as its manifest" in line, line
    command = shlex.split(line.split("`")[1])
    assert command[1:] == [
        "audit", name, "--manifest", "SHA256SUMS", "--format", "json", "-o", "out/m.json",
    ], line  # fmt: skip
    assert run_k3diff(*command[1:], cwd=tmp_path).exit_code == 0
    again = run_k3diff("report", "out/m.json", name, "SHA256SUMS", "--out", "b", cwd=tmp_path)
    assert again.exit_code == 0, again.stderr
