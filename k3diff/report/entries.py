"""The archive's entry count as reports word it, shared by the `wheels` and `audit` renderers
without either importing the other's models."""

from __future__ import annotations

from k3diff.output import plural


def entries_phrase(entries: int, directories: int, *, noun: bool = True) -> str:
    """`13,043 entries (782 directories)`: the central directory's count, saying how many of
    them are directory entries (never paired, in no per-kind count). Without the noun for a
    table's `entries` column: `13,043 (782 directories)`."""
    count = f"{entries:,}"
    if noun:
        count += " entry" if entries == 1 else " entries"
    return f"{count} ({plural(directories, 'directory')})" if directories else count
