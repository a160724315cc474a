"""The band: a price against the median of the providers' medians of its part and pricing
kind near it in time, and a part's first price against its closest sibling's; with the
absolute bounds and ``no_rate``, which decide which prices make a median.

The rules' words and numbers are :mod:`computeatlas.cloud.rules`' (``below_floor``,
``above_ceiling``, ``no_rate``, ``outside_band``, ``far_from_sibling``); the windows' medians
are :func:`computeatlas.cloud.bounds.window_medians`'. Units: USD per accelerator-hour
(:func:`usd_per_accelerator_hour`); times are UTC.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from computeatlas.cloud import bounds
from computeatlas.cloud.observations import Observation, Status, per_accelerator_hour
from computeatlas.cloud.rates import RateTable


class Limits(Protocol):
    """The numbers the band reads (:class:`computeatlas.cloud.rules.Limits` has them): the
    band's factors and how many prices make it, the bounds in USD per accelerator-hour, the
    hours of a month and the window in days either side of a price."""

    @property
    def band_low(self) -> float: ...
    @property
    def band_high(self) -> float: ...
    @property
    def min_observations(self) -> int: ...
    @property
    def floor(self) -> float: ...
    @property
    def ceiling(self) -> float: ...
    @property
    def hours_per_month(self) -> float: ...
    @property
    def freshness_days(self) -> int: ...


@dataclass(frozen=True, slots=True)
class PoolPrice:
    """One accepted USD price per accelerator-hour already stored, for the band's median:
    ``count`` stored rows of the same part, pricing, time, price and provider."""

    accelerator: str
    pricing: str
    collected: dt.datetime
    usd: float
    provider: str = ""
    count: int = 1


def usd_per_accelerator_hour(obs: Observation, rates: RateTable, hours_per_month: float) -> float | None:
    """The observation's price per accelerator-hour in USD (through a dated rate), or None."""
    amount = per_accelerator_hour(obs, hours_per_month)
    if amount is None:
        return None
    return rates.to_usd(amount, obs.currency, obs.collected.date())[0]


def check(
    rows: list[Observation],
    rates: RateTable,
    limits: Limits,
    pool: Iterable[PoolPrice],
    known: frozenset[str] | None = None,
    siblings: Mapping[str, tuple[str, ...]] | None = None,
) -> list[Observation]:
    """``rows`` (placed, in order) checked by the absolute bounds, ``no_rate``, the band and a
    first price against its closest sibling (the rules of :mod:`computeatlas.cloud.rules`, with
    the numbers of ``limits``); a row that passes is the same object, a held one a copy.
    ``pool``: accepted USD prices already stored (each standing for ``count`` equal rows);
    ``known`` and ``siblings`` as :func:`computeatlas.cloud.rules.apply` takes them."""
    window = dt.timedelta(days=limits.freshness_days)
    hours, floor, ceiling = limits.hours_per_month, limits.floor, limits.ceiling
    usd: list[float | None] = []  # usd_per_accelerator_hour of each accepted row (a USD price is itself: no rate is looked up)
    checked: list[Observation] = []
    # Keyed by the pricing kind's member, which is equal to its word and hashes as it (a stored price's key is the word).
    groups: dict[tuple[str, str], list[tuple[dt.datetime, float, str]]] = defaultdict(list)
    wanted: dict[tuple[str, str], list[dt.datetime]] = defaultdict(list)  # the windows the last loop asks, per series
    for obs in rows:
        if obs.status is not Status.ACCEPTED:
            usd.append(None)
            checked.append(obs)
            continue
        amount = per_accelerator_hour(obs, hours)
        price = amount if amount is None or obs.currency == "USD" else rates.to_usd(amount, obs.currency, obs.collected.date())[0]
        usd.append(price)
        if price is None and amount is not None:
            obs = obs.held("no_rate", bounds.no_rate_reason(obs))
        elif price is not None and not floor <= price <= ceiling:  # NaN too
            obs = obs.held(*bounds.bound_problem(price, floor, ceiling))  # type: ignore[misc]
        checked.append(obs)
        if price is not None and obs.status is Status.ACCEPTED:  # in bounds: only those make a median
            series = (obs.accelerator, obs.pricing)
            groups[series].append((obs.collected, price, obs.provider))
            wanted[series].append(obs.collected)
    for p in pool:
        groups[(p.accelerator, p.pricing)].extend([(p.collected, p.usd, p.provider)] * p.count)
    for prices in groups.values():
        prices.sort()
    priced = {acc for (acc, _), series in groups.items() if series}
    out = []
    medians: dict[tuple[int, int, int], tuple[float, int, int]] = {}
    windows = {
        (*group, when): found
        for group, times in wanted.items()  # one sweep per series (bounds.window_medians)
        for when, found in bounds.window_medians(groups[group], times, window).items()
    }
    low, high = limits.band_low, limits.band_high
    for obs, price in zip(checked, usd, strict=True):
        if price is None or obs.status is not Status.ACCEPTED:
            out.append(obs)
            continue
        found = windows[(obs.accelerator, obs.pricing, obs.collected)]
        banded = found is not None and found[2] >= limits.min_observations
        if found is not None and banded:
            median = found[0]
            if price < low * median or price > high * median:
                obs = obs.held("outside_band", outside_reason(price, (low, high), found, obs.pricing.value, obs.accelerator))
        if known is not None and obs.accelerator not in known and not banded and obs.status is Status.ACCEPTED:
            obs = bounds.against_sibling(obs, price, siblings or {}, priced, groups, window, medians, (limits.band_low, limits.band_high))
        out.append(obs)
    return out


def outside_reason(price: float, band: tuple[float, float], found: tuple[float, int, int], pricing: str, accelerator: str) -> str:
    """Why ``price`` (USD per accelerator-hour) is held as ``outside_band``: ``band`` (the low
    and high factors), ``found`` (the window's median of the providers' medians, providers and
    observations; :func:`~computeatlas.cloud.bounds.window_medians`), its pricing kind and part."""
    median, providers, count = found
    return (
        f"{price:.4g} USD per accelerator-hour is outside {band[0]:g}–{band[1]:g} × the median "
        f"{median:.4g} of {providers} provider(s)' medians ({count} {pricing} observations of {accelerator})"
    )


__all__ = ["PoolPrice", "check", "outside_reason", "usd_per_accelerator_hour"]
