"""Core metadata (METADATA) judged as PyPI and twine judge it: by `packaging.metadata` with
validation on. A field newer than the declared `Metadata-Version` (`License-Expression` under
2.3), a value the field's grammar refuses (a `Requires-Dist` that is not a PEP 508
requirement, a `Version` PEP 440 cannot parse), a required field missing, or a field the
specification does not know: each is one problem, named by its field. `audit` fails them
(A122); `wheels` shows the patch's (W624)."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.metadata import ExceptionGroup, InvalidMetadata, Metadata

from k3diff.errors import ArchiveError, CapError
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.metadata import METADATA_LIMIT
from k3diff.zip.archive import ZipArchive


@dataclass(frozen=True)
class MetadataProblem:
    """One thing `packaging.metadata` refuses in a METADATA file."""

    field: str
    """The field, in the email header spelling packaging reports (`license-expression`)."""
    message: str
    """packaging's sentence."""


def core_metadata_problems(text: str) -> tuple[MetadataProblem, ...]:
    """Every problem `Metadata.from_email(text, validate=True)` raises, in its order."""
    try:
        Metadata.from_email(text, validate=True)
    except ExceptionGroup as group:
        return tuple(_problem(exc) for exc in group.exceptions)
    except InvalidMetadata as exc:
        return (_problem(exc),)
    except ValueError as exc:  # a header packaging cannot read at all
        return (MetadataProblem("", str(exc)),)
    return ()


def _problem(exc: Exception) -> MetadataProblem:
    field = exc.field if isinstance(exc, InvalidMetadata) else ""
    return MetadataProblem(field, str(exc))


def core_metadata_findings(path: str, text: str, code: Code, side: str = "") -> list[Finding]:
    """One finding of `code` (A122 or W624) per problem of the METADATA at archive `path`."""
    where = f"in the {side} wheel: " if side else ""
    return [
        Finding(
            code,
            path,
            f"{where}{problem.field or 'METADATA'}: {problem.message} (PyPI and twine refuse it)",
        )
        for problem in core_metadata_problems(text)
    ]


def metadata_file_findings(
    archive: ZipArchive, path: str, code: Code, side: str = ""
) -> list[Finding]:
    """`core_metadata_findings` of the archive's METADATA at `path` (the last entry of that
    name, as pip reads it); none when it is absent, corrupt or not UTF-8 (W616 and W604 say
    those)."""
    entry = next((e for e in reversed(archive.entries) if e.name == path), None)
    if entry is None or entry.is_encrypted:
        return []
    try:
        text = archive.read_content(entry, METADATA_LIMIT).decode("utf-8")
    except CapError:
        raise
    except (ArchiveError, UnicodeDecodeError):
        return []
    return core_metadata_findings(path, text, code, side)
