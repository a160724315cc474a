"""Checks that need no price history: absolute bounds per accelerator-hour, the range of a
collection time, and a part's first price against its closest sibling's median.

These are the integrity rules of :mod:`computeatlas.cloud.rules` that hold where the band
cannot (the band needs ``min_observations`` accepted prices of the same part and pricing
kind; most parts of the catalog have fewer). Every figure comes from
:class:`~computeatlas.core.settings.Settings` through :class:`~computeatlas.cloud.rules.Limits`;
the rules' docstring says what each number is and why.

Units: a price is compared as USD per accelerator-hour
(:func:`~computeatlas.cloud.rules.usd_per_accelerator_hour`); times are UTC.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from computeatlas.cloud.observations import Observation
from computeatlas.silicon.records import Accelerator

CLOCK_SKEW = dt.timedelta(minutes=5)
"""How far after now a collection time may be (two clocks disagree) before it is implausible."""


def date_problem(collected: dt.datetime, first_date: dt.date, now: dt.datetime, skew: dt.timedelta = CLOCK_SKEW) -> str | None:
    """Why ``collected`` (aware) is not a plausible collection time, or None: before the
    source's ``first_date`` (00:00 UTC) or after ``now`` + ``skew``."""
    start = dt.datetime.combine(first_date, dt.time(), dt.UTC)
    if collected < start:
        return f"collected {collected:%Y-%m-%dT%H:%M:%SZ}, before the source's first date {first_date.isoformat()}"
    if collected > now + skew:
        return f"collected {collected:%Y-%m-%dT%H:%M:%SZ}, after now ({now.astimezone(dt.UTC):%Y-%m-%dT%H:%M:%SZ}) + {skew}"
    return None


def bound_problem(usd: float | None, floor: float, ceiling: float) -> tuple[str, str] | None:
    """(rule, reason) when ``usd`` (USD per accelerator-hour) is outside [``floor``, ``ceiling``]."""
    if usd is None:
        return None
    if usd < floor:
        return "below_floor", f"{usd:.4g} USD per accelerator-hour is below the floor of {floor:g}"
    if not usd <= ceiling:  # inf too
        return "above_ceiling", f"{usd:.4g} USD per accelerator-hour is above the ceiling of {ceiling:g}"
    return None


def no_rate_reason(obs: Observation) -> str:
    """Why a non-USD price without a dated rate is held (the bounds cannot be checked)."""
    return (f"no dated {obs.currency} rate on or before {obs.collected:%Y-%m-%d} in data/prices/rates.csv: the price cannot be checked "
            "against the bounds in USD; add a sourced rate and import the file again")


def sibling_map(accelerators: Iterable[Accelerator]) -> dict[str, tuple[str, ...]]:
    """For each part, the other parts of its ``family``, closest first.

    Closest: first the parts sharing one of its ``family_aliases`` (H100 SXM, PCIe and NVL
    all carry "H100"), then the smallest difference of ``generation`` (unknown counts as
    farthest), then the same ``form_factor``, then the id (so the order never changes)."""
    parts = list(accelerators)
    by_family: dict[str, list[Accelerator]] = {}
    for acc in parts:
        by_family.setdefault(acc.family, []).append(acc)
    out: dict[str, tuple[str, ...]] = {}
    for acc in parts:
        aliases = {a.casefold() for a in acc.family_aliases}

        def distance(other: Accelerator, acc: Accelerator = acc, aliases: set[str] = aliases) -> tuple[int, float, int, str]:
            shared = bool(aliases & {a.casefold() for a in other.family_aliases})
            gap = abs(acc.generation - other.generation) if acc.generation and other.generation else float("inf")
            return (not shared, gap, other.form_factor != acc.form_factor, other.id)

        out[acc.id] = tuple(o.id for o in sorted((o for o in by_family[acc.family] if o.id != acc.id), key=distance))
    return out


def closest_sibling(accelerator: str, siblings: Mapping[str, tuple[str, ...]], priced: Iterable[str]) -> str | None:
    """The closest sibling of ``accelerator`` (:func:`sibling_map` order) among ``priced``, or None."""
    have = set(priced)
    return next((s for s in siblings.get(accelerator, ()) if s in have), None)


__all__ = ["CLOCK_SKEW", "bound_problem", "closest_sibling", "date_problem", "no_rate_reason", "sibling_map"]
