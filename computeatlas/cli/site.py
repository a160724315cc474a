"""CLI command for the static build: ``computeatlas build OUT``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from computeatlas.build import links, paths
from computeatlas.build import static as site
from computeatlas.cli.base import (
    DataOption,
    app,
    check_out_path,
    fail,
    load_catalog,
    out,
    settings_for,
)
from computeatlas.cli.tables import say


@app.command()
def build(
    out_dir: Annotated[Path, typer.Argument(help="Folder to write the site to (created; emptied if an earlier build made it).")],
    base_path: Annotated[
        str | None,
        typer.Option(
            "--base-path", help="URL path the site is served from, e.g. /atlas/ (default: $COMPUTEATLAS_BASE_PATH, else the root)."
        ),
    ] = None,
    site_url: Annotated[
        str | None,
        typer.Option(
            "--site-url",
            help="Public origin for canonical URLs, the sitemap and the feed, e.g. https://atlas.example.org (default: $COMPUTEATLAS_PUBLIC_ORIGIN, else http://127.0.0.1:8000).",
        ),
    ] = None,
    live_url: Annotated[
        str | None,
        typer.Option(
            "--live-url",
            help="An http(s) address of a running server (computeatlas serve) for what a static host cannot do: the /data/ request form, comparisons of any parts and the estimate go there, and so do links to pages not built. Without it those forms are replaced by what was built and a note; search works from a prebuilt index either way.",
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check/--no-check",
            help="Walk every internal link and form of the build afterwards; exit 1 if a link is dead, a form cannot be answered by the page it leads to, or a page is blank.",
        ),
    ] = True,
    data: DataOption = None,
) -> None:
    """Render the whole site (pages, API JSON, exports, charts, sitemap, feed, robots.txt, 404) as static files.

    The settings (:meth:`Settings.from_env`) give the defaults of ``--base-path``,
    ``--site-url`` and ``--data``. Exits 2 on a bad --base-path, --site-url or --live-url
    (http or https only), a malformed setting or an OUT that is a file; 1 when the build
    fails, a link is dead, or the system refuses to write OUT.
    """
    settings = settings_for(data=data)
    site_url = site_url if site_url is not None else settings.public_origin
    try:
        base = paths.normalise_base_path(base_path if base_path is not None else settings.base_path)
        paths.site_origin(site_url)
        live_url = paths.normalise_live_url(live_url)
    except ValueError as exc:
        raise fail(f"{exc}.") from None
    check_out_path("OUT", out_dir, folder=True)
    catalog = load_catalog(settings)
    try:
        with Progress(
            TextColumn("Building"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=out,
            transient=False,
        ) as progress:
            task = progress.add_task("", total=None)

            def step(done: int, total: int, url: str) -> None:
                progress.update(task, completed=done, total=total, description=url)

            result = site.build(catalog, out_dir, base, site_url=site_url, live_url=live_url, on_progress=step, settings=settings)
    except ValueError as exc:
        raise fail(str(exc)) from None
    except site.BuildError as exc:
        raise fail(str(exc), code=1) from None
    rate = result.pages / result.seconds if result.seconds else 0.0
    say(out, f"Wrote {result.pages} files to {result.out_dir} in {result.seconds:.1f} s ({rate:.0f} pages/s), for {result.site_url}")
    if result.live:
        say(out, f"{len(result.live)} link(s) and form(s) go to the live server {live_url}.")
    if check:
        dead = links.dead_links(result.out_dir, base, site_url) + [
            f"{p} (sent to the live server, which does not serve it)" for p in result.live_dead
        ]
        if dead:
            for link in dead:
                typer.echo(f"dead link: {link}", err=True)
            raise fail(f"{len(dead)} dead link(s), unanswerable form(s) or blank page(s) in the build.", code=1)
        say(out, "Every internal link leads to a file, every form to a page that answers it, and no page is blank.")
