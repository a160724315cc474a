"""The query parameters of the cloud pages and API (:mod:`computeatlas.web.cloud`), each set
declared as a pydantic model (and the path parameters, :data:`ACCELERATOR_PATH` and
:data:`PROVIDER_PATH`): the filters of ``/cloud/`` (:data:`IndexParams`) and
``/api/offers`` (:data:`OfferParams`), and the observed prices of one accelerator
(:class:`ObservedParams`; the price page's :class:`PricePageParams`, a history's
:class:`HistoryParams`). Any other parameter is ignored; a bad value is a 400 naming it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from computeatlas.cloud.history import HISTORY_FILTERS, HISTORY_LIMIT, HISTORY_MAX
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.price_window import WindowKind, page_window
from computeatlas.core.errors import ParamError

INDEX_PARAMS = ("accelerator", "provider", "pricing", "region", "sort")
"""Filters of the ``/cloud/`` price table."""

OFFER_PARAMS = ("accelerator", "provider", "pricing", "region", "variant", "since", "until", "include_stale")
"""Filters of ``/api/offers``."""


PROVIDER_PATH = Path(description="provider id, e.g. 'coreweave'", max_length=100)
ACCELERATOR_PATH = Path(description="accelerator id, e.g. 'nvidia-h100-sxm'", max_length=100)

DESCRIPTIONS = {
    "accelerator": "accelerator id, e.g. nvidia-h100-sxm; several comma-separated",
    "provider": "provider id, e.g. lambda; several comma-separated (aws,lambda)",
    "pricing": "on-demand, spot, reserved, capacity-block, marketplace, monthly or weekly; several comma-separated",
    "region": "a region as an offer names it, e.g. us-east-1; several comma-separated",
    "variant": "variant key such as 'sxm-80gb' (see /api/prices/{accelerator}), or 'all' to mix every variant",
    "since": "first collection date of the window, YYYY-MM-DD (default: the freshness window, 90 days)",
    "until": "last collection date of the window, YYYY-MM-DD",
    "include_stale": "true to list offers whose newest observation is older than the freshness window (marked stale)",
    "sort": "sort the price table by any column: price, accelerator, provider, variant, instance, pricing, published, region, collected "
    "or source ('-price': dearest first); default: as listed",
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
    provider: str | None = Field(None, max_length=100, description="a provider id, e.g. lambda")
    pricing: PricingKind | None = Field(
        None,
        description="on_demand, spot, committed, reserved, capacity_block, marketplace, monthly or weekly; "
        "'-' may be written for '_' (on-demand, as /api/offers and /cloud/ spell it)",
    )
    variant: str | None = Field(None, max_length=100, description="a variant key, e.g. sxm-80gb")
    region: str | None = Field(None, max_length=200, description="a region as the provider names it, e.g. us-east-1")

    @field_validator("pricing", mode="before")
    @classmethod
    def _one_spelling(cls, value: object) -> object:
        """``on-demand`` (the spelling of /api/offers and /cloud/) is ``on_demand``."""
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
    the column its current-price table is sorted by."""

    sort: str | None = Field(None, max_length=20, description=SORT_DESCRIPTION)


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
    "PricePageParams",
]
