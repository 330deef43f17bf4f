"""A target of `scripts/fuzz_cli.py`: one command and the input of it that gets mutated."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Mutation = tuple[bytes, str]


@dataclass(frozen=True)
class Target:
    """One command and the input of it that gets mutated."""

    name: str
    seed: str
    """The seed's path in the corpus; the mutated copy keeps its file name."""
    argv: Callable[[Path, Path], list[str]]
    """(corpus, mutated file) -> the command's arguments."""
    mutators: list[Callable[[bytes, random.Random], Mutation]]
    zip_oracle: bool = False
    """Exit 0 only when zipfile reads the mutated archive's entries as the seed's (`zip_view`)."""
    rederived: bool = False
    """The document is given with the inputs it was made from, so `report` runs it again: a
    field edit (a `json-` mutation) it accepts (exit 0 or 1) is listed for review."""
    seed_exit: int | None = None
    """The seed's own exit code, where it is not 0 or 1 (`sample` against no server: 2)."""
    fails: bool = False
    """The seed fails (exit 1): a mutated copy that passes (exit 0) is a finding, as no one
    edit should turn a failing document into a consistent passing one."""
    setup: Callable[[Path, Path], None] | None = None
    """(work directory, mutated file) -> None: builds what the command reads from the mutated
    file before it runs (a git repository committing it, a wheel shipping it)."""
    excused: str | None = None
    """With `fails`: a pass whose stdout holds this is as documented (`Prefix: legacy/
    (detected; setup.py ... not read)`: a configuration not read leaves detection to decide)."""
    review: Callable[[bytes, bytes], str | None] | None = None
    """(seed, mutated) -> why an exit 0 on the mutated input is listed for review, or None."""
