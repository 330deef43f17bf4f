"""The commit a wheel says it was built from, read from what the wheel states about itself.

Three places, each read as text and never imported or run:

* the version, in METADATA's ``Version`` and in the file name: a PEP 440 local segment
  ``g<hex>`` (setuptools-scm: ``1.2.3+g1a2b3c4``, ``1.2.3.dev4+g1a2b3c4.d20260101``, the
  ``.dYYYYMMDD`` or ``.dYYYYMMDDHHMMSS`` segment marking a dirty work tree; versioneer:
  ``1.2.3+4.g1a2b3c4.dirty``) or
  ``git<hex>`` (torch nightlies: ``2.5.0+git1a2b3c4``), else bare hex or ``dev<hex>`` of 7 digits
  or more holding a letter (``0.14.1+a1b2c3d``, ``1.0+dev1a2b3c4``);
* ``*.dist-info/direct_url.json`` ``vcs_info.commit_id`` (PEP 610);
* a top-level package's build-info module (`_MODULE_FILES`, at the wheel's root or under
  ``NAME.data/purelib/`` or ``platlib/``, where pip installs it too: torch's ``version.py``
  ``git_version``, setuptools-scm's ``_version.py`` ``__commit_id__`` / ``commit_id`` as vLLM
  ships it, FlashInfer's ``_build_meta.py`` ``__git_commit__``, DeepSpeed's
  ``git_version_info_installed.py`` ``git_hash``, versioneer's ``_version.py``
  ``version_json``, a JSON object whose ``full-revisionid`` is the commit and ``dirty`` the
  work tree's state): simple assignments of a string literal only (annotated or not; the last
  of a name's, as Python leaves it: review70c), found by `ast` over at most `_MODULE_CAP`
  bytes, and over at most `_MODULES_READ` modules and `_MODULES_BYTES` bytes of them in all
  (the first in name order).

The text is the wheel author's, so an attacker's: a value is kept only when it is hex of 4 to 40
(or 64) digits, lowercased. Anything else is no statement of a commit; a string a version module
or ``direct_url.json`` gives in a commit's place (torch's ``git_version = 'Unknown'``) is said as
a `NotACommit`, capped at `VALUE_CAP` characters (escaped where it is printed). A dirty-build
marker that comes with no commit is a `DirtyBuild` (W411 with ``--source``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.errors import ArchiveError
from k3diff.wheel.metadata import WheelIdentity
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

VALUE_CAP = 80
"""Characters of a value that is not a commit id kept (and said); the rest is cut, with '…'."""
_MODULE_CAP = 64 * 1024
"""Largest version module or direct_url.json read (bytes); larger ones are not read."""
_MODULES_READ = 16
"""Version modules read at most, in name order (a wheel has one per top-level package that
ships one: a handful); the rest are not read."""
_MODULES_BYTES = 4 * _MODULE_CAP
"""Bytes of version modules read at most, all together, in name order; a module that would go
past it, and every one after it, is not read. `ast` takes ≈ 0.2 s on 64 KiB of statements,
which compress to ≈ 100 bytes: without the two bounds a 20 KB wheel of 100 top-level packages,
each with a `_version.py`, took 26 s in every `wheels` run (review68b)."""
_COMMIT = re.compile(r"[0-9a-f]{4,40}|[0-9a-f]{64}")
_LOCAL_COMMIT = re.compile(r"g(?:it)?(?P<hex>[0-9a-f]{4,40}|[0-9a-f]{64})")
_LOCAL_BARE = re.compile(r"(?:dev)?(?P<hex>(?=[0-9]*[a-f])(?:[0-9a-f]{7,40}|[0-9a-f]{64}))")
"""A local segment of bare hex, or ``dev`` then hex (DeepSpeed's ``+a1b2c3d``, a builder's
``+dev1a2b3c4``): read only when it cannot be a count or a date, 7 digits or more of which one
is a letter (``+dev12``, ``+20260101`` state nothing)."""
_DIRTY = re.compile(r"d\d{8}(?:\d{6})?|dirty")
"""setuptools-scm's ``.dYYYYMMDD`` (``node-and-date``) and ``.dYYYYMMDDHHMMSS``
(``node-and-timestamp``), and versioneer's ``.dirty``: the work tree had changes (review69b: the
timestamp's was not read as dirty, and with no ``g<hex>`` beside it was read as a commit)."""
_MODULE_FILES = ("version.py", "_version.py", "_build_meta.py", "git_version_info_installed.py")
"""The build-info modules read, directly under a top-level package (looked up in each engine's
build script, w408c): ``_build_meta.py`` is FlashInfer's (``build_backend.py``),
``git_version_info_installed.py`` DeepSpeed's (``setup.py``)."""
_MODULE = re.compile(
    r"(?:[^/]+\.data/(?:purelib|platlib)/)?[A-Za-z_][A-Za-z0-9_]*/(?:"
    + "|".join(map(re.escape, _MODULE_FILES))
    + ")"
)
"""A build-info module where pip installs it in site-packages: at the wheel's root, or under
a `.data` directory's `purelib` or `platlib` scheme (pip 26 installs every top-level
`*.data/SCHEME/` there; a wheel built with `Root-Is-Purelib: false` ships its packages so)."""
_NAMES = (
    "git_version", "__commit_id__", "commit_id", "git_hash", "__git_version__", "__git_commit__"
)  # fmt: skip
"""Module-level names a version module states its commit in, in the order they are read
(``__git_commit__``: FlashInfer's ``git rev-parse HEAD``, or ``unknown``)."""
_VERSIONEER = "version_json"
"""The name versioneer's build writes into ``_version.py`` (its ``SHORT_VERSION_PY``): a JSON
object, ``full-revisionid`` the full commit id (or null), ``dirty`` true where the work tree had
uncommitted changes, whatever its version style says (``pep440-pre`` and ``pep440-old`` drop the
dirty flag from the version, ``pep440-post`` writes it as an ambiguous ``.dev0``; prov70)."""


@dataclass(frozen=True)
class StatedCommit:
    """One commit the wheel states, and where."""

    commit: str
    """Lowercase hex, abbreviated (4+ digits) or full."""
    path: str
    """The entry it was read from, or the wheel's file name for the file name's version."""
    field: str
    """What in it: ``Version``, ``file name``, ``vcs_info.commit_id``, ``git_version`` …"""
    dirty: bool = False
    """The wheel says the work tree had uncommitted changes with it (``.dYYYYMMDD``, ``.dirty``
    in the version; ``"dirty": true`` beside versioneer's ``full-revisionid``)."""

    def describe(self) -> str:
        """``1a2b3c4 (read from pkg-1.0.dist-info/METADATA Version; dirty build)``."""
        dirty = "; a dirty build: the work tree had uncommitted changes" if self.dirty else ""
        return f"{self.commit} (read from {self.path} {self.field}{dirty})"


@dataclass(frozen=True)
class NotACommit:
    """A value a wheel states in a commit's place that is no commit id."""

    value: str
    """The value, cut at `VALUE_CAP` characters (with '…')."""
    path: str
    """The entry it was read from."""
    field: str
    """The name it was assigned to (``git_version`` …) or ``vcs_info.commit_id``."""

    def describe(self) -> str:
        """``'Unknown' in torch/version.py git_version: not a commit id``."""
        return f"{self.value!r} in {self.path} {self.field}: not a commit id"


@dataclass(frozen=True)
class DirtyBuild:
    """A wheel's word that its work tree had uncommitted changes, stating no commit with it."""

    said: str
    """What says so: ``version 1.2.3+d20260101``, or ``"dirty": true`` (versioneer's JSON)."""
    path: str
    """The entry it was read from, or the wheel's file name for the file name's version."""
    field: str
    """``Version``, ``file name`` or ``version_json``."""

    def describe(self) -> str:
        """``version 1.2.3+d20260101 (read from pkg-….dist-info/METADATA Version)``."""
        return f"{self.said} (read from {self.path} {self.field})"


Statement = StatedCommit | NotACommit | DirtyBuild


def stated_commits(archive: ZipArchive, identity: WheelIdentity) -> tuple[StatedCommit, ...]:
    """Every commit `archive` states, once per place, in the order above."""
    return tuple(s for s in statements(archive, identity) if isinstance(s, StatedCommit))


def distinct(stated: Sequence[StatedCommit]) -> list[StatedCommit]:
    """Each distinct commit of `stated` once, at the first place it is stated, in order."""
    first = {c.commit: c for c in reversed(stated)}
    return [c for c in stated if first[c.commit] is c]


def statements(archive: ZipArchive, identity: WheelIdentity) -> tuple[Statement, ...]:
    """Every commit `archive` states, and every value it gives in a commit's place that is no
    commit id, once per place, in the order above."""
    found: list[Statement] = []
    metadata = f"{identity.dist_info}/METADATA" if identity.dist_info else "METADATA"
    found += _from_version(identity.version, metadata, "Version")
    file_name = archive.path.name
    parts = file_name.split("-")
    if file_name.endswith(".whl") and len(parts) >= 5:
        found += _from_version(parts[1], file_name, "file name")
    direct_url = f"{identity.dist_info}/direct_url.json" if identity.dist_info else None
    url_entry, modules = None, []
    for entry in archive.entries:  # one pass, a suffix test first: 12,000 names in ≈ 1 ms
        name = entry.name
        if name.endswith(_MODULE_FILES) and _MODULE.fullmatch(name):
            modules.append(entry)
        elif name == direct_url:
            url_entry = entry
    if url_entry is not None and url_entry.size <= _MODULE_CAP:
        found += _from_direct_url(_read(archive, url_entry), url_entry.name)
    budget = _MODULES_BYTES
    for entry in sorted(modules, key=lambda e: e.name)[:_MODULES_READ]:
        if entry.size <= _MODULE_CAP:
            if entry.size > budget:
                break
            data = _read(archive, entry)
            budget -= max(entry.size, len(data))
            found += _from_module(data, entry.name)
    return tuple(dict.fromkeys(found))


def _read(archive: ZipArchive, entry: ZipEntry) -> bytes:
    try:
        return archive.read_content(entry, _MODULE_CAP)
    except ArchiveError:  # unreadable: the archive checks report it; it states nothing
        return b""


def _local_segments(version: str) -> list[str]:
    return version.lower().split("+", 1)[1].replace("_", ".").replace("-", ".").split(".")


def _from_version(version: str | None, path: str, field: str) -> list[Statement]:
    if not version or "+" not in version:
        return []
    segments = _local_segments(version)
    dirty = any(_DIRTY.fullmatch(segment) for segment in segments)
    hashes = [segment for segment in segments if not _DIRTY.fullmatch(segment)]
    for form in (_LOCAL_COMMIT, _LOCAL_BARE):  # g<hex> (git describe's) first, wherever it is
        for segment in hashes:
            if match := form.fullmatch(segment):
                return [StatedCommit(match["hex"], path, field, dirty)]
    # A dirty build at a tag (versioningit's +dYYYYMMDD, dunamai's +dirty), or one whose commit
    # is digits alone, unread (review69b: it passed, exit 0).
    return [DirtyBuild(f"version {version}", path, field)] if dirty else []


def _from_direct_url(data: bytes, path: str) -> list[Statement]:
    import json  # only a wheel with direct_url.json loads it (a text report loads no json)

    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return []
    info = document.get("vcs_info") if isinstance(document, dict) else None
    commit = info.get("commit_id") if isinstance(info, dict) else None
    return _checked(commit, path, "vcs_info.commit_id")


def _from_module(data: bytes, path: str) -> list[Statement]:
    import ast  # only a wheel with a version module loads the parser

    try:
        tree = ast.parse(data, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    values: dict[str, object] = {}
    for node in tree.body:  # the last of a name's assignments, what the module holds at import
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in (*_NAMES, _VERSIONEER):
                    values[target.id] = node.value.value
    found: list[Statement] = []
    if isinstance(versioneer := values.get(_VERSIONEER), str):
        found += _from_versioneer(versioneer, path)
    seen: set[object] = set()
    for name in (name for name in _NAMES if name in values):  # each name, a value once
        value = values[name]
        if isinstance(value, str) and value.startswith("g") and "commit_id" in name:
            value = value[1:]  # setuptools-scm writes the node as git describes it: g<hex>
        if value not in seen:
            seen.add(value)
            found += _checked(value, path, name)
    return found


def _from_versioneer(text: str, path: str) -> list[Statement]:
    """versioneer's ``version_json``: its ``full-revisionid`` as a stated commit, dirty where
    ``dirty`` is JSON ``true`` (a `DirtyBuild` where it states no commit). prov70: a wheel whose
    ``_version.py`` said ``"dirty": true`` under a version without ``.dirty`` (the
    ``pep440-pre``, ``pep440-post`` or ``pep440-old`` styles) was no W411, and passed."""
    import json  # only a wheel with versioneer's module loads it

    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return []
    if not isinstance(document, dict):
        return []
    dirty = document.get("dirty") is True
    field = f"{_VERSIONEER} full-revisionid"
    found = _checked(document.get("full-revisionid"), path, field, dirty)
    if dirty and not any(isinstance(said, StatedCommit) for said in found):
        found.append(DirtyBuild('"dirty": true', path, _VERSIONEER))
    return found


def _checked(value: object, path: str, field: str, dirty: bool = False) -> list[Statement]:
    """The value as a commit id; a string that is not hex of an id's length as a `NotACommit`;
    nothing for any other value (``None``: the build knew no commit, and said so)."""
    if not isinstance(value, str):
        return []
    if not _COMMIT.fullmatch(value.lower()):
        cut = value[:VALUE_CAP] + ("…" if len(value) > VALUE_CAP else "")
        return [NotACommit(cut, path, field)]
    return [StatedCommit(value.lower(), path, field, dirty)]
