"""The static build: the whole site as files for any static host or CDN.

:func:`build` renders the app's own routes in-process (:class:`~computeatlas.build.asgi.LocalClient`
calls the ASGI app as a server would: the same handlers, templates and cache as the live
site, no second renderer) and writes each response to a file. The URLs rendered are exactly every layer's
``static_paths(catalog)`` (see :mod:`computeatlas.web.routes`), plus ``/404.html``.

Where a URL goes (relative to the output folder)
    ==========================================  ====================================
    ``/`` and ``/silicon/``                     ``index.html``, ``silicon/index.html``
    ``/silicon/aws-trainium-3`` (HTML, no ext.)  ``silicon/aws-trainium-3/index.html``
    ``/api/accelerators/aws-trainium-3`` (JSON)  ``api/accelerators/aws-trainium-3.json``
    ``/charts/memory-bandwidth.svg`` (has ext.)  ``charts/memory-bandwidth.svg``
    a redirect (``/silicon/Trn3``)               an HTML page with a meta refresh and a canonical link
    ``/static/...``                              copied from ``computeatlas/web/static``
    ==========================================  ====================================

A page is published at its directory URL (``/silicon/aws-trainium-3/``) and a JSON
document at its ``.json`` file, because ``/api/accelerators`` is both a document and
the folder of every accelerator's document.

Links and a sub-path
    Nothing is rewritten after rendering. Every link comes from the URL registry
    (:class:`computeatlas.core.urls.Urls`), and the build renders with one that knows the
    base path and, before rendering, the URL each built path's file will be served at
    (:func:`expected_type`, :func:`file_for`, :func:`public_url`); canonical links, the
    sitemap, the feed and robots.txt come from the same registry on ``site_url``, and so do
    the ``…url`` fields of JSON documents (:func:`computeatlas.web.page.linked`). So ``--base-path /atlas/`` gives a
    site that works from ``https://host/atlas/``, and a link to a page that was not built
    stays visible to :func:`dead_links`. Query strings are kept (a static host ignores
    them; the page's script reads them: ``/silicon/?sort=memory`` is sorted in the browser).

What a static host cannot do
    A static host serves files: it ignores a query string and cannot take a post. So the
    static site answers what it can from files and says so where it cannot, never showing
    a blank page: search runs in the browser over a prebuilt index (``/api/search-index``,
    ``static/search.js``); the silicon table's filters and sorting run in the browser over
    the rows the page holds (``static/table.js``, by the rules of
    :mod:`computeatlas.silicon.table`); the curated comparisons are prebuilt (pages and
    JSON), and any other pair of catalogued parts is laid out in the browser from the two
    parts' prebuilt comparison columns (``/api/compare/parts/{id}``, see
    :mod:`computeatlas.pages.comparison_columns`) by ``static/compare.js`` on the 404 page,
    which a static host serves for it; without JavaScript, or for an address the columns do
    not answer (a curated pair not built, an alias), the 404 page says the pair was not
    built, listing the built ones and the pair on ``live_url`` (``static/notfound.js``); every other name the app
    redirects (a part's aliases, the other order of a curated pair:
    :func:`computeatlas.web.routes.redirect_paths`) is a redirect page. And the
    forms that need a server (a comparison of any parts, the estimate, the dataset
    request) go to ``live_url`` when one is given (a running ``computeatlas serve``, e.g.
    ``https://live.atlas.example.org``) and otherwise are replaced by what was built and
    a plain note (see :meth:`computeatlas.core.urls.Urls.form`). With ``live_url``, every
    link to a path that was not built goes there too, and the build asks the app for each
    such path and lists any it does not serve in :attr:`BuildResult.live_dead`. The table's
    filter form goes to the live server when there is one; sorting by a heading, and the
    form without one, stay on the static page. :func:`computeatlas.build.links.dead_links`
    fails a build with a link to no file, a form the static page cannot answer, or a blank
    page.

``site_url`` is the public origin (``https://atlas.example.org``): canonical URLs, the
sitemap and the feed need absolute addresses.
"""

from __future__ import annotations

import html
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from computeatlas.build.asgi import LocalClient, run
from computeatlas.build.paths import (
    file_for,
    normalise_base_path,
    normalise_live_url,
    public_url,
    site_origin,
)
from computeatlas.catalog import Catalog
from computeatlas.core.settings import Settings
from computeatlas.core.urls import Urls, site_path

MARKER = ".computeatlas-build"
"""File left in every output folder; the build only clears a non-empty folder that has it."""
NOT_FOUND = "/404.html"
DEFAULT_SITE_URL = "http://localhost:8000"
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"


class BuildError(Exception):
    """The build could not finish: ``problems`` lists each URL that failed and why."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) building the site:\n" + "\n".join(f"  - {p}" for p in problems))


@dataclass
class BuildResult:
    """What a build wrote: ``files`` maps each rendered URL to its file (relative to ``out_dir``)."""

    out_dir: Path
    base_path: str
    site_url: str
    files: dict[str, str] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    live: list[str] = field(default_factory=list)
    live_dead: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def pages(self) -> int:
        """Files rendered from routes (redirect pages included; copied static assets not)."""
        return len(self.files) + len(self.redirects)


def _prepare(out_dir: Path) -> None:
    if out_dir.exists():
        if not out_dir.is_dir():
            raise BuildError([f"{out_dir} exists and is not a folder"])
        if any(out_dir.iterdir()):
            if not (out_dir / MARKER).exists():
                raise BuildError([f"{out_dir} is not empty and was not made by a build; choose an empty or new folder"])
            for child in out_dir.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)


def redirect_page(target: str, origin: str) -> str:
    """The page a static host serves for a redirect to ``target`` (the ``Location`` the app
    answered: a root-absolute path, or an absolute URL): a meta refresh to it, a
    ``<link rel="canonical">`` to it on ``origin`` (``https://host``), and a plain link for a
    browser that does not follow the refresh."""
    absolute = origin + target if target.startswith("/") and not target.startswith("//") else target
    safe, canonical = html.escape(target, quote=True), html.escape(absolute, quote=True)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Moved</title>'
        f'<meta http-equiv="refresh" content="0; url={safe}"><link rel="canonical" href="{canonical}">'
        f'<meta name="robots" content="noindex"></head><body><p>This page moved to <a href="{safe}">{canonical}</a>.</p></body></html>\n'
    )


def build(
    catalog: Catalog,
    out_dir: Path | str,
    base_path: str = "",
    *,
    site_url: str = DEFAULT_SITE_URL,
    live_url: str | None = None,
    paths: Iterable[str] | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    settings: Settings | None = None,
) -> BuildResult:
    """Render the site for ``catalog`` into ``out_dir``, to be served from ``base_path`` on ``site_url``.

    ``live_url`` is a running server for what a static host cannot do (see the module doc).
    ``settings`` (default :meth:`Settings.from_env`) configure the app that renders the
    pages; its public origin is ``site_url``.
    ``paths`` defaults to every layer's ``static_paths`` and every redirect the app answers
    for another name of a page (:func:`computeatlas.web.routes.redirect_paths`: a part's
    aliases, ``/data`` without its slash), each written as a redirect page; ``on_progress(done, total, url)``
    is called after each URL (the CLI draws a rich progress bar with it). ``out_dir`` is
    created, or emptied if an earlier build made it; any other non-empty folder is refused.

    Raises :class:`BuildError` listing every URL that did not answer 200 (or a redirect),
    and ``ValueError`` for a bad ``base_path``, ``site_url`` or ``live_url`` (see
    :func:`normalise_live_url`).
    """
    from computeatlas.web.app import create_app
    from computeatlas.web.routes import all_paths, redirect_paths

    started = time.perf_counter()
    base = normalise_base_path(base_path)
    origin = site_origin(site_url)
    live_url = normalise_live_url(live_url)
    out = Path(out_dir)
    settings = (settings if settings is not None else Settings.from_env()).model_copy(update={"public_origin": origin, "base_path": base})
    wanted = _one_per_file(paths if paths is not None else [*all_paths(catalog, settings), *redirect_paths(catalog)])
    _prepare(out)

    # Every page links to the files of this build (or the live server) as it is rendered:
    # the registry knows, before rendering, where each built path's file will be served.
    urls = Urls(base, origin, files={p: public_url(file_for(p, expected_type(p))) for p in [*wanted, NOT_FOUND]}, live=live_url)
    client = LocalClient(create_app(catalog, settings, urls), origin)
    responses, redirects, live, live_dead = run(_render, client, base, wanted, urls, out, on_progress)
    _write(out, responses, redirects, origin)
    shutil.copytree(STATIC_DIR, out / "static", dirs_exist_ok=True)
    (out / MARKER).write_text(f"data version {catalog.version}\n", encoding="utf-8")
    return BuildResult(
        out_dir=out,
        base_path=base,
        site_url=origin + base + "/",
        files={path: file_for(path, kind) for path, (kind, _) in responses.items()},
        redirects={p: file_for(p, "text/html") for p in redirects},
        live=live,
        live_dead=live_dead,
        seconds=time.perf_counter() - started,
    )


async def _render(
    client: LocalClient, base: str, wanted: list[str], urls: Urls, out: Path, on_progress: Callable[[int, int, str], None] | None
) -> tuple[dict[str, tuple[str, bytes]], dict[str, str], list[str], list[str]]:
    """Ask the app for every ``wanted`` path and ``/404.html``, write the answers under ``out``,
    then ask for each path sent to the live server; raises :class:`BuildError` listing every
    path that did not answer as expected. The caller writes the answers (:func:`_write`)."""
    responses: dict[str, tuple[str, bytes]] = {}
    redirects: dict[str, str] = {}
    problems: list[str] = []
    total = len(wanted) + 1
    async with client.running():
        for done, path in enumerate([*wanted, NOT_FOUND], start=1):
            response = await client.get(base + path)
            expected = 404 if path == NOT_FOUND else 200
            kind = response.headers.get("content-type", "application/octet-stream")
            if response.status_code == expected:
                responses[path] = (kind, response.content)
                if file_for(path, kind) != file_for(path, expected_type(path)):
                    problems.append(f"{path}: answered {kind.split(';')[0]}, so its file is not where links point")
            elif response.is_redirect and path != NOT_FOUND:
                redirects[path] = response.headers["location"]
            else:
                problems.append(f"{path}: HTTP {response.status_code}")
            if on_progress is not None:
                on_progress(done, total, path)
        if problems:
            raise BuildError(problems)
        # Paths sent to the live server must be ones it serves (a redirect or a 405 for a
        # form's GET counts as served; a 404 does not).
        live = sorted(urls.sent_live)
        live_dead = [p for p in live if (await client.get(base + p)).status_code == 404]
    return responses, redirects, live, live_dead


def _one_per_file(paths: Iterable[str]) -> list[str]:
    """``paths`` once each, and only the first of several written to the same file: ``/data``
    (a redirect) and ``/data/`` (the page) are both ``data/index.html``, and a static host
    already sends ``/data`` to the folder ``/data/``."""
    by_file: dict[str, str] = {}
    for path in paths:
        by_file.setdefault(file_for(path, expected_type(path)), path)
    return list(by_file.values())


def expected_type(path: str) -> str:
    """The content type the route at ``path`` answers with: JSON under ``/api/`` (except the
    API reference page), else HTML (a path with a file extension keeps its own name anyway)."""
    return "application/json" if path.startswith("/api/") and path != site_path("api_docs") else "text/html"


def _write(out: Path, responses: dict[str, tuple[str, bytes]], redirects: dict[str, str], origin: str) -> None:
    """Write every response as rendered, and a page for every redirect (:func:`redirect_page`, on ``origin``)."""
    for path, (content_type, body) in responses.items():
        kind = content_type.split(";", 1)[0].strip().lower()
        target = out / file_for(path, kind)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    for path, location in redirects.items():
        target = out / file_for(path, "text/html")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(redirect_page(location, origin), encoding="utf-8")


__all__ = ["BuildError", "BuildResult", "build", "expected_type", "redirect_page"]
