"""Chart pages, their SVG pictures and their data as JSON.

- ``/charts/memory-bandwidth`` and ``/charts/compute-power/{format}``: a chart with its
  text alternative and data table (HTML);
- the same paths with ``.svg``: the picture (cached per data version by
  :func:`computeatlas.charts.svg.svg`);
- ``/api/charts/...``: the :class:`~computeatlas.charts.chart.ChartView` as JSON.

Charts: memory against bandwidth and compute against power (embedded in ``/silicon/``,
see :func:`silicon_charts`); price per accelerator-hour by provider
(``/charts/prices/{accelerator}``, embedded in ``/cloud/prices/{accelerator}``); power
per system against the average rack (``/charts/rack-power``, embedded in ``/energy/``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from fastapi import Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from computeatlas.catalog import Catalog
from computeatlas.charts import chart as charts
from computeatlas.charts.chart import ChartView
from computeatlas.charts.svg import svg
from computeatlas.cloud import history
from computeatlas.cloud.offers import OfferPrice, current_offers
from computeatlas.cloud.runs import rates_of
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.errors import NotFound
from computeatlas.core.settings import Settings
from computeatlas.core.urls import Urls, site_path
from computeatlas.pages.cloud_links import offer_page
from computeatlas.silicon.records import Accelerator
from computeatlas.web import chart_links
from computeatlas.web.page import (
    Route,
    catalog_of,
    find_accelerator,
    render,
    settings_of,
    urls_of,
)

ID_PATH = Path(description="accelerator id, e.g. 'nvidia-h100-sxm'", max_length=100)
FORMAT_PATH = Path(description="number format, e.g. 'FP8', 'BF16', 'INT8'", max_length=10)
DEFAULT_FORMAT = NumberFormat.FP8
"""The compute chart shown on ``/silicon/``: the format most current parts publish dense."""


def _format(catalog: Catalog, text: str, urls: Urls) -> NumberFormat:
    """The number format ``text`` names, if it has a chart; else :class:`NotFound` listing those that do (linked by ``urls``)."""
    available = charts.compute_formats(catalog)
    for fmt in available:
        if fmt.value.lower() == text.lower():
            return fmt
    suggestions = [(f"{fmt.value} compute against power", urls.path("chart_compute", fmt=fmt.value)) for fmt in available]
    raise NotFound(
        "No such chart",
        f"There is no compute chart for number format '{text}': fewer than two parts publish both it and power.",
        suggestions,
    )


def memory_chart(catalog: Catalog) -> ChartView:
    """Memory against bandwidth (:func:`computeatlas.charts.chart.memory_bandwidth`) with its links."""
    return charts.memory_bandwidth(catalog, links=chart_links.memory_links())


def compute_chart(catalog: Catalog, fmt: NumberFormat) -> ChartView:
    """Compute at ``fmt`` against power (:func:`computeatlas.charts.chart.compute_power`) with its links."""
    return charts.compute_power(catalog, fmt, links=chart_links.compute_links(fmt))


def price_chart(catalog: Catalog, acc: Accelerator, offers: list[OfferPrice], on: dt.date, freshness_days: int) -> ChartView:
    """``acc``'s offers by provider as of ``on`` (:func:`computeatlas.charts.chart.prices`) with its links."""
    return charts.prices(catalog, acc, offers, on, freshness_days, links=chart_links.price_links(acc.id))


def rack_chart(catalog: Catalog) -> ChartView:
    """Power per system (:func:`computeatlas.charts.chart.rack_power`) with its links."""
    return charts.rack_power(catalog, links=chart_links.rack_links())


def silicon_charts(catalog: Catalog) -> dict[str, object]:
    """What ``/silicon/`` shows: the memory chart, the compute chart at FP8, and the other formats."""
    formats = charts.compute_formats(catalog)
    fmt = DEFAULT_FORMAT if DEFAULT_FORMAT in formats else (formats[0] if formats else None)
    return {
        "memory": memory_chart(catalog),
        "compute": compute_chart(catalog, fmt) if fmt else None,
        "formats": formats,
    }


def _svg(view: ChartView) -> Response:
    return Response(svg(view), media_type="image/svg+xml")


def _page(request: Request, view: ChartView) -> HTMLResponse:
    catalog = catalog_of(request)
    return render(request, "chart.html", page_title=view.title, chart=view, formats=charts.compute_formats(catalog))


def memory_page(request: Request) -> HTMLResponse:
    """Memory capacity against bandwidth, with the data and the parts left out."""
    return _page(request, memory_chart(catalog_of(request)))


def memory_svg(request: Request) -> Response:
    """The memory chart as SVG."""
    return _svg(memory_chart(catalog_of(request)))


def memory_api(request: Request) -> ChartView:
    """The memory chart's data: plotted points (GB, TB/s) and parts left out with the reason."""
    return memory_chart(catalog_of(request))


def compute_page(request: Request, fmt: str = FORMAT_PATH) -> HTMLResponse:
    """Dense compute at one number format against power."""
    catalog = catalog_of(request)
    return _page(request, compute_chart(catalog, _format(catalog, fmt, urls_of(request))))


def compute_svg(request: Request, fmt: str = FORMAT_PATH) -> Response:
    """The compute chart at one number format as SVG."""
    catalog = catalog_of(request)
    return _svg(compute_chart(catalog, _format(catalog, fmt, urls_of(request))))


def compute_api(request: Request, fmt: str = FORMAT_PATH) -> ChartView:
    """The compute chart's data at one number format: points (W, TFLOPS or TOPS) and parts left out."""
    catalog = catalog_of(request)
    return compute_chart(catalog, _format(catalog, fmt, urls_of(request)))


def _current(catalog: Catalog, settings: Settings, accelerator: str | None = None) -> list[OfferPrice]:
    """The current offers (of ``accelerator``) in the store of ``settings``, as of now."""
    return current_offers(
        catalog,
        Store(settings.prices_dir),
        history.utcnow(),
        settings.freshness_days,
        accelerator=accelerator,
        hours_per_month=settings.hours_per_month,
        link=offer_page,
        rates=rates_of(settings),
    )


def _prices(request: Request, ident: str) -> ChartView:
    catalog, settings = catalog_of(request), settings_of(request)
    acc = find_accelerator(request, ident)
    view = price_chart(catalog, acc, _current(catalog, settings, acc.id), history.utcnow().date(), settings.freshness_days)
    if not view.points:
        raise NotFound(
            "No prices to chart",
            f"No current offer for '{ident}' has a USD price per accelerator-hour.",
            [("Its price page", urls_of(request).path("cloud_prices", ident=acc.id))],
        )
    return view


def prices_page(request: Request, ident: str = ID_PATH) -> HTMLResponse:
    """Every offer's price per accelerator-hour by provider, the spread's two ends marked."""
    return _page(request, _prices(request, ident))


def prices_svg(request: Request, ident: str = ID_PATH) -> Response:
    """The price chart of one accelerator as SVG."""
    return _svg(_prices(request, ident))


def prices_api(request: Request, ident: str = ID_PATH) -> ChartView:
    """The price chart's data: offers (USD per accelerator-hour) by provider, the spread's ends, offers left out."""
    return _prices(request, ident)


def rack_page(request: Request) -> HTMLResponse:
    """Power per system against the average rack."""
    return _page(request, rack_chart(catalog_of(request)))


def rack_svg(request: Request) -> Response:
    """The rack power chart as SVG."""
    return _svg(rack_chart(catalog_of(request)))


def rack_api(request: Request) -> ChartView:
    """The rack power chart's data: kW per system (vendor or reported), the average rack, systems left out."""
    return rack_chart(catalog_of(request))


def static_paths(catalog: Catalog, settings: Settings) -> Iterable[str]:
    """Every chart page, picture and JSON document, for the static build."""
    yield from (site_path(n) for n in ("chart_memory", "chart_memory_svg", "api_chart_memory"))
    for fmt in charts.compute_formats(catalog):
        yield from (site_path(n, fmt=fmt.value) for n in ("chart_compute", "chart_compute_svg", "api_chart_compute"))
    if catalog.systems:
        yield from (site_path(n) for n in ("chart_rack", "chart_rack_svg", "api_chart_rack"))
    offers = _current(catalog, settings)
    for ident in sorted({o.accelerator for o in offers}):
        on = history.utcnow().date()
        if price_chart(catalog, catalog.accelerators[ident], offers, on, settings.freshness_days).points:
            yield from (site_path(n, ident=ident) for n in ("chart_prices", "chart_prices_svg", "api_chart_prices"))


ROUTES: tuple[Route, ...] = (
    Route(memory_svg, "chart_memory_svg", Response),
    Route(memory_page, "chart_memory"),
    Route(compute_svg, "chart_compute_svg", Response),
    Route(compute_page, "chart_compute"),
    Route(prices_svg, "chart_prices_svg", Response),
    Route(prices_page, "chart_prices"),
    Route(rack_svg, "chart_rack_svg", Response),
    Route(rack_page, "chart_rack"),
    Route(prices_api, "api_chart_prices", JSONResponse, ChartView, in_schema=True, summary="Price per accelerator-hour chart data"),
    Route(rack_api, "api_chart_rack", JSONResponse, ChartView, in_schema=True, summary="Rack power chart data"),
    Route(memory_api, "api_chart_memory", JSONResponse, ChartView, in_schema=True, summary="Memory against bandwidth chart data"),
    Route(compute_api, "api_chart_compute", JSONResponse, ChartView, in_schema=True, summary="Compute against power chart data"),
)
