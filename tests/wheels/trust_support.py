"""Wheels shared by the trust tests (test_wheel_trust and test_wheel_trust_modes): an orjson-shaped
wheel as maturin builds it, with a native, a Python file and a script."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wheelkit

MATURIN_TAG = "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"
SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 512)
FILES = {
    "orjson/__init__.py": b"from .orjson import *\n",
    "orjson/orjson.cpython-312-x86_64-linux-gnu.so": SO,
    "orjson/bin/helper": b"#!/bin/sh\necho helper\n",
}


def orjson_wheel(tmp_path: Path, side: str, files: dict[str, bytes] = FILES, **kwargs: Any) -> Path:
    version = kwargs.pop("version", "3.10.0")
    kwargs.setdefault("tag", MATURIN_TAG)  # true tags for its cpython-312 extension (W629)
    return wheelkit.make_wheel(tmp_path / side, "orjson", version, files, **kwargs)


def finding_codes(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"]]


def failing_codes(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"] if f["severity"] == "error"]
