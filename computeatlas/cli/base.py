"""The Typer app and what every command shares: loading the catalog, finding a part, consoles.

Every command is a thin layer over the Python API: it loads the catalog through
:func:`computeatlas.catalog.load`, calls the library and prints what it returns; errors
are one clear message on stderr and a non-zero exit code (1: bad data, 2: bad input).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from computeatlas import catalog as catalog_mod
from computeatlas.catalog import Catalog, CatalogError
from computeatlas.resolve import ResolveError, resolve_id

app = typer.Typer(
    name="computeatlas",
    help="Compute Atlas: a sourced, verified reference for AI accelerators.",
    no_args_is_help=True,
    add_completion=False,
)
out = Console(soft_wrap=False)
err = Console(stderr=True)

DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Data folder (default: $COMPUTEATLAS_DATA or the bundled data/)."),
]


def load_catalog(data: Path | None) -> Catalog:
    """Load the catalog or exit 1 printing every problem."""
    try:
        return catalog_mod.load(data)
    except CatalogError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` on stderr and return the Exit to raise (``raise fail(...)``)."""
    typer.echo(message, err=True)
    return typer.Exit(code)


def find_accelerator_id(catalog: Catalog, name: str) -> str:
    """The id that ``name`` (an id, alias or name) resolves to, by :func:`computeatlas.resolve.resolve_id`;
    else exit 2 listing the candidates (ambiguous) or the closest ids (unknown)."""
    try:
        return resolve_id(catalog, name)
    except ResolveError as exc:
        raise fail(exc.message) from None
