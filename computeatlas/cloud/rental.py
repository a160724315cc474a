"""Where an accelerator is actually rented: the accelerator page's cloud section.

The price range comes from the observation store (:func:`~computeatlas.cloud.history.current_view`:
the newest observation of each offer within the freshness window, measured at request
time), dated, with a link to the observed prices and their history. The same current offers
name the providers (with their lock-in facts on their pages); for a cloud-only part the providers'
"exclusive parts" facts back the note that choosing the part is choosing the cloud.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

from pydantic import BaseModel, Field

from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.cloud.current_prices import ObservedRange, current_view, observed_range
from computeatlas.cloud.offers import OfferLink, current_offers
from computeatlas.cloud.pricing import Spread, price_view
from computeatlas.cloud.queries import PriceQuery
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.records import LockInTopic
from computeatlas.cloud.store import Store
from computeatlas.silicon.records import Accelerator, Availability


class RentProvider(BaseModel):
    """A provider that rents a part, with how many of its current offers are observed."""

    id: str
    name: str
    kind: str
    offers: int
    url: str


class RentSummary(BaseModel):
    """The accelerator page's "Where you actually rent this": who rents the part, its
    on-demand USD price range (the default spread) and, for cloud-only parts, the note
    that choosing the part is choosing the cloud, with that cloud's exclusive-parts facts."""

    offers: int
    providers: list[RentProvider]
    spread: Spread
    cloud_only: bool
    cloud_note: str | None
    exclusive_facts: list[str] = Field(default_factory=list)
    prices_url: str
    observed: ObservedRange | None = Field(None, description="current on-demand USD range from the observation store (None: not read)")
    history_url: str = ""


def rent_summary(
    catalog: CloudCatalog,
    acc: Accelerator,
    on: dt.date | None = None,
    store: Store | None = None,
    now: dt.datetime | None = None,
    freshness_days: int = 90,
    rates: RateTable | None = None,
    *,
    link: OfferLink,
) -> RentSummary | None:
    """Build "Where you actually rent this" for ``acc``: the current observed range from
    ``store`` (as of ``now``), and the providers of its current offers (of its newest
    observations, stale, when none is current; none without a store), each offer's page given
    by ``link`` (the spread's ends link to it).

    None (no section) when no current observation is recorded and the part is not
    cloud-only: the page then says nothing rather than fill a section with nothing.
    """
    now = now or dt.datetime.now(dt.UTC)
    offers = current_offers(catalog, store, now, freshness_days, accelerator=acc.id, link=link) if store is not None else []
    if store is not None and not offers and acc.id in store.observed_accelerators():
        # nothing current: who rented it last still says who rents it (marked stale)
        offers = current_offers(catalog, store, now, freshness_days, include_stale=True, accelerator=acc.id, link=link)
    view = price_view(acc, offers, PriceQuery(), on or now.date(), freshness_days)
    observed = None
    if store is not None:
        observed = observed_range(current_view(store, acc.id, now, freshness_days, rates=rates, catalog=catalog))
    if not view.rows and not (observed and observed.offers) and acc.availability is not Availability.CLOUD_ONLY:
        return None
    counts = Counter(r.offer.provider for r in view.rows)
    providers = [
        RentProvider(id=p.id, name=p.name, kind=p.kind.value, offers=counts[p.id], url="")
        for p in catalog.providers.values()
        if p.id in counts
    ]
    note, facts = None, []
    cloud_only = acc.availability is Availability.CLOUD_ONLY
    if cloud_only and len(providers) == 1:
        only = catalog.providers[providers[0].id]
        note = (
            f"{acc.name} is cloud-only and every offer recorded for it is from {only.name}: "
            f"choosing this part is choosing {only.name}, and leaving {only.name} later means leaving the part too."
        )
        facts = [f.text for f in only.lock_in if f.topic is LockInTopic.EXCLUSIVE_PARTS]
    elif cloud_only and providers:
        note = (
            f"{acc.name} is cloud-only: it can only be rented, from "
            + ", ".join(p.name for p in providers)
            + "; choosing the part limits the choice of cloud to these."
        )
    elif cloud_only:
        note = (
            f"{acc.name} is cloud-only, so choosing the part is choosing the cloud that runs it. "
            f"{acc.availability_note} No offer for it is recorded in the atlas yet."
        )
    return RentSummary(
        offers=len(view.rows),
        providers=providers,
        spread=view.spread,
        cloud_only=cloud_only,
        cloud_note=note,
        exclusive_facts=facts,
        prices_url="",  # the page layer links the section (computeatlas.pages.cloud_links.link_rent)
        observed=observed,
    )
