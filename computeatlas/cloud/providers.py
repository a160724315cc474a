"""Cloud providers as the site shows them: the provider list with the price table
(``/cloud/``) and one provider with its lock-in facts and offers (``/cloud/{provider}``).

Offers are the current ones from the observation store
(:func:`~computeatlas.cloud.offers.current_offers`), passed in by the caller, which reads the
store once per request. The same view objects are rendered by the templates and returned by the API.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

from pydantic import BaseModel, Field

from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.cloud.collection_status import LastCollected
from computeatlas.cloud.offers import (
    STALE_AFTER_DAYS,
    OfferPrice,
    OfferPricing,
    regions_of,
)
from computeatlas.cloud.queries import PriceQuery, matches
from computeatlas.cloud.records import LockInTopic, Provider
from computeatlas.core.citation import SourceView, source_view
from computeatlas.core.offer_words import pricing_words


class ProviderSummary(BaseModel):
    """A provider in the list: kind, regions and what it rents."""

    id: str
    name: str
    kind: str
    url: str = Field(description="the provider's own site")
    regions: list[str]
    offers: int = Field(description="its current offers (newest observation within the freshness window)")
    accelerators: list[str] = Field(description="names of the parts it rents, per its current offers")
    page_url: str


class LockInView(BaseModel):
    """One sourced fact that makes leaving a provider hard."""

    topic: LockInTopic
    topic_label: str
    text: str
    source: SourceView


class ProviderView(BaseModel):
    """Everything ``/cloud/{provider}`` shows: the record, its lock-in facts by topic,
    the topics nobody has collected yet (shown as words), and its offers with prices."""

    id: str
    name: str
    kind: str = Field(description="hyperscaler, neocloud or marketplace; 'not yet recorded' without a provider record")
    url: str | None = Field(description="the provider's own site; None without a provider record")
    regions: list[str] = Field(description="as its record names them; without a record, the regions its offers state")
    summary: str
    verified: dt.date | None = Field(description="the date its record was last checked; None without a record")
    lock_in: list[LockInView]
    lock_in_missing: list[str] = Field(description="lock-in topics with no recorded fact: 'not yet collected'")
    offers: list[OfferPrice]
    last_collected: LastCollected | None = Field(
        None, description="when its newest price in the store (current or not) was collected, and through what; None when it has none"
    )
    sources: list[SourceView]
    data_file: str | None
    data_version: str
    recorded: bool = Field(True, description="False for a provider whose prices we hold but which has no provider record yet")


class Choice(BaseModel):
    """One option of a filter: the parameter value and its words."""

    value: str
    label: str


class CloudIndexView(BaseModel):
    """``/cloud/``: every provider, and the price table filtered by ``query``."""

    providers: list[ProviderSummary]
    query: PriceQuery
    offers: list[OfferPrice]
    total_offers: int
    choices: dict[str, list[Choice]] = Field(description="filter options: accelerator, provider, pricing, region")
    stale_after_days: int = STALE_AFTER_DAYS
    as_of: dt.date
    store_version: str = Field("", description="the observation store's version the prices were read at")


def _summary(catalog: CloudCatalog, provider: Provider, count: int, rented: set[str]) -> ProviderSummary:
    """``provider`` with its ``count`` current offers and the names of the parts they rent (``rented``: ids), in catalog order."""
    parts = [a.name for a in catalog.accelerators.values() if a.id in rented]
    return ProviderSummary(
        id=provider.id,
        name=provider.name,
        kind=provider.kind.value,
        url=provider.url,
        regions=list(provider.regions),
        offers=count,
        accelerators=parts,
        page_url="",  # the page layer links it (computeatlas.pages.cloud_links.link_providers)
    )


def provider_summaries(catalog: CloudCatalog, offers: list[OfferPrice]) -> list[ProviderSummary]:
    """Every provider, ordered by name, with what its current ``offers`` rent (one pass over them)."""
    counts: Counter[str] = Counter()
    rented: dict[str, set[str]] = defaultdict(set)
    for o in offers:
        counts[o.provider] += 1
        rented[o.provider].add(o.accelerator)
    return [_summary(catalog, p, counts[p.id], rented.get(p.id, set())) for p in catalog.providers.values()]


NOT_RECORDED = "not yet recorded"
"""The kind (and every other fact of a record) of a provider we hold prices of but have no record for."""


def unrecorded_view(
    catalog: CloudCatalog, ident: str, offers: list[OfferPrice], last_collected: LastCollected | None = None
) -> ProviderView:
    """The page data of provider ``ident``, whose prices are in ``offers`` (its newest
    observation of each offer, of any age) but which has no provider record: only what the
    offers say (what it rents, the regions they state, when they were collected); every
    fact a record would hold is "not yet recorded", never guessed."""
    own = [o for o in offers if o.provider == ident]
    return ProviderView(
        id=ident,
        name=own[0].provider_name if own else ident,
        kind=NOT_RECORDED,
        url=None,
        regions=sorted({o.region_label for o in own if o.region}),
        summary=f"We hold price observations of {ident} but no provider record yet: its kind, site, "
        "regions and what makes leaving it hard are not yet recorded. What it rents is read from its observations.",
        verified=None,
        lock_in=[],
        lock_in_missing=[t.label for t in LockInTopic],
        offers=own,
        sources=[],
        data_file=None,
        data_version=catalog.version,
        recorded=False,
        last_collected=last_collected,
    )


def provider_view(
    catalog: CloudCatalog, provider: Provider, offers: list[OfferPrice], last_collected: LastCollected | None = None
) -> ProviderView:
    """The page data of one provider, with its share of the current ``offers`` and when its
    prices were last collected (:func:`~computeatlas.cloud.collection_status.provider_collected`)."""
    sources = {k: source_view(k, s) for k, s in provider.sources.items()}
    facts = [
        LockInView(topic=f.topic, topic_label=f.topic.label, text=f.text, source=sources[f.source])
        for f in sorted(provider.lock_in, key=lambda f: list(LockInTopic).index(f.topic))
    ]
    covered = {f.topic for f in provider.lock_in}
    return ProviderView(
        id=provider.id,
        name=provider.name,
        kind=provider.kind.value,
        url=provider.url,
        regions=list(provider.regions),
        summary=provider.summary,
        verified=provider.verified,
        lock_in=facts,
        lock_in_missing=[t.label for t in LockInTopic if t not in covered],
        offers=[o for o in offers if o.provider == provider.id],
        last_collected=last_collected,
        sources=list(sources.values()),
        data_file=catalog.file_of("providers", provider.id),
        data_version=catalog.version,
    )


def cloud_index(
    catalog: CloudCatalog,
    offers: list[OfferPrice],
    query: PriceQuery,
    on: dt.date,
    freshness_days: int = STALE_AFTER_DAYS,
    store_version: str = "",
) -> CloudIndexView:
    """The provider list and the price table of the current ``offers`` filtered by ``query``
    (accelerator, provider, pricing, region …) as of ``on``."""
    offered = {o.accelerator for o in offers}
    choices = {
        "accelerator": [Choice(value=a.id, label=a.name) for a in catalog.accelerators.values() if a.id in offered],
        "provider": [Choice(value=p.id, label=p.name) for p in catalog.providers.values()],
        "pricing": [Choice(value=p.value, label=pricing_words(p.value)) for p in OfferPricing],
        "region": [Choice(value=r, label=r) for r in regions_of(offers)],
    }
    return CloudIndexView(
        providers=provider_summaries(catalog, offers),
        query=query,
        offers=[o for o in offers if matches(o, query)],
        total_offers=len(offers),
        choices=choices,
        stale_after_days=freshness_days,
        as_of=on,
        store_version=store_version,
    )
