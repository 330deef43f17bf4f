"""`k3diff responses` (being written)."""

import click


@click.command("responses")
def responses() -> int:
    """Not implemented yet."""
    raise click.UsageError("k3diff responses is not implemented yet")
