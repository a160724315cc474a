"""The rules of one import's groups of rows: split bills combined or held (``split_bill``),
a provider's spot column that copies its on-demand one (``spot_equals_on_demand``), term
totals given as hourly prices (``term_total``), one amount for many sizes
(``placeholder``) and one offer priced differently by two sources at the same moment, where
one is shown the older-sourced (``stale_repeat``); what each rule means is :data:`computeatlas.cloud.rules.RULES`, the order
they are applied in :func:`computeatlas.cloud.rules.apply`. Each takes the import's rows in
order and returns them in order (a held row is a copy, every other the same object).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict

from computeatlas.cloud.instances import Billing
from computeatlas.cloud.observations import Observation, PriceBasis, PriceUnit, PricingKind, Status, hourly, per_accelerator_hour


def combine(rows: list[Observation], hours_per_month: float) -> list[Observation]:
    """Pair host and accelerator parts of split bills; combine pairs (the combined rows after
    the others, USD or not, per hour: ``hours_per_month`` converts a monthly part), hold lone parts."""
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


def spot_copies(rows: list[Observation]) -> list[Observation]:
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


def term_totals(rows: list[Observation], hours_per_month: float) -> list[Observation]:
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


def placeholders(rows: list[Observation]) -> list[Observation]:
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


EFFECTIVE_KEYS = ("effectiveStartDate", "effective_start")
"""The ``raw_extra`` fields that give the date from which a provider says a price is in effect
(Azure's Retail Prices API ``effectiveStartDate``, as our collector keeps it and as
OpenComputePrices' ``azure.csv`` writes it, ``effective_start``, nested in its ``raw_extra``)."""

PUBLISHED_KEY = "Publication Date"
"""The ``raw_extra`` field of the date an AWS offer file was published (our AWS collector keeps it)."""


def _extra_date(o: Observation, keys: tuple[str, ...]) -> dt.date | None:
    """The first date of ``keys`` in the row's ``raw_extra`` (at its top or in a nested
    ``raw_extra``), or None when it carries none that reads as an ISO date."""
    if not o.raw_extra or not any(k in o.raw_extra for k in keys):
        return None
    try:
        extra = json.loads(o.raw_extra)
    except ValueError:
        return None
    for found in (extra, extra.get("raw_extra") if isinstance(extra, dict) else None):
        if isinstance(found, dict):
            for key in keys:
                value = found.get(key)
                if isinstance(value, str) and len(value) >= 10:
                    try:
                        return dt.date.fromisoformat(value[:10])
                    except ValueError:
                        continue
    return None


def first_hand(o: Observation) -> bool:
    """True for a row one of our collectors read from the provider's own API or page
    (``via`` ``collector …``, not an aggregator's catalog); every imported file of another
    party's collection is second-hand, even of the provider's API: when it read the price we
    know only from its own word."""
    return o.via.startswith("collector ") and "aggregator" not in o.via


OFFER_SQL = (
    "provider, instance_type, CASE WHEN pricing = 'spot' THEN region ELSE split_part(region, '/', 1) END AS offer_region, "
    "pricing, term, currency, unit, price_basis"
)
"""SQL: :func:`offer`'s words of a row (the region as ``offer_region``)."""


def offer(o: Observation) -> tuple[str, ...]:
    """What makes two rows the same offer, in words: provider, instance, region, pricing, term,
    currency, unit and basis (:data:`OFFER_SQL` in SQL). An on-demand or committed price is
    regional, so a zone a source adds (``us-east-1/use1-az1``) is dropped; a spot price is
    kept per zone."""
    region = o.region if o.pricing is PricingKind.SPOT else o.region.split("/", 1)[0]
    return (o.provider, o.instance_type, region, o.pricing.value, o.term, o.currency, o.unit.value, o.price_basis.value)


def could_supersede(o: Observation) -> bool:
    """True for a row that can show another older-sourced (:func:`_older`): the provider's own,
    or one that gives the date its price took effect."""
    return first_hand(o) or _extra_date(o, EFFECTIVE_KEYS) is not None


def _source(o: Observation) -> str:
    """A row's source in words: the file or collector it came through, and what it says of its date."""
    name = o.via or o.source_url or "an unnamed source"
    published = _extra_date(o, (PUBLISHED_KEY,))
    effective = _extra_date(o, EFFECTIVE_KEYS)
    dated = f", published {published:%Y-%m-%d}" if published else ""
    dated += f", in effect from {effective:%Y-%m-%d}" if effective else ""
    hand = "the provider's own" if first_hand(o) else "second-hand"
    return f"{name} ({hand}{dated})"


def _older(a: Observation, b: Observation) -> str | None:
    """Why ``a``'s price is older-sourced than ``b``'s (they disagree on one offer), or None
    when that cannot be shown: both give the date their price took effect and ``a``'s is
    earlier; else ``b`` is the provider's own and ``a`` second-hand; else both are the
    provider's own and ``a`` was published (AWS's offer file) or collected earlier."""
    ea, eb = _extra_date(a, EFFECTIVE_KEYS), _extra_date(b, EFFECTIVE_KEYS)
    if ea and eb and ea != eb:
        return f"a price in effect from {ea:%Y-%m-%d}, superseded from {eb:%Y-%m-%d}" if ea < eb else None
    fa, fb = first_hand(a), first_hand(b)
    if fb and not fa:
        return "a second-hand copy of a price the provider's own source no longer gives"
    if fa and fb:
        pa, pb = _extra_date(a, (PUBLISHED_KEY,)), _extra_date(b, (PUBLISHED_KEY,))
        if pa and pb and pa != pb:
            return "read from an earlier price list of the provider" if pa < pb else None
        if a.collected < b.collected:
            return "collected earlier from the provider"
    return None


def stale_repeats(rows: list[Observation], window_days: int) -> list[Observation]:
    """Hold each accepted row whose price of an offer (:func:`offer`) disagrees with another
    source's (another ``via``) collected at most ``window_days`` days apart and is the
    older-sourced of the two (:func:`_older`); the reason names both sources, prices and dates.
    Rows of one source are never compared (a source's price that changes is history)."""
    if len({o.via for o in rows}) < 2:
        return rows
    offers: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, o in enumerate(rows):
        if o.status is Status.ACCEPTED:
            offers[offer(o)].append(i)
    window = dt.timedelta(days=window_days)
    out = list(rows)
    for found in offers.values():
        if len({rows[i].via for i in found}) < 2 or len({rows[i].amount for i in found}) < 2:
            continue
        able = [j for j in found if could_supersede(rows[j])]  # the only rows that can show another older-sourced
        for i in found if able else ():
            a = rows[i]
            for j in able:
                b = rows[j]
                if b.via == a.via or b.amount == a.amount or abs(a.collected - b.collected) > window:
                    continue
                why = _older(a, b)
                if why:
                    unit = a.unit.value
                    out[i] = a.held(
                        "stale_repeat",
                        f"{_source(b)} gives {b.amount:g} {b.currency} per {unit} on {b.collected:%Y-%m-%d}; "
                        f"{_source(a)} gives {a.amount:g} on {a.collected:%Y-%m-%d}: {why}",
                    )
                    break
    return out


__all__ = [
    "EFFECTIVE_KEYS",
    "OFFER_SQL",
    "PLACEHOLDER_SIZES",
    "PUBLISHED_KEY",
    "combine",
    "first_hand",
    "offer",
    "placeholders",
    "spot_copies",
    "stale_repeats",
    "term_totals",
]
