"""What one wheel makes run at every interpreter start, as `audit` judges it alone (`wheels`
judges what a patch adds or changes: W701, W702).

- W702, failing: a `sitecustomize` or `usercustomize` module the wheel installs (at the top of
  site-packages, a package of that name, or in a directory a `.pth` path line puts on
  `sys.path`). `site` imports the first one it finds at every start of every program of the
  environment; a wheel that installs one takes the environment's start-up over (pip writes over
  one another distribution installed there) or hides behind the environment's own, and no
  library needs one: a release auditor expects none (pth71: `audit` of a wheel carrying one
  passed, exit 0, while `wheels` failed the patch that added it).
- A127, a warning: each `.pth` file with executable lines, naming the modules they import and
  the wheel's files so run (`wheel.pthimports`). Such lines are common (setuptools'
  `distutils-precedence.pth` imports `_distutils_hack`, pywin32's `pywin32_bootstrap`, an
  editable install's finder), so listed, not failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from k3diff.escape import shortened
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.surfacekinds import Surface, SurfaceKind

if TYPE_CHECKING:
    from k3diff.wheel.pthimports import Budget

_SHOWN = 5
"""Lines, and the wheel's files they run, named in an A127's detail (the rest counted)."""
_SAID = 200
"""Characters of a line's modules said (a line may be 16 KiB)."""


def startup_findings(surfaces: Sequence[Surface]) -> list[Finding]:
    """W702 for each `sitecustomize` or `usercustomize` module of the wheel; A127 for each
    `.pth` file with executable lines."""
    found = [
        Finding(
            Code.W702,
            s.entry,
            f"{s.summary}; the wheel installs start-up code for every program of the environment",
        )
        for s in surfaces
        if s.kind is SurfaceKind.CUSTOMIZE and s.imported_by is None
    ]
    pths = [s for s in surfaces if s.kind is SurfaceKind.PTH and s.executable]
    if not pths:
        return found
    from k3diff.wheel.pthimports import Budget

    left = Budget()  # of all the lines read (hooks72: 500 `.pth` files of 16 KiB lines)
    return found + [_pth_finding(pth, surfaces, left) for pth in pths]


def _pth_finding(pth: Surface, surfaces: Sequence[Surface], left: Budget) -> Finding:
    from k3diff.wheel.pth import line_numbers

    numbers = line_numbers(pth.content or "")
    said = []
    lines = [line for line in pth.lines if line.executable]
    for line in lines[:_SHOWN]:
        number = numbers.get(line.text)
        imports = left.line(line.text)
        names = ", ".join(dict.fromkeys(".".join(m) for m, _ in imports.modules))
        what = f"imports {shortened(names, _SAID)}" if names else "imports no module by name"
        what += f" ({imports.unknown}: it may import any module)" if imports.unknown else ""
        said.append(f"line {number} {what}" if number else what)
    if len(lines) > _SHOWN:
        said.append(f"{len(lines) - _SHOWN} more executable lines")
    if pth.truncated:
        said.append("the part past what k3diff reads may run more")
    runs = [s.key for s in surfaces if s.imported_by == pth.key]
    if runs:
        more = f" and {len(runs) - _SHOWN} more" if len(runs) > _SHOWN else ""
        said.append(f"modules of this wheel they run: {', '.join(runs[:_SHOWN])}{more}")
    return Finding(Code.A127, pth.entry, f"{'; '.join(said)}; {_COMMON}")


_COMMON = (
    "listed, not failed (setuptools, pywin32, namespace packages and editable installs ship "
    "such lines): check they are the ones the project means to ship"
)
"""What an A127 closes with (newuser71: on setuptools' own wheel the detail repeated the code's
'at every start', counted its '0 path lines', and said nothing of why it was only a warning or
what to check)."""
