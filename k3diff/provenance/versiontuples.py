"""The version tuples setuptools-scm writes for a version, as its releases have written them.

A version module's ``version_tuple`` must be one of these for the version it states
(`versiontemplate`; prov71: ``version_tuple = (9, 9)`` beside ``version = '1.1'`` passed).
"""

from __future__ import annotations

from packaging.version import Version


def scm_tuples(version: str) -> tuple[tuple[int | str, ...], ...]:
    """The version tuples setuptools-scm writes for `version` (the newest rule first): from
    8.2.1 (``_version_as_tuple``) the release numbers as ints, then ``N!`` (an epoch, placed
    first), the pre-release, ``postN``, ``devN`` and the local part as strings; from 6.1 to 8.2.0
    the release, ``devN`` and the local part only; in 5.x and 6.0 each of the dot-separated
    parts, as an int where ``int()`` reads it. A version packaging does not parse is
    ``(version,)`` (6.4 on) or ``(0, 0, 0)`` (6.1 to 6.3)."""
    split = tuple(_int_or_str(part) for part in version.split("."))
    try:
        parsed = Version(version)
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return ((version,), (0, 0, 0), split)
    release: tuple[int | str, ...] = parsed.release
    dev = (f"dev{parsed.dev}",) if parsed.dev is not None else ()
    local = (parsed.local,) if parsed.local is not None else ()
    epoch = (f"{parsed.epoch}!",) if parsed.epoch else ()
    pre = (f"{parsed.pre[0]}{parsed.pre[1]}",) if parsed.pre is not None else ()
    post = (f"post{parsed.post}",) if parsed.post is not None else ()
    return ((*epoch, *release, *pre, *post, *dev, *local), (*release, *dev, *local), split)


def _int_or_str(part: str) -> int | str:
    try:
        return int(part)
    except ValueError:
        return part
