"""Every provider the site shows a price of gets a page: the recorded ones
(``data/providers/``) and those whose prices we hold without a provider record yet
(TensorDock, JarvisLabs …), whose pages say only what their observations say.

The store is read once per call: the newest observation of every offer, of any age
(:func:`~computeatlas.cloud.offers.current_offers` with ``include_stale``), which gives
who is shown anywhere (a stale offer is shown on price pages).
"""

from __future__ import annotations

import datetime as dt

from computeatlas.catalog import Catalog
from computeatlas.cloud.collection_status import LastCollected
from computeatlas.cloud.offers import OfferPrice, current_offers
from computeatlas.cloud.providers import ProviderView, provider_view, unrecorded_view
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.store import Store
from computeatlas.pages.cloud_links import offer_page


def every_offer(
    catalog: Catalog, store: Store, now: dt.datetime, freshness_days: int, hours_per_month: float, rates: RateTable | None = None
) -> list[OfferPrice]:
    """The newest observation of every offer in ``store`` (of any age), priced (a non-USD
    price with its USD figure through ``rates``, the rate and its date beside it)."""
    return current_offers(
        catalog, store, now, freshness_days, include_stale=True, hours_per_month=hours_per_month, link=offer_page, rates=rates
    )


def shown_providers(catalog: Catalog, offers: list[OfferPrice]) -> list[str]:
    """The ids of every provider with a page: the recorded ones, then (sorted) every other
    provider of ``offers`` (all offers, of any age)."""
    return list(catalog.providers) + sorted({o.provider for o in offers} - set(catalog.providers))


def provider_page_view(
    catalog: Catalog, ident: str, current: list[OfferPrice], every: list[OfferPrice], last_collected: LastCollected | None
) -> ProviderView | None:
    """The page data of provider ``ident``: its record with its ``current`` offers, or, for a
    provider without a record that has offers in ``every`` (any age), what those say; None
    when neither (the caller's 404). Both carry when its prices were last collected
    (``last_collected``: :func:`~computeatlas.cloud.collection_status.provider_collected`)."""
    if ident in catalog.providers:
        return provider_view(catalog, catalog.providers[ident], current, last_collected)
    if any(o.provider == ident for o in every):
        return unrecorded_view(catalog, ident, every, last_collected)
    return None


__all__ = ["every_offer", "provider_page_view", "shown_providers"]
