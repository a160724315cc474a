"""Cloud pages and API: providers, what they rent, prices per accelerator-hour and spreads.

Pages: ``/cloud/`` (providers and the filterable price table), ``/cloud/{provider}``
(its offers and lock-in facts), ``/cloud/prices/{accelerator}`` (every offer, the
spread and a dot plot). API: ``/api/offers``, ``/api/prices/{accelerator}``,
``/api/providers``, ``/api/providers/{provider}``, and over the observation store
``/api/prices/{accelerator}/history`` (JSON or CSV) and ``/api/prices/{accelerator}/current``
(never cached: each request queries the store). Pages and API build the same view
objects (:mod:`computeatlas.cloud.pricing`, :mod:`computeatlas.cloud.providers`). The filters
``accelerator``, ``provider``, ``pricing`` and ``region`` take comma-separated lists
(``provider=aws,lambda``); a parameter given twice is a 400 that says to use commas.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterable

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from computeatlas.cloud import pricing
from computeatlas.cloud.history import (
    HISTORY_FILTERS,
    CurrentView,
    HistoryView,
    current_view,
    history_view,
)
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.pricing import OfferPrice, PriceQuery, PriceView
from computeatlas.cloud.providers import (
    ProviderSummary,
    ProviderView,
    cloud_index,
    provider_summaries,
    provider_view,
)
from computeatlas.cloud.records import Provider
from computeatlas.cloud.runs import rates_of
from computeatlas.cloud.store import Store
from computeatlas.core.catalog import Catalog
from computeatlas.core.errors import BadRequest
from computeatlas.publish.exports.csv import MEDIA_TYPE as CSV_MEDIA_TYPE
from computeatlas.publish.exports.csv import write_rows
from computeatlas.web.page import (
    Route,
    catalog_of,
    find_accelerator,
    find_record,
    render,
    settings_of,
    single_params,
)

INDEX_PARAMS = ("accelerator", "provider", "pricing", "region")
"""Filters of the ``/cloud/`` price table."""

PRICE_PARAMS = ("variant", "since", "until", "include_stale", "region")
"""Parameters of a price page: which variant, the date window, stale offers, region."""

OFFER_PARAMS = ("accelerator", "provider", "pricing", "region", "variant", "since", "until")
"""Filters of ``/api/offers``."""

PROVIDER_PATH = Path(description="provider id, e.g. 'coreweave'", max_length=100)
ACCELERATOR_PATH = Path(description="accelerator id, e.g. 'nvidia-h100-sxm'", max_length=100)

_Q = {
    "accelerator": Query(None, max_length=200, description="accelerator id, e.g. nvidia-h100-sxm; several comma-separated"),
    "provider": Query(None, max_length=200, description="provider id, e.g. lambda; several comma-separated (aws,lambda)"),
    "pricing": Query(None, max_length=200, description="on-demand, spot or reserved; several comma-separated"),
    "region": Query(None, max_length=200, description="a region as an offer names it, e.g. us-east-1; several comma-separated"),
    "variant": Query(None, max_length=200, description="variant key such as 'sxm-80gb' (see /api/prices/{accelerator}), or 'all' to mix every variant"),
    "since": Query(None, max_length=200, description="first 'seen' date of the window, YYYY-MM-DD"),
    "until": Query(None, max_length=200, description="last 'seen' date of the window, YYYY-MM-DD"),
    "include_stale": Query(None, max_length=200, description="true to count offers seen more than 90 days ago in the spread"),
}


def _query(request: Request, allowed: Iterable[str]) -> PriceQuery:
    """The query string as a :class:`PriceQuery`; a 400 naming an unknown parameter, a bad
    value or a parameter given twice (several values go in one comma-separated list)."""
    try:
        return pricing.parse_query(request.query_params.multi_items(), catalog_of(request), allowed)
    except pricing.PricingQueryError as exc:
        raise BadRequest("Bad query parameter", str(exc)) from None


def find_provider(catalog: Catalog, ident: str) -> Provider:
    """The provider ``ident`` names; raises :class:`NotFound` listing the closest ids."""
    return find_record(catalog.providers, ident, "cloud provider", "/cloud/{}", lambda p: p.name)


def _price_view(request: Request, ident: str) -> PriceView:
    catalog = catalog_of(request)
    acc = find_accelerator(catalog, ident)
    query = _query(request, PRICE_PARAMS)
    try:
        return pricing.price_view(catalog, acc, query)
    except pricing.PricingQueryError as exc:
        raise BadRequest("Bad query parameter", str(exc)) from None


# --- pages ---------------------------------------------------------------------------


def cloud_page(request: Request) -> HTMLResponse:
    """Providers, and every offer in a price table filtered by query parameters."""
    view = cloud_index(catalog_of(request), _query(request, INDEX_PARAMS))
    return render(request, "cloud_index.html", page_title="Cloud", view=view)


def provider_page(request: Request, ident: str = PROVIDER_PATH) -> HTMLResponse:
    """One provider: what it rents at what price, and what makes leaving hard."""
    catalog = catalog_of(request)
    view = provider_view(catalog, find_provider(catalog, ident))
    return render(request, "cloud_provider.html", page_title=view.name, view=view)


def prices_page(request: Request, ident: str = ACCELERATOR_PATH) -> HTMLResponse:
    """Every offer for one accelerator, the spread for the chosen variant and window, a dot plot."""
    view = _price_view(request, ident)
    return render(request, "cloud_prices.html", page_title=f"{view.accelerator_name} prices", view=view)


def price_history_page(request: Request, ident: str = ACCELERATOR_PATH) -> HTMLResponse:
    """Observed prices of one accelerator: current (newest per offer, fresh), the like-for-like
    spread, and the median history per provider. Queried from the store on every request."""
    acc = find_accelerator(catalog_of(request), ident)
    params = _history_params(request)
    store, settings = _store(request), settings_of(request)
    rates = rates_of(settings)
    current = current_view(store, acc.id, dt.datetime.now(dt.UTC), settings.freshness_days, params.get("variant") or None, rates)
    history = history_view(store, acc.id, _date(params, "since"), _date(params, "until"), rates=rates,
                           **{k: params.get(k) or None for k in HISTORY_FILTERS})
    return render(request, "cloud_price_history.html", page_title=f"{acc.name}: observed prices and history", acc=acc, current=current, history=history)


def cloud_redirect(request: Request) -> Response:
    """``/cloud`` goes to ``/cloud/``, ``/cloud/prices/`` to the price table."""
    target = "/cloud/#prices" if request.url.path.startswith("/cloud/prices") else "/cloud/"
    return RedirectResponse(target, status_code=301)


# --- API -----------------------------------------------------------------------------


def api_offers(
    request: Request,
    accelerator: str | None = _Q["accelerator"],
    provider: str | None = _Q["provider"],
    pricing_: str | None = Query(None, alias="pricing", max_length=200, description="on-demand, spot or reserved; several comma-separated"),
    region: str | None = _Q["region"],
    variant: str | None = _Q["variant"],
    since: str | None = _Q["since"],
    until: str | None = _Q["until"],
) -> list[OfferPrice]:
    """Every offer matching the filters, each with its price per accelerator-hour and the
    arithmetic; stale offers are included and marked (``stale``). ``accelerator``,
    ``provider``, ``pricing`` and ``region`` take comma-separated lists; a parameter given
    twice is a 400."""
    catalog = catalog_of(request)
    return pricing.offer_prices(catalog, _query(request, OFFER_PARAMS))


def api_prices(
    request: Request,
    ident: str = ACCELERATOR_PATH,
    variant: str | None = _Q["variant"],
    since: str | None = _Q["since"],
    until: str | None = _Q["until"],
    include_stale: str | None = _Q["include_stale"],
    region: str | None = _Q["region"],
) -> PriceView:
    """Every offer for one accelerator, and its price spread (cheapest and dearest on-demand
    USD per accelerator-hour for one variant in a date window, with the ratio)."""
    return _price_view(request, ident)


HISTORY_PARAMS = ("since", "until", *HISTORY_FILTERS, "format")
"""Parameters of ``/api/prices/{accelerator}/history``."""

HISTORY_COLUMNS = ("collected", "provider", "instance_type", "region", "pricing", "term", "amount", "currency", "unit",
                   "accelerators", "per_accelerator_hour", "usd_per_accelerator_hour", "rate", "variant", "qualifiers", "source_url", "via")
"""The CSV columns of a price history, in order."""


def _store(request: Request) -> Store:
    """The observation store of the app's settings (read on every request: a new import shows at once)."""
    return Store(settings_of(request).prices_dir)


def _history_params(request: Request) -> dict[str, str]:
    params = {k: v.strip() for k, v in single_params(request).items()}
    for name in params:
        if name not in HISTORY_PARAMS:
            raise BadRequest("Bad query parameter", f"parameter '{name[:40]}': unknown parameter; known: {', '.join(HISTORY_PARAMS)}")
    if params.get("pricing") and params["pricing"] not in {k.value for k in PricingKind}:
        raise BadRequest("Bad query parameter", "parameter 'pricing': must be one of " + ", ".join(k.value for k in PricingKind))
    if params.get("format", "json") not in ("json", "csv"):
        raise BadRequest("Bad query parameter", "parameter 'format': json or csv")
    return params


def _date(params: dict[str, str], name: str) -> dt.date | None:
    if not params.get(name):
        return None
    try:
        return dt.date.fromisoformat(params[name])
    except ValueError:
        raise BadRequest("Bad query parameter", f"parameter '{name}': {params[name][:40]!r} is not a date (write YYYY-MM-DD)") from None


def api_price_history(
    request: Request,
    ident: str = ACCELERATOR_PATH,
    since: str | None = Query(None, max_length=40, description="first collection date, YYYY-MM-DD"),
    until: str | None = Query(None, max_length=40, description="last collection date, YYYY-MM-DD"),
    provider: str | None = Query(None, max_length=100, description="a provider id"),
    pricing_: str | None = Query(None, alias="pricing", max_length=40, description="on_demand, spot, reserved, capacity_block, marketplace, monthly or weekly"),
    variant: str | None = Query(None, max_length=100, description="a variant key, e.g. sxm-80gb"),
    region: str | None = Query(None, max_length=200, description="a region as the provider names it"),
    format_: str | None = Query(None, alias="format", max_length=10, description="json (default) or csv"),
) -> Response:
    """Every accepted price observation of one accelerator in a date window (held rows are
    never included), and per date the median on-demand USD price per accelerator-hour per
    provider and over all, with observation counts. ``format=csv`` gives the observations as CSV."""
    acc = find_accelerator(catalog_of(request), ident)
    params = _history_params(request)
    view = history_view(_store(request), acc.id, _date(params, "since"), _date(params, "until"), rates=rates_of(settings_of(request)),
                        **{k: params.get(k) or None for k in HISTORY_FILTERS})
    if params.get("format") == "csv":
        buffer = io.StringIO(newline="")
        write_rows(buffer, HISTORY_COLUMNS, ([" ".join(v) if isinstance(v := getattr(o, c), list) else ("" if v is None else v.isoformat() if isinstance(v, dt.datetime) else v)
                                               for c in HISTORY_COLUMNS] for o in view.observations))
        return Response(buffer.getvalue(), media_type=CSV_MEDIA_TYPE,
                        headers={"Content-Disposition": f'attachment; filename="{acc.id}-price-history.csv"'})
    return JSONResponse(view.model_dump(mode="json"))


def api_price_current(
    request: Request,
    ident: str = ACCELERATOR_PATH,
    variant: str | None = Query(None, max_length=100, description="the variant key of the spread, e.g. sxm-80gb"),
) -> CurrentView:
    """The newest accepted observation of each offer within the freshness window, measured
    at request time, with spot and term discounts and the like-for-like spread."""
    acc = find_accelerator(catalog_of(request), ident)
    settings = settings_of(request)
    return current_view(_store(request), acc.id, dt.datetime.now(dt.UTC), settings.freshness_days, variant or None, rates_of(settings))


def api_providers(request: Request) -> list[ProviderSummary]:
    """Every cloud provider with its kind, regions and what it rents."""
    return provider_summaries(catalog_of(request))


def api_provider(request: Request, ident: str = PROVIDER_PATH) -> ProviderView:
    """One provider with its lock-in facts (each sourced) and its offers with prices."""
    catalog = catalog_of(request)
    return provider_view(catalog, find_provider(catalog, ident))


def static_paths(catalog: Catalog) -> Iterable[str]:
    """Every cloud page and API document, for the static build."""
    yield from ("/cloud/", "/api/offers", "/api/providers")
    for ident in catalog.providers:
        yield f"/cloud/{ident}"
        yield f"/api/providers/{ident}"
    for ident in catalog.accelerators:
        yield f"/cloud/prices/{ident}"
        yield f"/cloud/prices/{ident}/history"
        yield f"/api/prices/{ident}"
        yield f"/api/prices/{ident}/history"
        yield f"/api/prices/{ident}/current"


ROUTES: tuple[Route, ...] = (
    Route("/cloud", cloud_redirect, "cloud_redirect", Response),
    Route("/cloud/", cloud_page, "cloud_index"),
    Route("/cloud/prices", cloud_redirect, "cloud_prices_bare_redirect", Response),
    Route("/cloud/prices/", cloud_redirect, "cloud_prices_redirect", Response),
    Route("/cloud/prices/{ident}/history", price_history_page, "cloud_price_history"),
    Route("/cloud/prices/{ident}", prices_page, "cloud_prices"),
    Route("/cloud/{ident}", provider_page, "cloud_provider"),
    Route("/api/offers", api_offers, "api_offers", JSONResponse, list[OfferPrice], in_schema=True, summary="List offers with prices per accelerator-hour"),
    Route("/api/prices/{ident}/history", api_price_history, "api_price_history", Response, HistoryView, in_schema=True,
          summary="Price history of one accelerator (JSON or CSV)"),
    Route("/api/prices/{ident}/current", api_price_current, "api_price_current", JSONResponse, CurrentView, in_schema=True,
          summary="Current observed prices of one accelerator"),
    Route("/api/prices/{ident}", api_prices, "api_prices", JSONResponse, PriceView, in_schema=True, summary="Offers and price spread of one accelerator"),
    Route("/api/providers", api_providers, "api_providers", JSONResponse, list[ProviderSummary], in_schema=True, summary="List cloud providers"),
    Route("/api/providers/{ident}", api_provider, "api_provider", JSONResponse, ProviderView, in_schema=True, summary="One cloud provider"),
)

