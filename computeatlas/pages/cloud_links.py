"""The links of the cloud layer's values, added by the page layer: the cloud domain returns
providers and rent summaries with their ids, and the pages, the API and the CLI that show
them link them here, through the URL registry (:func:`computeatlas.core.urls.site_path`);
offers are given their page by :func:`offer_page` (a :data:`~computeatlas.cloud.offers.OfferLink`).
"""

from __future__ import annotations

from collections.abc import Iterable

from computeatlas.cloud.providers import ProviderSummary
from computeatlas.cloud.rental import RentSummary
from computeatlas.core.urls import site_path


def offer_page(provider: str, offer: str) -> str:
    """The site path of offer ``offer`` on provider ``provider``'s page (``/cloud/{provider}#offer-{offer}``)."""
    return site_path("cloud_provider", ident=provider) + f"#offer-{offer}"


def link_providers(summaries: Iterable[ProviderSummary]) -> list[ProviderSummary]:
    """``summaries`` with each ``page_url`` set to its provider's page (``/cloud/{provider}``),
    changed in place and returned as a list."""
    linked = list(summaries)
    for summary in linked:
        summary.page_url = site_path("cloud_provider", ident=summary.id)
    return linked


def link_rent(rent: RentSummary | None, accelerator: str) -> RentSummary | None:
    """``rent`` (the cloud section of ``accelerator``'s page, or None) with its links set, in
    place: each provider's page, the part's price page and its history."""
    if rent is not None:
        for provider in rent.providers:
            provider.url = site_path("cloud_provider", ident=provider.id)
        rent.prices_url = site_path("cloud_prices", ident=accelerator)
        rent.history_url = rent.prices_url + "#history"
    return rent


__all__ = ["link_providers", "link_rent", "offer_page"]
