"""Offers as the observation store holds them: the newest accepted observation of each offer,
with its price per accelerator-hour and the arithmetic kept beside it.

An *offer* is what a provider sells at one price: provider, the provider's own instance or
product name, region, pricing kind and term (:data:`computeatlas.cloud.store.OFFER`). Its
*current* price is its newest accepted observation collected within the freshness window
(:attr:`~computeatlas.core.settings.Settings.freshness_days`), measured at request time; a
held observation is never a price. Nothing here reads ``data/offers/``: the hand-typed
offers reach pages only through their import into the store.

- **Price per accelerator-hour** (:func:`offer_price`): for an ``instance`` price it is the
  published price per instance-hour ÷ accelerators per instance (``"98.32 USD ÷ 8 = 12.29
  USD per GPU-hour"``); for an ``accelerator`` price it is the published figure. A price
  per month, week or second is first made hourly (month ÷ hours per month, 730 by default;
  week ÷ 168; second × 3600) and says so. It stays in the observation's own currency: a
  non-USD offer is left out of USD comparisons (spreads, the cheapest price); given a rate
  table, it carries a USD figure through the newest rate dated on or before its collection
  (:meth:`~computeatlas.cloud.rates.RateTable.to_usd`) with that rate and its date, in the
  words of :func:`~computeatlas.cloud.rates.conversion_words`.
- **Offer id** (:func:`offer_id`): a stable slug of provider, instance, pricing, term,
  region and collection date (``lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20``): the same
  id the hand-typed offers had before they moved into the store.
- **Variant** (:func:`variant_of_key`): the variant key the importer stored (form and memory
  per accelerator the provider states); an observation that states neither is "variant not
  stated" and is never mixed with a stated variant, unless its part exists in one variant
  only (then it is that variant, as placement decides: :func:`computeatlas.cloud.variants.rule_variant`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any

from pydantic import Field

from computeatlas.cloud.catalog import CloudCatalog as Catalog
from computeatlas.cloud.offer_arithmetic import arithmetic as _arithmetic
from computeatlas.cloud.offer_words import row_id, unit_word, variant_of_key
from computeatlas.cloud.rates import Converted, RateTable, usd_fields
from computeatlas.cloud.records import PriceBasis
from computeatlas.cloud.regions import region_label
from computeatlas.cloud.store import Store
from computeatlas.cloud.variants import Variant, rule_variant, sole_keys
from computeatlas.core.states import State
from computeatlas.silicon.records import Accelerator

STALE_AFTER_DAYS = 90
"""The default freshness window in days (the settings' ``freshness_days`` rules at run time)."""

COMPARISON_CURRENCY = "USD"
"""The only currency prices are compared in; others are shown with a converted figure beside them, never mixed in."""

OfferLink = Callable[[str, str], str]
"""The page an offer is shown on, from its provider's id and the offer's id (the page layer's
:func:`computeatlas.pages.cloud_links.offer_page`: ``/cloud/{provider}#offer-{offer}``); the
cloud layer builds no URL."""


def unlinked(provider: str, offer: str) -> str:
    """No page: ``''`` for every offer (for callers that show no link to it)."""
    return ""


class OfferPricing(StrEnum):
    """How the capacity is bought, as offer lists spell it (``on-demand`` with a hyphen; the
    store writes ``on_demand``). A Capacity Block is its own kind, no longer ``reserved``."""

    ON_DEMAND = "on-demand"
    SPOT = "spot"
    COMMITTED = "committed"
    RESERVED = "reserved"
    CAPACITY_BLOCK = "capacity-block"
    MARKETPLACE = "marketplace"
    MONTHLY = "monthly"
    WEEKLY = "weekly"


# --- one offer -----------------------------------------------------------------------


class OfferPrice(Converted):
    """One offer's newest accepted observation with its derived price per accelerator-hour.

    ``price_per_hour`` is the published amount per hour (made hourly from a month, week or
    second when so published; see ``arithmetic``), in ``currency``, for what
    ``price_basis`` covers. ``per_accelerator_hour`` is derived in the same currency.
    """

    id: str = Field(
        description="stable offer id from provider, instance type, pricing, term, region and date collected, e.g. 'lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20'"
    )
    provider: str
    provider_name: str
    provider_kind: str
    accelerator: str
    accelerator_name: str
    variant_published: str = Field(description="the variant as the provider names it, or the stored variant when its words were not kept")
    variant: Variant
    instance_type: str
    accelerators_per_instance: int
    price_basis: PriceBasis
    pricing: OfferPricing
    term: str | None
    price_per_hour: float = Field(
        description="as published, per instance-hour (or per accelerator-hour, per price_basis); made hourly from a longer or shorter unit"
    )
    price_text: str = Field(description="price_per_hour as text with at least two decimals, e.g. '3.20'")
    published_amount: float = Field(description="the price exactly as published, per published_unit (e.g. 2474.5845 per month)")
    published_unit: str = Field(description="what the published price is per: hour, month, week or second")
    hours_per_month: float | None = Field(
        None, description="for a price per month: the hours a month is counted as to make it hourly (730 by default; a setting)"
    )
    currency: str
    region: str | None
    region_label: str = Field(
        description="the region as the provider names it, with its place where known (computeatlas.cloud.regions), or 'not stated'"
    )
    collected: dt.datetime = Field(description="when the observation was collected (UTC)")
    seen: dt.date = Field(description="the collection date")
    age_days: int = Field(description="whole days between 'collected' and the request")
    stale: bool = Field(description="collected more than the freshness window (settings, 90 days by default) before the request")
    state: State = Field(
        description="derived (an instance price ÷ its accelerators), published (a price per accelerator as published) or not_separable"
    )
    per_accelerator_hour: float | None = Field(description="price per accelerator-hour in 'currency'")
    unit: str = Field(description="what one accelerator is called: GPU or accelerator")
    display: str = Field(description="e.g. '12.29 USD per GPU-hour'")
    arithmetic: str = Field(description="how per_accelerator_hour was derived")
    usd_comparable: bool = Field(description="True when the offer can enter USD comparisons (USD and separable)")
    source_url: str
    note: str | None
    data_file: str = Field(description="the file or collector the observation came through (its 'via')")
    run: str = Field(description="the import run that stored the observation")
    url: str = Field(description="the offer on its provider's page")  # given by the caller's OfferLink


OFFER_COLUMNS = (
    "accelerator",
    "provider",
    "instance_type",
    "region",
    "pricing",
    "term",
    "amount",
    "currency",
    "unit",
    "price_basis",
    "accelerators",
    "stated_accelerators",
    "collected",
    "variant",
    "raw_extra",
    "source_url",
    "note",
    "via",
    "run",
)
"""The stored columns :func:`offer_price` reads (what :func:`current_offers` asks the store for)."""


class _Pricer:
    """:func:`offer_price` of many rows as of one ``now``: what rows share (a part's words, a
    provider's, a region's label, a variant, the arithmetic of one published price, the
    published variant words of one ``raw_extra``) is worked out once per call, never kept
    beyond it. Each offer's ``url`` is ``link(provider, offer id)``."""

    def __init__(
        self, catalog: Catalog, now: dt.datetime, freshness_days: int, hours_per_month: float, link: OfferLink, rates: RateTable | None
    ) -> None:
        self.catalog, self.now, self.freshness_days, self.hours_per_month = catalog, now, freshness_days, hours_per_month
        self.link, self.rates = link, rates or RateTable([])
        self.sole = sole_keys(catalog)
        self._parts: dict[str, tuple[Accelerator, str]] = {}
        self._providers: dict[str, tuple[str, str]] = {}
        self._regions: dict[tuple[str, str | None], str] = {}
        self._variants: dict[tuple[str, str], Variant] = {}
        self._prices: dict[tuple[object, ...], tuple[float, str, State, float, str, str]] = {}
        self._published: dict[str, object] = {}
        self._kinds: dict[str, OfferPricing] = {}

    def __call__(self, row: Mapping[str, Any]) -> OfferPrice:
        """The :class:`OfferPrice` of ``row``; ``KeyError`` when its part is not in the catalog."""
        part = row["accelerator"]
        if part not in self._parts:
            found = self.catalog.accelerators[part]
            self._parts[part] = (found, unit_word(found))
        acc, word = self._parts[part]
        ident_of = row["provider"]
        named = self._providers.get(ident_of)
        if named is None:
            provider = self.catalog.providers.get(ident_of)
            named = self._providers[ident_of] = (
                provider.name if provider else ident_of,
                provider.kind.value if provider else "not recorded",
            )
        cur, count, basis = row["currency"], int(row["accelerators"] or row["stated_accelerators"] or 1), PriceBasis(row["price_basis"])
        key = (repr(row["amount"]), row["unit"], count, basis, cur, word)  # repr: 0.0 and -0.0 are written apart
        priced = self._prices.get(key)
        if priced is None:
            priced = self._prices[key] = _arithmetic(row["amount"], row["unit"], count, basis, cur, word, self.hours_per_month)
        per_hour, price_text, state, quotient, display, arithmetic = priced
        collected: dt.datetime = row["collected"].astimezone(dt.UTC)
        age = (self.now - collected).days
        stored = (row["variant"] or "", acc.id)
        variant = self._variants.get(stored)
        if variant is None:
            variant = self._variants[stored] = variant_of_key(rule_variant(stored[0], acc.id, self.sole))
        text = row.get("raw_extra") or ""
        if text not in self._published:
            self._published[text] = _extra(text).get("variant_published")
        where = (ident_of, row["region"])
        label = self._regions.get(where)
        if label is None:
            label = self._regions[where] = region_label(*where)
        pricing = self._kinds.get(row["pricing"])
        if pricing is None:
            pricing = self._kinds[row["pricing"]] = OfferPricing(row["pricing"].replace("_", "-"))
        ident = row_id(row)
        return OfferPrice(
            id=ident,
            provider=ident_of,
            provider_name=named[0],
            provider_kind=named[1],
            accelerator=acc.id,
            accelerator_name=acc.name,
            variant_published=self._published[text] or variant.label,
            variant=variant,
            instance_type=row["instance_type"],
            accelerators_per_instance=count,
            price_basis=basis,
            pricing=pricing,
            term=row["term"] or None,
            price_per_hour=per_hour,
            price_text=price_text,
            published_amount=row["amount"],
            published_unit=row["unit"],
            hours_per_month=self.hours_per_month if row["unit"] == "month" else None,
            currency=cur,
            region=row["region"] or None,
            region_label=label,
            collected=collected,
            seen=collected.date(),
            age_days=age,
            stale=age > self.freshness_days,
            state=state,
            per_accelerator_hour=quotient,
            unit=word,
            display=display,
            arithmetic=arithmetic,
            usd_comparable=cur == COMPARISON_CURRENCY,
            **usd_fields(quotient, cur, collected.date(), self.rates, f"{word}-hour"),
            source_url=row["source_url"],
            note=row["note"] or None,
            data_file=row["via"],
            run=row["run"],
            url=self.link(ident_of, ident),
        )


def offer_price(
    catalog: Catalog,
    row: Mapping[str, Any],
    now: dt.datetime,
    freshness_days: int = STALE_AFTER_DAYS,
    hours_per_month: float = 730.0,
    *,
    link: OfferLink,
    rates: RateTable | None = None,
) -> OfferPrice:
    """The :class:`OfferPrice` of one stored, accepted observation ``row`` as of ``now``, its
    ``url`` given by ``link`` (:data:`OfferLink`; :func:`unlinked` for none).

    Formula: price per instance-hour ÷ accelerators per instance for ``instance`` prices;
    the published figure (made hourly) for ``accelerator`` prices. Raises ``KeyError`` when
    the row's accelerator is not in ``catalog`` (callers list only placed rows). ``rates``
    gives a non-USD price its USD figure with the rate and its date.
    """
    return _Pricer(catalog, now, freshness_days, hours_per_month, link, rates)(row)


def _extra(text: str) -> dict[str, Any]:
    try:
        found = json.loads(text) if text.startswith("{") else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


# --- from the store ------------------------------------------------------------------


def current_offers(
    catalog: Catalog,
    store: Store,
    now: dt.datetime,
    freshness_days: int = STALE_AFTER_DAYS,
    since: dt.date | None = None,
    until: dt.date | None = None,
    include_stale: bool = False,
    accelerator: str | None = None,
    hours_per_month: float = 730.0,
    *,
    link: OfferLink,
    rates: RateTable | None = None,
) -> list[OfferPrice]:
    """The newest accepted observation of each offer, priced, sorted by accelerator (catalog
    order), then USD price per accelerator-hour (other currencies after), then provider; each
    offer's ``url`` given by ``link`` (:data:`OfferLink`; :func:`unlinked` for none).

    The window is [``since``, ``until``] (dates, inclusive) where given; otherwise it starts
    ``freshness_days`` before ``now`` (from the first observation with ``include_stale``)
    and ends at ``now``. Held rows are never listed, nor rows placed on no catalog part.
    ``rates`` gives each non-USD price its USD figure with the rate and its date.
    """
    first = dt.datetime.combine(since, dt.time(), dt.UTC) if since else (None if include_stale else now - dt.timedelta(days=freshness_days))
    last = min(now, dt.datetime.combine(until, dt.time.max, dt.UTC)) if until else now
    names = {ident: n for n, ident in enumerate(catalog.accelerators)}
    rows = store.newest(first, last, accelerator, columns=OFFER_COLUMNS, parts=names)
    price = _Pricer(catalog, now, freshness_days, hours_per_month, link, rates)
    prices = [price(r) for r in rows if r["accelerator"] in names]
    return sorted(prices, key=lambda p: (names[p.accelerator], not p.usd_comparable, p.per_accelerator_hour or 0.0, p.provider_name, p.id))


def find_offer(
    catalog: Catalog,
    store: Store,
    ident: str,
    now: dt.datetime,
    freshness_days: int = STALE_AFTER_DAYS,
    hours_per_month: float = 730.0,
    *,
    link: OfferLink,
) -> OfferPrice | None:
    """The accepted observation whose :func:`offer_id` is ``ident`` (the newest of that day), or
    None; its ``url`` given by ``link``. The id ends in its collection date, so only that day's
    partition is read."""
    found = re.search(r"(\d{4}-\d{2}-\d{2})$", ident.strip())
    try:
        day = dt.date.fromisoformat(found.group(1)) if found else None
    except ValueError:
        day = None
    if day is None:
        return None
    rows = store.query("SELECT * FROM latest WHERE status = 'accepted' ORDER BY collected DESC", (), day, day)
    match = next((r for r in rows if row_id(r) == ident.strip() and r["accelerator"] in catalog.accelerators), None)
    return offer_price(catalog, match, now, freshness_days, hours_per_month, link=link) if match else None


def regions_of(offers: Iterable[OfferPrice]) -> list[str]:
    """The distinct regions offers name, sorted case-insensitively."""
    return sorted({o.region for o in offers if o.region}, key=str.casefold)


__all__ = [
    "COMPARISON_CURRENCY",
    "OFFER_COLUMNS",
    "STALE_AFTER_DAYS",
    "OfferLink",
    "OfferPrice",
    "OfferPricing",
    "current_offers",
    "find_offer",
    "offer_price",
    "regions_of",
    "unlinked",
]
