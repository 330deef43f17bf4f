"""The bundle's figures read as drawn (newuser60, read in headless Chromium): every patch box of
the latency plot shows its median, and no legend covers a bar of the entry-status or the
distinct-outputs plot."""

from __future__ import annotations

import re
from pathlib import Path

from cli_support import run_k3diff

from .helpers import seed, wheels_json

STATUS_FILLS = ("#55a868", "#c44e52", "#8172b3", "#ccb974")
"""The entry-status bars' fills (k3diff/bundle/plots.py STATUS_COLOURS)."""
SIDE_FILLS = ("#4c72b0", "#dd8452")
"""The base's and the patch's bars (BASE_COLOUR, PATCH_COLOUR)."""


def _svg(html: str, ident: str) -> str:
    start = html.index(f'id="{ident}"')
    return html[start : html.index("</svg>", start)]


def _box(path: str) -> tuple[float, float, float, float]:
    """A path's bounding box (x0, y0, x1, y1) from its coordinates."""
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", path)]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_the_patch_latency_box_shows_its_median(tmp_path: Path) -> None:
    """matplotlib draws medians in its second colour, #ff7f0e, which on the patch's #dd8452 box
    cannot be seen: the reviewer saw a base median and none for the patch."""
    comparison, samples, triage = seed(tmp_path)
    result = run_k3diff("report", comparison, samples, triage, "--out", "b", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    svg = _svg((tmp_path / "b" / "report.html").read_text(), "plot-latency")
    assert "stroke: #ff7f0e" not in svg
    assert svg.count('style="fill: none; stroke: #000000"') == 2  # a black median a box


def test_the_entry_status_legend_covers_no_bar(tmp_path: Path) -> None:
    """The legend sat at the lower right, inside the axes, over the longest bar's end."""
    name = wheels_json(tmp_path)
    result = run_k3diff("report", name, "--out", "b", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    svg = _svg((tmp_path / "b" / "report.html").read_text(), "plot-entries")
    assert _covered(svg, STATUS_FILLS) == []


def test_the_distinct_outputs_legend_covers_no_bar(tmp_path: Path) -> None:
    """Every record gave one output a side: the bars are all as high as the axes, and the
    legend, placed where matplotlib found the least overlap, sat on the last record's bars."""
    comparison, samples, triage = seed(tmp_path, base_stable=True)
    result = run_k3diff("report", comparison, samples, triage, "--out", "b", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    svg = _svg((tmp_path / "b" / "report.html").read_text(), "plot-distinct")
    assert _covered(svg, SIDE_FILLS) == []


def _covered(svg: str, fills: tuple[str, ...]) -> list[tuple[float, float, float, float]]:
    """The bars (paths filled with one of FILLS, drawn before the legend) that the legend's
    frame overlaps."""
    legend = svg.index('<g id="legend_1">')
    frame = re.search(r'<path d="([^"]*)"', svg[legend:])
    assert frame is not None
    bars = [
        _box(d)
        for d, style in re.findall(r'<path d="([^"]*)"[^>]*?style="([^"]*)"', svg[:legend])
        if any(f"fill: {fill}" in style for fill in fills)
    ]
    assert bars
    return [bar for bar in bars if _overlap(bar, _box(frame.group(1)))]
