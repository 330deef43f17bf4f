"""The typed values a document's recorded settings (`rerun`) are read back as: each raises
TypeError naming the value that is not what the setting needs, which the caller turns into one
line naming the document (`wheels.rerunoptions`, `responses.rerunsettings`)."""

from __future__ import annotations


def flag(value: object) -> bool:
    """A JSON boolean (never 0 or 1)."""
    if not isinstance(value, bool):
        raise TypeError(f"{value!r} is not a boolean")
    return value


def text(value: object) -> str:
    """A JSON string."""
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not a string")
    return value


def optional_text(value: object) -> str | None:
    """A JSON string or null."""
    return None if value is None else text(value)
