"""report.html: one self-contained file (inline CSS, inline SVG plots, a small inline script that
sorts tables), readable on a laptop and printable. It loads nothing from anywhere.

Text and tables come from the summary document only; the plots are drawn from the same inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape as html_escape
from typing import TYPE_CHECKING, Any

from k3diff import escape as text_escape
from k3diff.bundle.markdown import CELL_CHARS, input_checked
from k3diff.bundle.model import status_legend
from k3diff.bundle.triagetable import column_legend

if TYPE_CHECKING:
    from k3diff.bundle.plots import Plot


def escape(value: str) -> str:
    """`value` as HTML text: control characters, bidirectional overrides and lone surrogates
    shown as escapes first (`k3diff.escape.text`), then `&`, `<`, `>` and quotes as
    entities; every string of report.html passes here (a lone surrogate in a record name would
    not even encode as UTF-8)."""
    return html_escape(text_escape.text(value))


_CSS = """
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto;
  max-width: 72rem; padding: 1.5rem; color: #1d1d1f; background: #fff; }
h1 { font-size: 1.6rem; margin: 0 0 .8rem; } h2 { font-size: 1.2rem; margin: 1.8rem 0 .6rem;
  border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
.verdict { font-weight: 600; padding: .6rem .9rem; border-radius: 6px; }
.verdict.ok { background: #e6f4ea; border-left: 6px solid #2e7d32; }
.verdict.fail { background: #fdecea; border-left: 6px solid #c62828; }
ul.bottom li { margin: .25rem 0; }
p.legend { color: #555; font-size: .9em; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; margin: .4rem 0; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f6; cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " ▲"; } th[aria-sort="descending"]::after { content: " ▼"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.hash, code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .8rem;
  word-break: break-all; }
.status-FAIL { color: #c62828; font-weight: 600; } .status-pass { color: #2e7d32; font-weight: 600; }
.status-missing, .status-inconclusive { color: #8a6d00; font-weight: 600; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .9rem; color: #555; }
.scroll { overflow-x: auto; }
code.toml { white-space: pre-wrap; }
@media print { body { max-width: none; padding: 0; font-size: 11pt; }
  th { cursor: auto; } figure, table { break-inside: avoid; } .scroll { overflow: visible; } }
"""

_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-value"), y = b.cells[column].getAttribute("data-value");
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def cell_text(value: str) -> str:
    """A table cell's text: shortened to `CELL_CHARS` (the full value is in summary.json),
    control and invisible characters shown as escapes."""
    return text_escape.text(text_escape.shortened(value, CELL_CHARS))


def _cell(value: object, hashes: bool = False) -> str:
    if value is None:
        return '<td data-value="">—</td>'
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f'<td class="num" data-value="{value}">{value}</td>'
    text = escape(cell_text(str(value)))
    klass = ' class="hash"' if hashes else ""
    return f'<td{klass} data-value="{text}">{text}</td>'


def _table(ident: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>"
        + "".join(_cell(v, hashes=c in ("sha256",)) for c, v in zip(columns, row, strict=True))
        + "</tr>"
        for row in rows
    )
    return (
        f'<div class="scroll"><table class="sortable" id="{ident}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _next_steps(steps: Sequence[Mapping[str, str]]) -> str:
    """What to run or read next, right under the bottom line ('' when nothing asks for it)."""
    if not steps:
        return ""
    items = "".join(
        f"<li>{escape(s['evidence'])} ({escape(s['source'])}): {_step(s)}</li>" for s in steps
    )
    return f'<h3>Next steps</h3><ul class="next">{items}</ul>'


def _step(step: Mapping[str, str]) -> str:
    """A step's line, the waiver TOML it holds as `<code class="toml">`, whose whitespace the
    page keeps (report66: prose folds a run of spaces, so the waiver copied from the page
    named another path than the finding's)."""
    toml = step.get("toml")
    if not toml or toml not in step["step"]:
        return escape(step["step"])
    before, _, after = step["step"].partition(toml)
    return f'{escape(before)}<code class="toml">{escape(toml)}</code>{escape(after)}'


def render_html(summary: Mapping[str, Any], plots: Sequence[Plot]) -> str:
    """The whole report.html."""
    verdict = summary["verdict"]
    bottom = summary["bottom_line"]
    klass = "ok" if verdict["ok"] else "fail"
    parts = [
        f"<h1>{escape(summary['title'])}</h1>",
        f'<p class="verdict {klass}">{escape(bottom[0])} (exit {verdict["exit_code"]})</p>',
        '<ul class="bottom">' + "".join(f"<li>{escape(s)}</li>" for s in bottom[1:]) + "</ul>",
        _next_steps(summary["next_steps"]),
        "<h2>Evidence matrix</h2>",
        _matrix(summary["matrix"]),
        f'<p class="legend">{escape(status_legend([r["status"] for r in summary["matrix"]]))}</p>',
        "<h2>Qualifications</h2>",
        "<ul>"
        + (
            "".join(f"<li>{escape(q)}</li>" for q in summary["qualifications"])
            or "<li>none implied by this evidence</li>"
        )
        + "</ul>",
    ]
    if plots:
        parts.append("<h2>Plots</h2>")
        parts += [
            f'<figure id="{p.ident}">{p.svg}<figcaption>{escape(p.title)}</figcaption></figure>'
            for p in plots
        ]
    parts.append("<h2>Artifact hashes</h2>")
    artifacts = summary["artifacts"]
    parts.append(
        _table(
            "table-artifacts",
            ["role", "artifact", "sha256", "bytes", "from"],
            [[a["role"], a["name"], a["sha256"], a["size"], a["source"]] for a in artifacts],
        )
        if artifacts
        else "<p>No artifact was hashed by these documents.</p>"
    )
    for name, data in summary["tables"].items():
        parts.append(f"<h2>{escape(data['title'])}</h2>")
        parts.append(_table(f"table-{name}", data["columns"], data["rows"]))
        if (legend := column_legend(data["columns"])) is not None:
            parts.append(f'<p class="legend">{escape(legend)}</p>')
        if data["rows_omitted"]:
            parts.append(f"<p>… {data['rows_omitted']:,} more rows left out of the bundle.</p>")
    parts.append("<h2>Inputs</h2>")
    parts.append(
        _table(
            "table-inputs",
            ["input", "schema", "sha256", "bytes", "run", "cross-checked"],
            [
                [
                    i["name"],
                    i["schema"],
                    i["sha256"],
                    i["size"],
                    ", ".join(i["run_ids"]) or "—",
                    input_checked(i),
                ]
                for i in summary["inputs"]
            ],
        )
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(summary['title'])}</title><style>{_CSS}</style></head><body>"
        + "\n".join(parts)
        + f"<script>{_SCRIPT}</script></body></html>\n"
    )


def _matrix(rows: Sequence[Mapping[str, Any]]) -> str:
    body = "".join(
        f'<tr><td>{escape(r["evidence"])}</td><td class="status-{escape(r["status"])}">'
        f"{escape(r['status'])}</td><td>{escape(r['finding'])}</td>"
        f"<td>{escape(', '.join(d['label'] for d in r['documents']) or '—')}</td></tr>"
        for r in rows
    )
    return (
        '<div class="scroll"><table id="table-matrix"><thead><tr><th>evidence</th><th>status</th>'
        f"<th>finding</th><th>from</th></tr></thead><tbody>{body}</tbody></table></div>"
    )
