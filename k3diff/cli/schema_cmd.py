"""`k3diff schema [NAME]`: print a document's JSON Schema, or list the documents."""

from __future__ import annotations

import click

from k3diff.cli.summaries import SUMMARIES
from k3diff.documents.catalog import NAMES, schema_id, schema_text
from k3diff.exitcodes import ExitCode
from k3diff.output import emit, short_verdict


@click.command("schema", short_help=SUMMARIES["schema"])
@click.argument("name", required=False, metavar="[NAME]", type=click.Choice(NAMES))
def schema_command(name: str | None) -> int:
    """Print the JSON Schema (draft 2020-12) of the JSON document NAME, so a pipeline can
    validate what it reads; with no NAME, list the documents and their schema ids. NAME is one
    of wheels, wheelset, responses, samples, sample, triage, audit, report, logs, telemetry.

    `samples` describes each line of a samples.jsonl log (the header, a resume marker or a
    sample); the others describe a whole document.

    \b
    Examples:
      k3diff schema
      k3diff schema wheels > wheels.schema.json
      check-jsonschema --schemafile wheels.schema.json report.json
    """
    if name is None:
        width = max(map(len, NAMES))
        text = "".join(f"{n:<{width}}  {schema_id(n)}\n" for n in NAMES)
    else:
        text = schema_text(name)
    emit(text, None, short_verdict(ExitCode.OK))
    return int(ExitCode.OK)
