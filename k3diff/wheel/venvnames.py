"""The names every virtual environment's command directory already holds, which a script of
the wheel's must never replace (W703, in `wheels` and `audit` alike)."""

from __future__ import annotations

import re

from k3diff.lazyre import lazy

_VENV_COMMAND = lazy(
    r"(?:python(?:w)?(?:\d+(?:\.\d+)?t?)?|pythonw.*|pip(?:\d+(?:\.\d+)?)?|"
    r"(?:de)?activate(?:\.[a-z0-9]+)?|activate_this\.py|pydoc(?:\.bat)?)(?:\.exe)?",
    re.IGNORECASE,
)
"""Names a virtual environment's `bin/` (Windows `Scripts/`) already holds: the interpreter
(`python`, `python3`, `python3.12`, `python3.13t`, `pythonw*`), pip (`pip`, `pip3`, `pip3.12`),
the activation scripts (`activate`, `activate.fish`, `Activate.ps1`, `deactivate.bat`,
`activate_this.py`; not argcomplete's `activate-global-python-argcomplete`) and virtualenv's
`pydoc`. A script of that name replaces the environment's own: `bin/python3.12` is the venv's
interpreter (`python` and `python3` link to it), and `pip3.12` then runs the wheel's function. Always protected, whatever `--protected-commands`
says (matched without regard to case, as Windows' `Scripts/` is)."""


_PIP_NAME = lazy(r"pip(?:\d+(?:\.\d+)?)?(?:\.exe)?", re.IGNORECASE)


def shadows_environment(name: str, entry: str = "") -> bool:
    """True when a script of this name replaces a file every virtual environment holds; `entry`
    (the archive path the script comes from) exempts pip's own wheel writing pip's names."""
    if _VENV_COMMAND.fullmatch(name) is None:
        return False
    owner = entry.split("/", 1)[0].split("-", 1)[0].lower()
    return not (owner == "pip" and _PIP_NAME.fullmatch(name))
