"""`k3diff wheels` (being written)."""

import click


@click.command("wheels")
def wheels() -> int:
    """Not implemented yet."""
    raise click.UsageError("k3diff wheels is not implemented yet")
