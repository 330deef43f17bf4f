"""The layout pass reads local headers in runs of neighbours: it sees what one read each would."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from k3diff.wheel import layout
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import LOCAL_HEADER
from k3diff.zip.localheaders import WINDOW, read_local_headers


def _many_entries(path: Path) -> Path:
    """Hundreds of small entries around two incompressible ones larger than a read window."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for n in range(400):
            archive.writestr(f"pkg/module_{n:03d}_{'x' * (n % 37)}.py", b"value = %d\n" % n * n)
            if n in (100, 399):
                archive.writestr(f"pkg/blob_{n}.bin", os.urandom(3 * WINDOW // 2))
    return path


def test_batched_headers_equal_one_read_each(tmp_path: Path) -> None:
    with ZipArchive.open(_many_entries(tmp_path / "many.zip")) as archive:
        headers = read_local_headers(archive)
        assert len(headers) == len(archive.entries) == 402
        for entry in archive.entries:
            one = archive.pread(LOCAL_HEADER.size + len(entry.name_bytes), entry.header_offset)
            assert headers[entry.position] == one, entry.name
        assert list(layout.layout_findings(archive, "audited")) == []


def test_layout_pass_leaves_the_data_offsets_to_the_archive(tmp_path: Path) -> None:
    path = _many_entries(tmp_path / "many.zip")
    with ZipArchive.open(path) as checked, ZipArchive.open(path) as fresh:
        list(layout.layout_findings(checked, "audited"))
        checked.pread = None  # type: ignore[method-assign,assignment]  # no header read again
        for entry in checked.entries:
            assert checked.data_offset(entry) == fresh.data_offset(entry), entry.name


def test_local_headers_give_the_data_offsets_before_any_entry_is_read(tmp_path: Path) -> None:
    """`wheels` reads the headers once before its pool starts: no proof reads one again."""
    path = _many_entries(tmp_path / "many.zip")
    with ZipArchive.open(path) as primed, ZipArchive.open(path) as fresh:
        assert primed.local_headers() is primed.local_headers()
        primed.pread = None  # type: ignore[method-assign,assignment]  # no header read again
        for entry in primed.entries:
            assert primed.data_offset(entry) == fresh.data_offset(entry), entry.name
