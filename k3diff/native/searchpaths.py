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
- absolute outside `/usr`, `/lib`, `/lib32`, `/lib64` and `/libx32` (the trees only root writes
  on a Filesystem Hierarchy Standard system, `/usr/local` with them): a build machine's path
  (`/home/runner/work/...`, `/tmp/...`, `/opt/_internal/...`, `/__w/...`) that whoever can
  create it on the user's machine fills with a library; one with a `..` segment is judged so
  too (`/usr/../tmp`);
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

from k3diff.lazyre import lazy
from k3diff.native.platform import PlatformNeeds

_SYSTEM = lazy(r"^/(?:usr|lib|lib32|lib64|libx32)(?:/.*)?$")
"""Absolute directories only root writes on an FHS system (with `/usr/local`)."""
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


def risky_search_paths(entry: str, needs: PlatformNeeds) -> list[str]:
    """Why each risky component of `needs`' RPATH and RUNPATH is one, for the ELF the wheel
    holds at archive path `entry` (empty when none is)."""
    reasons = []
    for tag, value in (("RPATH", needs.rpath), ("RUNPATH", needs.runpath)):
        if not value:
            continue  # absent, or wholly empty: the loader ignores it
        if len(value) > JUDGED_LENGTH:  # an input decides the length: held, not split
            reasons.append(
                f"{tag} of {len(value):,} characters, more than k3diff judges "
                f"({JUDGED_LENGTH:,}): its components are unchecked"
            )
            continue
        for component in dict.fromkeys(value.split(":")):  # each once, in order
            why = _why(entry, component)
            if why is not None:
                shown = component if len(component) <= _SHOWN else component[:_SHOWN] + "..."
                reasons.append(f"{tag} component {shown!r} {why}")
    return reasons


def _why(entry: str, component: str) -> str | None:
    """Why the loader searching `component` for `entry` lets another party place a library
    there; None when only the wheel or the system can."""
    if not component:
        return "is empty: the loader searches the process's working directory"
    segments = component.split("/")
    if component.startswith("/"):
        if _SYSTEM.match(component) and ".." not in segments:
            return None
        return (
            "is a directory outside the system's (/usr, /lib*): a build machine's path, "
            "which whoever can create it on the installing machine fills with a library"
        )
    if not _ORIGIN.match(component):
        return (
            "is relative, not anchored at $ORIGIN: the loader resolves it from the process's "
            "working directory"
        )
    depth, floor = _install_depth(entry)
    for segment in segments[1:]:
        if segment == "..":
            depth -= 1
            if depth < floor:
                return (
                    "climbs out of the environment the wheel installs into (above its prefix, "
                    "which lies three levels above site-packages): it names a directory beside "
                    "the environment, which whoever owns that fills with a library"
                )
        elif segment not in ("", "."):
            depth += 1
    return None


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
