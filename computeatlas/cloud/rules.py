"""The named integrity rules every imported row passes, and the placement through our table.

:func:`apply` takes the rows of one import (already parsed) and returns them decided:
placed on an accelerator through the instance table, and either ``accepted`` or ``held``
with the name of every rule that held it and the reason in words. Held rows are kept for
the operator (``computeatlas prices held``) and never shown to visitors as prices.
The bounds, ``no_rate``, the band and the sibling check are :func:`computeatlas.cloud.band.check`;
the rules of the rows' own cells are :mod:`computeatlas.cloud.cell_rules`', those of one import's
groups :mod:`computeatlas.cloud.group_rules`'; :func:`apply` applies them all in order.

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
- ``stale_repeat``: two sources (two ``via``) price the same offer (provider, instance,
  region, pricing, term, currency, unit, basis; an on-demand price's zone dropped) differently
  in one import, collected at most ``conflict_window_days`` apart
  (:attr:`~computeatlas.core.settings.Settings.price_conflict_window_days`, 30), and this row's
  price is shown the older-sourced (:func:`computeatlas.cloud.group_rules.stale_repeats`): both
  carry the date their price took effect (Azure's ``effectiveStartDate``) and this one's is
  earlier; or the other is the provider's own (one of our collectors) and this one a
  second-hand copy (an aggregator's file: the March 2026 OpenComputePrices snapshot repeats
  AWS's ``p5.48xlarge`` at 98.32 in ``us-east-1``, AWS's price before its June 2025 cut); or
  both are the provider's own and this one is from an earlier offer file or collection.
  Where that cannot be shown (two aggregators, no dates) nothing is held. Unlike
  ``conflict`` (one key, so one moment, priced twice) the two rows have different times.
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

- ``collection_held``: set on every row of a collection run that the checks before publication
  held whole (:mod:`computeatlas.cloud.publication_check`): the run is stored, listed by
  ``prices held`` with the reason, and the source's previous run stays current.

Qualifiers (shown, not held): ``variant_not_stated`` (left out of per-variant figures) and
``derived_from_term`` (monthly or weekly term, hourly equivalent derived with
``hours_per_month``).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from computeatlas.cloud import band, bounds
from computeatlas.cloud.band import PoolPrice
from computeatlas.cloud.cell_rules import check_memory, check_per_accelerator, complete, place
from computeatlas.cloud.group_rules import combine, placeholders, spot_copies, stale_repeats, term_totals
from computeatlas.cloud.instances import Billing, InstanceTable
from computeatlas.cloud.observations import (
    LICENSED_SUFFIX,
    Observation,
    PriceBasis,
    PriceUnit,
    PricingKind,
    Status,
    per_accelerator_hour,
)
from computeatlas.cloud.rates import RateTable
from computeatlas.core.settings import Settings
from computeatlas.core.states import State

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
    "stale_repeat": "another source prices the same offer differently at the same time, and this price is the older-sourced",
    "unit_not_stated": "the source does not state what the price is per (chip, device or slice), and the provider's page as read does not establish it",
    "spot_above_on_demand": "a spot price above the on-demand price of the same instance and region",
    "committed_equals_on_demand": "a committed-use price that is exactly the on-demand price over the same month",
    "collection_held": "the whole collection run was held before publication (computeatlas.cloud.publication_check): against "
    "its source's previous run it would drop more than half the offers or move the median price more than the set factor",
}
"""Every rule name and what it means."""


LICENCE_REASON = "the price includes a Windows licence: not a like-for-like accelerator price"
"""The reason of a ``licence_included`` row (its instance name ends with :data:`~computeatlas.cloud.observations.LICENSED_SUFFIX`)."""


def _setting(name: str) -> Any:
    """The default of one :class:`Settings` field: the one place each number is set."""
    return Settings.model_fields[name].default


@dataclass(frozen=True, slots=True)
class Limits:
    """The numbers the rules use, each defaulting to its :class:`~computeatlas.core.settings.Settings`
    field (the one place it is set): the band (``band_low``, ``band_high``,
    ``min_observations``), the bounds in USD per accelerator-hour (``floor``, ``ceiling``),
    ``hours_per_month``, ``freshness_days``, the default ``first_date`` of a source and
    ``conflict_window_days`` (two sources' prices of one offer this close are compared)."""

    band_low: float = _setting("price_band_low")
    band_high: float = _setting("price_band_high")
    min_observations: int = _setting("price_band_min_observations")
    floor: float = _setting("price_floor_per_accelerator_hour")
    hours_per_month: float = _setting("hours_per_month")
    freshness_days: int = _setting("freshness_days")
    ceiling: float = _setting("price_ceiling_per_accelerator_hour")
    first_date: dt.date = _setting("price_first_date")  # noqa: RUF009 - a date is immutable: one default for every instance
    conflict_window_days: int = _setting("price_conflict_window_days")

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
            settings.price_conflict_window_days,
        )


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
            o = check_per_accelerator(check_memory(o, table))
        split = split or o.billing in components
        spot = spot or o.pricing is PricingKind.SPOT
        decided.append(o)
    if split:
        decided = combine(decided, limits.hours_per_month)
    if spot:
        decided = spot_copies(decided)
    decided = placeholders(term_totals(decided, limits.hours_per_month))
    decided = stale_repeats(decided, limits.conflict_window_days)
    decided = band.check(decided, rates, limits, pool, known, siblings)
    return _qualified(rows, decided, limits.hours_per_month, run, fresh)


def _qualified(rows: list[Observation], decided: list[Observation], hours: float, run: str | None, fresh: bool) -> list[Observation]:
    """``decided`` (the rows of ``rows`` decided, in order, then the combined split bills) held
    when licence-included, with their qualifiers, per-accelerator price and ``run`` set: the
    caller's own rows copied unless ``fresh``, every other row completed in place."""
    completed: dict[int, Any] = {}  # each set of fields completed below
    final = []
    unstated, derived = State.VARIANT_NOT_STATED.value, State.DERIVED_FROM_TERM.value
    hour, second, instance = PriceUnit.HOUR, PriceUnit.SECOND, PriceBasis.INSTANCE
    given = len(rows)
    for i, o in enumerate(decided):
        if o.instance_type.endswith(LICENSED_SUFFIX):
            o = o.held("licence_included", LICENCE_REASON)
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
            final.append(complete(o, changes, completed))
    return final


__all__ = ["LICENCE_REASON", "RULES", "Limits", "apply"]
