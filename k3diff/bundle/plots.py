"""The bundle's figures, drawn by matplotlib's object-oriented API (a `Figure` of its own, no
pyplot, no display) and kept as inline SVG.

Text is drawn as paths (`svg.fonttype = path`, matplotlib's bundled DejaVu Sans), so the SVG
needs no font; ids are salted with a constant so the same evidence gives the same bytes.

Labels come from inputs (record keys, modes), so every one goes through `label`: never parsed
as mathtext or TeX (`$\\foo$` would be a parse error, 2,000 terms of it minutes of work),
control characters and lone surrogates shown as escapes (FreeType cannot draw a surrogate),
and at most `LABEL_CHARS` long (a 1,000,000-character key would be drawn in full).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from k3diff import escape
from k3diff.bundle.splitfacts import split_branches
from k3diff.bundle.summary import latencies
from k3diff.bundle.wheelfacts import wheel_documents
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument
from k3diff.responses.document import ResponsesDocument

LABEL_CHARS = 32
"""Characters of a label drawn (with the ellipsis); the tables and JSON hold the full key."""
RECORDS_PLOTTED = 40
"""Records drawn per figure (differing records first); the tables hold all of them."""
BASE_COLOUR, PATCH_COLOUR = "#4c72b0", "#dd8452"
STATUS_COLOURS = {
    "identical": "#55a868",
    "changed": "#c44e52",
    "missing": "#8172b3",
    "added": "#ccb974",
}


@dataclass(frozen=True)
class Plot:
    """One figure of the report."""

    ident: str
    """HTML id of the figure."""
    title: str
    """Caption."""
    svg: str
    """The `<svg>` element, without XML declaration."""


def label(value: str) -> str:
    """An input's text as a plot label: shortened, control characters escaped."""
    return escape.text(escape.shortened(value, LABEL_CHARS))


def make_plots(documents: Sequence[Document]) -> tuple[Plot, ...]:
    """Every figure the documents have data for, in reading order."""
    # Text drawn as written: no TeX, no mathtext (labels are created and drawn inside).
    with matplotlib.rc_context({"text.usetex": False, "text.parse_math": False}):
        plots = [
            _entry_status(documents),
            _distinct(documents),
            _divergence(documents),
            _splits(documents),
            _sweep(documents),
            _latency(documents),
        ]
    return tuple(p for p in plots if p is not None)


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "k3diff-report"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _figure(width: float, height: float) -> tuple[Figure, Any]:
    figure = Figure(figsize=(width, height), layout="constrained")
    return figure, figure.subplots()


def _entry_status(documents: Sequence[Document]) -> Plot | None:
    totals: dict[str, dict[str, int]] = {}
    for _, wheels in wheel_documents(documents):
        for kind, counts in wheels.summary.items():
            mine = totals.setdefault(kind, {s: 0 for s in STATUS_COLOURS})
            for status, count in counts.as_dict().items():
                if status in mine:
                    mine[status] += count
    kinds = [k for k, v in totals.items() if sum(v.values())]
    if not kinds:
        return None
    figure, axes = _figure(7, 0.8 + 0.45 * len(kinds))
    left = [0] * len(kinds)
    positions = list(range(len(kinds)))
    for status, colour in STATUS_COLOURS.items():
        widths = [totals[k][status] for k in kinds]
        axes.barh(positions, widths, left=left, color=colour, label=status)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    axes.set_yticks(positions, [label(k) for k in kinds])
    axes.set_xlabel("entries")
    axes.invert_yaxis()
    # above the axes: inside them, the legend covered the end of the longest bar
    figure.legend(loc="outside upper center", fontsize="small", ncols=4)
    return Plot("plot-entries", "Entry status by kind (all wheels)", _svg(figure))


def _distinct_counts(documents: Sequence[Document]) -> dict[str, list[tuple[str, int, int, bool]]]:
    """Per mode: (key, base distinct, patch distinct, differs) from triage, else sample logs."""
    per_mode: dict[str, list[tuple[str, int, int, bool]]] = {}
    for doc in documents:
        if doc.kind is Kind.TRIAGE:
            for record in doc.typed(TriageDocument).records:
                differs = record.comparison_status != "match"
                for verdict in record.modes:
                    per_mode.setdefault(verdict.mode, []).append(
                        (record.name, verdict.base.distinct, verdict.patch.distinct, differs)
                    )
    if per_mode:
        return per_mode
    seen: dict[tuple[str, str, str], set[str]] = {}
    for doc in documents:
        if doc.kind is Kind.SAMPLES:
            for sample in doc.samples:
                if sample.error is None and sample.text_xxh3 is not None:
                    ident = (sample.mode, sample.key, sample.side)
                    seen.setdefault(ident, set()).add(sample.text_xxh3)
    for mode, key in sorted({(m, k) for m, k, _ in seen}):
        base, patch = (
            len(seen.get((mode, key, "base"), ())),
            len(seen.get((mode, key, "patch"), ())),
        )
        per_mode.setdefault(mode, []).append((key, base, patch, base > 1 or patch > 1))
    return per_mode


def _distinct(documents: Sequence[Document]) -> Plot | None:
    per_mode = _distinct_counts(documents)
    if not per_mode:
        return None
    modes = sorted(per_mode)
    figure = Figure(figsize=(7, 0.9 + 2.2 * len(modes)), layout="constrained")
    axes_list = figure.subplots(len(modes), 1, squeeze=False)[:, 0]
    for axes, mode in zip(axes_list, modes, strict=True):
        rows = sorted(per_mode[mode], key=lambda r: (not r[3], r[0]))[:RECORDS_PLOTTED]
        positions = range(len(rows))
        axes.bar(
            [p - 0.2 for p in positions], [r[1] for r in rows], 0.4, color=BASE_COLOUR, label="base"
        )
        axes.bar(
            [p + 0.2 for p in positions],
            [r[2] for r in rows],
            0.4,
            color=PATCH_COLOUR,
            label="patch",
        )
        axes.set_xticks(
            list(positions), [label(r[0]) for r in rows], rotation=60, ha="right", fontsize="small"
        )
        axes.set_ylabel("distinct outputs")
        axes.yaxis.get_major_locator().set_params(integer=True)
        axes.set_title(f"mode: {label(mode)}", fontsize="medium")
    # one legend above the modes: inside an axes, it sat on bars as high as the axes
    handles, labels = axes_list[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside upper center", fontsize="small", ncols=2)
    return Plot(
        "plot-distinct", "Distinct outputs per record, base vs patch, per mode", _svg(figure)
    )


def _divergence(documents: Sequence[Document]) -> Plot | None:
    points: list[tuple[str, int]] = []
    for doc in documents:
        if doc.kind is Kind.RESPONSES:
            for record in doc.typed(ResponsesDocument).records:
                if record.char_offset is not None:
                    points.append((record.name, record.char_offset))
    if not points:
        return None
    points = sorted(points)[:RECORDS_PLOTTED]
    figure, axes = _figure(7, 0.6 + 0.25 * len(points))
    # Rows by position, not by key: two keys alike in their first LABEL_CHARS keep two rows.
    rows = list(range(len(points)))
    axes.scatter([p[1] for p in points], rows, color=PATCH_COLOUR, zorder=3)
    axes.hlines(rows, 0, [p[1] for p in points], color="#bbbbbb", zorder=2)
    axes.set_yticks(rows, [label(p[0]) for p in points])
    axes.set_xlabel("first divergence (character offset)")
    axes.set_xlim(-0.5, max(p[1] for p in points) + 1)
    axes.invert_yaxis()
    return Plot("plot-divergence", "First-divergence position per differing record", _svg(figure))


def _splits(documents: Sequence[Document]) -> Plot | None:
    """Histograms of where each side's outputs split from their modal one, and the margins."""
    sides: dict[str, list[tuple[int, float | None]]] = {"base": [], "patch": []}
    near_tie = 0.1
    for doc in documents:
        if doc.kind is Kind.TRIAGE:
            triage = doc.typed(TriageDocument)
            near_tie = triage.near_tie
            for side, found in split_branches(triage).items():
                sides[side].extend(found)
    if not sides["base"] and not sides["patch"]:
        return None
    # An infinite margin (a runner-up of logprob -Infinity, as servers write it) or a NaN has no
    # place on the axis: drawn, it stopped the bundle with an internal error (fuzz69).
    margins = {
        side: [m for _, m in found if m is not None and math.isfinite(m)]
        for side, found in sides.items()
    }
    has_margins = any(margins.values())
    # A histogram with no data is not drawn: the caption says why it is absent.
    figure = Figure(figsize=(7, 4.4 if has_margins else 2.4), layout="constrained")
    if has_margins:
        position_axes, margin_axes = figure.subplots(2, 1)
    else:
        position_axes, margin_axes = figure.subplots(1, 1), None
    colours = {"base": BASE_COLOUR, "patch": PATCH_COLOUR}
    for side, found in sides.items():
        if found:
            position_axes.hist(
                [p for p, _ in found], bins=20, alpha=0.6, color=colours[side], label=side
            )
        if margins[side] and margin_axes is not None:
            margin_axes.hist(margins[side], bins=20, alpha=0.6, color=colours[side], label=side)
    position_axes.set_xlabel("split position (token, or character without tokens)")
    position_axes.set_ylabel("splits")
    position_axes.legend(fontsize="small")
    unplaced = sum(1 for found in sides.values() for _, m in found if m is not None) - sum(
        map(len, margins.values())
    )
    if margin_axes is None:
        why = f"{unplaced} not finite" if unplaced else "the samples carry no logprobs"
        title = f"Where outputs split from the modal one (margins not drawn: {why})"
        return Plot("plot-splits", title, _svg(figure))
    margin_axes.axvline(near_tie, color="#555555", linestyle="--", label="--near-tie")
    margin_axes.set_xlabel("margin at the split (chosen minus runner-up logprob, nats)")
    margin_axes.set_ylabel("splits")
    margin_axes.legend(fontsize="small")
    title = "Where outputs split from the modal one, and the margins"
    if unplaced:
        title += f" ({unplaced} not finite, not drawn)"
    return Plot("plot-splits", title, _svg(figure))


def sweep_points(documents: Sequence[Document]) -> dict[str, dict[int, tuple[int, int, int]]]:
    """Per side and sweep level, summed over records: (samples, distinct outputs, samples
    differing from the serial output), from the triage documents' `sweep` curves."""
    found: dict[str, dict[int, list[int]]] = {}
    for doc in documents:
        if doc.kind is not Kind.TRIAGE:
            continue
        for record in doc.typed(TriageDocument).records:
            for mode in record.modes:
                for point in mode.sweep:
                    level = found.setdefault(point.side, {}).setdefault(point.level, [0, 0, 0])
                    level[0] += point.n
                    level[1] += point.distinct
                    level[2] += point.differ
    return {
        side: {level: (n, d, x) for level, (n, d, x) in sorted(levels.items())}
        for side, levels in found.items()
    }


def _sweep(documents: Sequence[Document]) -> Plot | None:
    """The dose-response curve of batch variance: distinct outputs and the share of samples
    differing from the serial output, per concurrency level and side."""
    points = sweep_points(documents)
    if not points:
        return None
    figure = Figure(figsize=(7, 4.4), layout="constrained")
    distinct_axes, share_axes = figure.subplots(2, 1, sharex=True)
    colours = {"base": BASE_COLOUR, "patch": PATCH_COLOUR}
    for side, levels in sorted(points.items()):
        xs = list(levels)
        colour = colours.get(side, "#555555")
        distinct_axes.plot(
            xs, [levels[x][1] for x in xs], marker="o", color=colour, label=label(side)
        )
        shares = [levels[x][2] / levels[x][0] if levels[x][0] else 0.0 for x in xs]
        share_axes.plot(xs, shares, marker="o", color=colour, label=label(side))
    distinct_axes.set_xscale("log", base=2)
    distinct_axes.set_ylabel("distinct outputs (summed over records)")
    distinct_axes.legend(fontsize="small")
    share_axes.set_ylabel("share differing from serial")
    share_axes.set_xlabel("requests in flight (sweep level)")
    share_axes.set_ylim(0, 1)
    return Plot(
        "plot-sweep",
        "Sweep: distinct outputs and share differing from serial, per level",
        _svg(figure),
    )


def _latency(documents: Sequence[Document]) -> Plot | None:
    groups: dict[tuple[str, str], list[float]] = {}
    for doc in documents:
        if doc.kind is Kind.SAMPLES:
            for ident, values in latencies(doc).items():
                groups.setdefault(ident, []).extend(values)
    if not groups:
        return None
    idents = sorted(groups)
    figure, axes = _figure(7, 3)
    # black medians: matplotlib's default orange cannot be seen on the patch's orange box
    boxes = axes.boxplot(
        [groups[i] for i in idents], patch_artist=True, medianprops={"color": "#000000"}
    )
    for box, (_, side) in zip(boxes["boxes"], idents, strict=True):
        box.set_facecolor(BASE_COLOUR if side == "base" else PATCH_COLOUR)
    axes.set_xticks(range(1, len(idents) + 1), [f"{label(m)}\n{label(s)}" for m, s in idents])
    axes.set_ylabel("latency (s)")
    return Plot("plot-latency", "Sample latency per mode and side", _svg(figure))
