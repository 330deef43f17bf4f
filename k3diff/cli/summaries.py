"""Each command's short help: what `k3diff --help` lists beside it, whole (click would cut a
long first sentence mid-way with "..."), read here without importing the commands."""

from __future__ import annotations

SUMMARIES = {
    "audit": "Audit release wheels and files: RECORD, soundness, hashes.",
    "logs": "Scan both servers' logs for errors, crashes and restarts.",
    "report": "Write the evidence bundle from the other commands' results.",
    "responses": "Compare base and patch captured responses record by record.",
    "sample": "Send each prompt REPEATS times per server; log every sample.",
    "schema": "Print a JSON document's schema, or list the documents.",
    "telemetry": "Summarise what the servers reported about a sampled run.",
    "triage": "Classify each record of a comparison from sampled runs.",
    "wheels": "Compare two wheels, or two release sets, entry by entry.",
}
"""Subcommand name -> its `short_help` (each command passes its own to `click.command`), at
most 60 characters: one line beside the name at 80 columns."""
