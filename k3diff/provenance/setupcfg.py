"""``setup.cfg`` as setuptools reads it: the one reader of the layout (`setuptoolsconfig`), the
version (`setupversion`) and versioneer's settings (`versionconfig`).

setuptools (``Distribution._parse_config_files``) opens the file as UTF-8 in text mode (a
byte-order mark is kept, a line before any section, so its build fails; ``\r``, ``\r\n`` and
``\n`` all end a line: review75c, a file of ``\r`` endings was one line here), parses it with
`configparser.ConfigParser`: strict (a section, or an option of a section, given twice fails),
option names kept as written, ``%(name)s`` interpolated from the section and ``[DEFAULT]``, and
a ``%`` that is neither that nor ``%%`` fails; and it gets every value of every section, so an
error anywhere fails the build: here the file is then not read, said why (the three readers
read it without interpolation, and each its own way, before cleanup75). setuptools then names
the options its way: in ``[metadata]`` and the ``[options…]`` sections (but
``[options.extras_require]``, ``.data_files``, ``.entry_points``, ``.package_data`` and
``.exclude_package_data``) dashes as underscores and upper case as lower (setuptools 80 and
later, ``_enforce_option_lowercase``; 65 lowered only ``[metadata]``'s, and ignored an
``[options] Package_Dir`` that 80 builds with: review75c, read as 65 it left detection to find
a legacy copy, exit 0); of two that become one name, the later wins (`SetupCfg.get`).

Interpolation can expand a small file past any memory (ten levels of ``%(a)s%(a)s…``), so the
expanded size is bounded from the raw values before any value is got: a file past
`EXPANDED_CAP` is not read. Every section holds every ``[DEFAULT]`` option too, so a file of
many sections and many defaults has a number of values their product (review75c: 128 KiB of
each, 2.8 × 10⁸ values, ran past two minutes; 316 of each took 1.7 s): past `VALUES_CAP` it is
not read. The callers read the file capped (`configdocuments.CONFIG_CAP`) and
refuse a symbolic link.
"""

from __future__ import annotations

import codecs
import configparser
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass

from k3diff.escape import shortened

SCAN_CAP = 1024 * 1024
"""Largest ``setup.cfg`` whose section headers are scanned where it is too large to read
(`names_read_sections`: 1 MiB of ``\r`` takes some 0.15 s, 4 MiB 0.6 s)."""
READ_SECTIONS = ("metadata", "options", "global", "versioneer")
"""The sections of ``setup.cfg`` k3diff reads (``options.…`` too): setuptools' own (``[global]``
for `commandpackages`), and versioneer's."""
EXPANDED_CAP = 1024 * 1024
"""Most characters all of a file's values may expand to, together, by interpolation."""
VALUES_CAP = 20_000
"""Most ``[DEFAULT]`` values a file's sections may hold together (each holds each)."""

_REFERENCE = re.compile(r"%%|%\(([^)]+)\)s")
"""An escaped ``%`` or a reference, as configparser's ``BasicInterpolation`` scans a value left
to right (`_expanded_size` bounds with it)."""
_KEPT_NAMES = frozenset(
    {
        "options.extras_require",
        "options.data_files",
        "options.entry_points",
        "options.package_data",
        "options.exclude_package_data",
    }
)
"""The sections whose option names setuptools keeps as written (``_skip_setupcfg_normalization``)."""


@dataclass(frozen=True)
class SetupCfg:
    """The values of a setup.cfg, interpolated, by section and option as written (with
    ``[DEFAULT]``'s values in each section, as configparser gives them)."""

    sections: Mapping[str, Mapping[str, str]]
    """Each section's options, by their names as written, in the file's order."""

    def get(self, section: str, option: str) -> str | None:
        """The value setuptools reads as `option` (underscores; lower case in ``[metadata]``)
        of `section`, or None: of the names written that setuptools reads as `option`, the
        last."""
        found = None
        for name, value in self.sections.get(section, {}).items():
            if setuptools_name(section, name) == option:
                found = value
        return found


def setuptools_name(section: str, option: str) -> str:
    """`option` of `section` named as setuptools names it (``_enforce_underscore``,
    ``_enforce_option_lowercase``), in the sections k3diff reads of setuptools'."""
    ours = section == "metadata" or section.startswith("options")
    if not ours or section in _KEPT_NAMES:
        return option
    return option.replace("-", "_").lower()


def read_setup_cfg(data: bytes, label: str) -> SetupCfg | str:
    """`data` (the file `label`) read as setuptools reads it, or why it cannot be (a sentence
    naming `label`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"{label} is not UTF-8 (setuptools reads it as UTF-8, and fails)"
    if text.startswith("\ufeff"):
        bom = codecs.BOM_UTF8.hex(" ").upper()
        return f"{label} starts with a byte-order mark ({bom}), a line before any section to setuptools, which fails"
    parser = configparser.ConfigParser()
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        # As `open` reads it (newline=None), not `read_string` (lines end only at "\n").
        parser.read_file(io.StringIO(text, newline=None), source=label)
    except (configparser.DuplicateSectionError, configparser.DuplicateOptionError) as exc:
        twice = f"[{exc.section}]" + (f" {exc.option}" if hasattr(exc, "option") else "")
        return f"{label} states {shortened(twice, 200)} twice (configparser, strict as setuptools reads it, fails)"
    except configparser.Error:
        return f"{label} is not a file configparser reads (setuptools fails)"
    held, defaults = len(parser.sections()), len(parser.defaults())
    if held * defaults > VALUES_CAP:  # each section's own options: the file's size bounds
        return (
            f"{label} has {held:,} sections each holding its {defaults:,} [DEFAULT] options, "
            f"over {VALUES_CAP:,} values, not read"
        )
    if _expanded_size(parser) > EXPANDED_CAP:
        return f"{label}'s %(name)s interpolation expands past {EXPANDED_CAP // 1024} KiB (or loops), not read"
    sections: dict[str, dict[str, str]] = {}
    for section in parser.sections():
        try:
            sections[section] = {o: parser.get(section, o) for o in parser.options(section)}
        except configparser.InterpolationError as exc:
            where = shortened(f"[{exc.section}] {exc.option}", 200)
            return f"{label}'s {where} cannot be interpolated as setuptools does (it fails)"
    return SetupCfg(sections)


def _expanded_size(parser: configparser.ConfigParser) -> int:
    """A bound on how many characters every value of every section expands to (each value's
    raw length plus those of the values it references, by `_REFERENCE`), stopping once past
    `EXPANDED_CAP`; a reference loop or a chain deeper than configparser follows counts as
    past it (configparser fails on both)."""
    sizes: dict[tuple[str, str], int] = {}

    def size(section: str, option: str, depth: int) -> int:
        key = (section, option)
        if key not in sizes:
            raw = parser.get(section, option, raw=True)
            if "%" in raw and depth > configparser.MAX_INTERPOLATION_DEPTH:
                return EXPANDED_CAP + 1
            sizes[key] = EXPANDED_CAP + 1  # a loop back here is past the cap
            total = len(raw)
            for name in _REFERENCE.findall(raw):
                if total > EXPANDED_CAP:
                    break
                if name and parser.has_option(section, name):
                    total += size(section, name, depth + 1)
            sizes[key] = min(total, EXPANDED_CAP + 1)
        return sizes[key]

    total = 0
    for section in parser.sections():
        for option in parser.options(section):
            total += size(section, option, 1)
            if total > EXPANDED_CAP:
                return total
    return total


def names_read_sections(data: bytes) -> bool:
    """Whether ``setup.cfg`` `data`, too large to read, may hold a section k3diff reads
    (`READ_SECTIONS`, any case, spaces around): every line configparser may take for a
    header (its ``[NAME]`` from the first ``[`` to the last ``]``, indented or not, a
    continuation line included) is taken as one. A file holding only linters' sections
    (``[flake8]``, ``[tool:pytest]``, ``[mypy]``) states nothing k3diff reads; setuptools
    reads it and keeps their options for commands of those names, which it does not run
    (holds78: a 300 KiB ``[flake8]`` stopped ``--source``, and setuptools 84 built the
    wheel). Lines end as `read_setup_cfg` ends them; a file not UTF-8 fails setuptools."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return True  # said where it is read
    for line in io.StringIO(text, newline=None):
        header = _HEADER.match(line.strip())
        if header is None:
            continue
        name = header.group(1).strip().casefold()
        if name in READ_SECTIONS or name.startswith("options"):
            return True
    return False


_HEADER = re.compile(r"\[(.+)\]")
"""A line configparser may read as a section header (its ``SECTCRE``, stripped)."""
