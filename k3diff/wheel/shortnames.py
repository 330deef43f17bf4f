"""8.3 short names (`LONGMO~1.PY`) read as the long name beside them that NTFS may give them, for
W615 and A132 (`collision.windows_keys`). Each directory's long names are indexed by the short
forms they may take, so that a short name is checked against those alone: a directory of
100,000 hostile `~` names costs one pass, where trying each sibling took about an hour
(shortnames77)."""

from __future__ import annotations

import re

_SHORT = re.compile(r"([^~/.]{1,6})~[1-9]\d{0,5}(?:\.([^./]{1,3}))?")
"""An 8.3 short name as NTFS makes one (folded: lower case): up to six characters, `~N`, and
up to three of the extension."""
_NOT_8_3 = re.compile(r"[^a-z0-9_^$~!#%&'(){}@`-]")
"""A character no 8.3 name holds (folded: lower case): a name with one has a short name."""
_NOT_8_3_ASCII = re.compile(r"[\x00-\x7f](?<![a-z0-9_^$~!#%&'(){}@`-])")
"""An ASCII character no 8.3 name holds: NTFS writes it as `_` whatever the code page."""
_PAST_ASCII = re.compile(r"[^\x00-\x7f]")
"""A character NTFS leaves out of a short name by default (`RtlGenerate8dot3Name` without
extended characters, `fsutil behavior allowextchar` off: `Menu Démarrer` is `MENUDM~1`)."""
_HASHED_FROM = 6
"""A short name's prefix of six characters may be a hashed one (past `~4`, NTFS keeps two
characters, then four hex digits of a hash): only its first two need match the long name (one
of five, a long name's one character and the hash; four, a long name with none left, `5C2D~1.TXT`
for `éèàùç.txt`)."""
_HASH = re.compile(r"[0-9a-f]{4}")
"""A hashed prefix's last four characters (folded): a prefix whose aren't is no hashed one
(names78: `longpa~1` was read as any `lo…` name)."""
_KEPT = 2
"""Long names kept per short form: the first two in sorted order, so that one remains when the
short name itself (a name 8.3 lacks, `ab+cde~1`) is among them."""

_Forms = dict[tuple[str, str], list[str]]
"""A directory's long names by short form (a prefix of one to six characters, the extension's
first three), each list the first `_KEPT` in sorted order."""


def short_names(keys: list[str]) -> list[str]:
    """`keys` with each component that is an 8.3 short name replaced by a long name in the same
    directory that NTFS may give it (a volume that makes short names: a system drive's, by
    default), so that the two group as one file; the first such name in sorted order where
    several may be. A directory is the one its path names once its short names are replaced:
    `longpa~1/` and `longpackage/` are one, and `longmo~1.py` in either is read against the
    names in both (review77f: `longpa~1/longmodule.py` beside `longpackage/longmo~1.py`, or two
    names alike under a short directory whose long name is another's, passed, exit 0)."""
    paths = [key.split("/") for key in keys]
    found = [list(parts) for parts in paths]
    at = [0] * len(keys)  # each key's directory so far (0 the root), by its replaced path
    numbers: dict[tuple[int, str], int] = {}
    live, depth = list(range(len(keys))), 0
    while live:  # one level of every path at a time: a path's depth costs once
        names: dict[int, set[str]] = {}
        for row in live:
            names.setdefault(at[row], set()).add(paths[row][depth])
        forms: dict[int, _Forms] = {}
        deeper = []
        for row in live:
            part, directory = paths[row][depth], at[row]
            short = _SHORT.fullmatch(part)
            if short is not None:
                if directory not in forms:
                    forms[directory] = _forms_of(names[directory])
                found[row][depth] = _long_name(short, forms[directory]) or part
            if depth + 1 < len(paths[row]):
                at[row] = numbers.setdefault((directory, found[row][depth]), len(numbers) + 1)
                deeper.append(row)
        live, depth = deeper, depth + 1
    return ["/".join(parts) for parts in found]


def _long_name(short: re.Match[str], forms: _Forms) -> str | None:
    """The first long name (in sorted order) of `forms` that NTFS may give `short`, itself
    aside: its stem (cleaned as `_forms`) starts with the short name's prefix, or with its first
    characters before four hex digits ending a prefix of five or six (a hashed one), its
    extension with the short one's."""
    prefix, wanted = short.group(1), short.group(2) or ""
    names = [*forms.get((prefix, wanted), ())]
    if len(prefix) >= _HASHED_FROM - 2 and _HASH.fullmatch(prefix, len(prefix) - 4):
        names += forms.get((prefix[:-4], wanted), ())
    return min((name for name in names if name != short.string), default=None)


def _forms_of(names: set[str]) -> _Forms:
    """`names` (one directory's, folded) that are no 8.3 names themselves, by each short form
    they may take: every prefix of one to six characters of their cleaned stem, with their
    cleaned extension's first three (`_forms`)."""
    forms: _Forms = {}
    for name in sorted(names):
        for clean, extension in _forms(name):
            for length in range(0 if not clean else 1, min(len(clean), _HASHED_FROM) + 1):
                kept = forms.setdefault((clean[:length], extension), [])
                if len(kept) < _KEPT and name not in kept:
                    kept.append(name)
    return forms


def _forms(name: str) -> tuple[tuple[str, str], ...]:
    """`name`'s stem and extension (its first three characters) as NTFS shortens them: leading
    dots skipped or not (`RtlGenerate8dot3Name` skips them: `.gitignore` is `GITIGN~1`), spaces
    and dots dropped, other ASCII characters 8.3 lacks as `_`, and characters past ASCII left
    out (NTFS's default: review78e, `SLECTE~1.PY` beside `sélecteur.py` passed, exit 0), `_`,
    or kept (a volume allowing extended characters keeps one, upper-cased, where it maps to the
    OEM code page and back; names78: `ÉTÉLO~1.PY` beside `étélong.py` passed). An empty stem
    (`HHHH~1.TXT`) stays. None where `name` is an 8.3 name itself (`.abc` is none)."""
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    # `.abc` is no 8.3 name: `ABC~1` or `HHHH~1.ABC` (review78e)
    if stem and len(stem) <= 8 and len(extension) <= 3 and not _NOT_8_3.search(stem + extension):
        return ()  # its own short name
    found: dict[tuple[str, str], None] = {}
    for long in dict.fromkeys((name, name.lstrip("."))):
        stem, dot, extension = long.rpartition(".")
        if not dot:
            stem, extension = long, ""
        stem, extension = stem.replace(" ", "").replace(".", ""), extension.replace(" ", "")
        found[_NOT_8_3.sub("_", stem), _NOT_8_3.sub("_", extension)[:3]] = None
        if not (stem + extension).isascii():
            kept = _NOT_8_3_ASCII.sub("_", stem), _NOT_8_3_ASCII.sub("_", extension)[:3]
            stem, extension = _PAST_ASCII.sub("", stem), _PAST_ASCII.sub("", extension)
            found[kept] = found[_NOT_8_3.sub("_", stem), _NOT_8_3.sub("_", extension)[:3]] = None
    return tuple(found)
