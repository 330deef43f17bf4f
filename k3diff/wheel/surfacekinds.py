"""The execution surface model: what sort of surface, and one surface of one wheel, as
`wheel.surfaces` reads them and `wheels`, `audit` and the documents carry them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # read only for a wheel that has a .pth file or a .pyc
    from k3diff.wheel.bytecode import Bytecode
    from k3diff.wheel.pth import PthLine


class SurfaceKind(StrEnum):
    """The ways a wheel makes code run."""

    PTH = "pth"
    CUSTOMIZE = "customize"
    ENTRY_POINT = "entry-point"
    SCRIPT = "script"
    DATA_SCRIPT = "data-script"
    BYTECODE = "bytecode"
    TOP_LEVEL = "top-level"
    TOOL_CONFIG = "tool-config"


@dataclass(frozen=True)
class Surface:
    """One execution surface of one wheel."""

    kind: SurfaceKind
    """What sort of surface."""
    key: str
    """Identity across base and patch: the installed path, or `group:name` for entry points."""
    entry: str
    """The archive path it comes from (`entry_points.txt` for entry points)."""
    summary: str
    """One line: what runs, and how."""
    executable: bool
    """True when it runs code (an executable `.pth` line, a customize module, a script...)."""
    content: str | None = None
    """The text of a `.pth` file or script, capped at `CONTENT_CAP` bytes."""
    truncated: bool = False
    """The content was cut at the cap."""
    lines: tuple[PthLine, ...] = ()
    """A `.pth` file's meaningful lines, classified."""
    bytecode: Bytecode | None = None
    """A `.pyc`'s header facts."""
    group: str | None = None
    """An entry point's group."""
    value: str | None = None
    """An entry point's object reference (`module:attr`)."""
    native: str | None = None
    """A copied script that is an ELF (not a cubin) Linux loads, a Mach-O or a PE image: its
    format and machine (`native.sniff.executable_image`); an `ar` archive or fatbin is no program."""
    imported_by: str | None = None
    """A `customize` surface that is a module a `.pth` line imports, or one such a module
    imports in turn (`wheel.pthimports`): that `.pth`'s installed path (`site` for one a
    `sitecustomize` imports); None for a `sitecustomize` or `usercustomize` module, which `site`
    imports itself (`audit` fails a wheel that installs one, and lists a hook)."""
