"""Phase read facts of `compare_wheels`: what each wheel says of itself in `.dist-info/`
(identity: METADATA and WHEEL; RECORD), read and parsed once before its entries, and the
installability checks that read the same parse and the same METADATA fields (left66: W629
narrows the tags' Pythons by the identity's Requires-Python, with no second read)."""

from __future__ import annotations

from typing import NamedTuple

from k3diff.wheel.installable import WheelInstall, install_check
from k3diff.wheel.installed import NameScreens
from k3diff.wheel.metadata import WheelIdentity, read_identity
from k3diff.wheel.record import Record, RecordLine, readable_rows
from k3diff.wheel.recordpair import parse_wheel_records
from k3diff.wheels.recordplan import Records
from k3diff.zip.archive import ZipArchive


class WheelFacts(NamedTuple):
    """What each wheel says about itself in `.dist-info/`, read before its entries (a named
    tuple: private to the run, defined in a tenth of a frozen dataclass's ≈ 1 ms)."""

    base_identity: WheelIdentity
    patch_identity: WheelIdentity
    base_record: dict[str, RecordLine] | None
    """The base RECORD rows by path, None when the wheel has none."""
    patch_record: dict[str, RecordLine] | None
    """The patch RECORD rows by path, None when the wheel has none."""
    parsed: tuple[Record | None, Record | None] = (None, None)
    """(base, patch) RECORD as parsed, with its findings: the one parse every check reads."""

    @property
    def records(self) -> Records:
        """(base, patch) RECORD rows, as the hashing plan takes them."""
        return (self.base_record, self.patch_record)


def read_facts(base: ZipArchive, patch: ZipArchive) -> WheelFacts:
    """Phase read facts: identity (METADATA, WHEEL) and RECORD of both wheels, each read and
    parsed once."""
    base_identity, patch_identity = read_identity(base), read_identity(patch)
    # The patch's RECORD lines that are the base's, equal by value, are not judged again.
    parsed = parse_wheel_records(base, patch, (base_identity.dist_info, patch_identity.dist_info))
    return WheelFacts(
        base_identity=base_identity,
        patch_identity=patch_identity,
        base_record=readable_rows(base, parsed[0]),
        patch_record=readable_rows(patch, parsed[1]),
        parsed=parsed,
    )


def install_checks(
    base: ZipArchive,
    patch: ZipArchive,
    facts: WheelFacts,
    screens: tuple[NameScreens, NameScreens],
) -> tuple[WheelInstall, WheelInstall]:
    """Each wheel's installed view and installability findings, from the RECORD parse and the
    Requires-Python of its facts; the patch's view beside the base's, where it writes the same
    files."""
    first = install_check(
        base,
        "base",
        record=facts.parsed[0],
        screens=screens[0],
        requires_python=facts.base_identity.requires_python,
    )
    return first, install_check(
        patch,
        "patch",
        record=facts.parsed[1],
        screens=screens[1],
        beside=first,
        requires_python=facts.patch_identity.requires_python,
    )
