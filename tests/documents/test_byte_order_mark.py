"""A UTF-8 byte order mark before a file's first line: read past in a prompts file (as in a
responses file: PowerShell's `Out-File` and Notepad write one), refused by name in k3diff's own
documents and logs, which k3diff writes without one. Both read "Expecting value" before."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cli_support import run_k3diff
from triage.helpers import side, write_samples
from wheels.wheelset_support import write

from documents.readers_support import triage_json
from k3diff.sample.prompts import read_prompts

BOM = b"\xef\xbb\xbf"
SAID = (
    "starts with a UTF-8 byte order mark, which k3diff reads past only in a responses or "
    "prompts file; save it as UTF-8 without one\n"
)


def test_a_document_with_a_byte_order_mark_is_refused_naming_it(tmp_path: Path) -> None:
    name = triage_json(tmp_path)
    document = tmp_path / name
    document.write_bytes(BOM + document.read_bytes())
    result = run_k3diff("report", name, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"k3diff: error: {name}: {SAID}"


def test_a_samples_log_with_a_byte_order_mark_is_refused_naming_it(tmp_path: Path) -> None:
    log = tmp_path / "samples.jsonl"
    write_samples(log, side("k", "base", ["a"] * 2) + side("k", "patch", ["a"] * 2))
    log.write_bytes(BOM + log.read_bytes())
    result = run_k3diff("report", "samples.jsonl", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"k3diff: error: samples.jsonl: {SAID}"


def test_a_prompts_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    lines = [{"id": "r1", "prompt": "one"}, {"id": "r2", "prompt": "two"}]
    plain = "".join(json.dumps(line) + "\n" for line in lines).encode()
    prompts.write_bytes(BOM + plain)
    marked = read_prompts(prompts)
    prompts.write_bytes(plain)
    assert marked == read_prompts(prompts)
    prompts.write_bytes(plain + BOM + plain)  # not the first line: refused, naming it
    result = run_k3diff("sample", "--base", "http://127.0.0.1:9", "--prompts", prompts,
                        "--repeats", "1", "--out", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr == f"k3diff: error: {prompts}:3: {SAID}"


def test_a_manifest_with_a_byte_order_mark_is_refused_naming_it(tmp_path: Path) -> None:
    """sha256sum -c takes no line after a mark for a checksum line: nor does audit, and it says
    why (it read "not a sha256sum line")."""
    (tmp_path / "notes.txt").write_text("release notes\n")
    digest = hashlib.sha256(b"release notes\n").hexdigest()
    (tmp_path / "SUMS").write_bytes(BOM + f"{digest}  notes.txt\n".encode())
    result = run_k3diff("audit", "notes.txt", "--manifest", "SUMS", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"k3diff: error: SUMS: {SAID}"


def test_a_waiver_file_with_a_byte_order_mark_is_refused_naming_it(tmp_path: Path) -> None:
    for name in ("base", "patch"):
        write(tmp_path / name, "demo", "1.0", "py3-none-any", {"demo.py": b"X = 1\n"})
    (tmp_path / "w.toml").write_bytes(BOM + b"# no waivers yet\n")
    wheel = "demo-1.0-py3-none-any.whl"
    result = run_k3diff(
        "wheels", f"base/{wheel}", f"patch/{wheel}", "--waivers", "w.toml", cwd=tmp_path
    )
    assert result.exit_code == 2
    assert result.stderr == f"k3diff: error: w.toml: {SAID}"
