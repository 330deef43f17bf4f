"""Directories an ELF's DT_RPATH / DT_RUNPATH make the loader search that someone other than the
wheel and the system may control: a library hijack (A139 in `audit`, W632 in `wheels`).

glibc's loader (`elf/dl-load.c`, `man ld.so`) searches each `:`-separated component of DT_RPATH
(and of DT_RUNPATH, which makes it ignore DT_RPATH) for every DT_NEEDED library of the object
before the system's directories. A component is judged on the string itself, as the loader
splits it, after nothing but `$ORIGIN`:

- empty (a leading, trailing or doubled `:`): the loader opens the bare library name, from the
  process's working directory; a wholly empty string is ignored, as the loader ignores it;
- relative and not anchored at `$ORIGIN` (`.`, `lib`, `$LIB`, `../x`): resolved from the
  working directory, so `python -c "import mod"` in a directory holding a planted library loads
  it (held to the real loader in `tests/audit/test_rpath_hijack.py`);
- absolute in a tree someone other than root may write: world-writable ones (`/tmp`,
  `/var/tmp`, `/usr/tmp`, which RHEL links to `/var/tmp`, `/dev/shm`, `/run/shm`, `/run/lock`,
  `/var/lock`, `/var/crash`, `/dev/mqueue`) and users' own (below `/home/NAME`, `/run/user/UID`:
  on the installing machine another user may be `runner`); one with a `..` segment is judged
  so too (the loader resolves `..` through links: `/usr/tmp/..` is `/var`). Any other absolute
  path outside `/usr`, `/lib`, `/lib32`, `/lib64` and `/libx32` (`/opt/_internal/...`,
  `/__w/...`, `/root/...`) is a build machine's leftover in a directory only root creates: a
  warning (A140, W633), not a hijack; `auditwheel repair` drops it;
- a DT_NEEDED name (or a DT_AUXILIARY / DT_FILTER filtee's, FILTEE) with a `/` in it is no search: the loader opens that path (`$ORIGIN`
  expanded), from the working directory when relative; its directory is judged as a component
  (review76g: `gcc ... /tmp/x/libh.so` of a library without DT_SONAME writes NEEDED
  `/tmp/x/libh.so`, and glibc loads it from /tmp);
- `$ORIGIN` followed by `..` segments that climb out of the environment the wheel installs
  into, above its prefix (site-packages is `PREFIX/lib/pythonX.Y/site-packages`): where it lands
  is wherever the environment was made (a venv in `/tmp`, a project folder), owned by anyone.
  `$ORIGIN` paths that stay in the prefix pass: another package in site-packages (torch's
  `$ORIGIN/../../nvidia/cublas/lib` from `torch/lib`, as `auditwheel repair` writes
  `$ORIGIN/../foo.libs`), and up to the prefix, which the environment's owner owns as much as
  site-packages (torch's `_C` names `$ORIGIN/../../nvidia/...` from `torch/` itself: one level
  above site-packages). `pip install --target DIR` has no prefix around DIR, and is judged as
  if it had.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from k3diff.lazyre import lazy
from k3diff.native.platform import PlatformNeeds

_SYSTEM_TREES = frozenset({"usr", "lib", "lib32", "lib64", "libx32"})
"""Absolute directories only root writes on an FHS system (with `/usr/local`), but for
`_WORLD_WRITABLE`'s `/usr/tmp`."""
_WORLD_WRITABLE = frozenset(
    {"tmp", "var/tmp", "usr/tmp", "dev/shm", "run/shm", "run/lock", "var/lock", "var/crash"}
    | {"dev/mqueue"}
)
"""Trees anyone may write in (mode 1777 on common distributions; `/usr/tmp` links to `/var/tmp`
on RHEL), the directory itself included."""
_USERS = frozenset({"home", "run/user"})
"""Trees whose subdirectories users own (`/home/runner`: a user `runner` on the installing
machine plants a library there)."""
_TOKEN = lazy(r"\$(?:ORIGIN|LIB|PLATFORM|\{(?:ORIGIN|LIB|PLATFORM)\})")
"""A dynamic string token the loader expands anywhere in a component."""
_ORIGIN = lazy(r"^\$(?:ORIGIN|\{ORIGIN\})(?:/|$)")
"""A component anchored at the object's own directory."""
JUDGED_LENGTH = 1 << 16
"""The longest RPATH/RUNPATH judged component by component (real ones: a few KiB at most); a
longer one fails whole, unchecked."""
_SHOWN = 160
"""How much of a component a finding quotes (an input decides its length)."""
_PREFIX_CLIMB = {"purelib": 3, "platlib": 3, "scripts": 1, "data": 0}
"""How many `..` lead from a scheme's directory to the environment's prefix."""
_DATA_SCHEME = lazy(r"^[^/]+\.data/[^/]+/")
"""`NAME-VERSION.data/SCHEME/`: the entry installs under that scheme's directory."""


@dataclass(frozen=True)
class Judged:
    """One search-path component (or DT_NEEDED path) not plainly safe, and why."""

    fails: bool
    """Another party may place a library there (a hijack), not only a build's leftover."""
    tag: str
    """`RPATH`, `RUNPATH`, `NEEDED` or `FILTEE`: where the object names it."""
    why: str
    """The component, quoted, and why it is judged so (after the tag)."""
    named: str
    """What the object names: the component, the DT_NEEDED path, or the whole over-long
    search path (`why` quotes 160 characters, an over-long one by its length alone)."""

    @property
    def detail(self) -> str:
        """The finding's words: the tag, the component, why."""
        return f"{self.tag} {self.why}"

    @property
    def key(self) -> tuple[str, str, str]:
        """(tag, named, why): what `searched_in` looks up."""
        return self.tag, self.named, self.why

    def searched_in(self, had: AbstractSet[tuple[str, str, str]]) -> bool:
        """Whether another build of the object, whose judged search paths' `key`s are `had`,
        makes the loader search the same directory for every library this one does (elf78):
        the same component and tag, or an RPATH where this is a RUNPATH. glibc searches an
        object's RPATH for its own libraries and for those they need in turn (but for one with
        a RUNPATH of its own), its RUNPATH for its own only: an RPATH made a RUNPATH of the same
        directory finds no library the RPATH did not (`LD_DEBUG=libs`), its reverse searches
        the directory for more. Matched by what the object names, not the words (review78d: a
        component cut alike at 160 characters passed), in a set (review78d: pairwise, 16,000
        components a side took minutes)."""
        tags = (self.tag, "RPATH") if self.tag == "RUNPATH" else (self.tag,)
        return any((tag, self.named, self.why) in had for tag in tags)


def risky_search_paths(entry: str, needs: PlatformNeeds) -> list[str]:
    """Why each risky component of `needs`' RPATH and RUNPATH is one, for the ELF the wheel
    holds at archive path `entry` (empty when none is)."""
    return [judged.detail for judged in judged_search_paths(entry, needs) if judged.fails]


def leftover_search_paths(entry: str, needs: PlatformNeeds) -> list[str]:
    """Why each absolute component outside the system's trees that only root may create is a
    build machine's leftover (a warning, not a hijack)."""
    return [judged.detail for judged in judged_search_paths(entry, needs) if not judged.fails]


def searched(needs: PlatformNeeds) -> tuple[tuple[str, str | None], ...]:
    """The (tag, value) whose directories the loader searches for the object's own DT_NEEDED:
    its DT_RUNPATH where it has one, even an empty one, else its DT_RPATH. glibc drops DT_RPATH
    beside DT_RUNPATH as it reads the tables (`elf/get-dynamic-info.h`), and musl reads DT_RUNPATH
    in its place (`decode_dyn`): a RUNPATH dropped from a rebuilt native makes its old RPATH the
    one searched (elf77: RUNPATH `$ORIGIN` beside RPATH `/tmp/x`, then RPATH `/tmp/x` alone,
    passed as nothing new, exit 0). The executable's own RPATH, which glibc also searches for a
    library without RUNPATH, is the environment's, not the wheel's: not judged."""
    if needs.runpath is not None:
        return (("RUNPATH", needs.runpath),)
    return (("RPATH", needs.rpath),)


def judged_search_paths(entry: str, needs: PlatformNeeds) -> list[Judged]:
    """Each component of the RPATH or RUNPATH `needs`' loader searches, and each directory a
    DT_NEEDED path names, not plainly safe, for the ELF at archive path `entry`."""
    reasons: list[Judged] = []
    for tag, value in searched(needs):
        if not value:
            continue  # absent, or wholly empty: the loader ignores it
        if len(value) > JUDGED_LENGTH:  # an input decides the length: held, not split
            reasons.append(
                Judged(
                    True,
                    tag,
                    f"of {len(value):,} characters, more than k3diff judges "
                    f"({JUDGED_LENGTH:,}): its components are unchecked",
                    value,
                )
            )
            continue
        for component in dict.fromkeys(value.split(":")):  # each once, in order
            judged = _why(entry, component)
            if judged is not None:
                shown = component if len(component) <= _SHOWN else component[:_SHOWN] + "..."
                why = f"component {shown!r} {judged[1]}"
                reasons.append(Judged(judged[0], tag, why, component))
    paths = [
        (tag, n) for tag, ns in (("NEEDED", needs.needed), ("FILTEE", needs.filtees)) for n in ns
    ]
    for tag, name in dict.fromkeys(path for path in paths if "/" in path[1]):
        # review76g: a DT_NEEDED (or filtee) with a `/` is opened as that path (after
        # `$ORIGIN`), no search made: its directory is judged as a search path's
        judged = _why(entry, name.rpartition("/")[0] or "/")
        if judged is not None:
            shown = name if len(name) <= _SHOWN else name[:_SHOWN] + "..."
            reasons.append(
                Judged(judged[0], tag, f"{shown!r} is a path: its directory {judged[1]}", name)
            )
    return reasons


def _why(entry: str, component: str) -> tuple[bool, str] | None:
    """Whether the loader searching `component` for `entry` lets another party place a library
    there (True) or names a build machine's directory only root creates (False), and why; None
    when only the wheel or the system can fill it."""
    if not component:
        return True, "is empty: the loader searches the process's working directory"
    segments = component.split("/")
    if component.startswith("/"):
        return _absolute(component)
    if not _ORIGIN.match(component):
        return True, (
            "is relative, not anchored at $ORIGIN: the loader resolves it from the process's "
            "working directory"
        )
    depth, floor = _install_depth(entry)
    for segment in segments[1:]:
        if segment == "..":
            depth -= 1
            if depth < floor:
                return True, (
                    "climbs out of the environment the wheel installs into (above its prefix, "
                    "which lies three levels above site-packages): it names a directory beside "
                    "the environment, which whoever owns that fills with a library"
                )
        elif segment not in ("", "."):
            depth += 1
    return None


def _absolute(component: str) -> tuple[bool, str] | None:
    """An absolute component: fails in a tree someone other than root writes, or with `..`
    (resolved through links); warned outside the system's trees; None inside them."""
    # `$ORIGIN` expands to an absolute folder (`/tmp$ORIGIN` is under /tmp), `$LIB` and
    # `$PLATFORM` to plain names; `//` and `/./` are one `/`
    expanded = _TOKEN.sub(lambda token: "/X" if "ORIGIN" in token.group(0) else "X", component)
    segments = [segment for segment in expanded.split("/") if segment not in ("", ".")]
    if ".." in segments:
        return True, (
            "climbs with '..', which the loader resolves through links (/usr/tmp is /var/tmp "
            "on RHEL): where it lands is not the string's"
        )
    if segments[:2] == ["var", "run"]:  # a link to /run: /var/run/user/1000, /var/run/lock
        segments = ["run", *segments[2:]]
    head = segments[:1]
    if head and (
        "/".join(segments[:2]) in _WORLD_WRITABLE
        or head[0] in _WORLD_WRITABLE
        or (len(segments) > 2 and "/".join(segments[:2]) in _USERS)
        or (len(segments) > 1 and head[0] in _USERS)
    ):
        return True, (
            "is in a directory someone other than root writes (world-writable, or a user's "
            "own): whoever can write there on the installing machine plants a library"
        )
    if head and head[0] in _SYSTEM_TREES:
        return None
    return False, (
        "is outside the system's (/usr, /lib*): a build machine's leftover, in a directory "
        "only root creates on the installing machine, so no other party fills it; "
        "`auditwheel repair` drops it"
    )


def _install_depth(entry: str) -> tuple[int, int]:
    """How many directories below its install root (site-packages, or a `.data` scheme's
    directory) an entry's folder lies, and how far `..` may climb from that root while it stays
    in the environment's prefix: site-packages is `lib/pythonX.Y/site-packages` (Debian's
    `lib/python3/dist-packages`), `scripts` its `bin`, `data` the prefix itself; `headers` and
    any other scheme are held to their own directory."""
    scheme = _DATA_SCHEME.match(entry)
    if scheme is None:
        return entry.count("/"), -_PREFIX_CLIMB["purelib"]
    rest = entry[scheme.end() :]
    name = scheme.group(0).rstrip("/").rsplit("/", 1)[-1]
    return rest.count("/"), -_PREFIX_CLIMB.get(name, 0)
