"""REPORT.md: bottom line, evidence matrix, qualifications, artifact hashes, tables.

Rendered from the summary document only, so it says exactly what `summary.json` holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from k3diff import escape
from k3diff.bundle.model import status_legend
from k3diff.bundle.triagetable import column_legend
from k3diff.docbody import Kind
from k3diff.documents.read import EVERY_LINE
from k3diff.report.markdown import cell as markdown_cell
from k3diff.report.markdown import escape_inline, inline_code

CELL_CHARS = 200
"""Characters of one table cell (with the ellipsis) in REPORT.md and report.html: a report's
size follows its record count, not its key lengths; summary.json holds every value whole."""
ROWS_SHOWN = 50
"""Rows of a table shown in Markdown; the rest are in summary.json and report.html."""


def cell(value: object, limit: int | None = CELL_CHARS) -> str:
    """A table cell: pipes escaped, line breaks flattened, None as an em dash, at most `limit`
    characters (None: k3diff's own sentence, whole)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = " ".join(str(value).split())
    return markdown_cell(text if limit is None else escape.shortened(text, limit))


def table(
    columns: Sequence[str], rows: Sequence[Sequence[object]], limit: int | None = CELL_CHARS
) -> list[str]:
    """A GitHub-flavoured Markdown table, each cell at most `limit` characters."""
    lines = ["| " + " | ".join(cell(c) for c in columns) + " |"]
    lines.append("|" + "|".join("---" for _ in columns) + "|")
    lines += ["| " + " | ".join(cell(v, limit) for v in row) + " |" for row in rows]
    return lines


def input_checked(entry: Mapping[str, Any]) -> str:
    """An input's cell under `cross-checked` (REPORT.md, report.html; `summary.json`'s
    `inputs[]`): what was checked, `every line checked` for a samples log (polish62)."""
    if entry.get("judged_alone"):
        return "no (judged alone)"
    if not entry["cross_checked"]:
        return "no"
    return EVERY_LINE if entry["schema"] == Kind.SAMPLES.value else "yes"


def _step(step: Mapping[str, str]) -> str:
    """A step as prose, the waiver TOML it holds as inline code: pasted from the file or the
    rendered page, the same TOML (report66: as prose its brackets and underscores were
    backslash-escaped, and a rendered page folded a path's run of spaces)."""
    toml = step.get("toml")
    if not toml or toml not in step["step"]:
        return escape_inline(step["step"])
    before, _, after = step["step"].partition(toml)
    return f"{escape_inline(before)}{inline_code(toml)}{escape_inline(after)}"


def render_markdown(summary: Mapping[str, Any]) -> str:
    """The whole REPORT.md."""
    verdict = summary["verdict"]
    bottom = summary["bottom_line"]
    lines = [f"# {escape_inline(summary['title'])}", "", "## Bottom line", ""]
    lines.append(f"**{escape_inline(bottom[0])}** (exit {verdict['exit_code']})")
    lines += [""] + [f"- {escape_inline(sentence)}" for sentence in bottom[1:]]
    if summary["next_steps"]:
        lines += ["", "### Next steps", ""]
        lines += [
            f"- {escape_inline(s['evidence'])} ({escape_inline(s['source'])}): {_step(s)}"
            for s in summary["next_steps"]
        ]
    lines += ["", "## Evidence matrix", ""]
    lines += table(
        ["evidence", "status", "finding", "from"],
        [
            [
                row["evidence"],
                row["status"],
                row["finding"],
                ", ".join(d["label"] for d in row["documents"]) or None,
            ]
            for row in summary["matrix"]
        ],
        limit=None,  # k3diff's own findings, whole (input labels in them are short names)
    )
    lines += ["", escape_inline(status_legend([row["status"] for row in summary["matrix"]]))]
    lines += ["", "## Qualifications", ""]
    lines += [f"- {escape_inline(q)}" for q in summary["qualifications"]] or [
        "- none implied by this evidence"
    ]
    if summary["missing"]:
        lines += ["", "Missing evidence (made by; `k3diff` is your k3diff install):", ""]
        lines += [
            f"- {escape_inline(m['evidence'])}: {inline_code(m['made_by'])}"
            for m in summary["missing"]
        ]
    lines += ["", "## Artifact hashes", ""]
    if summary["artifacts"]:
        lines += table(
            ["role", "artifact", "sha256", "bytes", "from"],
            [
                [a["role"], a["name"], a["sha256"], a["size"], a["source"]]
                for a in summary["artifacts"]
            ],
        )
    else:
        lines.append("No artifact was hashed by these documents.")
    for name, data in summary["tables"].items():
        lines += ["", f"## {escape_inline(data['title'])}", ""]
        rows = data["rows"]
        lines += table(data["columns"], rows[:ROWS_SHOWN])
        if (legend := column_legend(data["columns"])) is not None:
            lines += ["", escape_inline(legend)]
        lines += _hidden_rows(name, len(rows) - min(len(rows), ROWS_SHOWN), data["rows_omitted"])
    lines += ["", "## Inputs", ""]
    lines += table(
        ["input", "schema", "sha256", "bytes", "run", "cross-checked"],
        [
            [
                i["name"],
                i["schema"],
                i["sha256"],
                i["size"],
                ", ".join(i["run_ids"]) or None,
                input_checked(i),
            ]
            for i in summary["inputs"]
        ],
    )
    return "\n".join(lines) + "\n"


def _hidden_rows(name: str, in_summary: int, left_out: int) -> list[str]:
    """Where a table's rows past those shown are: summary.json keeps some, the bundle none of
    the rest (newuser79b: "99,950 more rows in summary.json" for a file holding 950 of them)."""
    parts = [f"{in_summary:,} more rows in summary.json (`tables.{name}`)"] if in_summary else []
    if left_out:
        parts.append(f"{left_out:,} more left out of the bundle, in the documents given")
    return ["", f"… {'; '.join(parts)}."] if parts else []
