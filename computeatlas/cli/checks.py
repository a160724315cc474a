"""``computeatlas validate --review``: the review flags of :mod:`computeatlas.silicon.checks`."""

from __future__ import annotations

from computeatlas.catalog import Catalog
from computeatlas.cli.base import out
from computeatlas.cli.tables import say
from computeatlas.silicon.checks import review


def print_review(catalog: Catalog) -> None:
    """Print the review flags of ``catalog`` (file, field, message), or say there are none."""
    flags = review(catalog)
    if not flags:
        say(out, "Review: no flags.")
        return
    say(out, f"Review: {len(flags)} flag(s) for a person to read (not errors):")
    for flag in flags:
        say(out, f"  - {flag}", indent="    ")
