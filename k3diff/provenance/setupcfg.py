"""``setup.cfg`` as setuptools reads it: the one reader of the layout (`setuptoolsconfig`), the
version (`setupversion`) and versioneer's settings (`versionconfig`).

setuptools (``Distribution._parse_config_files``, unchanged from 65 to 80) opens the file as
UTF-8 (a byte-order mark is kept, a line before any section, so its build fails), parses it with
`configparser.ConfigParser`: strict (a section, or an option of a section, given twice fails),
option names kept as written, ``%(name)s`` interpolated from the section and ``[DEFAULT]``, and
a ``%`` that is neither that nor ``%%`` fails; and it gets every value of every section, so an
error anywhere fails the build: here the file is then not read, said why (the three readers
read it without interpolation, and each its own way, before cleanup75). setuptools then names
the options its way: dashes as underscores (not in ``[options.extras_require]`` and
``[options.data_files]``), lower case in ``[metadata]``; of two that become one name, the later
wins (`SetupCfg.get`).

Interpolation can expand a small file past any memory (ten levels of ``%(a)s%(a)s…``), so the
expanded size is bounded from the raw values before any value is got: a file past
`EXPANDED_CAP` is not read. The callers read the file capped (`buildconfig.CONFIG_CAP`) and
refuse a symbolic link.
"""

from __future__ import annotations

import codecs
import configparser
import re
from collections.abc import Mapping
from dataclasses import dataclass

from k3diff.escape import shortened

EXPANDED_CAP = 1024 * 1024
"""Most characters all of a file's values may expand to, together, by interpolation."""

_REFERENCE = re.compile(r"%%|%\(([^)]+)\)s")
"""An escaped ``%`` or a reference, as configparser's ``BasicInterpolation`` scans a value left
to right (`_expanded_size` bounds with it)."""
_KEPT_DASHES = frozenset({"options.extras_require", "options.data_files"})


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
    """`option` of `section` named as setuptools names it (``warn_dash_deprecation``,
    ``make_option_lowercase``)."""
    name = option if section in _KEPT_DASHES else option.replace("-", "_")
    return name.lower() if section == "metadata" else name


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
        parser.read_string(text, source=label)
    except (configparser.DuplicateSectionError, configparser.DuplicateOptionError) as exc:
        twice = f"[{exc.section}]" + (f" {exc.option}" if hasattr(exc, "option") else "")
        return f"{label} states {shortened(twice, 200)} twice (configparser, strict as setuptools reads it, fails)"
    except configparser.Error:
        return f"{label} is not a file configparser reads (setuptools fails)"
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
