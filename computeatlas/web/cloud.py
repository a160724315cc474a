"""Cloud pages and API: providers, what they rent, prices per accelerator-hour and spreads.

Every price comes from the observation store, read at request time: ``/cloud/`` (providers
and the filterable table of current offers: the newest accepted observation of each offer
within the freshness window), ``/cloud/{provider}`` (its current offers and lock-in facts),
``/cloud/prices/{accelerator}`` (current observed prices with discounts, the like-for-like
spread and the median history; ``…/history`` is the same page). API: ``/api/offers``,
``/api/providers``, ``/api/providers/{provider}``, and over the observation store
``/api/prices/{accelerator}`` (current and history), ``/api/prices/{accelerator}/history``
(JSON or CSV) and ``/api/prices/{accelerator}/current``. The history of a price page and of
its API is one year ending today unless ``since``/``until`` or ``window=all`` (all of the
history) is given; the page says its window and links to all of the history, the JSON gives
it as fields (``since``, ``until``, ``window``, ``first``). The pages are cached on the date
and the store's version (a new import changes the key); the ``/api/prices/`` documents,
histories and feeds (:mod:`computeatlas.web.price_feed`) query the store on every request. Pages and API build the same view objects (:mod:`computeatlas.cloud.history`,
:mod:`computeatlas.cloud.pricing`, :mod:`computeatlas.cloud.providers`). The filters
``accelerator``, ``provider``, ``pricing`` and ``region`` take comma-separated lists
(``provider=aws,lambda``); a parameter given twice is a 400 that says to use commas.
Each page and endpoint declares its parameters as a pydantic model
(:mod:`computeatlas.web.cloud_params`); any other parameter is ignored. Every filter
reads an accelerator by id, alias or name, a provider by id in any case and a pricing kind in
either spelling (``on_demand``, the data's, or ``on-demand``) through
:mod:`computeatlas.cloud.queries`. A history window whose ``since`` is after its ``until``
is a 400 naming both.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Annotated, Any, cast
from urllib.parse import urlencode

from fastapi import Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel

from computeatlas.catalog import Catalog
from computeatlas.cloud import history
from computeatlas.cloud.cheapest_price import CheapestPrice, cheapest_prices
from computeatlas.cloud.collection_status import provider_collected
from computeatlas.cloud.current_prices import CurrentView, current_view
from computeatlas.cloud.history import PAGE_OBSERVATIONS, HistoryView, PricesView, history_view
from computeatlas.cloud.offers import OfferPrice, current_offers, regions_of
from computeatlas.cloud.providers import ProviderSummary, ProviderView, cloud_index, provider_summaries
from computeatlas.cloud.queries import PriceQuery, matches, parse_query
from computeatlas.cloud.runs import rates_of
from computeatlas.cloud.store import Store
from computeatlas.core.errors import ParamError
from computeatlas.core.settings import Settings
from computeatlas.core.urls import site_path
from computeatlas.pages.cloud_links import link_providers, offer_page
from computeatlas.pages.filter_statement import observed_statement, offers_statement
from computeatlas.pages.price_table import (
    HISTORY_COLUMNS,
    OFFER_COLUMNS,
    SEEN_COLUMNS,
    history_sorts,
    newest_rows,
    parse_sort,
    seen_sorts,
    sort_rows,
)
from computeatlas.pages.providers import every_offer, provider_page_view, shown_providers
from computeatlas.publish.exports import prices as prices_export
from computeatlas.web.cloud_params import (
    ACCELERATOR_PATH,
    DESCRIPTIONS,
    PROVIDER_PATH,
    HistoryParams,
    IndexParams,
    ObservedParams,
    OfferParams,
    PricePageParams,
    checked,
    known_providers,
    provider_path,
)
from computeatlas.web.page import (
    Route,
    catalog_of,
    find_accelerator,
    find_record,
    render,
    settings_of,
    slash_redirect,
    urls_of,
)
from computeatlas.web.price_feed import price_feed
from computeatlas.web.price_files import api_price_history, prices_dataset, prices_notice


def _offers(request: Request, params: BaseModel | None = None) -> tuple[PriceQuery, list[OfferPrice]]:
    """The declared parameters of ``params`` as a :class:`PriceQuery`, and the current offers
    of its window read from the store once (unfiltered: callers filter with
    :func:`~computeatlas.cloud.queries.matches`); a 400 naming a bad value or a parameter
    given twice (several values go in one comma-separated list)."""
    catalog, settings, store, now = catalog_of(request), settings_of(request), _store(request), history.utcnow()
    read: dict[tuple[object, ...], list[OfferPrice]] = {}

    def offers_for(query: PriceQuery) -> list[OfferPrice]:
        key = (query.since, query.until, query.include_stale)
        if key not in read:
            read[key] = current_offers(
                catalog,
                store,
                now,
                settings.freshness_days,
                query.since,
                query.until,
                query.include_stale,
                hours_per_month=settings.hours_per_month,
                link=offer_page,
                rates=rates_of(settings),
            )
        return read[key]

    if params is None:
        return PriceQuery(), offers_for(PriceQuery())
    pairs, names = request.query_params.multi_items(), type(params).model_fields  # providers: read when one is not recorded
    query = parse_query(pairs, catalog, names, lambda q: regions_of(offers_for(q)), lambda: known_providers(request))
    return query, offers_for(query)


def find_provider(request: Request, ident: str) -> ProviderView:
    """The page data of provider ``ident`` (recorded, or shown by its prices without a record:
    :func:`~computeatlas.pages.providers.provider_page_view`); a :class:`NotFound` listing the closest ids."""
    catalog, settings = catalog_of(request), settings_of(request)
    every = every_offer(catalog, _store(request), history.utcnow(), settings.freshness_days, settings.hours_per_month, rates_of(settings))
    provider_path(request, ident, shown_providers(catalog, every))
    view = provider_page_view(catalog, ident, _offers(request)[1], every, provider_collected(_store(request), ident, history.utcnow()))
    if view is None:
        find_record(catalog.providers, ident, "cloud provider", urls_of(request).template("cloud_provider"), lambda p: p.name)
    return cast(ProviderView, view)


# --- pages ---------------------------------------------------------------------------


def cloud_page(request: Request, params: Annotated[IndexParams, Query()]) -> HTMLResponse:  # type: ignore[valid-type]
    """Providers, and every current offer (newest observation within the freshness window)
    in a price table filtered by query parameters."""
    query, offers = _offers(request, params)
    view = cloud_index(
        catalog_of(request), offers, query, history.utcnow().date(), settings_of(request).freshness_days, _store(request).version()
    )
    view.providers = link_providers(view.providers)
    order = parse_sort(getattr(params, "sort", None), OFFER_COLUMNS)
    seen_order = parse_sort(getattr(params, "seen_sort", None), SEEN_COLUMNS, "seen_sort")
    view.offers = sort_rows(view.offers, order)
    keep = {k: v for k, v in cast(BaseModel, params).model_dump(exclude_none=True).items() if k != "sort"}
    seen_keep = {**keep, "sort": order.param()}
    seen_by = _seen_sorts(request)
    labels = {key: {c.value: c.label for c in options} for key, options in view.choices.items()}
    return render(
        request,
        "cloud_index.html",
        page_title="Cloud",
        view=view,
        order=order,
        keep=keep,
        statement=offers_statement(query, len(view.offers), view.total_offers, labels),
        not_current=sort_rows(not_current_parts(request), seen_order, seen_by),
        seen_order=seen_order,
        seen_keep=seen_keep,
        seen_by=seen_by,
    )


def _seen_sorts(request: Request) -> dict[str, Any]:
    """The sorts of ``/cloud/``'s "seen before, not current" table, by the names the page shows."""
    catalog = catalog_of(request)
    return seen_sorts(
        lambda a: catalog.accelerators[a].name if a in catalog.accelerators else a,
        lambda p: catalog.providers[p].name if p in catalog.providers else p,
    )


def provider_page(
    request: Request, ident: str = PROVIDER_PATH, sort: str | None = Query(None, max_length=20, description=DESCRIPTIONS["sort"])
) -> HTMLResponse:
    """One provider: what it rents at what price now (sortable by ``sort``), and what makes leaving hard."""
    view = find_provider(request, ident)
    order = parse_sort(sort, OFFER_COLUMNS)
    view.offers = sort_rows(view.offers, order)
    return render(request, "cloud_provider.html", page_title=view.name, view=view, order=order, keep={})


def not_current_parts(request: Request) -> list[CheapestPrice]:
    """The parts whose newest price is older than the freshness window, each with that price, its
    date and its age (:func:`~computeatlas.cloud.cheapest_price.cheapest_prices`), in catalog order."""
    catalog, settings = catalog_of(request), settings_of(request)
    found = cheapest_prices(_store(request), history.utcnow(), settings.freshness_days, catalog)
    return [found[a] for a in catalog.accelerators if a in found and not found[a].current]


def _check_variant(store: Store, accelerator: str, variant: str | None) -> None:
    """Raise :class:`ParamError` (400) when ``variant`` is given and no accepted observation of
    ``accelerator`` states it, naming those that do (as ``computeatlas prices`` does)."""
    if variant and variant != "all" and variant not in (known := store.variants_of(accelerator) - {""}):
        choices = ", ".join(sorted(known)) or "none: no observation of it states a variant"
        raise ParamError("variant", f"{accelerator} has no observed variant {variant!r}; choose one of {choices}")


def _prices(request: Request, ident: str, params: ObservedParams, listed: int = PAGE_OBSERVATIONS) -> tuple[Any, PricesView]:
    """The accelerator and its observed prices as of now: current (newest per offer within the
    freshness window, staleness measured at request time) and the history in the window, with
    its newest ``listed`` observations (0: the series only, as the page shows)."""
    params = checked(request, params)
    acc = find_accelerator(request, ident)
    store, settings = _store(request), settings_of(request)
    _check_variant(store, acc.id, params.variant)
    rates, now = rates_of(settings), history.utcnow()
    since, until, window = params.dates(now.astimezone(dt.UTC).date())
    current = current_view(store, acc.id, now, settings.freshness_days, params.variant, rates, catalog_of(request), since=since)
    current = current.narrowed({k: v for k, v in params.filters().items() if v and k != "variant"})
    past = history_view(store, acc.id, since, until, listed, rates=rates, window=window, **params.filters())
    return acc, PricesView(accelerator=acc.id, current=current, history=past)


def prices_page(request: Request, params: Annotated[PricePageParams, Query()], ident: str = ACCELERATOR_PATH) -> HTMLResponse:
    """Observed prices of one accelerator, read from the store on every request: current
    prices with spot/reserved/capacity-block discounts (sortable by ``sort``), the like-for-like
    spread, the cheapest price by the one rule (or the newest, not current), and the median
    history per provider with observation counts."""
    acc, view = _prices(request, ident, params, listed=0)
    order = parse_sort(getattr(params, "sort", None))
    history_order = parse_sort(getattr(params, "history_sort", None), HISTORY_COLUMNS, "history_sort")
    current = view.current.model_copy(
        update={"prices": sort_rows(view.current.prices, order), "last_seen": sort_rows(view.current.last_seen, order)}
    )
    every = {k: str(v) for k, v in params.model_dump(exclude_none=True, mode="json").items() if k != "format"}
    keep = {k: v for k, v in every.items() if k != "sort"}
    filters = {k: v for k, v in keep.items() if k not in ("since", "until", "window", "history_sort")}
    catalog = catalog_of(request)
    by = history_sorts(lambda p: catalog.providers[p].name if p in catalog.providers else p)
    table = newest_rows(view.history.series)
    links = {"all": "?" + urlencode({**filters, "window": "all"}), "year": "?" + urlencode(filters) if filters else request.url.path}
    unfiltered = {k: v for k, v in every.items() if k not in current.filters}
    narrowed = current.filters and {
        "words": observed_statement(
            current.filters, len(current.prices), current.offers or 0, {p: r.name for p, r in catalog.providers.items()}
        ),
        "unfiltered": "?" + urlencode(unfiltered) if unfiltered else request.url.path,
    }
    return render(
        request,
        "cloud_price_history.html",
        narrowed=narrowed,
        page_title=f"{acc.name}: observed prices",
        acc=acc,
        current=current,
        history=view.history,
        history_table=table.model_copy(update={"points": sort_rows(table.points, history_order, by)}),
        history_order=history_order,
        history_keep={k: v for k, v in every.items() if k != "history_sort"},
        history_by=by,
        order=order,
        keep=keep,
        window_links=links,
        price_licences=prices_export.licence_summary(_store(request)),
    )


def price_history_page(request: Request, params: Annotated[HistoryParams, Query()], ident: str = ACCELERATOR_PATH) -> HTMLResponse:
    """The same page as ``/cloud/prices/{id}`` (kept for links made before the two merged)."""
    return prices_page(request, PricePageParams(**params.model_dump(exclude={"format"})), ident)


def cloud_redirect(request: Request) -> Response:
    """``/cloud`` goes to ``/cloud/``, ``/cloud/prices/`` to the price table."""
    urls = urls_of(request)
    prices = urls.site(request.url.path).startswith(site_path("cloud_prices_bare_redirect"))
    return slash_redirect(request, urls.path("cloud_index"), "#prices" if prices else "")


# --- API -----------------------------------------------------------------------------


def api_offers(request: Request, params: Annotated[OfferParams, Query()]) -> list[OfferPrice]:  # type: ignore[valid-type]
    """Every current offer matching the filters (the newest accepted observation of each offer
    within the freshness window, or within [since, until]; ``include_stale=true`` lists
    older ones too, marked ``stale``), each with its price per accelerator-hour and the
    arithmetic. ``accelerator``, ``provider``, ``pricing`` and ``region`` take
    comma-separated lists; a parameter given twice is a 400."""
    query, offers = _offers(request, params)
    return [o for o in offers if matches(o, query)]


def api_prices(request: Request, params: Annotated[ObservedParams, Query()], ident: str = ACCELERATOR_PATH) -> Response:
    """Observed prices of one accelerator: current prices (newest per offer within the
    freshness window, measured at request time) with discounts and the like-for-like spread,
    and the history in [since, until] with the median series and observation counts."""
    _, view = _prices(request, ident, params)
    return JSONResponse(view.model_dump(mode="json"))


def _store(request: Request) -> Store:
    """The observation store of the app's settings (read on every request: a new import shows at once)."""
    return Store(settings_of(request).prices_dir)


def api_price_current(
    request: Request,
    ident: str = ACCELERATOR_PATH,
    variant: str | None = Query(None, max_length=100, description="the variant key of the spread, e.g. sxm-80gb"),
) -> CurrentView:
    """The newest accepted observation of each offer within the freshness window, measured
    at request time, with spot and term discounts and the like-for-like spread."""
    acc = find_accelerator(request, ident)
    settings = settings_of(request)
    _check_variant(_store(request), acc.id, variant)
    return current_view(
        _store(request), acc.id, history.utcnow(), settings.freshness_days, variant or None, rates_of(settings), catalog_of(request)
    )


def api_providers(request: Request) -> list[ProviderSummary]:
    """Every cloud provider with its kind, regions and what its current offers rent."""
    return link_providers(provider_summaries(catalog_of(request), _offers(request)[1]))


def api_provider(request: Request, ident: str = PROVIDER_PATH) -> ProviderView:
    """One provider with its lock-in facts (each sourced) and its current offers with prices."""
    return find_provider(request, ident)


def static_paths(catalog: Catalog, settings: Settings | None = None) -> Iterable[str]:
    """Every cloud page and API document, for the static build: a page per provider shown
    (:func:`~computeatlas.pages.providers.shown_providers` of ``settings``' store; without
    settings, the recorded providers)."""
    yield from (site_path(n) for n in ("cloud_index", "api_offers", "api_providers"))
    now, s = history.utcnow(), settings
    every = [] if s is None else every_offer(catalog, Store(s.prices_dir), now, s.freshness_days, s.hours_per_month)
    for ident in shown_providers(catalog, every):
        yield site_path("cloud_provider", ident=ident)
        yield site_path("api_provider", ident=ident)
    yield from (site_path("prices_dataset", fmt=fmt) for fmt in ("csv", "parquet"))
    yield site_path("prices_notice")
    for ident in catalog.accelerators:
        for name in ("cloud_prices", "cloud_price_history", "cloud_price_feed", "api_prices", "api_price_history", "api_price_current"):
            yield site_path(name, ident=ident)


ROUTES: tuple[Route, ...] = (
    Route(cloud_redirect, "cloud_redirect", Response),
    Route(cloud_page, "cloud_index"),
    Route(cloud_redirect, "cloud_prices_bare_redirect", Response),
    Route(cloud_redirect, "cloud_prices_redirect", Response),
    Route(price_history_page, "cloud_price_history"),
    Route(price_feed, "cloud_price_feed", Response),
    Route(prices_dataset, "prices_dataset", Response),
    Route(prices_notice, "prices_notice", Response),
    Route(prices_page, "cloud_prices"),
    Route(provider_page, "cloud_provider"),
    Route(api_offers, "api_offers", JSONResponse, list[OfferPrice], in_schema=True, summary="List offers with prices per accelerator-hour"),
    Route(
        api_price_history,
        "api_price_history",
        Response,
        HistoryView,
        in_schema=True,
        summary="Price history of one accelerator (JSON or CSV)",
    ),
    Route(
        api_price_current,
        "api_price_current",
        JSONResponse,
        CurrentView,
        in_schema=True,
        summary="Current observed prices of one accelerator",
    ),
    Route(
        api_prices,
        "api_prices",
        Response,
        PricesView,
        in_schema=True,
        summary="Observed prices of one accelerator: current, spread, discounts and history",
    ),
    Route(api_providers, "api_providers", JSONResponse, list[ProviderSummary], in_schema=True, summary="List cloud providers"),
    Route(api_provider, "api_provider", JSONResponse, ProviderView, in_schema=True, summary="One cloud provider"),
)
