"""The named integrity rules every imported row passes, and the placement through our table.

:func:`apply` takes the rows of one import (already parsed) and returns them decided:
placed on an accelerator through the instance table, and either ``accepted`` or ``held``
with the name of every rule that held it and the reason in words. Held rows are kept for
the operator (``computeatlas prices held``) and never shown to visitors as prices.
The bounds, ``no_rate``, the band and the sibling check are :func:`computeatlas.cloud.band.check`;
the rules of the rows' own cells and of one import's groups are here.

Rules (:data:`RULES`; the names are what the store, the CLI and the report use):

- ``unplaced``: the instance table has no row for the provider's instance name.
- ``count_mismatch``: the source states an accelerator count per instance that is not the
  instance table's (the row is placed, so the reason names both counts, and held). Rows
  that state no count, and hand-checked offers that carry their accelerator, are not checked.
- ``split_bill``: a host-only or accelerator-only part of a split bill. Where both parts
  of the same provider, region, pricing, term and collection time are present they are
  combined into one all-in observation (host + count × accelerator part); a part alone
  is held.
- ``memory_mismatch``: memory per instance stated by the source that is not count × the
  memory of one accelerator (within 10%, which covers GB written for GiB).
- ``per_accelerator_mismatch``: a per-accelerator figure stated beside the instance price
  that is not instance price ÷ count, beyond rounding (1 cent or 0.5%).
- ``implausible_date``: collected before the source's first date (the importer module's
  ``FIRST_DATE``, else :attr:`~computeatlas.core.settings.Settings.price_first_date`,
  2015-01-01: no public cloud rented an AI accelerator by the hour much before; the oldest
  source we hold is of 2024) or after now plus :data:`~computeatlas.cloud.bounds.CLOCK_SKEW`
  (5 minutes). Checked on every row, whichever importer or collector made it; such a row is
  checked by no other price rule (its window would be meaningless).
- ``below_floor`` and ``above_ceiling``: the absolute bounds, which need no history. Both are
  USD per accelerator-hour and are set in one place,
  :attr:`~computeatlas.core.settings.Settings.price_floor_per_accelerator_hour` (0.02) and
  :attr:`~computeatlas.core.settings.Settings.price_ceiling_per_accelerator_hour` (1,000).
  The floor: the cheapest real accelerator-hour in the March 2026 snapshot is a
  first-generation Inferentia at AWS spot, 0.5093 USD for the 16 devices of
  ``inf1.24xlarge`` in ``eu-north-1``, 0.0318 per device; a cent an hour is no one's price.
  The ceiling: the dearest real one is 23.33 (H100 SXM on-demand at Azure South Africa
  West), and no accelerator rents for more than a few hundred dollars an hour even as a
  TPU pod slice per chip; 1,000 is 40× the dearest real price and far below the errors of
  scale (a 1-year term total as hourly is ~8,760×). Before comparing, a price is made
  per accelerator-hour (:func:`~computeatlas.cloud.observations.hourly`: per second × 3,600,
  per week ÷ 168, per month ÷ ``hours_per_month`` (730); an instance price ÷ its count), so
  the bounds are 0.000005556 to 0.2778 USD per accelerator-second, 3.36 to 168,000 per week
  and 14.60 to 730,000 per month. Another currency is converted through the newest dated rate
  on or before the collection date (:mod:`computeatlas.cloud.rates`).
- ``no_rate``: a price in a currency other than USD with no dated rate on or before its
  collection date. It cannot be checked against the bounds (nor the band), so it is held,
  never published unchecked; once a sourced rate is added to ``data/prices/rates.csv``,
  importing the file again stores the new decision (accepted if it is in bounds).
- ``far_from_sibling``: a part's first price (no accepted observation of the part in the
  store, ``known``, and too few of its own in the window for the band: an import that brings
  ``min_observations`` or more prices of a new part is judged by their own band) more than
  the band away (below ``band_low`` × or above ``band_high`` ×)
  from the median of its closest sibling: the closest part of the same ``family`` in the
  catalog (:func:`~computeatlas.cloud.bounds.sibling_map`: one sharing a family alias
  first, then the nearest generation, then the same form factor) that has accepted prices of
  the same pricing kind within ``freshness_days`` of the row (one is enough; the median is
  the providers' medians' median, as for the band). A part whose family has no such price
  is checked by the absolute bounds alone.
- ``term_total``: one import gives the same observation (provider, instance, region,
  pricing, term, time) several prices, and this one is at least ``hours_per_month`` (730)
  times the lowest: no hourly rate is a month's worth of another hourly rate of the same
  thing at the same moment, so it is the total of a term of a month or more (a 1-, 3- or
  5-year reservation) written as an hourly price. Measured on the March 2026 snapshot:
  Azure's Retail Prices rows give ``Standard_ND96isr_H100_v5`` in ``eastus`` at 98.32,
  551,221, 1,134,310 and 1,722,566 "per hour" (5,606, 11,537 and 17,520 hours' worth).
- ``placeholder``: one provider prices three or more sizes (accelerator counts) of the
  same accelerator at exactly the same instance amount in the same region, pricing, term
  and collection time: a price that does not grow with the size is a placeholder, not a
  price (the March 2026 SkyPilot catalog lists every TPU v6e slice, 1 to 256 chips, at
  700.0 in ``asia-east1``, ``southamerica-west1`` and ``us-central2``).
- ``outside_band``: below ``band_low`` × or above ``band_high`` × the reference of the same
  accelerator and pricing kind: the median of the providers' medians (each provider counts
  once, however many regions it lists) over the accepted prices collected within
  ``freshness_days`` either side of the row, where at least ``min_observations`` make it.
  The band is for errors of scale (a term total, a monthly or per-second amount read as
  hourly, cents read as dollars), which are off by 100× or more; it is not a judgement of
  the market: real list prices of one part spread by nearly an order of magnitude (March
  2026, H100 SXM on-demand: 1.73 USD per GPU-hour at a marketplace to 23.33 at Azure
  South Africa West, 7.8× the providers' median of about 3). So the band is one order of
  magnitude either side (``band_low`` 0.1, ``band_high`` 10).
- ``spot_equals_on_demand``: every spot price of a provider in the import equals its
  on-demand price for the same instance, region and time (two or more pairs; one equal
  pair is fine): the spot column is a copy, not a spot price.
- ``licence_included``: the price includes an operating-system licence (Windows).
- ``spot_at_on_demand``: held by an importer that sees both meters: a spot meter priced at
  exactly the pay-as-you-go price of the same meter in the same snapshot (Azure's
  ``ND96isrH200v5 Spot`` at 106.0 in francecentral, August 2026). Kept as observed, never
  averaged into spot figures.
- ``unit_not_stated``, ``spot_above_on_demand`` and ``committed_equals_on_demand``: set by
  an importer that knows its source (:mod:`computeatlas.cloud.importers.gpuhunt_tpu`,
  :mod:`computeatlas.cloud.importers.cyclenerd`): the unit of the price (per chip, device
  or slice) is not established from the provider's page; a spot price above the on-demand
  price of the same instance and region; a committed price that is the on-demand month.

Qualifiers (shown, not held): ``variant_not_stated`` (left out of per-variant figures) and
``derived_from_term`` (monthly or weekly term, hourly equivalent derived with
``hours_per_month``).
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from computeatlas.cloud import band, bounds
from computeatlas.cloud.band import PoolPrice, usd_per_accelerator_hour
from computeatlas.cloud.instances import Billing, InstanceTable
from computeatlas.cloud.observations import (
    LICENSED_SUFFIX,
    Observation,
    PriceBasis,
    PriceUnit,
    PricingKind,
    Status,
    hourly,
    per_accelerator_hour,
)
from computeatlas.cloud.rates import RateTable
from computeatlas.core.presentation import OfferQualifier
from computeatlas.core.settings import Settings

_set = object.__setattr__  # completes a row no one else holds (a frozen model refuses setattr)

RULES = {
    "unplaced": "the instance table has no row for this instance type at this provider",
    "split_bill": "a host-only or accelerator-only part of a split bill",
    "count_mismatch": "the accelerator count the source states is not the instance table's",
    "memory_mismatch": "memory per instance is not count × the memory of one accelerator",
    "per_accelerator_mismatch": "the stated per-accelerator price is not instance price ÷ count",
    "implausible_date": "collected before the source's first date or after now (plus a small clock skew)",
    "below_floor": "below the absolute floor per accelerator-hour",
    "above_ceiling": "above the absolute ceiling per accelerator-hour",
    "no_rate": "another currency than USD with no dated rate: the bounds cannot be checked",
    "far_from_sibling": "a part's first price, far outside the band of its closest sibling's median",
    "term_total": "a term total (a month or more) given as an hourly price beside the hourly price",
    "placeholder": "the same amount for three or more sizes of the same accelerator: a placeholder",
    "outside_band": "far outside the band of its accelerator and pricing kind",
    "spot_equals_on_demand": "the provider's spot column equals its on-demand column",
    "licence_included": "the price includes an operating-system licence",
    "spot_at_on_demand": "a spot meter priced at the on-demand price of the same meter and snapshot",
    "conflict": "the same observation is already accepted with another price",
    "unit_not_stated": "the source does not state what the price is per (chip, device or slice), and the provider's page as read does not establish it",
    "spot_above_on_demand": "a spot price above the on-demand price of the same instance and region",
    "committed_equals_on_demand": "a committed-use price that is exactly the on-demand price over the same month",
}
"""Every rule name and what it means."""


def _setting(name: str) -> Any:
    """The default of one :class:`Settings` field: the one place each number is set."""
    return Settings.model_fields[name].default


@dataclass(frozen=True, slots=True)
class Limits:
    """The numbers the rules use, each defaulting to its :class:`~computeatlas.core.settings.Settings`
    field (the one place it is set): the band (``band_low``, ``band_high``,
    ``min_observations``), the bounds in USD per accelerator-hour (``floor``, ``ceiling``),
    ``hours_per_month``, ``freshness_days`` and the default ``first_date`` of a source."""

    band_low: float = _setting("price_band_low")
    band_high: float = _setting("price_band_high")
    min_observations: int = _setting("price_band_min_observations")
    floor: float = _setting("price_floor_per_accelerator_hour")
    hours_per_month: float = _setting("hours_per_month")
    freshness_days: int = _setting("freshness_days")
    ceiling: float = _setting("price_ceiling_per_accelerator_hour")
    first_date: dt.date = _setting("price_first_date")  # noqa: RUF009 - a date is immutable: one default for every instance

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        """The limits a :class:`Settings` sets."""
        return cls(
            settings.price_band_low,
            settings.price_band_high,
            settings.price_band_min_observations,
            settings.price_floor_per_accelerator_hour,
            settings.hours_per_month,
            settings.freshness_days,
            settings.price_ceiling_per_accelerator_hour,
            settings.price_first_date,
        )


def place(obs: Observation, table: InstanceTable, fresh: bool = False, memo: dict[Any, Any] | None = None) -> Observation:
    """The row placed through ``table`` (accelerator, variant, count, billing), or held as
    ``unplaced``; the variant is the row's own, or the part's only one
    (:meth:`~computeatlas.cloud.instances.InstanceTable.variant`); held as ``count_mismatch`` when the source states another accelerator
    count than the table's. A row that already carries an accelerator (a hand-checked
    offer) keeps it. ``fresh``: ``obs`` was made for this call alone and no one else holds
    it, so it is placed in place instead of copied. ``memo`` (a dict kept by the caller for
    the rows of one call, with ``table`` unchanged) keeps each instance name's row and placement."""
    if obs.accelerator:
        return obs
    name = (obs.provider, obs.instance_type)
    found = memo.get(name) if memo is not None else None
    if found is None:
        row = table.find(obs.provider, obs.base_instance)
        found = (
            row,
            None
            if row is None
            else {
                "accelerator": row.accelerator,
                "variant": table.variant(row),
                "accelerators": row.accelerators,
                "billing": row.billing.value,
            },
        )
        if memo is not None:
            memo[name] = found  # the table never changes during the call: a name's row and placement stay
    row, decided = found
    if row is None or decided is None:
        return obs.held("unplaced", f"unknown instance type {obs.base_instance!r} at provider {obs.provider!r}")
    if fresh:
        placed = _complete(obs, decided, memo)
    else:
        placed = obs.replaced(**decided)
    if obs.stated_accelerators is not None and obs.stated_accelerators != row.accelerators:
        return placed.held(
            "count_mismatch",
            f"the source states {obs.stated_accelerators} accelerator(s) per instance; our instance "
            f"table has {row.accelerators} for {obs.base_instance!r} at {obs.provider!r}",
        )
    return placed


def _complete(obs: Observation, changes: dict[str, object], memo: dict[Any, Any] | None) -> Observation:
    """``obs`` (a row no one else holds) with ``changes`` set in place; its set of fields given
    joined with the changes' names, each distinct set joined once per ``memo`` (the rows of one
    import share one set: :meth:`~computeatlas.cloud.observations.Observation.trusted`), which
    is kept for changes of the same names (and may hold other live objects' ids)."""
    obs.__dict__.update(changes)
    have = obs.__pydantic_fields_set__
    found = memo.get(id(have)) if memo is not None else None
    if found is None:
        found = (have, have | changes.keys())
        if memo is not None:
            memo[id(have)] = found  # keeps ``have``, so its id names no other object while the memo lives
    _set(obs, "__pydantic_fields_set__", found[1])
    return obs


def _memory(obs: Observation, table: InstanceTable) -> Observation:
    if obs.stated_memory_gb is None:
        return obs
    row = table.find(obs.provider, obs.base_instance)
    if row is None or row.accelerator_memory_gb is None or not obs.accelerators:
        return obs
    expected = obs.accelerators * row.accelerator_memory_gb
    if abs(obs.stated_memory_gb - expected) > 0.10 * expected:
        return obs.held(
            "memory_mismatch",
            f"the source states {obs.stated_memory_gb:g} GB per instance; {obs.accelerators} × "
            f"{row.accelerator_memory_gb:g} GB = {expected:g} GB",
        )
    return obs


def _per_accelerator(obs: Observation) -> Observation:
    count = obs.stated_accelerators or obs.accelerators
    if obs.stated_per_accelerator is None or obs.price_basis is not PriceBasis.INSTANCE or not count:
        return obs
    derived = obs.amount / count
    if abs(derived - obs.stated_per_accelerator) > max(0.01, 0.005 * derived):
        return obs.held(
            "per_accelerator_mismatch",
            f"{obs.amount:g} ÷ {count} = {derived:.4g} per accelerator-hour, but the source states {obs.stated_per_accelerator:g}",
        )
    return obs


def _combine(rows: list[Observation], hours_per_month: float) -> list[Observation]:
    """Pair host and accelerator parts of split bills; combine pairs, hold lone parts."""
    parts: dict[tuple[str, ...], dict[str, list[int]]] = defaultdict(lambda: {"host": [], "acc": []})
    for i, obs in enumerate(rows):
        if obs.billing in (Billing.HOST_COMPONENT, Billing.ACCELERATOR_COMPONENT) and obs.status is Status.ACCEPTED:
            group = (obs.provider, obs.region, obs.pricing.value, obs.term, obs.collected.isoformat(), obs.accelerator, obs.currency)
            parts[group]["host" if obs.billing == Billing.HOST_COMPONENT else "acc"].append(i)
    out = list(rows)
    extra: list[Observation] = []
    for (provider, region, *_), found in parts.items():
        for i in found["host"]:
            host = rows[i]
            count = host.accelerators or 1
            same = [rows[j] for j in found["acc"] if (rows[j].stated_accelerators or rows[j].accelerators) == count]
            candidates = same or [rows[j] for j in found["acc"] if rows[j].price_basis is PriceBasis.ACCELERATOR]
            acc = candidates[0] if candidates else None
            if acc is None:
                out[i] = host.held(
                    "split_bill",
                    f"host part of {host.instance_type!r} without its accelerator part: the host price alone is never an accelerator price",
                )
                continue
            per_acc = (
                (per_accelerator_hour(acc, hours_per_month) or 0.0)
                if acc.price_basis is PriceBasis.ACCELERATOR
                else hourly(acc, hours_per_month)[0] / (acc.stated_accelerators or acc.accelerators or 1)
            )
            total = hourly(host, hours_per_month)[0] + count * per_acc
            note = f"all-in price combined from the host part {host.amount:g} and {count} × accelerator part {per_acc:g} per hour"
            extra.append(
                host.model_copy(
                    update={
                        "instance_type": f"{host.instance_type} + {count} × {acc.instance_type}",
                        "amount": round(total, 10),
                        "unit": PriceUnit.HOUR,
                        "price_basis": PriceBasis.INSTANCE,
                        "billing": Billing.ALL_IN.value,
                        "note": note,
                        "stated_per_accelerator": None,
                        "stated_memory_gb": None,
                    }
                )
            )
            out[i] = host.held("split_bill", f"host part, combined into the all-in price of {host.instance_type} + {acc.instance_type}")
        for j in found["acc"]:
            if found["host"]:
                out[j] = rows[j].held("split_bill", "accelerator part, combined into the all-in price with its host")
            else:
                out[j] = rows[j].held(
                    "split_bill",
                    f"accelerator part ({rows[j].instance_type}) without its host line at {provider} "
                    f"{region or 'region not stated'}: not an all-in price",
                )
    return out + extra


def _spot_copies(rows: list[Observation]) -> list[Observation]:
    """Hold every spot row of a provider whose spot column equals its on-demand column."""
    if not any(o.pricing is PricingKind.SPOT for o in rows):
        return rows
    on_demand = {(o.provider, o.instance_type, o.region, o.collected): o.amount for o in rows if o.pricing is PricingKind.ON_DEMAND}
    pairs: dict[str, list[bool]] = defaultdict(list)
    for o in rows:
        if o.pricing is PricingKind.SPOT and (o.provider, o.instance_type, o.region, o.collected) in on_demand:
            pairs[o.provider].append(on_demand[(o.provider, o.instance_type, o.region, o.collected)] == o.amount)
    copied = {p for p, equal in pairs.items() if len(equal) >= 2 and all(equal)}
    return [
        o.held("spot_equals_on_demand", f"every spot price of {o.provider} in this import equals its on-demand price")
        if o.pricing is PricingKind.SPOT and o.provider in copied
        else o
        for o in rows
    ]


PLACEHOLDER_SIZES = 3
"""How many sizes of one accelerator at exactly the same instance amount make a placeholder."""


def _term_totals(rows: list[Observation], hours_per_month: float) -> list[Observation]:
    """Hold prices of one key that are at least ``hours_per_month`` × its lowest price."""
    lowest: dict[tuple[str, ...], float] = {}
    keys: list[tuple[str, ...] | None] = []  # each accepted row's key (None for a held row), made once
    repeated = False
    for o in rows:
        if o.status is Status.ACCEPTED:
            key = o.key()
            keys.append(key)
            if o.amount > 0:
                low = lowest.get(key)
                if low is None:
                    lowest[key] = o.amount
                else:
                    repeated = True
                    lowest[key] = min(o.amount, low)
        else:
            keys.append(None)
    if not repeated and hours_per_month > 1:  # each price alone under its key: none is a month's worth of its own
        return rows
    out = []
    for o, own in zip(rows, keys, strict=True):
        low = lowest.get(own) if own is not None else None
        if low and o.amount >= hours_per_month * low:
            o = o.held(
                "term_total",
                f"{o.amount:g} is {o.amount / low:,.0f} × the price {low:g} of the same instance, region, "
                f"pricing and time in this import: the total of a term of a month or more, not an hourly price",
            )
        out.append(o)
    return out


def _placeholders(rows: list[Observation]) -> list[Observation]:
    """Hold instance prices that are the same amount for :data:`PLACEHOLDER_SIZES` or more
    accelerator counts of one accelerator at one provider, region, pricing, term and time."""
    sizes: dict[tuple[object, ...], set[int]] = defaultdict(set)

    def group(o: Observation) -> tuple[object, ...]:
        return (
            o.provider,
            o.accelerator,
            o.region,
            o.pricing,
            o.term,
            o.collected,
            o.currency,
            o.unit,
            o.amount,
        )  # members hash as their words

    for o in rows:
        if o.status is Status.ACCEPTED and o.price_basis is PriceBasis.INSTANCE and o.accelerators:
            sizes[group(o)].add(o.accelerators)
    if not any(len(counts) >= PLACEHOLDER_SIZES for counts in sizes.values()):
        return rows
    out = []
    for o in rows:
        counts = sizes.get(group(o), set()) if o.status is Status.ACCEPTED and o.price_basis is PriceBasis.INSTANCE else set()
        if len(counts) >= PLACEHOLDER_SIZES:
            o = o.held(
                "placeholder",
                f"{o.provider} prices {len(counts)} sizes of {o.accelerator} ({', '.join(map(str, sorted(counts)))} "
                f"per instance) at the same {o.amount:g} {o.currency} here: a placeholder, not a price",
            )
        out.append(o)
    return out


def apply(
    rows: list[Observation],
    table: InstanceTable,
    rates: RateTable,
    limits: Limits,
    pool: Iterable[PoolPrice] = (),
    *,
    now: dt.datetime | None = None,
    first_date: dt.date | None = None,
    known: frozenset[str] | None = None,
    siblings: Mapping[str, tuple[str, ...]] | None = None,
    run: str | None = None,
    fresh: bool = False,
) -> list[Observation]:
    """Place and check ``rows`` (one import); return them decided, combined split bills added
    (after the rows, which keep their order), each carrying ``run`` when it is given.
    ``fresh``: the rows were made for this call alone (an import's parsed rows, which no one
    else holds), so they are completed in place instead of copied; by default they are left as
    they were.

    ``pool`` adds accepted prices already stored (within the window) to the band's median
    and the siblings' medians. ``now`` (default: the clock) and ``first_date`` (default:
    ``limits.first_date``) bound the collection times. ``known`` is the set of parts with
    an accepted observation in the store: a part outside it gets its first price checked
    against its closest sibling (``siblings``: :func:`bounds.sibling_map` of the catalog);
    None leaves that check out.
    """
    now = now or dt.datetime.now(dt.UTC)
    start = first_date or limits.first_date
    earliest, latest = dt.datetime.combine(start, dt.time(), dt.UTC), now + bounds.CLOCK_SKEW
    memo: dict[Any, Any] = {}  # each instance name's placement (by name) and each set of fields placed (by id)
    decided: list[Observation] = []
    components, split, spot = (Billing.HOST_COMPONENT.value, Billing.ACCELERATOR_COMPONENT.value), False, False
    for o in rows:  # the rules of each row's own cells, in their order: placement, date, memory, per-accelerator figure
        o = place(o, table, fresh, memo)
        if not earliest <= o.collected <= latest:
            problem = bounds.date_problem(o.collected, start, now)
            if problem:
                o = o.held("implausible_date", problem)
        if o.status is Status.ACCEPTED and (o.stated_memory_gb is not None or o.stated_per_accelerator is not None):
            o = _per_accelerator(_memory(o, table))
        split = split or o.billing in components
        spot = spot or o.pricing is PricingKind.SPOT
        decided.append(o)
    if split:
        decided = _combine(decided, limits.hours_per_month)
    if spot:
        decided = _spot_copies(decided)
    decided = _placeholders(_term_totals(decided, limits.hours_per_month))
    decided = band.check(decided, rates, limits, pool, known, siblings)
    return _qualified(rows, decided, limits.hours_per_month, run, fresh)


def _qualified(rows: list[Observation], decided: list[Observation], hours: float, run: str | None, fresh: bool) -> list[Observation]:
    """``decided`` (the rows of ``rows`` decided, in order, then the combined split bills) held
    when licence-included, with their qualifiers, per-accelerator price and ``run`` set: the
    caller's own rows copied unless ``fresh``, every other row completed in place."""
    completed: dict[int, Any] = {}  # each set of fields completed below
    final = []
    unstated, derived = OfferQualifier.VARIANT_NOT_STATED.value, OfferQualifier.DERIVED_FROM_TERM.value
    hour, second, instance = PriceUnit.HOUR, PriceUnit.SECOND, PriceBasis.INSTANCE
    given = len(rows)
    for i, o in enumerate(decided):
        if o.instance_type.endswith(LICENSED_SUFFIX):
            o = o.held("licence_included", "the price includes a Windows licence: not a like-for-like accelerator price")
        qualifiers = o.qualifiers
        if o.accelerator and not o.variant and unstated not in qualifiers:
            qualifiers = (*qualifiers, unstated)
        unit = o.unit
        if unit is not hour and unit is not second and derived not in qualifiers:  # hourly(o)[1]: a longer term
            qualifiers = (*qualifiers, derived)
        if unit is hour and o.price_basis is instance:  # per_accelerator_hour(o, hours), its commonest case inline
            count = o.accelerators
            per_acc: float | None = o.amount / count if count else None
        else:
            per_acc = per_accelerator_hour(o, hours)
        changes: dict[str, object] = {
            "qualifiers": qualifiers,
            "per_accelerator_hour": per_acc if per_acc is None or math.isfinite(per_acc) else None,
        }
        if run is not None:
            changes["run"] = run
        if not fresh and i < given and o is rows[i]:  # the caller's own row, unchanged so far: copied
            final.append(o.replaced(**changes))
        else:  # a copy made above (placed, held or combined), or a fresh row: no one else holds it, completed in place
            final.append(_complete(o, changes, completed))
    return final


__all__ = ["PLACEHOLDER_SIZES", "RULES", "Limits", "PoolPrice", "apply", "place", "usd_per_accelerator_hour"]
