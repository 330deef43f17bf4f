"""Golden outputs of `k3diff audit` (text, JSON, Markdown) on small wheels built in code.

Entries are stored uncompressed so the wheels (and the SHA-256 in the reports) are the same
bytes whatever zlib the machine has. Regenerate with `make golden` and review the diff.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import wheelkit
from cli_support import Golden, run_k3diff

FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/_C.so": wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 64),
}
STORED = zipfile.ZIP_STORED


def _build(directory: Path) -> None:
    clean = wheelkit.wheel_files("engine", "1.0", FILES)
    wheelkit.write_zip(directory / "engine-1.0-py3-none-any.whl", clean, method=STORED)
    bad = wheelkit.wheel_files(
        "engine",
        "1.0",
        {**FILES, "../escape.py": b"x\n"},
        record_overrides={"engine/__init__.py": "engine/__init__.py,md5=AAAAAAAAAAAAAAAAAAAAAA,16"},
    )
    bad["engine/__init__.py"] = b"VERSION = '6.6'\n"
    bad["engine/unlisted.py"] = b"import os\n"
    del bad["engine/_C.so"]
    wheelkit.write_zip(directory / "engine-2.0-py3-none-any.whl", bad, method=STORED)
    (directory / "NOTES.txt").write_text("release notes\n")
    (directory / "SUMS").write_text(
        "0" * 64 + "  engine-1.0-py3-none-any.whl\n" + "1" * 64 + "  gone.whl\n"
    )


CASES = {
    "clean-text": ["engine-1.0-py3-none-any.whl", "NOTES.txt"],
    "findings-text": ["engine-1.0-py3-none-any.whl", "engine-2.0-py3-none-any.whl"],
    "findings-json": ["engine-2.0-py3-none-any.whl", "--format", "json"],
    "findings-markdown": ["engine-2.0-py3-none-any.whl", "--format", "markdown"],
    "manifest-text": ["engine-1.0-py3-none-any.whl", "NOTES.txt", "--manifest", "SUMS"],
    "missing-file": ["engine-1.0-py3-none-any.whl", "nope.whl"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_audit_golden(tmp_path: Path, golden: Golden, case: str) -> None:
    _build(tmp_path)
    result = run_k3diff("audit", *CASES[case], cwd=tmp_path)
    golden.check("audit", case, result)
