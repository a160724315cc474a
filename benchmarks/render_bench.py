"""The static build against a plain Jinja2 loop over the same pages (the floor of Python rendering).

Run alone: ``.venv/bin/python benchmarks/render_bench.py`` (``make bench`` runs it too).

Three ways to produce the silicon pages (``/silicon/`` and one page per accelerator, the
pages whose count grows with the catalog), each ``RUNS`` times in this process after one
untimed warm-up (vl-convert's start-up and the chart cache are paid there):

Wall and CPU time are recorded; CPU time (this process only) is what other processes on
a shared machine cannot inflate.

- ``site.build(paths=…)``: the static build of exactly those pages (in-process requests
  through the ASGI app, the page cache, link rewriting, writing the files, copying
  ``/static/`` and the 404 page);
- a Jinja2 loop that builds each page's context with the same functions the handlers call
  (``table.rows``, ``accelerator_view``, ``citation``, ``silicon_charts``), renders the same
  templates from the same environment and writes the files; no HTTP, no app;
- the same loop rendering contexts built beforehand: template work and writing only.

Before timing, the loop's HTML for every page is checked byte for byte against the app's
response for the same URL, so the loop renders the same pages and not a cheaper variant.
The whole site (every layer, every file) is built too, for scale.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from starlette.datastructures import URL, QueryParams

from computeatlas import load
from computeatlas.build import static as site
from computeatlas.build.paths import file_for
from computeatlas.catalog import Catalog
from computeatlas.cloud import history
from computeatlas.cloud.runs import rates_of
from computeatlas.cloud.store import Store
from computeatlas.core.citation import citation
from computeatlas.core.settings import Settings
from computeatlas.core.urls import Urls
from computeatlas.pages.accelerator import accelerator_view
from computeatlas.silicon import table
from computeatlas.web.app import templates
from computeatlas.web.silicon import index_context

ORIGIN = "http://localhost:8000"
SETTINGS = Settings(public_origin=ORIGIN)
URLS = Urls(SETTINGS.base_path, SETTINGS.public_origin)
RUNS = 7
FULL_RUNS = 3


def silicon_paths(catalog: Catalog) -> list[str]:
    return ["/silicon/", *(f"/silicon/{ident}" for ident in catalog.accelerators)]


def _request(path: str) -> Any:
    """What the templates read of a request: its URL (canonical link), query parameters, and the
    app's settings (the price-chart links ask the store whether a part was observed)."""
    return SimpleNamespace(
        url=URL(ORIGIN + path), query_params=QueryParams(""), app=SimpleNamespace(state=SimpleNamespace(settings=SETTINGS))
    )


def contexts(catalog: Catalog) -> list[tuple[str, str, dict[str, Any]]]:
    """``(path, template, context)`` for every silicon page, built as the handlers build them."""
    base = {"catalog": catalog, "data_version": catalog.version}
    settings = SETTINGS
    query = table.parse_query({}, catalog)
    out = [
        (
            "/silicon/",
            "silicon_index.html",
            dict(base, request=_request("/silicon/"), canonical_url=ORIGIN + "/silicon/", **index_context(catalog, settings, query)),
        )
    ]
    for ident, acc in catalog.accelerators.items():
        path = f"/silicon/{ident}"
        view = accelerator_view(
            catalog,
            acc,
            store=Store(settings.prices_dir),
            now=history.utcnow(),
            freshness_days=settings.freshness_days,
            rates=rates_of(settings),
        )
        cite = citation(view.id, view.name, ORIGIN + path, view.verified, view.data_version)
        out.append(
            (
                path,
                "accelerator.html",
                dict(base, request=_request(path), canonical_url=ORIGIN + path, page_title=view.name, view=view, cite=cite),
            )
        )
    return out


def jinja_loop(catalog: Catalog, out: Path, prebuilt: list[tuple[str, str, dict[str, Any]]] | None = None) -> int:
    """Render every silicon page to ``out`` with a plain loop; return the number of files."""
    env = templates(URLS).env
    pages = prebuilt if prebuilt is not None else contexts(catalog)
    for path, name, context in pages:
        target = out / file_for(path, "text/html")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(env.get_template(name).render(**context), encoding="utf-8")
    return len(pages)


def check_same(catalog: Catalog, only: set[str] | None = None) -> int:
    """Assert the loop renders, byte for byte, what the app serves for each silicon page (or
    for the paths in ``only``); return the number of pages compared."""
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app

    env = templates(URLS).env
    with TestClient(create_app(catalog, SETTINGS), base_url=ORIGIN) as client:
        pages = [page for page in contexts(catalog) if only is None or page[0] in only]
        for path, name, context in pages:
            served = client.get(path).text
            rendered = env.get_template(name).render(**context)
            if served != rendered:
                raise AssertionError(f"the Jinja2 loop does not render what the app serves for {path}")
    return len(pages)


def _timed(call, runs: int) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    """Wall and CPU seconds (``time.process_time``: this process only, every thread) of ``runs`` calls."""
    wall, cpu = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="atlas-render-") as tmp:
            w, c = time.perf_counter(), time.process_time()
            call(Path(tmp) / "out")
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
    return {"wall": wall, "cpu": cpu}


def measure(catalog: Catalog | None = None, runs: int = RUNS) -> dict[str, Any]:
    """Every figure of this benchmark as a dict (seconds)."""
    catalog = catalog or load()
    paths = silicon_paths(catalog)
    checked = check_same(catalog)

    def static_subset(out: Path) -> None:
        site.build(catalog, out, site_url=ORIGIN, paths=paths)

    built: list[int] = []

    def static_full(out: Path) -> None:
        built.append(site.build(catalog, out, site_url=ORIGIN).pages)

    def loop(out: Path) -> None:
        out.mkdir(parents=True)
        jinja_loop(catalog, out)

    prebuilt = contexts(catalog)

    def render_only(out: Path) -> None:
        out.mkdir(parents=True)
        jinja_loop(catalog, out, prebuilt)

    _timed(static_full, 1)  # warm-up: vl-convert start-up, chart and template caches
    _timed(loop, 1)
    results: dict[str, Any] = {"pages": len(paths), "checked_identical": checked}
    results["static_subset"] = _timed(static_subset, runs)
    results["jinja_loop"] = _timed(loop, runs)
    results["jinja_render_only"] = _timed(render_only, runs)
    results["static_full"] = _timed(static_full, FULL_RUNS)
    results["static_full_files"] = built[-1]
    return results


def main() -> None:
    r = measure()
    print(f"{r['pages']} silicon pages (identical output checked for {r['checked_identical']})")
    for key in ("static_subset", "jinja_loop", "jinja_render_only", "static_full"):
        print(f"{key}: CPU fastest {min(r[key]['cpu']):.3f} s, wall median {statistics.median(r[key]['wall']):.3f} s")


if __name__ == "__main__":
    main()
