"""One model's market prices per million tokens as a page shows them: dated, fresh or stale, and their spread.

A price is **stale** when it was collected more than the freshness window
(:attr:`computeatlas.core.settings.Settings.freshness_days`, 90 by default) before ``now``:
it is history, shown with its date and its age in days, never as a current price. The
spread (dearest ÷ cheapest output price, over the newest observation of each provider's
product) counts the fresh prices only; when none is fresh it is worked out over the newest
stale ones and says so (``fresh`` False, ``newest`` and ``age_days``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable

from pydantic import BaseModel

from computeatlas.economics.token_prices import TokenObservation, provider_name


class MarketPrice(BaseModel):
    """One dated market observation, in USD per million tokens, with any flag, and whether it is stale."""

    provider: str
    provider_name: str
    product: str
    input_per_million: float
    output_per_million: float
    published: str
    collected: dt.datetime
    source_url: str
    via: str
    pricing_urls: list[str] = []
    stale: bool = False
    age_days: int = 0
    flags: list[str] = []


class SpreadEnd(BaseModel):
    """One end of the output-price spread: provider, product, price, date."""

    provider_name: str
    product: str
    output_per_million: float
    collected: dt.date


class MarketSpread(BaseModel):
    """Dearest ÷ cheapest output price over the newest observation of each provider's product:
    the fresh ones (``fresh`` True), or when none is fresh the newest stale ones (``fresh`` False,
    collected up to ``newest``, ``age_days`` old)."""

    counted: int
    cheapest: SpreadEnd | None
    dearest: SpreadEnd | None
    ratio: float | None
    fresh: bool = True
    newest: dt.date | None = None
    age_days: int | None = None
    freshness_days: int = 90


def market_price(o: TokenObservation, now: dt.datetime, freshness_days: int) -> MarketPrice:
    """``o`` as shown: its published figures, the provider's price pages, and its age (stale past the window)."""
    try:
        urls = [u for u in json.loads(o.raw_extra or "{}").get("pricing_urls", []) if isinstance(u, str)]
    except (ValueError, AttributeError):
        urls = []
    age = (now - o.collected).days
    return MarketPrice(provider=o.provider, provider_name=provider_name(o.provider), product=o.product,
                       input_per_million=o.input_per_million, output_per_million=o.output_per_million,
                       published=f"{o.published_input} / {o.published_output} ({o.published_unit})", collected=o.collected,
                       source_url=o.source_url, via=o.via, pricing_urls=urls, stale=age > freshness_days, age_days=max(age, 0))  # fmt: skip


def market(
    observations: Iterable[TokenObservation], now: dt.datetime, freshness_days: int = 90
) -> tuple[list[MarketPrice], list[MarketPrice], MarketSpread]:
    """(every observation, oldest first; the newest of each provider's product, cheapest output
    first; the output-price spread) of ``observations`` as of ``now``."""
    rows = [market_price(o, now, freshness_days) for o in observations]
    rows.sort(key=lambda r: (r.collected, r.provider, r.product))
    newest: dict[tuple[str, str], MarketPrice] = {}
    for r in rows:
        if (r.provider, r.product) not in newest or r.collected >= newest[(r.provider, r.product)].collected:
            newest[(r.provider, r.product)] = r
    current = sorted(newest.values(), key=lambda r: (r.output_per_million, r.provider, r.product))
    fresh = [r for r in current if not r.stale]
    ends = fresh or current

    def end(r: MarketPrice) -> SpreadEnd:
        return SpreadEnd(
            provider_name=r.provider_name, product=r.product, output_per_million=r.output_per_million, collected=r.collected.date()
        )

    if not ends:
        return rows, current, MarketSpread(counted=0, cheapest=None, dearest=None, ratio=None, freshness_days=freshness_days)
    last = max(r.collected for r in ends)
    ratio = ends[-1].output_per_million / ends[0].output_per_million if len(ends) > 1 and ends[0].output_per_million else None
    return (
        rows,
        current,
        MarketSpread(
            counted=len(ends),
            cheapest=end(ends[0]),
            dearest=end(ends[-1]),
            ratio=ratio,
            fresh=bool(fresh),
            newest=last.date(),
            age_days=(now - last).days,
            freshness_days=freshness_days,
        ),
    )


__all__ = ["MarketPrice", "MarketSpread", "SpreadEnd", "market", "market_price"]
