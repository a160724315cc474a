"""The query parameters of the cloud pages and API (:mod:`computeatlas.web.cloud`), each set
declared as a pydantic model (and the path parameters, :data:`ACCELERATOR_PATH` and
:data:`PROVIDER_PATH`): the filters of ``/cloud/`` (:data:`IndexParams`) and
``/api/offers`` (:data:`OfferParams`), and the observed prices of one accelerator
(:class:`ObservedParams`; the price page's :class:`PricePageParams`, a history's
:class:`HistoryParams`). Any other parameter is ignored; a bad value is a 400 naming it.
A provider, in a filter or a path, is an id in any case: :func:`checked` and
:func:`provider_path` read it by :func:`~computeatlas.cloud.queries.provider_id` among every
provider with a page (recorded, or shown by its prices).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal, TypeVar

from fastapi import Path, Request
from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from computeatlas.cloud import history
from computeatlas.cloud.history import HISTORY_FILTERS, HISTORY_LIMIT, HISTORY_MAX
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.price_window import WindowKind, page_window
from computeatlas.cloud.queries import PricingQueryError, provider_id
from computeatlas.cloud.store import Store
from computeatlas.core.errors import NotFound, ParamError, closest
from computeatlas.pages.providers import every_offer, shown_providers
from computeatlas.web.page import Moved, catalog_of, refuse_repeats, settings_of, urls_of

INDEX_PARAMS = ("accelerator", "provider", "pricing", "region", "sort", "seen_sort")
"""Filters of the ``/cloud/`` price table, and the sorts of its two tables."""

OFFER_PARAMS = ("accelerator", "provider", "pricing", "region", "variant", "since", "until", "include_stale")
"""Filters of ``/api/offers``."""


PROVIDER_PATH = Path(description="provider id, e.g. 'coreweave'", max_length=100)
ACCELERATOR_PATH = Path(description="accelerator id, e.g. 'nvidia-h100-sxm'", max_length=100)

DESCRIPTIONS = {
    "accelerator": "accelerator id, alias or name, e.g. nvidia-h100-sxm or Trn3; several comma-separated; "
    "a name several parts share (A100) is a 300 listing them",
    "provider": "provider id in any case, e.g. lambda; several comma-separated (aws,lambda); an unknown one is a 400 listing the known ids",
    "pricing": "on_demand, spot, committed, reserved, capacity_block, marketplace, monthly or weekly; several comma-separated. "
    "on_demand is the data's spelling (the observation store, the price dataset, /api/prices); '-' may be written for '_' "
    "(on-demand, capacity-block), here and in every other pricing parameter",
    "region": "a region as an offer names it, e.g. us-east-1; several comma-separated",
    "variant": "variant key such as 'sxm-80gb' (see /api/prices/{accelerator}), or 'all' to mix every variant",
    "since": "first collection date of the window, YYYY-MM-DD (default: the freshness window, 90 days)",
    "until": "last collection date of the window, YYYY-MM-DD",
    "include_stale": "true to list offers whose newest observation is older than the freshness window (marked stale)",
    "sort": "sort the price table by any column: price, accelerator, provider, variant, instance, pricing, published, region, collected "
    "or source ('-price': dearest first); default: as listed",
    "seen_sort": "sort the 'seen before, not current' table by any column: accelerator, price, provider, instance, seen or source "
    "('-seen': most recently seen first); default: catalog order",
}


def _params(name: str, names: tuple[str, ...], doc: str) -> type[BaseModel]:
    """A model declaring the query parameters ``names`` (text, at most 200 characters each); others are ignored."""
    fields: dict[str, Any] = {n: (str | None, Field(None, max_length=200, description=DESCRIPTIONS[n])) for n in names}
    return create_model(name, __config__=ConfigDict(extra="ignore", frozen=True), __doc__=doc, **fields)


IndexParams = _params("CloudIndexParams", INDEX_PARAMS, "Filters of the /cloud/ price table.")
OfferParams = _params("OfferParams", OFFER_PARAMS, "Filters of /api/offers.")


class ObservedParams(BaseModel):
    """Parameters of the observed prices of one accelerator (``/cloud/prices/{id}``,
    ``/api/prices/{id}``): the variant of the spread, and the window and filters of the
    history; any other parameter is ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    since: dt.date | None = Field(None, description="first collection date of the history, YYYY-MM-DD (default: one year before today)")
    until: dt.date | None = Field(None, description="last collection date of the history, YYYY-MM-DD (default: today)")
    window: Literal["year", "all"] | None = Field(
        None,
        description="the history's window when no since/until is given: 'year' "
        "(the default, one year ending today) or 'all' (all of the history)",
    )
    provider: str | None = Field(None, max_length=100, description="a provider id in any case, e.g. lambda; an unknown one is a 400")
    pricing: PricingKind | None = Field(
        None,
        description="on_demand, spot, committed, reserved, capacity_block, marketplace, monthly or weekly; "
        "'-' may be written for '_' (on-demand, capacity-block)",
    )
    variant: str | None = Field(None, max_length=100, description="a variant key, e.g. sxm-80gb")
    region: str | None = Field(None, max_length=200, description="a region as the provider names it, e.g. us-east-1")

    @field_validator("pricing", mode="before")
    @classmethod
    def _one_spelling(cls, value: object) -> object:
        """``on-demand`` is ``on_demand`` (``-`` is read as ``_``, any case)."""
        return value.strip().lower().replace("-", "_") if isinstance(value, str) else value

    def dates(self, today: dt.date) -> tuple[dt.date | None, dt.date | None, WindowKind]:
        """The history's window (:func:`~computeatlas.cloud.history.page_window`): ``since`` and
        ``until`` as given, else all of the history for ``window=all``, else one year ending
        ``today``; and how it was chosen. A 400 naming both when ``since`` is after ``until``
        (a window that cannot hold anything is a mistake, not an empty history), and one
        naming ``window`` when it is given with since/until."""
        if self.since and self.until and self.since > self.until:
            raise ParamError("since", f"since ({self.since}) is after until ({self.until}): the window is empty")
        return page_window(today, self.since, self.until, self.window)

    def filters(self) -> dict[str, str | None]:
        """The exact-match filters of :func:`~computeatlas.cloud.history.history_view`."""
        values = {k: getattr(self, k) for k in HISTORY_FILTERS}
        return {k: (v.value if isinstance(v, PricingKind) else v) or None for k, v in values.items()}


SORT_DESCRIPTION = (
    "sort the table by any column: provider, instance, region, pricing, published, price, discount, variant, collected or source "
    "(a leading '-' sorts the other way: -price is dearest first); default: as listed"
)


class PricePageParams(ObservedParams):
    """Parameters of the price page ``/cloud/prices/{id}``: those of the observed prices, and
    the columns its current-price table and its history table are sorted by."""

    sort: str | None = Field(None, max_length=20, description=SORT_DESCRIPTION)
    history_sort: str | None = Field(
        None,
        max_length=20,
        description="sort the history table by any column: date, provider, median or observations "
        "(a leading '-' sorts the other way: -median is dearest first); default: oldest date first",
    )


class HistoryParams(ObservedParams):
    """Parameters of a price history (``/cloud/prices/{id}/history``, ``/api/prices/{id}/history``);
    any other parameter is ignored."""

    format: Literal["json", "csv"] = Field("json", description="json (default) or csv (the API only)")
    limit: int = Field(
        HISTORY_LIMIT,
        ge=1,
        le=HISTORY_MAX,
        description=f"how many observations to list, the newest (default {HISTORY_LIMIT}, at most {HISTORY_MAX}; the series covers all)",
    )


P = TypeVar("P", bound=ObservedParams)


def known_providers(request: Request) -> list[str]:
    """Every provider id with a page: the recorded ones, then every other provider of the
    store's offers of any age (:func:`~computeatlas.pages.providers.shown_providers`)."""
    catalog, settings = catalog_of(request), settings_of(request)
    store = Store(settings.prices_dir)
    return shown_providers(catalog, every_offer(catalog, store, history.utcnow(), settings.freshness_days, settings.hours_per_month))


def checked(request: Request, params: P) -> P:
    """``params`` with ``provider`` as the id it names in any case; a 400 naming a parameter
    given twice, or a provider that is none, with the known ids (the store is read only when
    the provider is not a recorded one)."""
    refuse_repeats(request, type(params).model_fields)
    if not params.provider:
        return params
    try:
        ident = provider_id(params.provider, catalog_of(request).providers)
    except PricingQueryError:
        ident = provider_id(params.provider, known_providers(request))
    return params.model_copy(update={"provider": ident})


def provider_path(request: Request, ident: str, known: list[str]) -> None:
    """Return when ``ident`` is one of the ``known`` provider ids; raise :class:`Moved` to the
    same route at the id when it is one in another case (``CoreWeave``), and :class:`NotFound`
    naming the closest and every known id otherwise."""
    if ident in known:
        return
    try:
        found = provider_id(ident, known)
    except PricingQueryError:
        cloud = urls_of(request).template("cloud_provider")
        raise NotFound(
            "No such cloud provider",
            f"There is no cloud provider with id '{ident}' (known: {', '.join(known)}).",
            [(i, cloud.format(i)) for i in closest(ident, known)],
        ) from None
    route = getattr(request.scope.get("route"), "name", "cloud_provider").removesuffix("_head")
    query = request.url.query
    raise Moved(urls_of(request).path(route, ident=found) + (f"?{query}" if query else ""))


__all__ = [
    "ACCELERATOR_PATH",
    "DESCRIPTIONS",
    "INDEX_PARAMS",
    "OFFER_PARAMS",
    "PROVIDER_PATH",
    "SORT_DESCRIPTION",
    "HistoryParams",
    "IndexParams",
    "ObservedParams",
    "OfferParams",
    "P",
    "PricePageParams",
    "checked",
    "known_providers",
    "provider_path",
]
