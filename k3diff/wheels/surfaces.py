"""Execution surfaces base -> patch, and the findings the default policy draws from them.

Failing by default: a new or changed executable `.pth` line (W701), a site/usercustomize module
added or changed (W702), a script in `bin/` added or changed whose name shadows a common command
(W703), an entry point added or changed in any group but console/GUI scripts (W704), bytecode
added or changed whose source did not change the same way (W705), a `.data/scripts/` (or
`.data/data/bin/`) file added or changed (W708: new executable code), a data file a tool of the
environment runs or loads at its start added or changed (W717: `wheel.toolfiles`, Jupyter and
IPython config, kernel specs, notebook extensions, `pip.conf`). Informational but always
listed: `.pth` path lines (W706), other console/GUI scripts (W707), new top-level names (W709),
surfaces removed (W710), bytecode changed with its source (W712), a timestamp pyc changed beside
its unchanged source, stale to the import system (W716).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.surfacekinds import Surface, SurfaceKind
from k3diff.wheel.venvnames import shadows_environment

if TYPE_CHECKING:  # imported where compared: `audit` renders surfaces without the proofs module
    from k3diff.wheels.proof import Status

COMMON_COMMANDS = frozenset(
    {
        "pip", "pip3", "python", "python3", "sh", "bash", "zsh", "dash", "env", "sudo", "su",
        "ls", "cat", "cp", "mv", "rm", "git", "ssh", "scp", "curl", "wget", "make", "cc", "gcc",
        "ld", "node", "npm", "npx", "perl", "ruby", "uv", "pipx", "conda", "virtualenv",
        "python2", "ipython", "jupyter", "pytest", "docker", "kubectl", "nvidia-smi", "which",
        "tar", "gzip", "openssl", "gpg",
        "twine", "flit", "hatch", "poetry", "pdm", "tox", "nox", "easy_install", "gh", "doas",
        "pkexec",
    }
)  # fmt: skip
"""Command names a generated or copied script must not take over (`--protected-commands`): a
name a user or CI runs by habit whose takeover runs the wheel's code with what that command
holds. Shells and core tools (`sh`, `ls`, `env`, `which`, ...): run by everything, scripts and
CI steps included. `sudo`, `su`, `doas`, `pkexec`: run as root. `ssh`, `scp`, `gpg`, `openssl`,
`git`, `gh`, `curl`, `wget`: hold keys, tokens and passphrases. `twine`, `flit`, `hatch`,
`poetry`, `pdm`: publish with a PyPI token (`TWINE_PASSWORD`, `~/.pypirc`). `pip`, `uv`,
`pipx`, `conda`, `virtualenv`, `easy_install`: install what runs next. `tox`, `nox`, `pytest`,
`make`, `docker`, `kubectl`: CI runs them with its secrets. The interpreters and compilers
(`python`, `node`, `cc`, ...): run every other command's code. Not listed: names run with no
more than the user's own rights and no secret (`wheel`, `black`, `ruff`: a takeover of them is
a W707 listed like any other). A name is compared without regard to case and without a
Windows executable suffix (`Scripts/GIT.EXE` is `git` on a case-blind PATH), and a
virtual environment's own names (`python3.N`, `pip3.N`, `activate*`) are protected always
(`wheel.venvnames.shadows_environment`)."""
_WINDOWS_SUFFIXES = (".exe", ".bat", ".cmd", ".com")


class PlacedEntry(Protocol):
    """What surfaces read of an entry's result (`wheels.model.EntryResult`), typed here so that
    the model can hold a `SurfaceReport` without a cycle."""

    @property
    def installed_path(self) -> str | None:
        """Where pip installs the patch's entry (None: not installed)."""

    @property
    def status(self) -> Status:
        """identical, changed, missing or added."""


class InstalledStatuses:
    """The status of the entry pip installs at each path, for the surfaces that ask. The map of
    every entry (twelve thousand on torch, twice a run) is built on the first lookup, which
    most pairs never make: a surface whose text is unchanged is decided without it, and only
    a changed surface's findings ask again."""

    def __init__(self, entries: Sequence[PlacedEntry]) -> None:
        self._entries = entries
        self._by_path: dict[str, Status] | None = None

    def get(self, path: str, default: Status | None = None) -> Status | None:
        """The status of the entry installed at `path`, or `default` when none is."""
        if self._by_path is None:
            self._by_path = {e.installed_path: e.status for e in self._entries if e.installed_path}
        return self._by_path.get(path, default)


class SurfaceStatus(StrEnum):
    """How a surface compares between base and patch."""

    UNCHANGED = "unchanged"
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"


@dataclass(frozen=True)
class SurfaceChange:
    """One surface on either side."""

    key: str
    """The installed path, or `group:name` for an entry point."""
    kind: SurfaceKind
    """What sort of surface."""
    status: SurfaceStatus
    """unchanged, changed, added or removed."""
    base: Surface | None
    """The base's surface (None when added)."""
    patch: Surface | None
    """The patch's surface (None when removed)."""


@dataclass(frozen=True)
class SurfaceReport:
    """Both wheels' execution surfaces and the changes between them."""

    base: tuple[Surface, ...]
    """Every surface of the base wheel."""
    patch: tuple[Surface, ...]
    """Every surface of the patch wheel."""
    changes: tuple[SurfaceChange, ...]
    """Every surface of either side with its status, in the patch's order."""


def diff_surfaces(
    base: Sequence[Surface],
    patch: Sequence[Surface],
    entries: Sequence[PlacedEntry],
    versions: tuple[str | None, str | None] = (None, None),
) -> SurfaceReport:
    """Pair surfaces by kind and key; file surfaces are changed when their entry is. A `.pth`
    whose name carries the version (`ruamel.yaml-0.16.13-py3.8-nspkg.pth`, as every legacy
    namespace package writes) pairs with the base's of the base version (`versions`: base and
    patch versions from METADATA), and is unchanged when its bytes are."""
    statuses = InstalledStatuses(entries)
    base_by_key = {(s.kind, s.key): s for s in base}
    changes: list[SurfaceChange] = []
    for surface in patch:
        old = base_by_key.pop((surface.kind, surface.key), None)
        renamed = False
        if old is None and surface.kind is SurfaceKind.PTH:
            old = base_by_key.pop((surface.kind, _versioned_base_key(surface.key, versions)), None)
            renamed = old is not None
        if old is None:
            status = SurfaceStatus.ADDED
        elif renamed:
            same = old.content == surface.content and old.truncated == surface.truncated
            status = SurfaceStatus.UNCHANGED if same else SurfaceStatus.CHANGED
        elif _differs(old, surface, statuses):
            status = SurfaceStatus.CHANGED
        else:
            status = SurfaceStatus.UNCHANGED
        changes.append(SurfaceChange(surface.key, surface.kind, status, old, surface))
    changes += [
        SurfaceChange(s.key, s.kind, SurfaceStatus.REMOVED, s, None) for s in base_by_key.values()
    ]
    return SurfaceReport(tuple(base), tuple(patch), tuple(changes))


def _versioned_base_key(key: str, versions: tuple[str | None, str | None]) -> str:
    """The patch `.pth` key with its version spelt as the base's (`key` itself when the name
    does not carry the patch version)."""
    old, new = versions
    if not old or not new or old == new:
        return key
    head, _, name = key.rpartition("/")
    if f"-{new}-" not in name:
        return key
    return f"{head}/{name.replace(f'-{new}-', f'-{old}-', 1)}"


def _differs(old: Surface, new: Surface, statuses: InstalledStatuses) -> bool:
    from k3diff.wheels.proof import Status

    if old.value != new.value or old.lines != new.lines or old.bytecode != new.bytecode:
        return True
    if _restamped(old, new, statuses):
        return False  # the entry changed in its header only: the code and its source did not
    if new.kind in (SurfaceKind.ENTRY_POINT, SurfaceKind.SCRIPT, SurfaceKind.TOP_LEVEL):
        return False
    return statuses.get(new.key, Status.IDENTICAL) is not Status.IDENTICAL


def _restamped(old: Surface, new: Surface, statuses: InstalledStatuses) -> bool:
    """A timestamp pyc whose code is the base's and whose source did not change: a rebuild
    stamped another mtime into its header (numpy 2.1.2 -> 2.1.3 does), nothing that can run
    differently."""
    from k3diff.wheels.proof import Status

    code = new.bytecode.code_sha256 if new.bytecode is not None else None
    if code is None or old.bytecode is None or old.bytecode.code_sha256 != code:
        return False
    source = new.bytecode.source_key if new.bytecode is not None else None
    return source is None or statuses.get(source, Status.IDENTICAL) is Status.IDENTICAL


def surface_findings(
    report: SurfaceReport,
    entries: Sequence[PlacedEntry],
    protected: frozenset[str],
    loads: frozenset[str] = frozenset(),
) -> Iterator[Finding]:
    """The findings of every added, changed or removed surface (the policy decides which fail);
    `loads`: the image formats the patch's platform tags load (`wheel.tags.image_formats`)."""
    statuses = InstalledStatuses(entries)
    protected = frozenset(map(_command, protected))  # `--protected-commands Git.exe` is `git`
    for change in report.changes:
        if change.status is SurfaceStatus.UNCHANGED:
            continue
        if change.patch is None:
            assert change.base is not None
            yield Finding(Code.W710, change.base.entry, f"removed: {change.base.summary}")
            continue
        yield from _change_findings(change, change.patch, statuses, protected, loads)


def _change_findings(
    change: SurfaceChange,
    new: Surface,
    statuses: InstalledStatuses,
    protected: frozenset[str],
    loads: frozenset[str],
) -> Iterator[Finding]:
    what = f"{change.status.value}: {new.summary}"
    kind = new.kind
    if kind is SurfaceKind.PTH:
        old_lines = (
            {line.text for line in change.base.lines if line.executable} if change.base else set()
        )
        fresh = [line.text for line in new.lines if line.executable and line.text not in old_lines]
        if fresh or new.truncated:
            shown = "; ".join(repr(text) for text in fresh[:3]) or "(content past the cap)"
            yield Finding(Code.W701, new.entry, f"{what}; new executable line(s): {shown}")
        else:
            yield Finding(Code.W706, new.entry, what)
    elif kind is SurfaceKind.CUSTOMIZE:
        yield Finding(Code.W702, new.entry, what)
    elif kind in (SurfaceKind.SCRIPT, SurfaceKind.DATA_SCRIPT):
        name = new.key.partition("/")[2]  # `bin/x`; `BIN/x`, `Scripts/x.exe` (`on_command_path`)
        if shadows_environment(name, new.entry):
            yield Finding(
                Code.W703,
                new.entry,
                f"{what}; {new.key} replaces the virtual environment's own interpreter, pip or "
                "activation script",
            )
        elif _command(name) in protected:
            yield Finding(Code.W703, new.entry, f"{what}; {new.key} shadows a common command")
        else:
            code = Code.W707 if kind is SurfaceKind.SCRIPT else Code.W708
            yield Finding(code, new.entry, what, native=_rebuilt_native(change, new, loads))
    elif kind is SurfaceKind.ENTRY_POINT:
        yield Finding(Code.W704, new.entry, what)
    elif kind is SurfaceKind.BYTECODE:
        from k3diff.wheels.proof import Status

        assert new.bytecode is not None
        if new.bytecode.shadows_source:
            yield Finding(Code.W711, new.entry, what)  # its summary says it runs instead
        source = new.bytecode.source
        source_key = new.bytecode.source_key
        source_status = statuses.get(source_key) if source_key else None
        if source is not None and source_status in (Status.CHANGED, Status.ADDED):
            yield Finding(Code.W712, new.entry, f"{what}; its source changed too")
        elif change.status is SurfaceStatus.CHANGED and _stale_as_shipped(new):
            yield Finding(Code.W716, new.entry, f"{what}; {_STALE}")
        else:
            why = "its source did not change" if source is not None else "no source to review"
            yield Finding(Code.W705, new.entry, f"{what}; {why}")
    elif kind is SurfaceKind.TOOL_CONFIG:
        yield Finding(Code.W717, new.entry, what)
    elif kind is SurfaceKind.TOP_LEVEL and change.status is SurfaceStatus.ADDED:
        yield Finding(Code.W709, new.entry, what)


_STALE = (
    "its source did not change, and its header gives another source size than the wheel's: "
    "Python checks the size beside the mtime, so whatever mtime an install gives the source, "
    "it finds the pyc stale and compiles the source instead"
)


def _stale_as_shipped(new: Surface) -> bool:
    """A timestamp pyc in a site-packages `__pycache__` beside its source in the wheel
    (unchanged: the caller says) whose header's source size is not the source's
    (`Bytecode.never_current`): no install makes it current, whatever mtime it stamps the
    source with. A header whose size matches is W705 whatever its mtime: unzip stamps the
    source with the entry's date (or its extended timestamp), and uv installs every file with the time it unpacked the wheel into its cache,
    which can be long before this run and which an attacker can predict; a header mtime in the
    past proves nothing (every numpy pair's `conv_template` pyc is so, W705 since stop 62)."""
    bytecode = new.bytecode
    if bytecode is None or bytecode.source is None:
        return False
    if not new.key.startswith("site-packages/") or new.key.rsplit("/", 2)[-2] != "__pycache__":
        return False
    return bytecode.never_current


def _rebuilt_native(change: SurfaceChange, new: Surface, loads: frozenset[str]) -> bool:
    """A copied script that was a native executable in the base and is one, rebuilt, in the
    patch, of the same format and machine, that image the one the patch's platform tags load
    (`loads`, `wheel.tags.image_formats`; z3_solver's `bin/z3`, an x86_64 ELF on manylinux
    x86_64): a native change `--allow-native-changes` expects. An ELF rebuilt as a PE, or for
    another machine, is a program this host's loader refuses; so is a PE or Mach-O on a Linux
    wheel, an aarch64 ELF on an x86_64 one, an ELF on a Windows or macOS one, and an image on a
    wheel whose tags name several images or none (`any`), installed where some loader refuses
    it: `execve` answers ENOEXEC, and `execvp` (env, xargs, make) then runs the file with
    `/bin/sh`, which reads its lines as a script. A binary added, or a text script that became
    one, is a new command on PATH, which no native rebuild explains."""
    from k3diff.native.sniff import image_format

    old = change.base
    return (
        new.native is not None
        and change.status is SurfaceStatus.CHANGED
        and old is not None
        and old.native == new.native
        and loads == {image_format(new.native)}
    )


def _command(name: str) -> str:
    """The name a PATH lookup finds `name` by: case folded, a Windows executable suffix off."""
    folded = name.casefold()
    return folded[: -len(".exe")] if folded.endswith(_WINDOWS_SUFFIXES) else folded


def protected_commands(names: Sequence[str] | None) -> frozenset[str]:
    """The command names scripts must not shadow: the default set, or the user's (compared as
    `_command` folds a script's name)."""
    return COMMON_COMMANDS if names is None else frozenset(_command(n) for n in names)
