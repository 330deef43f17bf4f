"""What pip 26 refuses in a wheel's own files, beyond the archive and `.dist-info` layout
`k3diff.wheel.installable` checks: every reason is one W616 in `wheels` and in `audit`.

* a wheel filename `packaging.utils.parse_wheel_filename` refuses (version, build number,
  tags, project name) or that ends in `.WHL`: pip 26 says "Invalid wheel filename ..." before it
  opens the archive;
* METADATA without `Name` or `Version`, a `Name` that is not the filename's project, a
  `Version` PEP 440 cannot parse, a `Requires-Dist` that does not parse or whose marker cannot
  be evaluated (pip's "invalid metadata entry 'name'", "inconsistent name", "Invalid
  version", "has invalid metadata");
* a `.dist-info` without METADATA, and METADATA or WHEEL that is not UTF-8 (pip's
  "error decoding");
* a blank line in RECORD: the csv module reads it as an empty row, whose path pip takes as
  `row[0]`, and the install stops half-way with an IndexError (pip 23 to 26);
* a console or GUI script entry point without a `:callable` suffix ("Invalid script entry
  point ... A callable suffix is required"), or whose name resolves outside the scripts
  directory ("Invalid script entry point name ...": `../x`, `/x`, `.`).
"""

from __future__ import annotations

import csv
import functools
import io
import posixpath
import re
from collections.abc import Iterable, Iterator
from email.parser import HeaderParser
from pathlib import PurePath

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, canonicalize_name
from packaging.utils import parse_wheel_filename as parse_pep427
from packaging.version import InvalidVersion, Version

from k3diff.errors import ArchiveError, CapError
from k3diff.lazyre import lazy
from k3diff.wheel.codes import BAD_NAME, NOT_LOWER_WHL
from k3diff.wheel.metadata import METADATA_LIMIT
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

_ENTRY = (
    r"(?P<name>([^\[]\S*))\s*=\s*(?P<callable>(\w+)([:\.]\w+)*)"
    r"\s*(\[\s*(?P<flags>[\w-]+(=\w+)?(,\s*\w+(=\w+)?)*)\s*\])?"
)
_CALLABLE = lazy(_ENTRY)
"""distlib's `ENTRY_RE`, which pip's script maker reads each `NAME = VALUE` script line with
(`search`, not a full match: what follows a match is ignored, as `demo:main junk` is)."""
_CALLABLE_AT_SPACE = lazy(r"(?:(?<!\s)(?=\s)|(?=\s\S))" + _ENTRY)
"""`_CALLABLE` starting only at the first or last character of a whitespace run: distlib's
linear-time `search` (any other start implies an earlier match)."""


def _bytes(archive: ZipArchive, name: str) -> bytes | None:
    entry: ZipEntry | None = next((e for e in reversed(archive.entries) if e.name == name), None)
    if entry is None or entry.is_encrypted:
        return None
    try:
        return archive.read_content(entry, METADATA_LIMIT)
    except CapError:
        raise
    except ArchiveError:
        return None  # a corrupt stream is its entry's own finding (W604)


def _invalid_version(version: str) -> str | None:
    try:
        Version(version)
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return f"version {version!r} is not a PEP 440 version (packaging cannot parse it)"
    return None


def doubled_suffix(path: str) -> str | None:
    """Why a `.whl` whose name ends in `.whl` twice (`demo-1.0-py3-none-any.whl.whl`: a download
    saved or renamed twice over) is no wheel a release set pairs: its platform tag reads
    `any.whl`, a tag set holding `whl`, which no build tool writes and PyPI refuses (pip would
    install it, under the tags the name was meant to state); None for any other name."""
    filename = PurePath(path).name
    stem = filename[:-4]
    if filename[-4:].lower() != ".whl" or stem[-4:].lower() != ".whl":
        return None
    return (
        f"{filename!r} ends in '.whl' twice: its platform tag reads "
        f"{stem.rsplit('-', 1)[-1]!r}, which no build tool writes and PyPI refuses; rename it "
        f"to {stem!r} if it is that wheel"
    )


def no_wheel_filename(path: str) -> str | None:
    """Why a `.whl` (any case) is no wheel filename at all: fewer than four dashes before the
    suffix (`copy.whl`), so no name, version or tags to read; None for any other name. `wheels`
    compares such renamed copies; `audit` fails them (A126): no installer or index takes them."""
    filename = PurePath(path).name
    stem, suffix = filename[:-4], filename[-4:]
    if suffix.lower() != ".whl" or stem.count("-") >= 4:
        return None
    return (
        f"{filename!r} does not read as NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl: "
        "pip, twine and PyPI refuse it, and its name, version and tags cannot be checked"
    )


def filename_refusals(path: str) -> Iterator[tuple[str, str]]:
    """pip's refusals of the filename itself: a name meant as a wheel filename (four or five
    dashes before a `.whl` of any case) must be one `packaging.utils.parse_wheel_filename`
    reads, as pip 26 reads it (version, build number, tags, project name), with the lower-case
    `.whl` pip requires (it takes `x.WHL` for a source archive and fails), and its project
    name and version must make a requirement (`demo.-1.0-...` does not). A name that is no
    wheel filename at all (`base.whl`) claims nothing and is not checked here, as documented
    (`audit` fails it: `no_wheel_filename`, A126)."""
    filename = PurePath(path).name
    stem, suffix = filename[:-4], filename[-4:]
    if suffix.lower() != ".whl" or stem.count("-") < 4:
        return
    if suffix != ".whl":
        yield (
            "",
            (f"{filename!r} does not end in '.whl' (lower case): {NOT_LOWER_WHL}"),
        )
        return
    parts = stem.split("-")
    if len(parts) in (5, 6):
        problem = _invalid_version(parts[1])
        if problem is not None:
            yield "", f"{BAD_NAME}{filename!r}: {problem}"
            return
    try:
        name, version, _, _ = parse_pep427(filename)
        Requirement(f"{name}=={version}")
    except (InvalidWheelFilename, InvalidRequirement) as exc:
        yield "", f"{BAD_NAME}{filename!r}: {_first_line(exc)}"


def _first_line(exc: Exception) -> str:
    return str(exc).split("\n", 1)[0]


def dist_info_refusals(
    archive: ZipArchive,
    dist_info: str,
    script_values: Iterable[tuple[str, str]],
    record_plain: bool = False,
) -> Iterator[tuple[str, str]]:
    """(archive path, reason) for each file of the one `.dist-info` pip refuses.
    `record_plain`: its RECORD was read as plain lines (`Record.plain`), so it holds no blank
    line and is not searched for one (a search of torch's 1.3 MB RECORD takes ≈ 1 ms)."""
    metadata = _bytes(archive, f"{dist_info}/METADATA")
    if metadata is None and not any(e.name == f"{dist_info}/METADATA" for e in archive.entries):
        yield f"{dist_info}/METADATA", "the .dist-info directory has no METADATA"
    for name, data in (
        (f"{dist_info}/METADATA", metadata),
        (f"{dist_info}/WHEEL", _bytes(archive, f"{dist_info}/WHEEL")),
    ):
        if data is None:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield name, f"not UTF-8 (byte {exc.start}: {exc.reason}); pip fails decoding it"
            continue
        if name.endswith("/METADATA"):
            yield from metadata_refusals(name, text, PurePath(str(archive.path)).name)
    record = None if record_plain else _bytes(archive, f"{dist_info}/RECORD")
    if record is not None:
        yield from _blank_record_rows(f"{dist_info}/RECORD", record)
    for script, value in script_values:
        problem = _script_refusal(script, value)
        if problem is not None:
            yield f"{dist_info}/entry_points.txt", problem


def _script_entry(script: str, value: str) -> re.Match[str] | None:
    """distlib's reading of the script line pip hands it (`get_export_entry`'s search)."""
    spec = f"{script} = {value}"
    start = len(spec) - len(spec.lstrip("["))
    return _CALLABLE.match(spec, start) or _CALLABLE_AT_SPACE.search(spec, start)


def script_file(script: str, value: str) -> str:
    """The path under the scripts directory pip writes the script `script = value` to: the
    name distlib reads from the line (`a b = m:f` is the script ` b`), joined on and resolved
    as the file system does (`./tool` and `x/../tool` are `tool`). A line pip refuses keeps
    its name (W616 says it is refused)."""
    found = _script_entry(script, value)
    if found is None or _script_refusal(script, value) is not None:
        return script
    return posixpath.normpath(found["name"])


def _script_refusal(script: str, value: str) -> str | None:
    """Why pip 26 cannot make the script `script = value`, as its script maker reads the line
    (distlib's `get_export_entry`, then pip's checks of the callable and the name)."""
    spec = f"{script} = {value}"
    found = _script_entry(script, value)
    brackets = "[" in spec or "]" in spec
    if found is None or found["callable"].count(":") > 1 or (found["flags"] is None and brackets):
        if found is None and not brackets:
            return (
                f"script entry point {script!r} = {value!r} is no `name = module:callable` "
                "(pip takes the line for a script file to copy and fails)"
            )
        return f"script entry point {script!r} = {value!r}: distlib's 'Invalid specification'"
    if ":" not in found["callable"]:
        return (
            f"script entry point {script!r} = {value!r} has no ':callable' suffix "
            "(pip: 'Invalid script entry point ... A callable suffix is required')"
        )
    if _outside_scripts(found["name"]):
        return (
            f"script entry point name {found['name']!r} resolves outside the scripts "
            "directory (pip: 'Invalid script entry point name ... would be installed "
            "outside the scripts directory')"
        )
    return None


_SCRIPTS = "/prefix/bin"
"""A scripts directory to resolve names against, as pip 26 does before writing a script."""


def _outside_scripts(name: str) -> bool:
    """pip 26 joins a script's name onto the scripts directory and refuses one that resolves
    to that directory itself or outside it (`..`, `.`, an absolute path)."""
    dest = posixpath.normpath(posixpath.join(_SCRIPTS, name))
    return dest == _SCRIPTS or not dest.startswith(_SCRIPTS + "/")


_FIELDS = ("name", "version", "requires-dist", "provides-extra")
"""The METADATA fields pip 26 reads before it installs (lower case, as looked up)."""
_BLANK_LINE = lazy(r"(?>\r\n|\r|\n)(?>\r\n|\r|\n)")
"""Two line breaks in a row, as the email parser splits lines: where the header block ends."""


def metadata_fields(text: str) -> dict[str, list[str]]:
    """The values of `_FIELDS` in METADATA's header block, each as `importlib.metadata`'s email
    parser gives it (compat32: the text after the colon, leading blanks dropped; the first of a
    repeated field is what `get` returns). Plain header blocks, nearly all, are read line by
    line (the email parser takes 5 ms on torch's 144 header lines); one with a carriage return,
    a continuation line or a line that is no `Name: value` header goes to the email parser
    (a name as it takes one: printable ASCII but space and colon, `[\\041-\\071\\073-\\176]+`)."""
    end = text.find("\n\n")
    head = text[:end] if end >= 0 else text.removesuffix("\n")
    fields: dict[str, list[str]] = {field: [] for field in _FIELDS}
    if head and "\r" not in head:
        for line in head.split("\n"):
            key, colon, value = line.partition(":")
            if not (colon and key.isascii() and key.isprintable()) or " " in key or not key:
                break  # not a plain header: the email parser decides
            found = fields.get(key.lower())
            if found is not None:
                found.append(value.lstrip(" \t"))
        else:
            return fields
    blank = _BLANK_LINE.search(text)
    headers = HeaderParser().parsestr(text[: blank.start()] if blank else text, headersonly=True)
    return {field: [str(value) for value in headers.get_all(field) or ()] for field in _FIELDS}


def metadata_refusals(name: str, text: str, filename: str) -> Iterator[tuple[str, str]]:
    """What pip 26 refuses in METADATA (read as `importlib.metadata` reads it, an email header
    block, the first of a repeated field counting): no `Name`, or one other than the wheel
    filename's project; no `Version`, or one PEP 440 cannot parse; a `Requires-Dist` that is no
    PEP 508 requirement, or whose marker cannot be evaluated (pip's metadata consistency check
    evaluates each for the wheel's own extras). `Metadata-Version`, `Requires-Python` and
    unknown fields are not pip's business (twine's: W624 / A122)."""
    fields = metadata_fields(text)
    if not fields["name"]:
        yield name, "METADATA has no Name (pip: invalid metadata entry 'name')"
    else:
        yield from _name_refusal(name, fields["name"][0], filename)
    if not fields["version"]:
        yield name, "METADATA has no Version (pip: Invalid version: None)"
    else:
        problem = _invalid_version(fields["version"][0].strip())
        if problem is not None:
            yield name, f"METADATA {problem}"
    extras = tuple(canonicalize_name(extra) for extra in fields["provides-extra"])
    for value in fields["requires-dist"]:
        problem = _requirement_problem(value.strip(), extras)
        if problem is not None:
            yield name, f"METADATA Requires-Dist {value.strip()!r}: {problem}"


def _name_refusal(name: str, project: str, filename: str) -> Iterator[tuple[str, str]]:
    """pip's "inconsistent name": METADATA's Name against the wheel filename's project."""
    try:
        claimed = parse_pep427(filename)[0]
    except (InvalidWheelFilename, InvalidVersion):
        return  # no project to hold it to (or the filename's own refusal)
    if canonicalize_name(project) != claimed:
        yield (
            name,
            (
                f"METADATA names project {project!r}, the filename {claimed!r} "
                "(pip: inconsistent name)"
            ),
        )


@functools.lru_cache(maxsize=4096)
def _requirement_problem(value: str, extras: tuple[str, ...]) -> str | None:
    """Why pip stops on this Requires-Dist: it does not parse ("has invalid metadata"), or its
    marker raises when pip evaluates it as `iter_dependencies` does (with no extra when the
    wheel provides none, else with each of its extras until one holds). Cached: base and patch
    mostly require the same (about 0.2 ms a requirement)."""
    try:
        requirement = Requirement(value)
    except InvalidRequirement as exc:
        return f"not a PEP 508 requirement ({_first_line(exc)}; pip: invalid metadata)"
    marker = requirement.marker
    if marker is None:
        return None
    contexts = [{"extra": extra} for extra in extras] or [{"extra": ""}]
    try:
        any(marker.evaluate(context) for context in contexts)
    except Exception as exc:  # pip stops on any error: UndefinedComparison, ...
        return f"its marker cannot be evaluated ({type(exc).__name__}: {exc}; pip stops)"
    return None


_LINE_BREAK_PAIRS = (b"\n\n", b"\r\n", b"\n\r", b"\r\r")


def _may_hold_blank_line(data: bytes) -> bool:
    """True when a line break starts the data or follows another one: only then can csv read
    a blank row, so nearly every RECORD skips the csv pass (substring tests, a few ms on a
    1.3 MB RECORD; a regular expression took tens)."""
    if data[:1] in (b"\n", b"\r"):
        return True
    if b"\r" not in data:  # one byte search (memchr) rules out three of the four pairs
        return b"\n\n" in data
    return any(pair in data for pair in _LINE_BREAK_PAIRS)


def _blank_record_rows(name: str, data: bytes) -> Iterator[tuple[str, str]]:
    if not _may_hold_blank_line(data):
        return
    text = data.decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if not row:
                yield (
                    name,
                    f"RECORD line {reader.line_num} is blank: pip reads it as an empty row "
                    "and stops the install half-way (IndexError)",
                )
                return
    except csv.Error:
        return  # the strict RECORD reader says what is wrong (A102 / exit 2)
