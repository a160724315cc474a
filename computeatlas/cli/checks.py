"""``computeatlas validate --review``: the review flags of :mod:`computeatlas.silicon.checks`."""

from __future__ import annotations

import typer

from computeatlas.catalog import Catalog
from computeatlas.silicon.checks import review


def print_review(catalog: Catalog) -> None:
    """Print the review flags of ``catalog`` (file, field, message), or say there are none."""
    flags = review(catalog)
    if not flags:
        typer.echo("Review: no flags.")
        return
    typer.echo(f"Review: {len(flags)} flag(s) for a person to read (not errors):")
    for flag in flags:
        typer.echo(f"  - {flag}")
