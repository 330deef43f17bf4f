"""A responses document's capture missing: the command that writes the document anew names it
where `report` looked for it, the path the document records resolved against the document's
directory (where the command that wrote it ran), so that pasted from another directory it
reads the file the document means (lmrep68: it named the path as recorded, `patch.jsonl`, which
from the parent directory is no file, and the command failed). The refusal names it there too,
with the name the document records beside it (newuser68: it named the recorded path)."""

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
    # newuser68: the refusal named it as recorded, `patch.jsonl`, the command `run/patch.jsonl`
    assert line.startswith(
        "k3diff: error: run/patch.jsonl: missing (run/cmp.json records it as its patch input, "
        "named patch.jsonl there, SHA-256 "
    ), line
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


def test_a_missing_manifest_is_named_where_report_looked_as_the_command_names_it(
    tmp_path: Path,
) -> None:
    """`cd nu68/rep && k3diff audit dist/x.whl --manifest dist/SHA256SUMS -o audit.json`, the
    manifest then removed, and `report` run from the top given the document and the wheel: the
    refusal said `dist/SHA256SUMS: missing`, as recorded, where the command it printed said
    `--manifest nu68/rep/dist/SHA256SUMS` (newuser68). Both name the path from here."""
    rep = tmp_path / "nu68" / "rep"
    wheel = wheelkit.make_wheel(rep / "dist", "demo", "1.0", {"demo/__init__.py": b""})
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (rep / "dist" / "SHA256SUMS").write_text(f"{digest}  {wheel.name}\n")
    made = run_k3diff(
        "audit", f"dist/{wheel.name}", "--manifest", "dist/SHA256SUMS", "--format", "json",
        "-o", "audit.json", cwd=rep,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    manifest = (rep / "dist" / "SHA256SUMS").read_bytes()
    (rep / "dist" / "SHA256SUMS").unlink()
    name = f"nu68/rep/dist/{wheel.name}"

    result = run_k3diff("report", "nu68/rep/audit.json", name, "--out", "o", cwd=tmp_path)

    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "k3diff: error: nu68/rep/dist/SHA256SUMS: missing (nu68/rep/audit.json records it as "
        "its manifest, named dist/SHA256SUMS there, SHA-256 "
    ), line
    command = shlex.split(line.split("`")[1])
    assert command[1:] == [
        "audit", name, "--manifest", "nu68/rep/dist/SHA256SUMS", "--format", "json",
        "-o", "nu68/rep/audit.json",
    ], line  # fmt: skip
    # The manifest put back where the refusal names it, report takes the document.
    (rep / "dist" / "SHA256SUMS").write_bytes(manifest)
    again = run_k3diff("report", "nu68/rep/audit.json", name, "nu68/rep/dist/SHA256SUMS",
                       "--out", "o", cwd=tmp_path)  # fmt: skip
    assert again.exit_code == 0, again.stderr
