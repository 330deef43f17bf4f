"""A source archive given to `wheels` as BASE or PATCH: say what to do with it, not only that
it is no zip (newuser78: `wheels a-1.0.tar.gz a-1.1.tar.gz` said "not a zip archive (no
end-of-central-directory record)", which named no next step)."""

from __future__ import annotations

from pathlib import Path

from k3diff.errors import InputError

_ZIP_START = b"PK"
"""How a zip archive (a wheel) starts; a source archive named `.zip` is read as one."""


def refuse_source_archive(path: Path) -> None:
    """Raise InputError when `path` is named as a source archive pip builds from (`.tar.gz`,
    `.tar.bz2`, …) and is no zip archive: `wheels` compares built wheels. A file that is not
    regular or cannot be opened is left to the comparison, which reports it."""
    from k3diff.audit.sourcenames import OTHER_SOURCE_SUFFIXES, SDIST_SUFFIX

    if not path.name.lower().endswith((SDIST_SUFFIX, *OTHER_SOURCE_SUFFIXES)):
        return
    if not path.is_file():  # a FIFO is not opened here; the comparison reports it
        return
    try:
        with path.open("rb") as handle:
            start = handle.read(len(_ZIP_START))
    except OSError:
        return
    if start == _ZIP_START:
        return
    raise InputError(
        f"{path}: a source archive (sdist), not a wheel: k3diff wheels compares built wheels "
        "(.whl) or two release directories of them; build the wheels first (python -m build "
        f"--wheel), or check the sdist with k3diff audit {path}"
    )
