"""What k3diff reads of the modules a hook reaches is bounded by their tokens and syntax nodes,
not by their bytes alone: past a cap, the module may import any module of the wheel (fail
safe), and a patch changing any of them is W702, the chain saying which cap. Before (hooks72), a
kept hook of 1 MiB of `f(a)` lines, under the byte cap, was parsed and walked whole: 4.4 s of
CPU and 810 MB a pair (a hostile wheel's cost), and an unrelated change passed, exit 0.

No timing is asserted (review72d): what k3diff parses and walks is counted (`_Spent`), the
tokens of each source handed to the parser and the syntax nodes the walk yields, each within
its cap a reading (a pair reads two wheels), as it was not before hooks72."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from k3diff.wheel import hookimports
from wheel.test_pth_hook_imports import LINE
from wheel.test_pth_imports import QUIET, _pair
from wheel.test_pth_leaving_site import _w702

ANY = "it may import any module) at every start"
TOKENS = NODES = 1 << 17
_TOKEN = re.compile(rb"\w+|[^\w\s]")


@dataclass
class _Spent:
    """The tokens of the sources parsed and the syntax nodes walked, most in one reading."""

    tokens: list[int] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)

    def within_the_caps(self, readings: int = 2) -> bool:
        """Whether what `readings` readings parsed and walked stays within the caps (a pair
        reads two wheels: twice each cap at most, and a little for `exec`ed strings)."""
        slack = 64
        return sum(self.tokens) <= readings * TOKENS + slack and (
            sum(self.nodes) <= readings * NODES + slack
        )


@pytest.fixture
def spent(monkeypatch: pytest.MonkeyPatch) -> _Spent:
    """Count what `hookimports` parses (tokens of each source) and walks (nodes yielded)."""
    counted = _Spent()
    parsed, executed = hookimports._parsed, hookimports._executed

    def counting_parse(source: str | bytes) -> Any:
        data = source.encode() if isinstance(source, str) else source
        counted.tokens.append(sum(1 for _ in _TOKEN.finditer(data)))
        return parsed(source)

    def counting_walk(*args: Any, **kwargs: Any) -> Iterator[Any]:
        counted.nodes.append(0)
        for node in executed(*args, **kwargs):
            counted.nodes[-1] += 1
            yield node

    monkeypatch.setattr(hookimports, "_parsed", counting_parse)
    monkeypatch.setattr(hookimports, "_executed", counting_walk)
    return counted


@pytest.mark.parametrize(
    ("lines", "why"),
    [
        (200_000, "past the 256 modules, 1 MiB or 131,072 tokens k3diff reads"),  # 1 MiB
        (40_000, "past the 256 modules, 1 MiB or 131,072 tokens k3diff reads"),  # 160,000 tokens
        (30_000, "past the 131,072 syntax nodes k3diff walks"),  # 120,000 tokens, 150,000 nodes
    ],
    ids=["1 MiB", "over the tokens", "over the nodes"],
)
def test_a_node_dense_hook_past_a_cap_may_import_any_module(
    tmp_path: Path, lines: int, why: str, spent: _Spent
) -> None:
    kept = {**LINE, "demo_hook.py": b"import demo_inner\n" + b"f(a)\n" * lines}
    code, report, _ = _pair(
        tmp_path, {**kept, "demo_x.py": QUIET}, {**kept, "demo_x.py": b"X = 2\n"}
    )
    assert spent.within_the_caps(), (sum(spent.tokens), sum(spent.nodes))  # 1 MiB: 800,000
    # tokens parsed and 1,200,000 nodes walked a reading before (4.4 s of CPU, hooks72)
    assert code == 1, report["findings"]
    assert f"demo.pth's line 1 → demo_hook ({why}: {ANY}" in _w702(report)["demo_x.py"]


def test_an_ordinary_hook_under_the_caps_is_read_as_written(tmp_path: Path) -> None:
    """400 KiB of ordinary code (documented functions whose bodies do not run) fits the caps
    (at 0.25 tokens a byte: 640 KiB would; setuptools' code is 0.22)."""
    body = b'def f%d(x):\n    """Return the value after the given one, as the caller expects."""\n'
    hook = b"import demo_inner\n" + b"".join(
        body % i + b"    return x + 1\n\n\n" for i in range(4_000)
    )
    assert 400_000 < len(hook) < 1 << 20
    kept = {**LINE, "demo_hook.py": hook}
    code, report, _ = _pair(
        tmp_path, {**kept, "demo_x.py": QUIET}, {**kept, "demo_x.py": b"X = 2\n"}
    )
    assert code == 0 and not _w702(report), report["findings"]


def test_many_pth_lines_share_the_caps(tmp_path: Path, spent: _Spent) -> None:
    """The `.pth` lines count against the same caps as the modules (hooks72: a 77 KB wheel of
    500 `.pth` files, each a 16 KiB line listing 8,000 names, took 34 s of CPU a pair, and
    `audit` of it 27 s; now 1.0 and 0.9 s)."""
    line = b"import os; x = [" + b"a," * 8_000 + b"]\n"
    kept = {f"demo{i:02}.pth": line for i in range(20)}
    code, report, _ = _pair(
        tmp_path, {**kept, "demo_x.py": QUIET}, {**kept, "demo_x.py": b"X = 2\n"}
    )
    assert spent.within_the_caps(), (sum(spent.tokens), sum(spent.nodes))  # 20 lines of
    # 16,007 tokens each: all parsed before
    assert code == 1, report["findings"]
    assert (
        "(past the 131,072 tokens k3diff reads: it may import any module)"
        in (_w702(report)["demo_x.py"])
    )
