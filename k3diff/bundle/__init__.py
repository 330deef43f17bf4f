"""`k3diff report`: the evidence bundle a reviewer hands on.

inputs.py    reads the documents the other commands wrote, recognised by their `schema`
facts.py     the bottom line, evidence matrix and qualifications, derived from the verdicts
summary.py   `summary.json` (`k3diff.report/1`): every number the Markdown and HTML show
plots.py     matplotlib figures as inline SVG
markdown.py  REPORT.md
html.py      report.html: one self-contained, printable file
write.py     writes the three files as a set
"""

from k3diff.bundle.write import build_bundle

__all__ = ["build_bundle"]
