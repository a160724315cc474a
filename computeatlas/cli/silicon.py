"""CLI commands for the catalog and the silicon layer: validate, serve, show, list, schema."""

from __future__ import annotations

import functools
import json
import re
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import uvicorn
from rich.table import Table

from computeatlas import catalog as catalog_mod
from computeatlas.catalog import CatalogError
from computeatlas.cli.base import (
    DataOption,
    WideOption,
    app,
    check_out_path,
    fail,
    load_catalog,
    out,
    settings_for,
)
from computeatlas.cli.compare import (
    accelerator_id,  # show accepts ids, aliases and names
)
from computeatlas.cli.startup import port_problem, trusted_proxies_warning
from computeatlas.cli.tables import Footnotes, print_table, say
from computeatlas.cloud import history
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.pages.accelerator import accelerator_view
from computeatlas.pages.cheapest import price_column
from computeatlas.silicon import table as table_mod

if TYPE_CHECKING:
    from computeatlas.catalog import Catalog
    from computeatlas.ledger import RetentionSweeper


@app.command()
def validate(
    data: DataOption = None,
    review: Annotated[
        bool, typer.Option("--review", help="Also list review flags (a newer part below its predecessor …); they never fail.")
    ] = False,
) -> None:
    """Check every data file; list every problem (file, field, text) and exit 1 if any."""
    catalog, problems = catalog_mod.check(settings_for(data=data).data)
    if review:  # review flags are listed, never a failure
        from computeatlas.cli.checks import print_review

        print_review(catalog)
    if problems:
        typer.echo(str(CatalogError(problems)), err=True)
        raise typer.Exit(1)
    counts = ", ".join(f"{len(records)} {name}" for name, records in catalog.collections.items() if records)
    say(out, f"OK: {counts} (data version {catalog.version}).")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    workers: Annotated[int, typer.Option(help="Worker processes.", min=1)] = 1,
    data: DataOption = None,
) -> None:
    """Serve the site and API; refuses to start on invalid data, or when the dataset
    request ledger (and the form's secret beside it) cannot be opened or created.

    Settings come from COMPUTEATLAS_* variables, with --data on top. Before listening it
    deletes dataset requests older than the 365-day retention, and again every hour while
    it runs. X-Forwarded-For and X-Forwarded-Proto are believed only from
    COMPUTEATLAS_TRUSTED_PROXIES (none by default); it warns when that trusts every
    address, and when several workers each count rate limits in memory. A port another
    server holds stops it (exit 1) before it says it is serving. Slow clients are a reverse
    proxy's job (see the README).
    \f
    The settings (:meth:`Settings.from_env`) are built once here and handed to every
    worker's app factory; nothing is passed through the environment. Idle keep-alive
    connections close after ``keep_alive_seconds``; a worker holds at most
    ``max_connections``. See :func:`start_retention`, :func:`rate_limit_warning`,
    :func:`trusted_proxies_warning` and :func:`port_problem`."""
    from computeatlas.web.guard import trusted_networks

    settings = settings_for(data=data)
    catalog = load_catalog(settings)  # fail here, with every problem, before binding a port
    try:
        trusted_networks(tuple(settings.trusted_proxies))
    except ValueError as exc:
        raise fail(f"Not starting: {exc}.", 1) from None
    check_ledger(settings)
    busy = port_problem(host, port)
    if busy:
        raise fail(f"Not starting: {busy}.", 1)
    start_retention(settings)  # expired requests go now, and every hour while this process runs
    for warning in (rate_limit_warning(workers, settings.rate_limit_storage), trusted_proxies_warning(tuple(settings.trusted_proxies))):
        if warning:
            typer.echo(warning, err=True)
    say(out, f"Serving {len(catalog.accelerators)} accelerators on http://{host}:{port}/")
    options: dict[str, Any] = {
        "factory": True,
        "host": host,
        "port": port,
        "log_level": "warning",
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": settings.max_connections,
        "proxy_headers": bool(settings.trusted_proxies),
        "forwarded_allow_ips": list(settings.trusted_proxies),
    }
    if workers == 1:
        uvicorn.run(app_factory(settings, catalog), **options)
        return
    # With several workers uvicorn binds the socket itself with protocol 0, so asyncio never
    # sets TCP_NODELAY on accepted connections and every keep-alive response waits ~40 ms on
    # Nagle's algorithm (Kludex/uvicorn#3149). The same supervisor, with a TCP socket; the
    # factory (a partial of create_app over the settings) is pickled to each worker.
    from uvicorn.supervisors import Multiprocess

    config = TcpConfig(app_factory(settings, catalog), workers=workers, timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS, **options)
    try:
        sock = config.bind_socket()
    except SystemExit:
        raise fail(f"Not starting: cannot listen on {host}:{port}.", 1) from None
    Multiprocess(config, sockets=[sock]).run()


WORKER_HEALTHCHECK_SECONDS = 60
"""Seconds uvicorn's supervisor waits for a worker to answer its health ping before it kills
and replaces the worker. uvicorn's default, 5 s, is shorter than a worker's start (importing
the package and loading the catalog) on a busy machine: the supervisor then killed each new
worker before it could answer, again and again, and ``--workers 2`` served with one."""


def app_factory(settings: Settings, catalog: Catalog | None = None) -> AppFactory:
    """uvicorn's app factory: :func:`create_app` over ``settings`` and ``catalog`` (see
    :class:`AppFactory`)."""
    return AppFactory(settings, catalog)


class AppFactory:
    """A picklable app factory for uvicorn: called, it returns :func:`create_app` over
    ``settings`` and ``catalog``. The one-worker server is handed the catalog ``serve`` has
    just loaded and checked, so it is not loaded twice; a pickled copy (what a spawned worker
    receives) leaves the catalog behind and loads its own from ``settings.data``."""

    def __init__(self, settings: Settings, catalog: Catalog | None = None) -> None:
        self.settings = settings
        self.catalog = catalog

    def __call__(self) -> Any:
        """The app (a FastAPI instance)."""
        from computeatlas.web.app import create_app

        return create_app(self.catalog, self.settings)

    def __reduce__(self) -> tuple[type[AppFactory], tuple[Settings]]:
        return (AppFactory, (self.settings,))


class TcpConfig(uvicorn.Config):
    """uvicorn's config whose shared listening socket says it is TCP, so that asyncio sets
    TCP_NODELAY on every accepted connection (uvicorn binds it with protocol 0)."""

    def bind_socket(self) -> socket.socket:
        """The bound socket, re-read so that its protocol is ``IPPROTO_TCP``."""
        sock = super().bind_socket()
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock = socket.socket(fileno=sock.detach())  # family, type and protocol read from the socket
        return sock


def check_ledger(settings: Settings) -> None:
    """Exit 1 with one line naming the folder (or database) when the ``/data/`` form could
    not work: the ledger cannot be opened or created (:meth:`Ledger.open`), or the form's
    signing secret cannot be read or created (:meth:`FormGuard.from_settings`)."""
    from limits.errors import ConfigurationError

    from computeatlas.ledger import Ledger, LedgerUnavailable, database_url, var_dir
    from computeatlas.web.guard import FormGuard

    hint = "Set COMPUTEATLAS_VAR to a writable folder (or COMPUTEATLAS_DATABASE_URL to a database)"
    try:
        Ledger.open(database_url(settings)).close()
    except LedgerUnavailable as exc:
        raise fail(f"Not starting: the request ledger at {exc.where} cannot be opened or created: {exc.reason}. {hint}.", 1) from None
    try:
        FormGuard.from_settings(settings)
    except OSError as exc:
        raise fail(
            f"Not starting: the form secret in folder {var_dir(settings)} cannot be read or created: {exc.strerror or exc}. "
            f"{hint}, or set COMPUTEATLAS_SECRET.",
            1,
        ) from None
    except (ValueError, ConfigurationError) as exc:  # a short COMPUTEATLAS_SECRET, a bad rate limit or its storage
        raise fail(f"Not starting: {exc}.", 1) from None


def rate_limit_warning(workers: int, storage: str) -> str | None:
    """What to tell the operator when ``workers`` processes each keep their own rate-limit
    counts (``memory://`` storage), else None."""
    if workers <= 1 or not storage.startswith("memory://"):
        return None
    return (
        f"Warning: rate limits are counted separately by each of the {workers} workers (rate-limit storage "
        f"{storage}), so one address may send up to {workers} times the limit. To share one count, leave "
        "COMPUTEATLAS_RATE_LIMIT_STORAGE empty (the ledger's database) or set it to a shared store such as redis://host:6379."
    )


def start_retention(settings: Settings) -> RetentionSweeper:
    """Delete expired requests now (saying how many) and then every hour in a daemon thread
    of this process; return the running :class:`~computeatlas.ledger.RetentionSweeper`.

    A sweep that fails is logged and retried an hour later; it never stops the server.
    """
    from computeatlas.ledger import (
        DEFAULT_RETENTION_DAYS,
        Ledger,
        RetentionSweeper,
        database_url,
    )

    sweeper = RetentionSweeper(functools.partial(Ledger.open, database_url(settings)))
    purged = sweeper.sweep()
    if purged:
        say(out, f"Purged {purged} request(s) older than {DEFAULT_RETENTION_DAYS} days (the retention the form promises).")
    sweeper.start()
    return sweeper


def _cli_option(param: str) -> str:
    """The ``list`` option a table query parameter came from: ``memory_min`` → ``--min memory``."""
    column, _, end = param.rpartition("_")
    if end in ("min", "max") and param in table_mod.RANGE_PARAMS:
        return f"--{end} {column}"
    return "--" + param.replace("_", "-")


def _cli_text(reason: str) -> str:
    """``reason`` with every range parameter it names (``memory_max``) spelled as the option (``--max memory``)."""
    return re.sub(
        r"\b[a-z0-9_]+_(?:min|max)\b", lambda m: _cli_option(m.group(0)) if m.group(0) in table_mod.RANGE_PARAMS else m.group(0), reason
    )


NARROW_LIST = ("memory", "memory_bandwidth", "fp8", "bf16", "price")
"""The columns ``list`` shows below :data:`WIDE_LIST` characters (80 columns, or piped)."""
WIDE_LIST = 110
"""From this terminal width on, ``list`` shows every column."""


@app.command("list")
def list_(
    sort: Annotated[
        str | None,
        typer.Option(help="Sort by a column, '-key' for descending (numbers first, then the rest): " + ", ".join(table_mod.BY_KEY)),
    ] = None,
    vendor: Annotated[str | None, typer.Option(help="Vendor id(s), comma-separated.")] = None,
    availability: Annotated[str | None, typer.Option(help="buy, rent, cloud-only (comma-separated).")] = None,
    workload: Annotated[str | None, typer.Option(help="training, inference, both (comma-separated).")] = None,
    form_factor: Annotated[str | None, typer.Option(help="Form factor(s), comma-separated.")] = None,
    min_: Annotated[list[str] | None, typer.Option("--min", help="COLUMN=VALUE lower bound, e.g. memory=80 or 'memory=80 GB'.")] = None,
    max_: Annotated[list[str] | None, typer.Option("--max", help="COLUMN=VALUE upper bound.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON (figures and prices as numbers, with unit, state and text) instead of a table.")
    ] = False,
    wide: WideOption = False,
    data: DataOption = None,
) -> None:
    """List accelerators with the same filters and sorting as the web table.

    At 80 columns (and when piped) the table shows memory, bandwidth, dense FP8 and BF16
    and the cheapest current on-demand price; a wider terminal, or --wide, adds every
    numeric column and availability. An unknown --sort column exits 2, naming the choices.
    """
    settings = settings_for(data=data)
    catalog = load_catalog(settings)
    params = {
        k: v
        for k, v in {"sort": sort, "vendor": vendor, "availability": availability, "workload": workload, "form_factor": form_factor}.items()
        if v is not None
    }
    numeric = [c.key for c in table_mod.COLUMNS if f"{c.key}_min" in table_mod.RANGE_PARAMS]
    for end, items in (("min", min_ or []), ("max", max_ or [])):
        for item in items:
            column, sep, value = item.partition("=")
            if not sep:
                raise fail(f"--{end} {item!r}: write COLUMN=VALUE, e.g. memory=80")
            if f"{column.strip()}_{end}" not in table_mod.RANGE_PARAMS:
                raise fail(f"--{end} {column.strip()}: no numeric column '{column.strip()}'; choose one of {', '.join(numeric)}")
            params[f"{column.strip()}_{end}"] = value
    try:
        query = table_mod.parse_query(params, catalog)
    except table_mod.QueryError as exc:
        raise fail(f"{_cli_option(exc.param)}: {_cli_text(exc.reason)}") from None
    prices = price_column(catalog, Store(settings.prices_dir), history.utcnow(), settings.freshness_days)
    rows = table_mod.rows(catalog, query, prices)
    if as_json:
        typer.echo(
            json.dumps(
                [{"id": r.accelerator.id} | {c.key: table_mod.json_cell(c, r.cells[c.key]) for c in table_mod.COLUMNS} for r in rows],
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    shown = [c for c in table_mod.COLUMNS if c.sortable_by_number or c.key == "availability"]
    left_out = [] if wide or out.width >= WIDE_LIST else [c for c in shown if c.key not in NARROW_LIST]
    shown = [c for c in shown if c not in left_out]
    title = f"{len(rows)} accelerators (per accelerator; compute dense; price: cheapest current on-demand, {table_mod.PRICE_UNIT})"
    if left_out:
        title += f"; {', '.join(c.heading for c in left_out)} left out at this width: --wide shows them"
    grid = Table(title=title, show_lines=False)
    grid.add_column("id", no_wrap=True)
    for shown_column in shown:
        heading = "Price (USD/h)" if shown_column.key == "price" else shown_column.heading
        grid.add_column(heading, justify="right" if shown_column.sortable_by_number else "left")
    for r in rows:
        grid.add_row(r.accelerator.id, *(r.cells[c.key].text for c in shown))
    print_table(out, grid, wide=wide)


@app.command()
def show(
    ident: Annotated[str, typer.Argument(help="Accelerator id, alias or name, e.g. aws-trainium-3 or Trn3.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON instead of a table.")] = False,
    wide: WideOption = False,
    data: DataOption = None,
) -> None:
    """Show one accelerator: every spec with its state, basis and source."""
    settings = settings_for(data=data)
    catalog = load_catalog(settings)
    view = accelerator_view(
        catalog,
        catalog.accelerators[accelerator_id(catalog, ident)],  # ids, aliases, names
        store=Store(settings.prices_dir),
        now=history.utcnow(),
        freshness_days=settings.freshness_days,
    )
    if as_json:
        out.print_json(view.model_dump_json())
        return
    say(out, f"{view.name} — {view.vendor} · {view.family} · {view.availability}")
    say(out, view.summary)
    if view.glance is not None:
        say(out, f"Price: {view.glance.price.text}")
        say(out, f"The catch: {view.glance.catch}")
    grid, notes = Table(show_lines=False), Footnotes()
    for heading in ("spec", "state", "value", "basis", "sparse (2:4 or as noted)", "source"):
        grid.add_column(heading)
    for spec in view.specs:
        value = spec.primary.display if spec.state.value in ("published", "published_as_text") else (spec.published_text or "")
        if spec.memory_type:
            value += f" {spec.memory_type}"
        if spec.disputed:
            value += " (disputed: " + "; ".join(o.display for o in spec.other_claims) + ")"
        src = spec.primary.source
        grid.add_row(
            spec.label,
            spec.state_label,
            value,
            spec.primary.basis or "",
            spec.sparse.value if spec.sparse else "",
            f"{src.publisher} {notes.cite(src.url)}" if src else "",
        )
    print_table(out, grid, wide=wide)
    notes.print(out)
    say(out, f"Verified {view.verified} · from {view.data_file} · data version {view.data_version}")


@app.command()
def schema(out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the JSON Schema files to.")] = Path("schema")) -> None:
    """Write the JSON Schema of the data files, generated from the records.

    Exits 2 when ``--out`` is a file (or under one), 1 when the system refuses to write it.
    """
    from computeatlas.publish.schema import write_schemas

    check_out_path("--out", out_dir, folder=True)

    for path in write_schemas(out_dir):
        say(out, f"wrote {path}")
