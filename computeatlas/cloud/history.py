"""Current prices and price history of one accelerator, queried from the observation store
at request time (nothing is loaded at start; staleness is measured from ``now``).

- :func:`current_view`: the newest accepted observation of each offer (provider, instance,
  region, pricing, term) within the freshness window, each with its age, the like-for-like
  spread of the chosen variant (on-demand, USD, fresh; variant-not-stated rows left out),
  and spot, reserved and term prices beside the same instance's on-demand price with the
  discount.
- :func:`history_view`: every accepted observation in a date window (filters: provider,
  pricing, variant, region), and the series pages tabulate: per collection date and
  provider, the median on-demand USD price per accelerator-hour with its number of
  observations (never a median over all providers: the set seen changes from date to date).
- :func:`page_window`: the window a price page reads: one year ending today unless it is
  given (``since``/``until``) or all of the history is asked (``window=all``), so a page
  does not grow with the history; every per-part query passes it to the store, which
  reads only those date partitions.
- :func:`price_changes`: the price-change feed, worked out by DuckDB over the last year
  (a longer span only when the year cannot tell what the newest entries are).

Units: prices per accelerator-hour in the observation's currency; medians in USD (only
USD observations enter them).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, Field

from computeatlas.cloud.catalog import CloudCatalog as Catalog
from computeatlas.cloud.cheapest_price import (
    CheapestPrice,
    cheapest_price,
    default_variant,
    excluded_because,
    newest_of,
    rule_variant,
    sole_keys,
)
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.spreads import (
    ObservedSpread,
    SpreadEnd,
    spread,
)
from computeatlas.cloud.store import Store, observation_of
from computeatlas.core.errors import ParamError

HISTORY_FILTERS = ("provider", "pricing", "variant", "region")
"""Columns :func:`history_view` filters on (exact match)."""

HISTORY_LIMIT = 1000
"""How many observations a history request lists unless it asks for another number (the series covers all)."""

HISTORY_MAX = 5000
"""The most observations one history request may ask to be listed (``limit``)."""

PAGE_OBSERVATIONS = 100
"""How many observations the price page's data (``/api/prices/{id}``) lists: the newest; the
history API lists more (``limit``), and the series covers all."""

WindowKind = Literal["year", "all", "dates"]
"""How a price page's window was chosen: the default year ending today, all of the history
(``window=all``), or the dates given (``since``/``until``)."""


def year_before(day: dt.date, years: int = 1) -> dt.date:
    """The same calendar date ``years`` years before ``day`` (28 February for 29 February)."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def page_window(
    today: dt.date, since: dt.date | None = None, until: dt.date | None = None, window: WindowKind | None = None
) -> tuple[dt.date | None, dt.date | None, WindowKind]:
    """The collection dates (inclusive; None = unbounded) a price page reads and how they were
    chosen: the dates given; else all of the history for ``window="all"``; else one year
    ending ``today`` (``year_before(today)`` to ``today``). Raises :class:`ParamError` (a 400
    naming ``window``) when ``window`` is given with ``since`` or ``until``, or is neither
    ``year`` nor ``all``."""
    if window not in (None, "year", "all"):
        raise ParamError("window", f"{window!r} is not a window; give window=all for all of the history, or since/until dates")
    if window is not None and (since or until):
        raise ParamError("window", f"window={window} is given with since/until; give one or the other")
    if since or until:
        return since, until, "dates"
    if window == "all":
        return None, None, "all"
    return year_before(today), today, "year"


class ObservedOffer(BaseModel):
    """Which offer (provider, instance, region, pricing, term) was observed, and when (UTC)."""

    collected: dt.datetime
    provider: str
    instance_type: str
    region: str
    pricing: str
    term: str


class ObservedPrice(ObservedOffer):
    """One observation as outputs show it."""

    amount: float = Field(description="as published, in currency per unit")
    currency: str
    unit: str
    accelerators: int | None
    per_accelerator_hour: float | None = Field(description="in currency; derived")
    variant: str = Field(description="variant key; '' = variant not stated")
    qualifiers: list[str]
    source_url: str
    via: str
    age_days: int | None = None
    stale: bool | None = None
    discount: float | None = Field(None, description="1 - this price ÷ the same instance's on-demand price (spot, reserved, terms)")
    usd_per_accelerator_hour: float | None = Field(
        None, description="in USD: the price itself for USD, else through the dated rate in 'rate'; None without a rate"
    )
    rate: str | None = Field(None, description="the dated exchange rate used, with its source (non-USD prices only)")
    provider_name: str = Field("", description="the provider's name as the catalog records it (its id when it has no record)")


class SeriesPoint(BaseModel):
    """The median on-demand USD price per accelerator-hour on one date, and how many observations made it."""

    date: dt.date
    provider: str = Field(description="a provider id")
    median: float
    observations: int


class CurrentView(BaseModel):
    """Current prices of one accelerator as of ``as_of``."""

    accelerator: str
    as_of: dt.datetime
    freshness_days: int
    prices: list[ObservedPrice]
    variant: str
    spread: ObservedSpread
    cheapest: CheapestPrice | None = Field(
        None,
        description="the cheapest price by the one rule (computeatlas.cloud.cheapest_price); "
        "when no observation is current, the newest one with current=false and its age",
    )
    last_seen: list[ObservedPrice] = Field(
        default_factory=list,
        description="when no observation is current: the newest observation of each offer on the newest date any was seen, not current",
    )


class HistoryView(BaseModel):
    """Accepted observations of one accelerator in a window, and the median series."""

    accelerator: str
    since: dt.date | None = Field(description="first collection date read (inclusive); None: from the first observation")
    until: dt.date | None = Field(description="last collection date read (inclusive); None: to the newest observation")
    window: WindowKind = Field(
        "dates",
        description="how the window was chosen: 'year' (the default, one year ending today), "
        "'all' (all of the history) or 'dates' (since/until as given)",
    )
    first: dt.date | None = Field(
        None,
        description="the first date the history covers: since, or when it is None the collection "
        "date of the first observation (None: none is stored)",
    )
    filters: dict[str, str]
    observations: list[ObservedPrice] = Field(description="oldest first; the newest 'limit' when truncated")
    limit: int | None = Field(None, description="the most observations listed (None: all)")
    truncated: bool = Field(description="True when the window holds more observations than are listed (narrow it with since/until)")
    series: list[SeriesPoint]


_STORED = frozenset(ObservedPrice.model_fields) - {"age_days", "stale", "rate", "provider_name", "discount", "usd_per_accelerator_hour"}
"""The fields of :class:`ObservedPrice` read from a stored row (the others are worked out)."""

_SHOWN_COLUMNS = (*sorted(_STORED), "date")
"""The stored columns a history lists (:data:`_STORED` as stored, and the collection date)."""


def _shown(row: dict[str, Any], rates: RateTable, now: dt.datetime | None = None) -> ObservedPrice:
    keep = {k: v for k, v in row.items() if k in _STORED}
    shown = ObservedPrice.model_validate(keep | {"qualifiers": list(row.get("qualifiers") or [])})
    if now is not None:
        shown.age_days = (now - row["collected"]).days
    if shown.per_accelerator_hour is not None:
        usd, rate = rates.to_usd(shown.per_accelerator_hour, shown.currency, shown.collected.date())
        shown.usd_per_accelerator_hour = usd
        if rate is not None:
            shown.rate = f"1 {rate.currency} = {rate.usd_per_unit:g} USD on {rate.date} ({rate.source_title}, {rate.source_url})"
    return shown


class ObservedRange(BaseModel):
    """The current on-demand USD range of one accelerator over the fresh offers the one rule
    counts (:mod:`computeatlas.cloud.cheapest_price`: its default variant), for the accelerator
    page's card and "Where you rent this"; ``last_seen`` when none is current."""

    as_of: dt.datetime
    freshness_days: int
    variant: str = Field("", description="the variant key the range is for")
    offers: int = Field(description="fresh on-demand USD offers of the variant with a price per accelerator-hour")
    providers: list[str]
    cheapest: SpreadEnd | None
    dearest: SpreadEnd | None
    newest: dt.date | None = Field(description="collection date of the newest of these observations")
    last_seen: CheapestPrice | None = Field(None, description="no offer current: the newest price the rule would take, not current")


class PricesView(BaseModel):
    """The observed-price page of one accelerator and the body of ``/api/prices/{id}``:
    current prices (spread, discounts) and the median history with observation counts."""

    accelerator: str
    current: CurrentView
    history: HistoryView


class PriceChange(ObservedOffer):
    """One entry of an accelerator's price feed: an offer (provider, instance, region,
    pricing, term) first observed, or observed at another price than its previous observation."""

    currency: str
    per_accelerator_hour: float
    previous: float | None = Field(description="the offer's previous observed price per accelerator-hour; None when first observed")
    previous_collected: dt.datetime | None
    source_url: str
    via: str

    @property
    def key(self) -> str:
        """A stable id for the entry (the offer and the collection time)."""
        return f"{self.provider}/{self.instance_type}/{self.region}/{self.pricing}/{self.term}/{self.collected.isoformat()}"


FEED_LIMIT = 100
"""At most this many entries in one feed, newest first."""


FEED_SPANS = (1,)
"""The spans (years ending today) :func:`price_changes` reads in turn before it reads the whole history."""


def _changes(store: Store, accelerator: str, since: dt.date | None, until: dt.date | None, limit: int) -> list[dict[str, Any]]:
    """The newest ``limit`` price changes of ``accelerator`` among its accepted observations
    collected in [since, until], newest first, each with the previous observation of its offer
    in that window (None for the offer's first there): one DuckDB query over those partitions."""
    offer = "provider, instance_type, region, pricing, term, currency"
    return store.query(
        "SELECT * FROM (SELECT collected, provider, instance_type, region, pricing, term, currency, per_accelerator_hour, "
        "source_url, via, "
        f"lag(per_accelerator_hour) OVER (PARTITION BY {offer} ORDER BY collected) AS previous, "
        f"lag(collected) OVER (PARTITION BY {offer} ORDER BY collected) AS previous_collected "
        "FROM latest WHERE status = 'accepted' AND accelerator = ? AND per_accelerator_hour IS NOT NULL) "
        "WHERE previous IS NULL OR abs(previous - per_accelerator_hour) >= 1e-9 "
        "ORDER BY collected DESC, provider DESC, instance_type DESC, region DESC, pricing DESC, term DESC "
        f"LIMIT {int(limit)}",
        [accelerator],
        since,
        until,
        accelerator,
    )


def price_changes(store: Store, accelerator: str, limit: int = FEED_LIMIT, now: dt.datetime | None = None) -> list[PriceChange]:
    """The newest ``limit`` price changes of ``accelerator``'s offers, newest first: each offer's
    first observation, and each observation whose price per accelerator-hour differs from the
    same offer's previous one (an unchanged price is no entry). Accepted observations only.

    Worked out by DuckDB over the span of :data:`FEED_SPANS` ending ``now`` (default
    :func:`utcnow`) first: its answer is taken when the span holds ``limit`` entries and none
    of them is an offer's first observation in the span (which may have an older one);
    otherwise the whole history is read. The entries are the same whichever span answers."""
    if accelerator not in store.observed_accelerators():
        return []
    today = (now or utcnow()).astimezone(dt.UTC).date()
    for years in (*FEED_SPANS, None):
        since = year_before(today, years) if years else None
        rows = _changes(store, accelerator, since, None, limit)
        # Without older rows, an offer's first observation in the span may be no change, and
        # a span of fewer than ``limit`` entries may leave out older ones: then read further.
        if since is None or (len(rows) >= limit and all(r["previous"] is not None for r in rows)):
            break
    return [
        PriceChange(
            collected=r["collected"],
            provider=r["provider"],
            instance_type=r["instance_type"],
            region=r["region"],
            pricing=r["pricing"],
            term=r["term"],
            currency=r["currency"],
            per_accelerator_hour=r["per_accelerator_hour"],
            previous=r["previous"],
            previous_collected=r["previous_collected"],
            source_url=r["source_url"],
            via=r["via"],
        )
        for r in rows
    ]


def utcnow() -> dt.datetime:
    """The time "current" is measured at (tests replace it)."""
    return dt.datetime.now(dt.UTC)


def observed_range(view: CurrentView) -> ObservedRange:
    """The on-demand USD range of ``view``'s fresh prices that the one rule counts (its
    variant), both ends named and dated; the cheap end is ``view.cheapest``."""
    on_demand = sorted(
        (
            p
            for p in view.prices
            if not p.stale
            and excluded_because(
                p.pricing, p.currency, p.per_accelerator_hour, p.variant, view.variant, p.collected, view.as_of, view.freshness_days
            )
            is None
        ),
        key=lambda p: (p.per_accelerator_hour or 0.0, -p.collected.timestamp(), p.provider),
    )

    def end(p: ObservedPrice) -> SpreadEnd:
        return SpreadEnd(
            per_accelerator_hour=p.per_accelerator_hour or 0.0,
            provider=p.provider,
            instance_type=p.instance_type,
            region=p.region,
            collected=p.collected,
            source_url=p.source_url,
        )

    stale = view.cheapest if view.cheapest is not None and not view.cheapest.current else None
    return ObservedRange(
        as_of=view.as_of,
        freshness_days=view.freshness_days,
        variant=view.variant,
        offers=len(on_demand),
        last_seen=stale,
        providers=sorted({p.provider for p in on_demand}),
        cheapest=end(on_demand[0]) if on_demand else None,
        dearest=end(on_demand[-1]) if on_demand else None,
        newest=max(p.collected for p in on_demand).date() if on_demand else None,
    )


def current_view(
    store: Store,
    accelerator: str,
    now: dt.datetime,
    freshness_days: int = 90,
    variant: str | None = None,
    rates: RateTable | None = None,
    catalog: Catalog | None = None,
    since: dt.date | None = None,
) -> CurrentView:
    """Current prices of ``accelerator``; ``variant`` chooses the spread (default: the variant
    most on-demand offers state, by the one rule); ``rates`` gives non-USD prices a USD figure
    with the rate beside it; ``catalog`` names the single-variant parts (their offers are their
    one variant). When no observation is current, ``last_seen`` lists the newest ones, not current.
    ``since`` (a price page's window, :func:`page_window`) bounds what is read for the cheapest
    price and ``last_seen`` first; older observations are read only when none since then counts
    (the answer is the same either way)."""
    sole = sole_keys(catalog)
    rows = store.current(accelerator, now, freshness_days)
    shown = [_shown(r, rates or RateTable([]), now) for r in rows]
    names = {ident: p.name for ident, p in catalog.providers.items()} if catalog is not None else {}
    for price in shown:
        price.stale = (price.age_days or 0) > freshness_days
        price.variant = rule_variant(price.variant, accelerator, sole)
        price.provider_name = names.get(price.provider, price.provider)
    on_demand = {(p.provider, p.instance_type, p.region): p.per_accelerator_hour for p in shown if p.pricing == PricingKind.ON_DEMAND}
    for price in shown:
        base = on_demand.get((price.provider, price.instance_type, price.region))
        if price.pricing != PricingKind.ON_DEMAND and base and price.per_accelerator_hour is not None:
            price.discount = 1 - price.per_accelerator_hour / base
    if variant is None:
        variant = default_variant((p.variant, p.pricing) for p in shown)
    observed = spread([observation_of(r) for r in rows], accelerator, variant, now, freshness_days, sole)
    # Every fresh observation is after ``start``: a window shorter than the freshness window reads the freshness window.
    start = min(dt.datetime.combine(since, dt.time(), dt.UTC), now - dt.timedelta(days=freshness_days)) if since else None
    cheapest = cheapest_price(
        store, accelerator, now, freshness_days, variant if variant and variant != "all" else None, catalog, current_only=False, since=start
    )
    last: list[ObservedPrice] = []
    if not rows:
        old = (newest_of(store, accelerator, start, now) if start else []) or store.newest(None, now, accelerator)
        newest = max((r["collected"].astimezone(dt.UTC).date() for r in old), default=None)
        last = [_shown(r, rates or RateTable([]), now) for r in old if r["collected"].astimezone(dt.UTC).date() == newest]
        for price in last:
            price.stale, price.variant = True, rule_variant(price.variant, accelerator, sole)
            price.provider_name = names.get(price.provider, price.provider)
    return CurrentView(
        accelerator=accelerator,
        as_of=now,
        freshness_days=freshness_days,
        prices=shown,
        variant=variant,
        spread=observed,
        cheapest=cheapest,
        last_seen=last,
    )


def history_view(
    store: Store,
    accelerator: str,
    since: dt.date | None = None,
    until: dt.date | None = None,
    limit: int | None = HISTORY_LIMIT,
    rates: RateTable | None = None,
    window: WindowKind = "dates",
    **filters: str | None,
) -> HistoryView:
    """Accepted observations of ``accelerator`` in [since, until] (the newest ``limit``;
    ``truncated`` says when there were more) and the median series over all of them; only
    those date partitions are read. ``window`` says how the dates were chosen
    (:func:`page_window`); ``first`` is ``since``, or without it the first observation's date."""
    rows = store.history(accelerator, since, until, limit=limit + 1 if limit else None, columns=_SHOWN_COLUMNS, **filters)
    truncated = bool(limit) and len(rows) > (limit or 0)
    if truncated:
        rows = rows[1:]
    series = [SeriesPoint.model_validate(r) for r in store.series(accelerator, since, until, **filters)]
    first = since
    if first is None and rows:  # from the first observation: its date (the partition's: its UTC collection date)
        first = rows[0]["date"] if not truncated else _first_date(store, accelerator, until, filters)
    return HistoryView(
        accelerator=accelerator,
        since=since,
        until=until,
        window=window,
        first=first,
        filters={k: v for k, v in filters.items() if v},
        observations=[_shown(r, rates or RateTable([])) for r in rows],
        truncated=truncated,
        series=series,
        limit=limit,
    )


def _first_date(store: Store, accelerator: str, until: dt.date | None, filters: dict[str, str | None]) -> dt.date | None:
    """The collection date of ``accelerator``'s first accepted observation to ``until`` that
    passes ``filters`` (a DuckDB aggregate over those partitions)."""
    equal = {k: v for k, v in filters.items() if v is not None and k in HISTORY_FILTERS}
    where = "".join(f" AND {k} = ?" for k in equal)
    rows = store.query(
        f"SELECT min(date) AS first FROM latest WHERE status = 'accepted' AND accelerator = ?{where}",
        [accelerator, *equal.values()],
        None,
        until,
        accelerator,
    )
    return rows[0]["first"] if rows else None


__all__ = [
    "FEED_LIMIT",
    "FEED_SPANS",
    "HISTORY_FILTERS",
    "CurrentView",
    "HistoryView",
    "ObservedPrice",
    "ObservedRange",
    "PriceChange",
    "PricesView",
    "SeriesPoint",
    "WindowKind",
    "current_view",
    "history_view",
    "observed_range",
    "page_window",
    "price_changes",
    "utcnow",
    "year_before",
]
