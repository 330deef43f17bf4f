"""Core metadata (METADATA) judged as PyPI and twine judge it: by `packaging.metadata` with
validation on. A field newer than the declared `Metadata-Version` (`License-Expression` under
2.3), a value the field's grammar refuses (a `Requires-Dist` that is not a PEP 508
requirement, a `Version` PEP 440 cannot parse), a required field missing, or a field the
specification does not know: each is one problem, named by its field, as twine 6.1+ reports
it. So is a long description twine check cannot render (`k3diff.wheel.description`: broken
reStructuredText). `audit` fails them (A122); `wheels` shows the patch's (W624). A description
too long for k3diff to render is said unchecked: a warning (A138, W631)."""

from __future__ import annotations

import posixpath

from packaging.metadata import (
    ExceptionGroup,
    InvalidMetadata,
    Metadata,
    RawMetadata,
    parse_email,
)

from k3diff.errors import ArchiveError, CapError
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.description import (
    INDENTED_HEADER,
    UNCHECKED,
    description_problems,
    indented_header,
)
from k3diff.wheel.metadata import METADATA_LIMIT
from k3diff.wheel.pypirules import PYPI_ONLY, pypi_problems
from k3diff.zip.archive import ZipArchive


def core_metadata_problems(text: str) -> tuple[tuple[str, str], ...]:
    """Every problem twine 6.1+ raises for this METADATA, in its order: each field
    `packaging.metadata.parse_email` cannot read ("unrecognized or malformed field"), then
    every error of `Metadata.from_raw(..., validate=True)`, then PyPI's own upload rules
    (`pypi_problems`: twine check does not check them), then the description's
    (`description_problems`: twine check renders it after those). Each is (field, message): the field
    in the email header spelling packaging reports (`license-expression`; '' when it names
    none) and packaging's sentence; plain pairs, since almost no run finds one and a frozen
    class would cost every run ≈ 1.5 ms to define. Like twine (pypa/twine#1217),
    `License-File` under a Metadata-Version before 2.4 is dropped, not refused: setuptools
    wrote it so for years and twine and PyPI accept those wheels."""
    raw, unparsed = parse_email(text)
    if _version(raw.get("metadata_version")) < (2, 4):
        raw.pop("license_files", None)
        unparsed.pop("license-file", None)
    problems = [(field, f"unrecognized or malformed field {field!r}") for field in unparsed]
    try:
        Metadata.from_raw(raw, validate=True)
    except ExceptionGroup as group:
        problems += [_problem(exc) for exc in group.exceptions]
    except InvalidMetadata as exc:
        problems.append(_problem(exc))
    except ValueError as exc:  # raised past validation: a number over int()'s 4,300 digits
        problems.append(("", f"packaging cannot read it: {exc}"))  # (fuzz71: internal error)
    version_said = any(field == "metadata-version" for field, _ in problems)
    problems += [p for p in pypi_problems(raw) if not (version_said and p[0] == "metadata-version")]
    description = raw.get("description")
    said = description_problems(description, raw.get("description_content_type"))
    if said and description and indented_header(text, description):
        said = [(field, f"{message.rstrip(':')}; {INDENTED_HEADER}") for field, message in said]
    return tuple(problems + said)


def uploaded_license_files(raw: RawMetadata) -> list[str]:
    """The `License-File` values PyPI reads of parsed METADATA or PKG-INFO (`parse_email`):
    none under a Metadata-Version before 2.4, where twine drops them on upload."""
    if _version(raw.get("metadata_version")) < (2, 4):
        return []
    return list(raw.get("license_files") or [])


def _version(value: object) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in str(value).split("."))
    except ValueError:
        return (0,)


def _problem(exc: Exception) -> tuple[str, str]:
    field = exc.field if isinstance(exc, InvalidMetadata) else ""
    return field, str(exc)


REFUSED = "PyPI and twine refuse it on upload today; files uploaded before are still served"
"""Said of each problem: PyPI validates METADATA with `packaging.metadata` on upload, so a wheel
or sdist it serves from earlier (attrs 23.1.0's `License-Expression` under Metadata-Version 2.1)
can still hold one (newuser64; newuser75: "wheels" was said of attrs 24.2.0's sdist too)."""


UNCHECKED_CODES = {Code.A122: Code.A138, Code.W624: Code.W631}
"""The code of a description k3diff did not render, by the code of the command's problems."""


def core_metadata_findings(path: str, text: str, code: Code, side: str = "") -> list[Finding]:
    """One finding of `code` (A122 or W624) per problem of the METADATA at archive `path`; one
    of A138 or W631 for a description too long to render."""
    where = f"in the {side} wheel: " if side else ""
    return [
        Finding(UNCHECKED_CODES[code], path, f"{where}{field}: {message}")
        if message.endswith(UNCHECKED)
        else Finding(code, path, f"{where}{field or 'METADATA'}: {message}")
        if message.endswith(PYPI_ONLY)
        else Finding(code, path, f"{where}{field or 'METADATA'}: {message} ({REFUSED})")
        for field, message in core_metadata_problems(text)
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
    return core_metadata_findings(path, text, code, side) + _missing_licenses(
        archive, path, text, code, side
    )


def _missing_licenses(
    archive: ZipArchive, path: str, text: str, code: Code, side: str
) -> list[Finding]:
    """One finding of `code` per `License-File` of the METADATA at `path` that the wheel does not
    hold in its `.dist-info/licenses/`: PyPI refuses the upload (`License-File LICENSE does not
    exist in distribution file ...`, PEP 639; sdist76: it passed, exit 0). The header alone is
    searched first, so a METADATA without the field is not parsed again."""
    if "license-file:" not in text.partition("\n\n")[0].lower():
        return []
    licenses = f"{posixpath.dirname(path)}/licenses/"
    held = {entry.name for entry in archive.entries}
    where = f"in the {side} wheel: " if side else ""
    return [
        Finding(
            code,
            path,
            f"{where}License-File: {name!r} names {licenses}{name}, which the wheel does not "
            "hold (PyPI refuses the upload: PEP 639 asks every License-File to be there)",
        )
        for name in uploaded_license_files(parse_email(text)[0])
        if licenses + name not in held
    ]
