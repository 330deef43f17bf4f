"""Files a command never writes its report or manifest over: a zip archive (by name or content),
one of its inputs, or a place inside the directory it writes its evidence to.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from k3diff.errors import UsageError

ARCHIVE_SUFFIXES = (".whl", ".zip")
"""Names a report or manifest is never written under: they name the inputs of this tool."""

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_END_SIGNATURE = b"PK\x05\x06"
_END_SEARCH = (1 << 16) + 22
"""zipfile's search for the end record (`_EndRecData`): the last 64 KiB and 22 bytes."""


def refuse_archive_target(option: str, target: Path, inputs: str = "wheels") -> None:
    """Raise UsageError when `option` would write over a zip archive (by content) or a file
    named `.whl` / `.zip`: an option typed before a glob (`--write-manifest dist/*.whl`) takes
    the first wheel as its FILE, and writing it would destroy that wheel."""
    reason = None
    if target.name.lower().endswith(ARCHIVE_SUFFIXES):
        reason = f"{target.name} has an archive's name"
    elif is_zip_archive(target):
        reason = f"{target} is a zip archive"
    if reason is not None:
        raise UsageError(
            f"{option} took {target} as its FILE; put the option after the {inputs} "
            f"({reason}: k3diff never writes a report or manifest over one)"
        )


def is_zip_archive(path: Path) -> bool:
    """True for an existing regular file that is a zip archive: a zip signature at its start,
    or an end record zipfile finds (an archive behind a prepended stub). zipfile is imported
    only for a file whose tail holds an end-record signature: it looks for one nowhere else
    (the last `_END_SEARCH` bytes), so any other file, such as the report a run overwrites, is
    no zip archive without it."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # never open a FIFO or a device: it could block
        with open(path, "rb") as handle:
            if handle.read(4) in _ZIP_MAGIC:
                return True
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - _END_SEARCH))
            if _END_SIGNATURE not in handle.read(_END_SEARCH):
                return False
        import zipfile

        return zipfile.is_zipfile(path)
    except OSError:
        return False


def refuse_output_in_evidence(output: Path, directories: list[Path]) -> None:
    """Raise UsageError when `output` lies inside a directory the command writes evidence to."""
    where = output.resolve()
    for directory in directories:
        if where.is_relative_to(directory.resolve()):
            raise UsageError(
                f"--output {output} is inside {directory}, where this command writes its "
                "evidence: writing the report there could replace it; choose another place"
            )


def refuse_output_over_input(output: Path, inputs: list[Path]) -> None:
    """Raise UsageError when `output` is one of `inputs`: the same file (also through symbolic
    or hard links: same device and inode), or, when it does not exist yet, the same resolved
    path."""
    try:
        out_stat: os.stat_result | None = os.stat(output)
    except OSError:
        out_stat = None
    for source in inputs:
        try:
            in_stat = os.stat(source)
        except OSError:
            in_stat = None
        if out_stat is not None and in_stat is not None:
            same = (out_stat.st_dev, out_stat.st_ino) == (in_stat.st_dev, in_stat.st_ino)
        else:
            same = output.resolve() == source.resolve()
        if same:
            raise UsageError(
                f"--output {output} is the input {source}: writing the report would replace "
                "it; choose another file"
            )
