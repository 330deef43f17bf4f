"""What is left to read of the code that runs at start (`pthimports`, `audit`'s start-up
surfaces): tokens counted before parsing, and syntax nodes walked (`hookimports.NODES`), `.pth`
lines and modules alike; past them, the code may import any module."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

from k3diff.wheel.hookimports import NODES, line_modules
from k3diff.wheel.importnames import Imports

TOKENS = 1 << 17
"""Tokens (words and punctuation, counted before parsing) of reached modules' sources parsed in
all (one past it may import anything): parsing costs by the token, and 1 MiB of `f(a)` lines,
840,000 tokens, took 4.5 s of CPU to parse and walk, against 0.25 s for 1 MiB of setuptools'
`dist.py` (204,000 tokens; hooks72). 131,072 is 640 KiB of such code: `_distutils_hack` is
1,100 tokens, coverage's whole package 127,000."""
_TOKEN = re.compile(rb"\w+|[^\w\s]")


def token_count(source: bytes, most: int = 1 << 62) -> int:
    """The tokens of `source` (a word or a punctuation character each), `most` + 1 at most."""
    return sum(1 for _ in islice(_TOKEN.finditer(source), most + 1))


@dataclass
class Budget:
    """What is left to read of the code that runs at start: tokens parsed, syntax nodes walked
    (`TOKENS`, `NODES`), `.pth` lines and modules alike (hooks72: a 77 KB wheel of 500 `.pth`
    files, each a 16 KiB line listing 8,000 names, took 34 s of CPU a pair)."""

    tokens: int = TOKENS
    nodes: int = NODES

    def line(self, text: str) -> Imports:
        """What a `.pth` line imports, read within what is left (past it: any module)."""
        tokens = token_count(text.encode(), self.tokens)
        if tokens > self.tokens:
            self.tokens = -1  # spent: each line after is not counted again
            return Imports([], [], f"past the {TOKENS:,} tokens k3diff reads")
        self.tokens -= tokens
        imports = line_modules(text, self.nodes)
        self.nodes -= imports.walked
        return imports
