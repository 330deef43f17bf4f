"""What the sniff-child tests share (`test_sniff_child`, `test_sniff_child_faults`): a wheel
of many small text entries and two natives, and the child's answer for an archive, waited for."""

from __future__ import annotations

from pathlib import Path

import wheelkit

from k3diff.wheels.sniffchild import HeadScreen, SniffChild
from k3diff.zip.archive import ZipArchive

from .test_span_sniff import ELF, PE

HEADERS = {
    f"pkg/include/h{i}.h": f"#pragma once\nint f{i}(void);\n".encode() * 9 for i in range(30)
}
FILES = {
    **HEADERS,
    "pkg/bin/tool": ELF,
    "pkg/bin/tool2": PE,
    "pkg/data/Makefile": b"all:\n\ttrue\n" * 20,
    "pkg/__init__.py": b"VALUE = 1\n" * 40,
}


def answer(archive: ZipArchive) -> HeadScreen | None:
    """The child's answer for `archive`, waited for."""
    child = SniffChild(archive)
    try:
        child.start()
        return child.wait(30)
    finally:
        child.close()


def built(tmp_path: Path, files: dict[str, bytes] = FILES) -> Path:
    """`files` (default `FILES`) as the wheel pkg 1.0 in `tmp_path`."""
    return wheelkit.make_wheel(tmp_path, "pkg", "1.0", files)
