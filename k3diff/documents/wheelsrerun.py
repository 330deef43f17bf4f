"""The typed view of a wheels document's `rerun` object (forge62): the settings `wheels` ran with,
as the bundle names those that loosen the default policy. Written by
`k3diff.wheels.rerunsettings`, which also reads it back into options for the rerun."""

from __future__ import annotations

from dataclasses import dataclass

from k3diff.fields import Fields


@dataclass(frozen=True)
class RecordedWaiver:
    """One waiver as the run parsed it (`rerun.waivers.entries`)."""

    number: int
    """Its position in the waiver file."""
    code: str
    """The finding code it waives."""
    path: str
    """The archive path (or glob) it names."""
    reason: str
    """Why, in the reviewer's words."""
    expires: str | None
    """The last day it applies (ISO date), None: never expires."""


@dataclass(frozen=True)
class WheelsRerun:
    """Every setting that changes a wheels document (`rerun`)."""

    allow_native_changes: bool
    """`--allow-native-changes`."""
    allow_bytecode: bool
    """`--allow-bytecode`."""
    select: tuple[str, ...] | None
    """`--select` codes; None: every code reported."""
    ignore: tuple[str, ...]
    """`--ignore` codes."""
    protected_commands: tuple[str, ...]
    """The exact set of command names a script may not take over."""
    file_hash: bool
    """False under `--no-file-hash`."""
    waiver_file: str | None
    """The waiver file as given; None without `--waivers`."""
    judged_on: str | None
    """The day the waivers' expiry was judged on (ISO date)."""
    waivers: tuple[RecordedWaiver, ...]
    """Every waiver as parsed, in file order."""
    source_commit: str | None
    """The commit the source check compared with (full id); None without `--source`."""


def _waiver(fields: Fields) -> RecordedWaiver:
    return RecordedWaiver(
        number=fields.integer("number"),
        code=fields.string("code"),
        path=fields.string("path"),
        reason=fields.string("reason"),
        expires=fields.optional_string("expires"),
    )


def read_rerun(fields: Fields) -> WheelsRerun:
    """The typed `rerun` object; InputError naming a field missing or of another type."""
    waivers = fields.optional_object("waivers")
    source = fields.optional_object("source")
    fields.boolean("explain")
    return WheelsRerun(
        allow_native_changes=fields.boolean("allow_native_changes"),
        allow_bytecode=fields.boolean("allow_bytecode"),
        select=None if fields.raw("select") is None else fields.strings("select"),
        ignore=fields.strings("ignore"),
        protected_commands=fields.strings("protected_commands"),
        file_hash=fields.boolean("file_hash"),
        waiver_file=None if waivers is None else waivers.string("file"),
        judged_on=None if waivers is None else waivers.string("judged_on"),
        waivers=() if waivers is None else waivers.each("entries", _waiver),
        source_commit=None if source is None else source.string("commit"),
    )
