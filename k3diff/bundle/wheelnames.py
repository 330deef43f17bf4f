"""The two wheels a wheels document compared, under the file names it gives them, for `wheels`
run again on them (`wheelsrederive`).

A wheel given to `report` is found by its bytes, whatever it is called there, yet `wheels` reads
findings off a wheel's file name: W605 (the filename against METADATA and WHEEL), W616 (a name pip
refuses), W630 (the tags it installs on), the platforms its natives load on. Run again on the
files as given, those were read off other names: off the base wheel's for both sides where the
patch was a byte-for-byte copy renamed (the two given, one digest), so a W605 deleted from such a
document, with its verdict, followed from the wheels and passed, and the document as written was
refused (hunt72). Each wheel is read through a link named as the document names it, in a
directory of its own, so the rerun reads the names the document was made from.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath


@contextmanager
def under_recorded_names(
    paths: tuple[Path, Path], names: Sequence[object]
) -> Iterator[tuple[Path, Path]]:
    """`paths` (base, patch) as links named by the file names of `names` (the document's
    `base.path`, `patch.path`); the paths themselves where a name is none a file can have."""
    files = [_file_name(name) for name in names]
    if len(files) != 2 or None in files:
        yield paths
        return
    with tempfile.TemporaryDirectory(prefix="k3diff-names-") as scratch:
        links = []
        for side, path, file in zip(("base", "patch"), paths, files, strict=True):
            link = Path(scratch, side, str(file))
            link.parent.mkdir()
            link.symlink_to(path.resolve())
            links.append(link)
        yield links[0], links[1]


def _file_name(name: object) -> str | None:
    """The last part of a recorded path, as `wheels` reads a wheel's file name; None for a
    value no file can be named (empty, `.`, `..`, a NUL, over 255 bytes)."""
    if not isinstance(name, str):
        return None
    file = PurePosixPath(name).name
    if file in ("", ".", "..") or "\0" in file or len(file.encode("utf-8", "replace")) > 255:
        return None
    return file
