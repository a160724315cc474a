"""``computeatlas prices collect``: the providers' own price sources, each into its own run.

Thin over :func:`computeatlas.cloud.collection.collect_sources`: a progress bar per source,
then one summary line per source (result, rows read, accepted, held, held by rule, seconds)
and the error or the reason of any that failed, was skipped or was held. Exit status: 0 when
every source named was imported or skipped; 1 when one failed or was held (the others are
still collected and stored); 2 for an unknown collector or no collector named.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from computeatlas.cli.base import DataOption, PricesOption, err, fail, load_catalog, out, settings_for
from computeatlas.cli.cloud import prices_app
from computeatlas.cli.tables import print_table
from computeatlas.cloud.bounds import sibling_map
from computeatlas.cloud.collection import SOURCES, Outcome, collect_sources, names_of
from computeatlas.cloud.collectors.base import Progress as RowsRead
from computeatlas.cloud.instances import instance_table
from computeatlas.cloud.publication_check import PublicationCheck
from computeatlas.cloud.rules import Limits
from computeatlas.cloud.runs import rates_of


def _waiting(lock: str) -> None:
    err.print(
        f"another import or collection is writing to this store (lock {lock}): waiting for it to finish …", markup=False, highlight=False
    )


def _print(outcomes: list[Outcome]) -> None:
    grid = Table(title="Collection")
    for column in ("source", "result", "rows read", "accepted", "held", "held by rule", "seconds"):
        grid.add_column(column, justify="right" if column in ("rows read", "accepted", "held", "seconds") else "left")
    for o in outcomes:
        a = o.attempt
        rules = ", ".join(f"{k} {v}" for k, v in o.summary.held_by_rule.most_common()) if o.summary else ""
        grid.add_row(a.source, a.result, str(a.rows_read), str(a.accepted), str(a.held), rules, f"{a.seconds:.1f}")
    print_table(out, grid)
    for o in outcomes:
        a = o.attempt
        if a.error:
            err.print(f"{a.source} failed, nothing stored from it: {a.error}", markup=False, highlight=False)
        elif a.reason:
            err.print(f"{a.source} {a.result}: {a.reason}", markup=False, highlight=False)
        for warning in o.warnings:
            err.print(f"warning: {warning}", markup=False, highlight=False)


@prices_app.command("collect")
def collect(
    names: Annotated[list[str] | None, typer.Argument(metavar="[NAME]...", help="Collectors: " + ", ".join(SOURCES) + ".")] = None,
    every: Annotated[bool, typer.Option("--all", help="Every collector.")] = False,
    publish: Annotated[
        bool,
        typer.Option(
            "--publish",
            help="Publish this collection without the checks before publication (after a run was held "
            "because the source's prices really moved): the integrity rules still decide every row.",
        ),
    ] = False,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """Collect current prices from the providers' own price sources, each source into its own
    import run (placed through the instance table and checked by the integrity rules). A source
    that fails stores nothing and never stops the others; every attempt is recorded in the
    store (`prices status`). A collector that needs a setting it lacks (gcp:
    COMPUTEATLAS_GCP_API_KEY) is skipped, saying so. A run that would drop more than half its
    source's current offers, or move their median price more than
    COMPUTEATLAS_COLLECTION_MEDIAN_FACTOR times, is held whole (`prices held`); the previous
    run stays current; once the operator has checked that the move is real, `--publish` runs the
    named collectors without that check, once."""
    if not every and not names:
        raise fail("name the collectors to run, or give --all; available: " + ", ".join(SOURCES))
    unknown = [n for n in names or [] if n not in SOURCES]
    if unknown:
        raise fail(f"unknown collector {unknown[0]!r}; available: {', '.join(SOURCES)}")
    settings = settings_for(data=data, prices=prices)
    catalog = load_catalog(data)
    if publish and every:
        raise fail("--publish skips the checks before publication for the collectors you name: name them, not --all")
    check = (
        None
        if publish
        else PublicationCheck(
            instance_table(catalog),
            rates_of(settings),
            Limits.of(settings),
            settings.collection_median_factor,
            sibling_map(catalog.accelerators.values()),
        )
    )
    with Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed} rows"), TimeElapsedColumn(), console=err
    ) as bar:

        def progress(name: str) -> RowsRead:
            task = bar.add_task(f"collecting {name}", total=None)
            return lambda n: bar.advance(task, n)

        outcomes = collect_sources(names_of(names or [], every), settings, catalog, check=check, progress=progress, on_wait=_waiting)
    _print(outcomes)
    if any(o.attempt.result in ("failed", "held") for o in outcomes):
        raise typer.Exit(1)
