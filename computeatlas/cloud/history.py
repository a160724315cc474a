"""Price history of one accelerator, queried from the observation store at request time
(nothing is loaded at start; staleness is measured from ``now``), and the names every face
reads prices through (``history.current_view``, ``history.utcnow`` …).

- :func:`history_view`: every accepted observation in a date window (filters: provider,
  pricing, variant, region), and the series pages tabulate: per collection date and
  provider, the median on-demand USD price per accelerator-hour with its number of
  observations (never a median over all providers: the set seen changes from date to date).
- :func:`price_changes`: the price-change feed, worked out by DuckDB over the last year
  (a longer span only when the year cannot tell what the newest entries are).
- :func:`utcnow`: the time "current" is measured at (tests replace it here).
- From :mod:`computeatlas.cloud.current_prices`: :func:`current_view` (the newest accepted
  observation of each offer within the freshness window, the spread and the discounts) and
  :func:`observed_range`; from :mod:`computeatlas.cloud.price_window`: :func:`page_window`
  (one year ending today unless dates are given or all of the history is asked, so a page
  does not grow with the history; every per-part query passes it to the store, which reads
  only those date partitions) and :func:`year_before`; from
  :mod:`computeatlas.cloud.observed_price`: :class:`ObservedPrice`.

Units: prices per accelerator-hour in the observation's currency; medians in USD (only
USD observations enter them).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter

from computeatlas.cloud.current_prices import CurrentView
from computeatlas.cloud.observed_price import SHOWN_COLUMNS, ObservedOffer, ObservedPrice, shown_price
from computeatlas.cloud.price_window import WindowKind, year_before
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.store import Store

HISTORY_FILTERS = ("provider", "pricing", "variant", "region")
"""Columns :func:`history_view` filters on (exact match)."""

HISTORY_LIMIT = 1000
"""How many observations a history request lists unless it asks for another number (the series covers all)."""

HISTORY_MAX = 5000
"""The most observations one history request may ask to be listed (``limit``)."""

PAGE_OBSERVATIONS = 100
"""How many observations the price page's data (``/api/prices/{id}``) lists: the newest; the
history API lists more (``limit``), and the series covers all."""


class SeriesPoint(BaseModel):
    """The median on-demand USD price per accelerator-hour on one date, and how many observations made it."""

    date: dt.date
    provider: str = Field(description="a provider id")
    median: float
    observations: int


_SERIES: TypeAdapter[list[SeriesPoint]] = TypeAdapter(list[SeriesPoint])
"""The series' rows made points in one validation (a year of daily medians is a thousand or more)."""


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
    limit: int | None = Field(None, description="the most observations listed (None: all; 0: none, the series only)")
    truncated: bool = Field(description="True when the window holds more observations than are listed (narrow it with since/until)")
    series: list[SeriesPoint]


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
    those date partitions are read. ``limit=0`` lists no observation and reads none (a page that
    shows only the series). ``window`` says how the dates were chosen (:func:`page_window`);
    ``first`` is ``since``, or without it the first observation's date."""
    rows = (
        [] if limit == 0 else store.history(accelerator, since, until, limit=limit + 1 if limit else None, columns=SHOWN_COLUMNS, **filters)
    )
    truncated = bool(limit) and len(rows) > (limit or 0)
    if truncated:
        rows = rows[1:]
    series = _SERIES.validate_python(store.series(accelerator, since, until, **filters))
    first = since
    if first is None and limit == 0:
        first = _first_date(store, accelerator, until, filters)
    elif first is None and rows:  # from the first observation: its date (the partition's: its UTC collection date)
        first = rows[0]["date"] if not truncated else _first_date(store, accelerator, until, filters)
    return HistoryView(
        accelerator=accelerator,
        since=since,
        until=until,
        window=window,
        first=first,
        filters={k: v for k, v in filters.items() if v},
        observations=[shown_price(r, rates or RateTable([])) for r in rows],
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
    "HistoryView",
    "PriceChange",
    "PricesView",
    "SeriesPoint",
    "history_view",
    "price_changes",
    "utcnow",
]
