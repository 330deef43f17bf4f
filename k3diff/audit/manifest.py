"""SHA-256 manifests as `sha256sum` writes and reads them.

Two line forms are read: `HASH  NAME` (text mode; `HASH *NAME` binary mode) and the BSD form
`sha256sum --tag` writes, `SHA256 (NAME) = HASH`. Names with a backslash or newline are written
the way GNU coreutils escapes them (a leading backslash marks the line), so `sha256sum -c` reads
back what k3diff writes.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
from collections.abc import Iterable
from pathlib import Path

from k3diff import bounded
from k3diff.audit.model import ManifestCheck, ManifestMismatch
from k3diff.errors import InputError
from k3diff.lazyre import lazy

_PLAIN = lazy(r"^(\\?)([0-9a-fA-F]{64}) [ *](.+)$")
_TAGGED = lazy(r"^(\\?)SHA256 \((.+)\) = ([0-9a-fA-F]{64})$")


def manifest_line(sha256: str, name: str) -> str:
    """One `sha256sum` line for `name` (escaped like coreutils when it needs to be)."""
    if "\\" in name or "\n" in name or "\r" in name:
        escaped = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
        return f"\\{sha256}  {escaped}\n"
    return f"{sha256}  {name}\n"


def check_writable(name: str, artifact: Path, manifest: Path) -> None:
    """Raise InputError where `name` (an artifact's name in the manifest written at `manifest`)
    is no UTF-8 text (a file name of bytes that decode as none, held as lone surrogates):
    manifests are written and read as UTF-8 text (hunt72: one such name was an internal error,
    after the whole audit)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"{artifact}: the file name is not UTF-8 text, and {manifest} is written (and "
            "--manifest read) as UTF-8 text: rename the file"
        ) from None


def manifest_text(entries: Iterable[tuple[str, str]]) -> str:
    """The manifest for (sha256, name) pairs, in the given order."""
    return "".join(manifest_line(sha256, name) for sha256, name in entries)


_ESCAPES = {"n": "\n", "r": "\r", "\\": "\\"}
"""The escapes GNU coreutils writes and reads in a name whose line starts with a backslash."""


def _unescape(name: str) -> str | None:
    """The name an escaped line means, or None where sha256sum refuses the line: GNU coreutils
    reads only `\\\\`, `\\n` and `\\r` there, and takes any other escape (`a\\xb`) or a
    trailing backslash as an improperly formatted line (hunt72: k3diff read `a\\xb` as the
    name `a\\xb` and passed a file of that name that `sha256sum -c` fails)."""
    out: list[str] = []
    chars = iter(name)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        unescaped = _ESCAPES.get(next(chars, ""))
        if unescaped is None:
            return None
        out.append(unescaped)
    return "".join(out)


def read_manifest(path: Path) -> dict[str, str]:
    """Name -> lower-case SHA-256 from a `sha256sum` or `sha256sum --tag` file.

    Raises InputError naming the file and line for anything else: a manifest that cannot be read
    cannot vouch for anything."""
    return read_manifest_digest(path)[0]


def read_manifest_digest(path: Path) -> tuple[dict[str, str], str]:
    """`read_manifest`, and the SHA-256 of the bytes it read (what the audit document records
    of the manifest, so that `report` can tell one changed since: lmrep68)."""
    data = bounded.read_document(path, str(path), "sha256sum manifest")
    return _hashes(path, _manifest_text(path, data)), hashlib.sha256(data).hexdigest()


def _hashes(path: Path, text: str) -> dict[str, str]:
    """Name -> lower-case SHA-256 of each line of the manifest's text."""
    hashes: dict[str, str] = {}
    keys: dict[str, str] = {}
    # Lines end at a newline only, as sha256sum reads them (a CRLF line loses its CR):
    # `splitlines` would also break a name at U+2028, U+0085 or a form feed, which sha256sum
    # writes raw, so a manifest k3diff wrote could not be read back.
    for number, raw in enumerate(text.removesuffix("\n").split("\n"), start=1):
        line = raw.removesuffix("\r")
        if not line.strip() or line.startswith("#"):
            continue
        plain = _PLAIN.match(line)
        tagged = None if plain else _TAGGED.match(line)
        if plain:
            escaped, digest, name = plain.groups()
        elif tagged:
            escaped, name, digest = tagged.groups()
        else:
            raise InputError(
                f"{path}:{number}: not a sha256sum line (HASH  NAME or SHA256 (NAME) = HASH)"
            )
        if escaped:
            unescaped = _unescape(name)
            if unescaped is None:
                raise InputError(
                    f"{path}:{number}: not a sha256sum line: a name escaped with a leading "
                    "backslash may hold only \\\\, \\n and \\r escapes, as sha256sum -c reads it"
                )
            name = unescaped
        # `NAME`, `./NAME` and `x/../NAME` are one file to sha256sum: two hashes for it is a
        # contradiction, not a line to match and a line left over.
        same = keys.setdefault(_key(name), name)
        if same in hashes:
            if hashes[same] != digest.lower():
                raise InputError(f"{path}:{number}: {name!r} is listed twice with different hashes")
            continue
        hashes[name] = digest.lower()
    if not hashes:
        raise InputError(f"{path}: the manifest lists no artifact")
    return hashes


def is_manifest(path: Path) -> bool:
    """True for a regular file that reads as a `sha256sum` manifest (as `read_manifest` reads
    it): a manifest `--write-manifest` may replace, unlike any other artifact."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # never open a FIFO or a device: it could block
        read_manifest(path)
    except (OSError, InputError):
        return False
    return True


def _manifest_text(path: Path, data: bytes) -> str:
    """The manifest's text; InputError worded like the other commands' unreadable inputs."""
    try:
        return bounded.without_bom(data, str(path)).decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{path}: not a sha256sum manifest (line {line} is not UTF-8 text)"
        ) from exc


def _key(name: str) -> str:
    """The name a path is matched by, as the file system resolves it from the working
    directory (where sha256sum -c opens it): `./NAME`, `.//NAME`, `dist//NAME`, `dist/./NAME`,
    `sub/../dist/NAME` and `$PWD/dist/NAME` are `dist/NAME`, so two hashes under two of them
    is one file listed twice (a symbolic link `sub` could make one another file: two hashes for
    it are refused all the same)."""
    return posixpath.normpath(posixpath.join(_working_directory(), name))


def _working_directory() -> str:
    """The working directory, or `.` where it is gone (names then compare as relative)."""
    try:
        return os.getcwd()
    except OSError:
        return "."


def check_manifest(
    manifest_path: str, hashes: dict[str, str], audited: Iterable[tuple[str, str]]
) -> ManifestCheck:
    """Compare (name, sha256) of the audited artifacts with the manifest.

    An artifact is matched to a manifest line by the name as given, else (when that is not in
    the manifest) by its file name alone: a manifest is usually written next to the files."""
    by_key = {_key(listed): listed for listed in hashes}
    by_basename: dict[str, list[str]] = {}
    for listed in hashes:
        by_basename.setdefault(Path(listed).name, []).append(listed)
    used: set[str] = set()
    matched: list[str] = []
    mismatched: list[ManifestMismatch] = []
    extra: list[str] = []
    for given, actual in audited:
        name: str | None = by_key.get(_key(given))
        if name is None:
            candidates = [c for c in by_basename.get(Path(given).name, []) if c not in used]
            name = candidates[0] if len(candidates) == 1 else None
        if name is None or name in used:
            extra.append(given)
            continue
        used.add(name)
        if hashes[name] == actual:
            matched.append(name)
        else:
            mismatched.append(ManifestMismatch(name, hashes[name], actual, given))
    missing = tuple(listed for listed in hashes if listed not in used)
    return ManifestCheck(manifest_path, tuple(matched), tuple(mismatched), missing, tuple(extra))
