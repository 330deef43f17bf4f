"""What k3diff reads of the modules a hook reaches is bounded by their tokens and syntax nodes,
not by their bytes alone: past a cap, the module may import any module of the wheel (fail
safe), and a patch changing any of them is W702, the chain saying which cap. Before (hooks72), a
kept hook of 1 MiB of `f(a)` lines, under the byte cap, was parsed and walked whole: 4.4 s of
CPU and 810 MB a pair (a hostile wheel's cost), and an unrelated change passed, exit 0."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import LINE
from wheel.test_pth_imports import QUIET, _pair
from wheel.test_pth_leaving_site import _w702

ANY = "it may import any module) at every start"


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
    tmp_path: Path, lines: int, why: str
) -> None:
    kept = {**LINE, "demo_hook.py": b"import demo_inner\n" + b"f(a)\n" * lines}
    start = time.process_time()
    code, report, _ = _pair(
        tmp_path, {**kept, "demo_x.py": QUIET}, {**kept, "demo_x.py": b"X = 2\n"}
    )
    spent = time.process_time() - start
    assert code == 1, report["findings"]
    assert f"demo.pth's line 1 → demo_hook ({why}: {ANY}" in _w702(report)["demo_x.py"]
    assert spent < 2.5, spent  # 4.4 s for the 1 MiB hook before, 0.2 s since (hooks72)


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


def test_many_pth_lines_share_the_caps(tmp_path: Path) -> None:
    """The `.pth` lines count against the same caps as the modules (hooks72: a 77 KB wheel of
    500 `.pth` files, each a 16 KiB line listing 8,000 names, took 34 s of CPU a pair, and
    `audit` of it 27 s; now 1.0 and 0.9 s)."""
    line = b"import os; x = [" + b"a," * 8_000 + b"]\n"
    kept = {f"demo{i:02}.pth": line for i in range(20)}
    start = time.process_time()
    code, report, _ = _pair(
        tmp_path, {**kept, "demo_x.py": QUIET}, {**kept, "demo_x.py": b"X = 2\n"}
    )
    assert time.process_time() - start < 2.5
    assert code == 1, report["findings"]
    assert (
        "(past the 131,072 tokens k3diff reads: it may import any module)"
        in (_w702(report)["demo_x.py"])
    )
