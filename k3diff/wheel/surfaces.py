"""Execution surfaces: every way a wheel makes code run beyond being imported on purpose.

Read from the installed view (`k3diff.wheel.installable`), never by executing anything:

* `.pth` files at the top of site-packages: `site` adds each line to `sys.path`, except lines
  starting with `import` (followed by a space or tab), which it executes at every interpreter
  start (`site.addpackage`);
* `sitecustomize` / `usercustomize` modules, imported by `site` at start-up;
* entry points by group (`entry_points.txt`, parsed as `importlib.metadata` parses it), and
  the console and GUI scripts pip generates from them in `bin/`; also those of another
  distribution's metadata the wheel installs (`other.egg-info/`, `wheel.foreignpoints`);
* `.data/scripts/` files, copied to `bin/` (a `#!python` shebang rewritten to the interpreter);
* bytecode (`.pyc`, `.pyo`) with its header: magic and PEP 552 flags (timestamp, checked hash,
  unchecked hash). An unchecked-hash `.pyc` in `__pycache__/` runs instead of its source
  whatever the source says; a checked one only when its hash is the source's. A name in another
  case is bytecode where a system the wheel installs on reads it so (`casereads.read_blind`);
* top-level names in site-packages (what `import NAME` finds);
* data files a tool of the environment runs or loads at its start (`wheel.toolfiles`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import operator
import posixpath
import struct
from collections.abc import Iterable, Iterator
from functools import cached_property
from itertools import chain, compress
from typing import TYPE_CHECKING

from k3diff.errors import ArchiveError
from k3diff.native.sniff import executable_image
from k3diff.wheel.casereads import cache_directory, customize_module, read_blind
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.installable import SCRIPT_GROUPS, WheelInstall, generated_scripts
from k3diff.wheel.installed import InstalledFile, on_command_path
from k3diff.wheel.refusals import script_file
from k3diff.wheel.surfacekinds import Surface, SurfaceKind
from k3diff.wheel.surfacepaths import SurfacePaths, surface_paths
from k3diff.wheel.toolfiles import tool_file
from k3diff.wheel.venvnames import shadows_environment
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

if TYPE_CHECKING:  # read only for a wheel that has a .pyc
    from k3diff.wheel.bytecode import PycFlavor

CONTENT_CAP = 16 << 10
"""Bytes of a `.pth` file or script kept for the report (the rest is said to be cut)."""
SOURCE_CAP = 16 << 20
"""Largest source read to check a hash-based `.pyc` against."""
_ENTRY = operator.itemgetter(0)
_PATH = operator.itemgetter(2)
_GENERATED = operator.itemgetter(4)
_NAME = operator.itemgetter(0)


class _Sources(dict[str, str]):
    """The archive path of each installed file, by its installed path."""

    @cached_property
    def folded(self) -> dict[str, str]:
        """Each installed path by its lower case (the first of several), made when asked."""
        found: dict[str, str] = {}
        for installed in self:
            found.setdefault(installed.lower(), installed)
        return found


def environment_shadowing(surfaces: Iterable[Surface]) -> list[Finding]:
    """W703 for every script (generated or copied) that replaces a file a virtual environment's
    `bin/` already holds: one wheel alone shows it, so `audit` fails it too."""
    return [
        Finding(
            Code.W703,
            surface.entry,
            f"{surface.summary}; {surface.key} replaces the virtual environment's own "
            "interpreter, pip or activation script",
        )
        for surface in surfaces
        if surface.kind in (SurfaceKind.SCRIPT, SurfaceKind.DATA_SCRIPT)
        and on_command_path(surface.key)
        and shadows_environment(surface.key.partition("/")[2], surface.entry)
    ]


def scan_surfaces(archive: ZipArchive, install: WheelInstall) -> tuple[Surface, ...]:
    """Every execution surface of one wheel, in a stable order (kind, key)."""
    return surface_scan(archive, install)[0]


def surface_scan(
    archive: ZipArchive, install: WheelInstall, beside: SurfacePaths | None = None
) -> tuple[tuple[Surface, ...], SurfacePaths]:
    """`scan_surfaces`, and what the installed paths said (`wheel.surfacepaths`): `beside`,
    another wheel's, whose answers stand for the files of this one that are its objects."""
    overwritten = install.view.overwritten()
    every = install.view.files
    if overwritten:
        files = [f for f in every if f.entry not in overwritten and not f.generated]
    else:  # pip's own scripts: below
        files = list(compress(every, map(operator.not_, map(_GENERATED, every))))
    said = surface_paths(files, beside)
    found: list[Surface] = []
    if said.surfaced:
        entries = dict(zip(map(_NAME, archive.entries), archive.entries, strict=True))
        sources = _Sources(zip(map(_PATH, files), map(_ENTRY, files), strict=True))
        for index in said.surfaced:
            found.extend(_file_surfaces(archive, entries, files[index], sources, install.case))
        pths = [s for s in found if s.kind is SurfaceKind.PTH]
        known = {s.key for s in found if s.kind is SurfaceKind.CUSTOMIZE}
        if pths or known:  # what a `.pth` line or a `sitecustomize` imports runs at start
            from k3diff.wheel.pthimports import HOOK_CAP, imported_files
            from k3diff.wheel.pthpaths import named_places, on_pth_paths, unread_part

            lines = [line for s in pths for line in s.lines]
            pairs = [(s.key, s.truncated, s.lines) for s in pths]
            cut = unread_part(pairs, install.targets.windows, CONTENT_CAP)
            places = named_places(files, lines, install.case, install.targets)
            texts = [(s.key, s.content, s.lines) for s in pths]
            top = any(not key.startswith("site-packages/") for key in known)  # `--target DIR`
            hooks = imported_files(  # puts a customize module beside the packages
                files, texts, install.case, {**places, ("data", ""): _TARGET} if top else places,
                lambda file: _source_content(archive, entries[file.entry], HOOK_CAP),
            )  # fmt: skip
            for file, how, pth in chain(
                ((file, how, None) for file, how in on_pth_paths(files, places, install.case, cut)),
                hooks,
            ):
                if file.path not in known:  # `sitecustomize/x.py` on a line `sitecustomize`
                    known.add(file.path)
                    found.append(
                        Surface(
                            SurfaceKind.CUSTOMIZE, file.path, file.entry, how, True, imported_by=pth
                        )
                    )
    found.extend(_entry_point_surfaces(install))
    if said.points:  # maybe another distribution's (`foreignpoints`)
        from k3diff.wheel.foreignpoints import foreign_entry_points

        named = list(map(files.__getitem__, said.points))
        found.extend(
            Surface(SurfaceKind.ENTRY_POINT, key, entry, summary, True, group=group, value=value)
            for key, entry, summary, group, value in foreign_entry_points(
                named, list(map(_PATH, named)), install.dist_info,
                lambda names: _texts(archive, names), install.case.path_blind,
            )
        )  # fmt: skip
    found.extend(_top_level_surfaces(files, said.tops))
    if said.tool is not None:
        found.extend(_tool_surfaces(archive, files[said.tool :]))
    return tuple(sorted(found, key=lambda s: (list(SurfaceKind).index(s.kind), s.key))), said


def _file_surfaces(
    archive: ZipArchive,
    entries: dict[str, ZipEntry],
    file: InstalledFile,
    sources: _Sources,
    case: CaseRule,
) -> Iterator[Surface]:
    entry = entries[file.entry]
    path = file.path
    inner = path.removeprefix("site-packages/") if path.startswith("site-packages/") else None
    if inner is not None and "/" not in inner and inner.endswith(".pth"):
        yield _pth(archive, entry, path)
    elif inner is not None and customize_module(inner, case):
        yield Surface(
            SurfaceKind.CUSTOMIZE, path, entry.name,
            f"{inner.split('/', 1)[0].split('.', 1)[0]}: imported by site at every start",
            executable=True,
        )  # fmt: skip
    elif (target := _target_top(file)) is not None and customize_module(target, case):
        yield Surface(
            SurfaceKind.CUSTOMIZE, path, entry.name,
            f"{target.split('/', 1)[0].split('.', 1)[0]}: imported by site at every start where "
            "`pip install --target DIR` installs it, at DIR's top beside the packages",
            executable=True,
        )  # fmt: skip
    if file.scheme == "scripts" or on_command_path(path):  # `.data/data/bin/` lands there too
        data, truncated = _capped_bytes(archive, entry)
        content = None if data is None else data.decode("utf-8", errors="replace")
        shebang = content.split("\n", 1)[0] if content and content.startswith("#!") else None
        how, native = f"shebang {shebang!r}" if shebang else "no shebang", None
        if data is not None and b"\0" in data:  # the kept bytes: an ELF's program headers too
            native = executable_image(data)
            how = "a native executable" if native else "binary content"
            content, truncated = None, False
        yield Surface(
            SurfaceKind.DATA_SCRIPT, path, entry.name, f"copied to {path}, {how}",
            executable=True, content=content, truncated=truncated, native=native,
        )  # fmt: skip
    if (blind := read_blind(path, case)) is not None:
        yield _bytecode(archive, entries, entry, path, sources, blind)


_TARGET = "`pip install --target DIR`'s top"


def _target_top(file: InstalledFile) -> str | None:
    """Where below DIR `pip install --target DIR` puts a `.data/data/` file: pip 26 installs
    into a temporary home and moves its library directories' and its data directory's top
    entries into DIR, all but `lib` (the home's library directory, moved already): so
    `.data/data/sitecustomize.py` is `DIR/sitecustomize.py`, and DIR is on `sys.path` (pth71:
    measured, a `PYTHONPATH=DIR python -c pass` ran it). None for any other file."""
    if file.scheme != "data":
        return None
    below = posixpath.normpath(file.entry).split("/", 2)[2]
    return None if below.partition("/")[0] == "lib" else below


def _pth(archive: ZipArchive, entry: ZipEntry, path: str) -> Surface:
    from k3diff.wheel.pth import pth_lines, pth_summary

    data, truncated = _capped_bytes(archive, entry)
    content = None if data is None else data.decode("utf-8", errors="replace")
    lines = pth_lines(data or b"")
    executable = any(line.executable for line in lines)
    return Surface(
        SurfaceKind.PTH, path, entry.name, pth_summary(lines),
        executable=executable or truncated, content=content, truncated=truncated, lines=lines,
    )  # fmt: skip


def _capped_bytes(archive: ZipArchive, entry: ZipEntry) -> tuple[bytes | None, bool]:
    """Up to `CONTENT_CAP` bytes of the entry (None when unreadable), and whether cut."""
    kept = bytearray()
    try:
        for chunk in archive.content_chunks(entry, check_crc=False):
            kept += chunk[: CONTENT_CAP + 1 - len(kept)]
            if len(kept) > CONTENT_CAP:
                break
    except ArchiveError:
        return None, False  # corrupt or unreadable: its own finding (W603, W604)
    return bytes(kept[:CONTENT_CAP]), len(kept) > CONTENT_CAP


def _tool_surfaces(archive: ZipArchive, files: list[InstalledFile]) -> Iterator[Surface]:
    """Each file a tool of the environment reads (`toolfiles.tool_file`), with its content (a
    binary one's left out, as a binary script's is)."""
    entries = {e.name: e for e in archive.entries}
    for file, how in ((f, tool_file(f.path)) for f in files):
        if how is not None:
            data, truncated = _capped_bytes(archive, entries[file.entry])
            text = data is not None and b"\0" not in data
            yield Surface(
                SurfaceKind.TOOL_CONFIG, file.path, file.entry, how, executable=True,
                content=data.decode("utf-8", errors="replace") if text and data is not None else None,
                truncated=text and truncated,
            )  # fmt: skip


def _texts(archive: ZipArchive, names: Iterable[str]) -> dict[str, tuple[str | None, bool]]:
    """`_capped_text` of each archive path named."""
    wanted = set(names)
    return {e.name: _capped_text(archive, e) for e in archive.entries if e.name in wanted}


def _capped_text(archive: ZipArchive, entry: ZipEntry) -> tuple[str | None, bool]:
    """Up to `CONTENT_CAP` bytes of the entry as text (None when unreadable), and whether cut."""
    data, truncated = _capped_bytes(archive, entry)
    return (None if data is None else data.decode("utf-8", errors="replace")), truncated


def _bytecode(
    archive: ZipArchive,
    entries: dict[str, ZipEntry],
    entry: ZipEntry,
    path: str,
    sources: _Sources,
    blind: bool = False,
) -> Surface:
    """`blind`: the system that reads it opens paths in any case (`casereads.read_blind`)."""
    from k3diff.wheel.bytecode import FLAVORS, Bytecode, PycFlavor, stale_header  # where a .pyc is

    header = archive.head(entry, 16)
    flags, mtime, size = struct.unpack_from("<III", header, 4) if len(header) >= 16 else (-1, 0, 0)
    flavor = FLAVORS.get(flags, PycFlavor.UNKNOWN)
    stamp, stamped_size = (mtime, size) if flavor is PycFlavor.TIMESTAMP else (None, None)
    source_path = source_of(path, blind)
    source = sources.get(source_path)
    if source is None and blind:  # the source in whatever case the file system finds it
        source_path = sources.folded.get(source_path.lower(), source_path)
        source = sources.get(source_path)
    source_entry = entries.get(source) if source is not None else None
    cached = cache_directory(path.lower() if blind else path) == "__pycache__"
    shadows = source is not None and cached and flavor is PycFlavor.UNCHECKED_HASH
    if source is not None and cached and flavor is PycFlavor.CHECKED_HASH:
        content = _source_content(archive, source_entry)
        shadows = content is not None and importlib.util.source_hash(content) == header[8:16]
    source_size = None if source_entry is None else source_entry.size
    if stale_header(stamped_size, source_size) and _source_content(archive, source_entry) is None:
        source_size = None  # W716 hangs on it: pip writes what a stream short of it gives (W604)
    magic = header[:4].hex()
    if source is None:
        where = "no source in the wheel: it is the module"
    elif cached:
        where = f"caches {source}"
    else:  # a legacy `mod.pyc` beside `mod.py`: the import system takes the source
        where = f"beside {source}, which is imported instead"
    runs = ", runs instead of the source" if shadows else ""
    return Surface(
        SurfaceKind.BYTECODE, path, entry.name, f"{flavor.value} pyc (magic {magic}), {where}{runs}",
        executable=True,
        bytecode=Bytecode(
            magic, flavor, source, shadows, _code_digest(archive, entry, flavor), stamp,
            stamped_size, source_size, source_path,
        ),
    )  # fmt: skip


def _code_digest(archive: ZipArchive, entry: ZipEntry, flavor: PycFlavor) -> str | None:
    """The digest of a timestamp pyc's code, past its header (see `Bytecode.code_sha256`)."""
    from k3diff.wheel.bytecode import PycFlavor

    if flavor is not PycFlavor.TIMESTAMP or entry.size > SOURCE_CAP:
        return None
    try:
        return hashlib.sha256(archive.read_content(entry, SOURCE_CAP)[16:]).hexdigest()
    except ArchiveError:
        return None


def source_of(path: str, blind: bool = False) -> str:
    """The installed source a `.pyc` stands for: `pkg/__pycache__/m.cpython-311.pyc` and the
    legacy `pkg/m.pyc` both stand for `pkg/m.py`; `blind`: `__PYCACHE__/` is a cache too."""
    head, leaf = posixpath.split(path)
    if (posixpath.basename(head).lower() if blind else posixpath.basename(head)) == "__pycache__":
        return posixpath.join(posixpath.dirname(head), leaf.split(".", 1)[0] + ".py")
    return posixpath.join(head, leaf.rsplit(".", 1)[0] + ".py")


def _source_content(
    archive: ZipArchive, entry: ZipEntry | None, cap: int = SOURCE_CAP
) -> bytes | None:
    """A source's content, None when over `cap` or unread: its stream short of or past its
    declared size, or failing its CRC-32 (W604; pip installs what a short one gives)."""
    if entry is None or entry.size > cap:
        return None
    try:
        return archive.read_content(entry, cap)
    except ArchiveError:
        return None


def _entry_point_surfaces(install: WheelInstall) -> Iterator[Surface]:
    where = f"{install.dist_info}/entry_points.txt"
    for group, kind in (("console_scripts", "console"), ("gui_scripts", "GUI")):
        points = {p.name: p.value for p in install.entry_points if p.group == group}
        for name, value, _ in (
            generated_scripts(points, install.targets)
            if group == "console_scripts"
            else [(script_file(name, value), value, name) for name, value in points.items()]
        ):
            yield Surface(
                SurfaceKind.SCRIPT, f"bin/{name}", where,
                f"{kind} script bin/{name} generated by pip, runs {value}",
                executable=True, group=group, value=value,
            )  # fmt: skip
    for point in install.entry_points:
        if point.group in SCRIPT_GROUPS:
            continue
        else:
            yield Surface(
                SurfaceKind.ENTRY_POINT, f"{point.group}:{point.name}", where,
                f"entry point {point.name} in group {point.group} -> {point.value}",
                executable=True, group=point.group, value=point.value,
            )  # fmt: skip


def _top_level_surfaces(files: list[InstalledFile], tops: dict[str, int]) -> Iterator[Surface]:
    """Each top-level name of site-packages and the first entry (in pip's order) giving it;
    `tops`: each name and the index in `files` of that entry (`toplevel.top_level_names`)."""
    for name, index in sorted(tops.items()):
        yield Surface(
            SurfaceKind.TOP_LEVEL, f"site-packages/{name}", files[index].entry,
            f"top-level name {name!r} ({_imported(name)})", executable=False,
        )  # fmt: skip


def _imported(name: str) -> str:
    """How Python reaches a top-level name: no import statement names `wrapt-stubs` (newuser65)."""
    return f"import {name}" if name.isidentifier() else "no import statement can name it"
