"""Golden outputs of `k3diff wheels` (text, JSON, Markdown) on small wheels built in code.

Entries are stored uncompressed so the wheels (and the SHA-256 in the reports) are the same
bytes whatever zlib the machine has. Regenerate with `make golden` and review the diff.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
import wheelkit
from cli_support import Golden, run_k3diff

SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 64)
BASE = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"def run(x):\n    return x + 1\n\n\ndef stop():\n    return None\n",
    "engine/_C.so": SO,
    "engine/bin/engine-tool": wheelkit.elf_bytes(b"\x31\xc0\xc3"),
    "engine/data/table.json": b'{"a": 1}\n',
}
PATCH = {
    **BASE,
    "engine/model.py": b"def run(x):\n    return x + 2\n\n\ndef stop():\n    return None\n",
    "engine/feature.py": b"ENABLED = True\n",
    "engine/_C.so": wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 63 + b"\x90\x90\x90\x90"),
}
STORED = zipfile.ZIP_STORED
# A docstring with a Markdown code fence: the Markdown report's diff block must outlast it.
FENCED_DOC = b'"""Usage:\n\n```python\nrun(1)\n```\n"""\n'
FENCED_BASE = {"engine/__init__.py": b"VERSION = '1.0'\n", "engine/doc.py": FENCED_DOC}
FENCED_PATCH = {**FENCED_BASE, "engine/doc.py": FENCED_DOC.replace(b"run(1)", b"run(2)")}


def _build(directory: Path) -> None:
    for side, version, files in (("base", "1.0", BASE), ("patch", "1.0.post1", PATCH)):
        entries = wheelkit.wheel_files("engine", version, files, tag="cp311-cp311-linux_x86_64")
        wheelkit.write_zip(directory / f"{side}.whl", entries, method=STORED)
    same = wheelkit.wheel_files("engine", "1.0", BASE, tag="cp311-cp311-linux_x86_64")
    wheelkit.write_zip(directory / "same.whl", same, method=STORED)
    for side, files in (("fenced-base", FENCED_BASE), ("fenced-patch", FENCED_PATCH)):
        entries = wheelkit.wheel_files("engine", "1.0", files, tag="py3-none-any")
        wheelkit.write_zip(directory / f"{side}.whl", entries, method=STORED)
    (directory / "truncated.whl").write_bytes((directory / "base.whl").read_bytes()[:-100])


CASES = {
    "patch-text": ["base.whl", "patch.whl"],
    "patch-json": ["base.whl", "patch.whl", "--format", "json"],
    "patch-markdown": ["base.whl", "patch.whl", "--format", "markdown"],
    "identical-text": ["base.whl", "same.whl"],
    "allow-native-text": ["base.whl", "patch.whl", "--allow-native-changes"],
    "truncated": ["base.whl", "truncated.whl"],
    "missing-file": ["base.whl", "nope.whl"],
    "fence-in-diff-markdown": ["fenced-base.whl", "fenced-patch.whl", "--format", "markdown"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_wheels_golden(tmp_path: Path, golden: Golden, case: str) -> None:
    _build(tmp_path)
    result = run_k3diff("wheels", *CASES[case], cwd=tmp_path)
    golden.check("wheels", case, result)


def _wheel_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.whl"))}


@pytest.mark.parametrize("builder", ["wheels", "wheelset", "audit", "bundle"])
def test_golden_wheels_are_the_same_bytes_whatever_zlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, builder: str
) -> None:
    """Another zlib build deflates the same input to other bytes: the goldens show the wheels'
    SHA-256, so every golden wheel is stored. Here "another zlib" is this one at level 1."""
    from audit.test_audit_golden import _build as audit_build
    from bundle.helpers import wheels_json

    from .wheelset_support import release_sets

    builders: dict[str, Callable[[Path], object]] = {
        "wheels": _build,
        "wheelset": lambda root: release_sets(root, native_change=True),
        "audit": audit_build,
        "bundle": wheels_json,
    }
    build = builders[builder]
    (tmp_path / "here").mkdir()
    build(tmp_path / "here")
    real = zlib.compressobj
    monkeypatch.setattr(zlib, "compressobj", lambda _level, *rest: real(1, *rest))
    (tmp_path / "other").mkdir()
    build(tmp_path / "other")
    here = _wheel_bytes(tmp_path / "here")
    assert here and here == _wheel_bytes(tmp_path / "other")
