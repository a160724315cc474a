"""Price charts over time: pages, SVG pictures (wide and narrow) and their data as JSON and CSV.

- ``/charts/price-history/{accelerator}``: one line per provider and pricing kind;
- ``/charts/price-spread/{accelerator}``: the like-for-like spread between providers per month;
- ``/charts/price-performance`` (the headline format) and ``/charts/price-performance/{format}``:
  USD per dense PFLOP-hour across the rented parts.

Each has ``.svg`` (a 600-pixel plot) and ``.narrow.svg`` (a 300-pixel plot for phones;
pages pick it with ``<picture>`` below 640 px), and under ``/api/charts/…`` the
:class:`~computeatlas.charts.timeline.TimeChart` as JSON and its plotted points as ``.csv``
(the same points, one row each). Everything is read from the observation store at request
time (:mod:`computeatlas.charts.price_trends`, DuckDB aggregates). The price page of an
accelerator opens with the first two (:func:`price_charts`, a template global).
"""

from __future__ import annotations

import datetime as dt
import inspect
import io
from collections.abc import Callable, Iterable
from typing import Any

from fastapi import Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from computeatlas.catalog import Catalog
from computeatlas.charts import lines, price_trends
from computeatlas.charts.price_performance import price_performance
from computeatlas.charts.timeline import CSV_COLUMNS, TimeChart, csv_rows
from computeatlas.cloud import history, trends
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.errors import NotFound
from computeatlas.core.settings import Settings
from computeatlas.core.urls import site_path
from computeatlas.publish.exports.csv import MEDIA_TYPE as CSV_MEDIA_TYPE
from computeatlas.publish.exports.csv import file_bytes, write_rows
from computeatlas.web import chart_links
from computeatlas.web.page import Route, catalog_of, find_accelerator, render, settings_of

ID_PATH = Path(description="accelerator id, e.g. 'nvidia-h100-sxm'", max_length=100)
FORMAT_PATH = Path(description="number format, e.g. 'FP8', 'BF16'", max_length=10)


def _store(request: Request) -> Store:
    return Store(settings_of(request).prices_dir)


def _history(request: Request, ident: str) -> TimeChart:
    acc = find_accelerator(request, ident)
    return price_trends.price_history(
        catalog_of(request),
        _store(request),
        acc,
        history.utcnow(),
        settings_of(request).freshness_days,
        links=chart_links.history_links(acc),
    )


def _spread(request: Request, ident: str) -> TimeChart:
    acc = find_accelerator(request, ident)
    return price_trends.price_spread(
        catalog_of(request),
        _store(request),
        acc,
        history.utcnow(),
        settings_of(request).freshness_days,
        links=chart_links.spread_links(acc),
    )


def _format(text: str) -> NumberFormat:
    for fmt in NumberFormat:
        if fmt.value.lower() == text.lower():
            return fmt
    raise NotFound("No such number format", f"'{text}' is not a number format; the formats are {', '.join(f.value for f in NumberFormat)}.")


def _performance(request: Request, fmt: str | None = None) -> TimeChart:
    chosen = _format(fmt) if fmt else None
    return price_performance(
        catalog_of(request), _store(request), history.utcnow(), settings_of(request).freshness_days, chosen,
        links=chart_links.performance_links(chosen),
    )  # fmt: skip


def price_charts(request: Request, ident: str, since: dt.date | None = None, until: dt.date | None = None) -> dict[str, TimeChart] | None:
    """The charts the price page of ``ident`` opens with (``history`` and ``spread``) over the
    page's window [since, until] (collection dates, inclusive; None = unbounded), or None when
    no observation of the part is stored (a template global: the page's handler is unchanged)."""
    store = _store(request)
    if ident not in store.observed_accelerators():
        return None
    catalog, acc, now, days = catalog_of(request), find_accelerator(request, ident), history.utcnow(), settings_of(request).freshness_days
    return {
        "history": price_trends.price_history(catalog, store, acc, now, days, since, until, links=chart_links.history_links(acc)),
        "spread": price_trends.price_spread(catalog, store, acc, now, days, since, until, links=chart_links.spread_links(acc)),
    }


def has_price_charts(request: Request, ident: str | None = None) -> bool:
    """True when an accepted observation of ``ident`` (of any part, when None) is stored: its
    price charts exist (a template global for the links to them)."""
    observed = _store(request).observed_accelerators()
    return ident in observed if ident else bool(observed)


def performance_chart(request: Request) -> TimeChart:
    """The price-performance chart at the headline format (a template global for ``/cloud/``)."""
    return _performance(request)


def _page(request: Request, chart: TimeChart) -> HTMLResponse:
    return render(request, "timeline_chart.html", page_title=chart.title, chart=chart)


def _picture(chart: TimeChart, width: lines.Width) -> Response:
    if not chart.series:
        raise NotFound(
            "Nothing to chart", f"{chart.title}: no observation is plotted. {chart.description}", [("The chart's page", chart.page_url)]
        )
    return Response(lines.svg(chart, width), media_type="image/svg+xml")


def _csv(chart: TimeChart, name: str) -> Response:
    buffer = io.StringIO(newline="")
    write_rows(buffer, CSV_COLUMNS, csv_rows(chart))
    return Response(
        file_bytes(buffer.getvalue()), media_type=CSV_MEDIA_TYPE, headers={"Content-Disposition": f'attachment; filename="{name}.csv"'}
    )


def _handlers(make: Callable[[Request, str], TimeChart], what: str, param: str, described: Any) -> dict[str, Callable[..., Any]]:
    """The five handlers (page, SVG, narrow SVG, JSON, CSV) of a chart made by ``make(request,
    value)``, where the value is the path parameter ``param`` (``ident``, ``fmt``), documented by
    ``described`` (its ``Path``). Each handler's signature names that parameter, which is what
    the router reads."""

    def chart(params: dict[str, str], request: Request) -> TimeChart:
        return make(request, params[param])

    def page(request: Request, **params: str) -> HTMLResponse:
        return _page(request, chart(params, request))

    def picture(request: Request, **params: str) -> Response:
        return _picture(chart(params, request), "wide")

    def narrow(request: Request, **params: str) -> Response:
        return _picture(chart(params, request), "narrow")

    def api(request: Request, **params: str) -> TimeChart:
        return chart(params, request)

    def csv(request: Request, **params: str) -> Response:
        made = chart(params, request)
        return _csv(made, made.key)

    handlers: dict[str, Callable[..., Any]] = {"page": page, "svg": picture, "narrow": narrow, "api": api, "csv": csv}
    returns = {"page": HTMLResponse, "svg": Response, "narrow": Response, "api": TimeChart, "csv": Response}
    for kind, handler in handlers.items():
        handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [
                inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request),
                inspect.Parameter(param, inspect.Parameter.KEYWORD_ONLY, default=described, annotation=str),
            ],
            return_annotation=returns[kind],
        )
    return _named(handlers, what)


_KINDS = {
    "page": "the page (chart, method, data table)",
    "svg": "the picture as SVG (600-pixel plot)",
    "narrow": "the picture as SVG for narrow screens (300-pixel plot)",
    "api": "its data as JSON: every plotted series and point, what is left out and why",
    "csv": "its plotted points as CSV, one row each",
}


def _named(handlers: dict[str, Callable[..., Any]], what: str) -> dict[str, Callable[..., Any]]:
    for kind, handler in handlers.items():
        handler.__name__ = f"{what}_{kind}"
        handler.__doc__ = f"The {what.replace('_', ' ')} chart: {_KINDS[kind]}."
    return handlers


HISTORY = _handlers(_history, "price_history", "ident", ID_PATH)
SPREAD = _handlers(_spread, "price_spread", "ident", ID_PATH)
PERFORMANCE_FORMAT = _handlers(_performance, "price_performance", "fmt", FORMAT_PATH)


def performance_page(request: Request) -> HTMLResponse:
    """USD per dense PFLOP-hour across the rented parts over time, at the headline format."""
    return _page(request, _performance(request))


def performance_svg(request: Request) -> Response:
    """The price-performance chart as SVG (600-pixel plot)."""
    return _picture(_performance(request), "wide")


def performance_narrow_svg(request: Request) -> Response:
    """The price-performance chart as SVG for narrow screens (300-pixel plot)."""
    return _picture(_performance(request), "narrow")


def performance_api(request: Request) -> TimeChart:
    """The price-performance chart's data: every plotted series and point, the parts left out and why."""
    return _performance(request)


def performance_csv(request: Request) -> Response:
    """The price-performance chart's plotted points as CSV, one row each."""
    chart = _performance(request)
    return _csv(chart, chart.key)


def static_paths(catalog: Catalog, settings: Settings) -> Iterable[str]:
    """Every chart page, picture and data file, for the static build: the per-part charts of
    every observed part (a picture only where something is plotted) and the price-performance chart."""
    store = Store(settings.prices_dir)
    now = history.utcnow()
    plotted = trends.charted(store, trends.chart_variants(store, now, settings.freshness_days))
    for ident in sorted(store.observed_accelerators() & set(catalog.accelerators)):
        for prefix, drawn in zip(("price_history", "price_spread"), plotted.get(ident, (False, False)), strict=True):
            yield from (site_path(f"{n}", ident=ident) for n in (f"chart_{prefix}", f"api_chart_{prefix}", f"api_chart_{prefix}_csv"))
            if drawn:
                yield from (site_path(f"chart_{prefix}{s}", ident=ident) for s in ("_svg", "_narrow_svg"))
    names = ("chart_price_performance", "api_chart_price_performance", "api_chart_price_performance_csv")
    yield from (site_path(n) for n in names)
    if price_performance(catalog, store, now, settings.freshness_days, links=chart_links.performance_links(None)).series:
        yield from (site_path(n) for n in ("chart_price_performance_svg", "chart_price_performance_narrow_svg"))


def _routes(handlers: dict[str, Callable[..., Any]], prefix: str, summary: str) -> tuple[Route, ...]:
    # A picture's and the CSV's routes come before the page's and the JSON's: "{ident}" would match "x.svg" too.
    return (
        Route(handlers["narrow"], f"chart_{prefix}_narrow_svg", Response),
        Route(handlers["svg"], f"chart_{prefix}_svg", Response),
        Route(handlers["page"], f"chart_{prefix}"),
        Route(handlers["csv"], f"api_chart_{prefix}_csv", Response),
        Route(handlers["api"], f"api_chart_{prefix}", JSONResponse, TimeChart, in_schema=True, summary=summary),
    )


ROUTES: tuple[Route, ...] = (
    *_routes(HISTORY, "price_history", "Price history chart data: one series per provider and pricing kind"),
    *_routes(SPREAD, "price_spread", "Like-for-like spread over time chart data"),
    Route(performance_narrow_svg, "chart_price_performance_narrow_svg", Response),
    Route(performance_svg, "chart_price_performance_svg", Response),
    Route(performance_page, "chart_price_performance"),
    Route(performance_csv, "api_chart_price_performance_csv", Response),
    Route(
        performance_api,
        "api_chart_price_performance",
        JSONResponse,
        TimeChart,
        in_schema=True,
        summary="USD per dense PFLOP-hour over time chart data (headline format)",
    ),
    *_routes(PERFORMANCE_FORMAT, "price_performance_format", "USD per dense PFLOP-hour over time chart data at one format"),
)

__all__ = ["ROUTES", "has_price_charts", "performance_chart", "price_charts", "static_paths"]
