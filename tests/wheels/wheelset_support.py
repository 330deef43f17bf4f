"""Release sets built on the fly for the `k3diff wheels BASE_DIR PATCH_DIR` tests: real wheels
written with zipfile (stored, so their bytes and SHA-256 do not depend on the machine's zlib)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import wheelkit

LIB = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 64)
CHANGED_LIB = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 63 + b"\x90\x90\x90\x90")
CP311 = "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64"
CP312 = "cp312-cp312-manylinux_2_17_x86_64"
SOLO = "solo-1.0-py3-none-any.whl"


def _engine(version: str, lib: bytes) -> dict[str, bytes]:
    return {
        "engine/__init__.py": f"VERSION = '{version}'\n".encode(),
        "engine/model.py": b"def run(x):\n    return x + 1\n",
        "engine/_C.so": lib,
    }


def write(
    directory: Path,
    name: str,
    version: str,
    tag: str,
    files: dict[str, bytes],
    requires_python: str | None = None,
) -> Path:
    """A wheel named by PEP 427 in `directory` (its METADATA stating `requires_python`)."""
    directory.mkdir(parents=True, exist_ok=True)
    entries = {**files, **wheelkit.dist_info_files(name, version, tag)}
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    if requires_python is not None:
        entries[f"{dist_info}/METADATA"] += f"Requires-Python: {requires_python}\n".encode()
    # WHEEL lists a compressed tag set expanded, one Tag line each, as bdist_wheel writes it.
    python, abi, platform = tag.split("-")
    tags = [
        f"{p}-{a}-{o}"
        for p in python.split(".")
        for a in abi.split(".")
        for o in platform.split(".")
    ]
    wheel = "Wheel-Version: 1.0\nGenerator: wheelkit (1.0)\nRoot-Is-Purelib: false\n"
    entries[f"{dist_info}/WHEEL"] = (wheel + "".join(f"Tag: {t}\n" for t in tags)).encode()
    rows = [f"{p},{wheelkit.record_hash(data)},{len(data)}" for p, data in entries.items()]
    entries[f"{dist_info}/RECORD"] = ("\n".join([*rows, f"{dist_info}/RECORD,,"]) + "\n").encode()
    path = directory / f"{name.replace('-', '_')}-{version}-{tag}.whl"
    return wheelkit.write_zip(path, entries, method=zipfile.ZIP_STORED)


def release_sets(root: Path, *, native_change: bool = False, solo: bool = True) -> None:
    """`root/base` (engine 1.0 for two Pythons, engine-tools 1.0 for py2.py3, optionally `solo`
    on this side only, and a README) and `root/patch` (engine 1.1, engine_tools 1.1 for py3
    only). With `native_change`, the cp312 patch wheel's native library differs."""
    base, patch = root / "base", root / "patch"
    write(base, "engine", "1.0", CP311, _engine("1.0", LIB))
    write(base, "engine", "1.0", CP312, _engine("1.0", LIB))
    write(base, "engine-tools", "1.0", "py2.py3-none-any", {"engine_tools/cli.py": b"X = 1\n"})
    write(patch, "engine", "1.1", CP311, _engine("1.1", LIB))
    write(patch, "engine", "1.1", CP312, _engine("1.1", CHANGED_LIB if native_change else LIB))
    write(patch, "engine_tools", "1.1", "py3-none-any", {"engine_tools/cli.py": b"X = 2\n"})
    if solo:
        write(base, "solo", "1.0", "py3-none-any", {"solo.py": b"pass\n"})
    (base / "README.txt").write_text("release notes\n")
