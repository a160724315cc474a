"""The cheapest price of an accelerator: the ONE rule every face uses (the accelerator card's
"from X", the silicon table's price column, comparisons, the estimate, the token-cost bound,
the price page, the API and the CLI), and the like-for-like test the spreads apply.

The rule (:func:`excluded_because` says, in words, why an observation is left out):

- **accepted** observations only (the store never hands out held rows as prices), the newest
  of each offer (provider, instance, region, pricing, term);
- **fresh**: collected at most ``freshness_days`` (:attr:`Settings.freshness_days`, 90 by
  default) before ``now``;
- **on-demand** and **USD** (no exchange rate), with a price per accelerator-hour;
- **one stated variant**: the part's default variant (:func:`default_variant`: the stated
  variant most on-demand offers name); an observation whose variant is not stated never
  counts in a per-variant figure. A part that exists in one variant only
  (:func:`computeatlas.cloud.variants.sole_variants`) needs none stated: placement gives its
  offers the record's variant, and rows stored before it did are read the same way
  (:func:`rule_variant`).

Ties go to the most recently collected, then the offer id. Where no observation of a part is
current, :func:`cheapest_prices` gives the newest one the rule would take if it were fresh
(the cheapest on the newest date any qualifies), marked ``current=False`` with its date and
age ("last seen 2026-08-20, 104 days ago"): shown as old, never used in a ranking or a spread.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.cloud.observed_price import CURRENT_COLUMNS
from computeatlas.cloud.offer_words import row_id
from computeatlas.cloud.store import OFFER, Store
from computeatlas.cloud.variants import rule_variant, sole_keys
from computeatlas.core.cache import active

CURRENCY = "USD"
"""The one currency prices are compared in."""

ON_DEMAND = "on_demand"
"""The pricing kind the rule counts, as the store spells it."""


def default_variant(offers: Iterable[tuple[str, str]]) -> str:
    """The variant the rule uses when none is asked: of ``(variant key, pricing)`` pairs, the
    stated variant (not '' and not ``not-stated``) that most on-demand offers name, ties to the
    first key in alphabetical order; '' when no on-demand offer states one. ``pricing`` may be
    spelled ``on_demand`` or ``on-demand``."""
    counts = Counter(v for v, kind in offers if v and v != "not-stated" and kind.replace("-", "_") == ON_DEMAND)
    return min(counts, key=lambda k: (-counts[k], k)) if counts else ""


def excluded_because(
    pricing: str,
    currency: str,
    per_accelerator_hour: float | None,
    variant: str,
    chosen: str | None,
    collected: dt.datetime,
    now: dt.datetime,
    freshness_days: int,
    *,
    include_stale: bool = False,
) -> str | None:
    """Why an observation is outside the rule, in words, or None when it counts.

    ``variant`` is its (rule) variant key, '' when not stated; ``chosen`` the variant the
    figure is for (None: every variant, as a visitor may ask); ``include_stale`` lifts the
    freshness test (a visitor's choice on the price page, never a default)."""
    if pricing.replace("-", "_") != ON_DEMAND:
        return f"{pricing.replace('_', '-')} price: only on-demand prices count"
    if per_accelerator_hour is None:
        return "not separable: the bundle price has no share per accelerator"
    if currency != CURRENCY:
        return f"priced in {currency}: left out of {CURRENCY} comparisons (no exchange rate)"
    if chosen is not None and not variant:
        return "variant not stated: never in a per-variant figure"
    if chosen is not None and variant != chosen:
        return f"another variant ({variant})"
    if not include_stale and not is_fresh(collected, now, freshness_days):
        return f"not current: seen {(now - collected).days} days ago (more than {freshness_days})"
    return None


_T = TypeVar("_T")


def price_ends(
    items: Sequence[_T], price: Callable[[_T], float], collected: Callable[[_T], dt.datetime], ident: Callable[[_T], str]
) -> tuple[_T, _T] | None:
    """The cheapest and the dearest of ``items`` (offers or observations the rule counts), by
    ``price`` (per accelerator-hour): the one ranking of the cheapest price and of both ends
    of every spread. Ties go to the most recently ``collected``, then the lowest ``ident``
    (the offer id, worked out only for the ties). None when ``items`` is empty."""
    if not items:
        return None

    def end(sign: int) -> _T:
        best = min((sign * price(i), -collected(i).timestamp()) for i in items)
        return min((i for i in items if (sign * price(i), -collected(i).timestamp()) == best), key=ident)

    return end(1), end(-1)


def fresh_window(now: dt.datetime, freshness_days: int) -> tuple[dt.datetime, dt.datetime]:
    """The store's current window (:meth:`~computeatlas.cloud.store.Store.current`): from
    ``freshness_days`` before ``now`` rounded up to the minute, to that minute."""
    end = now.replace(second=0, microsecond=0)
    end = end if end == now else end + dt.timedelta(minutes=1)
    return end - dt.timedelta(days=freshness_days), end


def is_fresh(collected: dt.datetime, now: dt.datetime, freshness_days: int) -> bool:
    """Collected within :func:`fresh_window`, so the rule counts exactly the offers the price
    pages list as current."""
    start, end = fresh_window(now, freshness_days)
    return start <= collected <= end


def age_text(collected: dt.datetime, now: dt.datetime) -> str:
    """``last seen 2026-08-20, 104 days ago`` (``1 day ago``, ``today``)."""
    days = (now - collected).days
    ago = "today" if days <= 0 else f"{days} day{'s' if days != 1 else ''} ago"
    return f"last seen {collected.astimezone(dt.UTC).date().isoformat()}, {ago}"


class CheapestPrice(BaseModel):
    """The cheapest price of one accelerator by the rule: USD per accelerator-hour, on-demand,
    in one stated variant, named (provider, instance, region, offer id), dated and sourced.

    ``current`` False: no observation is fresh, and this is the newest the rule would take
    (shown as old, with ``age_days``; never in a ranking)."""

    accelerator: str
    variant: str = Field(description="the variant key compared like for like, e.g. 'sxm-80gb'")
    per_accelerator_hour: float = Field(description="USD per accelerator-hour, on-demand")
    provider: str
    instance_type: str
    region: str
    collected: dt.datetime = Field(description="when the observation was collected (UTC)")
    source_url: str
    offer_id: str = Field(description="the offer's stable id (see computeatlas.cloud.offers.offer_id)")
    counted: int = Field(description="observations of this variant it was chosen from (fresh ones, or those of its date when not current)")
    freshness_days: int
    as_of: dt.datetime
    current: bool = Field(True, description="collected within the freshness window before as_of")
    age_days: int = Field(0, description="whole days between collected and as_of")
    seen: str = Field("", description="'seen 2026-11-09', or 'last seen 2026-08-20, 104 days ago' when not current")


PICKED = (
    "accelerator",
    "variant",
    "collected",
    "pricing",
    "currency",
    "per_accelerator_hour",
    "provider",
    "instance_type",
    "region",
    "term",
    "source_url",
)
"""The stored columns the rule reads of a row (:func:`_pick`; the offer id takes provider, instance, pricing, term, region and date)."""


def _pick(
    rows: list[dict[str, Any]], accelerator: str, now: dt.datetime, freshness_days: int, variant: str | None, sole: Mapping[str, str]
) -> CheapestPrice | None:
    """The rule over one part's newest row per offer (any age)."""
    start, end = fresh_window(now, freshness_days)
    keyed = [(rule_variant(r["variant"] or "", accelerator, sole), r) for r in rows if r["accelerator"] == accelerator]
    fresh = [(v, r) for v, r in keyed if start <= r["collected"] <= end]
    chosen = (
        variant
        if variant is not None
        else (default_variant((v, r["pricing"]) for v, r in fresh) or default_variant((v, r["pricing"]) for v, r in keyed))
    )
    if not chosen:
        return None
    ok = [
        r
        for v, r in keyed
        if excluded_because(
            r["pricing"], r["currency"], r["per_accelerator_hour"], v, chosen, r["collected"], now, freshness_days, include_stale=True
        )
        is None
    ]
    current = [r for r in ok if start <= r["collected"] <= end]
    if not current and ok:
        newest = max(r["collected"].astimezone(dt.UTC).date() for r in ok)
        current_flag, pool = False, [r for r in ok if r["collected"].astimezone(dt.UTC).date() == newest]
    else:
        current_flag, pool = True, current
    ends = price_ends(pool, lambda r: r["per_accelerator_hour"], lambda r: r["collected"], row_id)
    if ends is None:
        return None
    best = ends[0]
    collected = best["collected"].astimezone(dt.UTC)
    return CheapestPrice(
        accelerator=accelerator,
        variant=chosen,
        per_accelerator_hour=best["per_accelerator_hour"],
        provider=best["provider"],
        instance_type=best["instance_type"],
        region=best["region"] or "",
        collected=collected,
        source_url=best["source_url"],
        offer_id=row_id(best),
        counted=len(pool),
        freshness_days=freshness_days,
        as_of=now,
        current=current_flag,
        age_days=(now - collected).days,
        seen=f"seen {collected.date().isoformat()}" if current_flag else age_text(collected, now),
    )


def cheapest_price(
    store: Store,
    accelerator: str,
    now: dt.datetime,
    freshness_days: int = 90,
    variant: str | None = None,
    catalog: CloudCatalog | None = None,
    current_only: bool = True,
    since: dt.datetime | None = None,
) -> CheapestPrice | None:
    """The cheapest price of ``accelerator`` by the rule (see the module docstring), read from
    ``store`` at call time; ``variant`` overrides the default variant; ``catalog`` names the
    single-variant parts. With ``current_only`` False a part with no fresh observation gets its
    newest one, marked ``current=False``. None when nothing qualifies.

    With ``variant`` given and ``since`` (UTC, at most ``freshness_days`` before ``now``), the
    part's current offers are asked first, then its observations since ``since`` (a price
    page's window: only those date partitions are read), and the whole history only when
    nothing since then qualifies: the answer is the same, since the rule takes the fresh
    offers, or else those of the newest date any qualifying observation was seen."""
    if variant is None:
        found = cheapest_prices(store, now, freshness_days, catalog).get(accelerator)
    elif since is None:
        found = _pick(store.newest(None, now, accelerator), accelerator, now, freshness_days, variant, sole_keys(catalog))
    else:
        sole = sole_keys(catalog)
        current = store.current(accelerator, now, freshness_days, columns=CURRENT_COLUMNS)  # the price page's read of them
        found = _pick(current, accelerator, now, freshness_days, variant, sole)
        if found is None or not found.current:
            found = _pick(newest_of(store, accelerator, since, now), accelerator, now, freshness_days, variant, sole)
        if found is None:
            found = _pick(store.newest(None, now, accelerator), accelerator, now, freshness_days, variant, sole)
    return found if found is not None and (found.current or not current_only) else None


def newest_of(store: Store, accelerator: str, since: dt.datetime, until: dt.datetime) -> list[dict[str, Any]]:
    """The newest accepted observation of each offer (provider, instance, region, pricing,
    term) of ``accelerator`` collected in [``since``, ``until``] (UTC, whole minutes up), as
    :meth:`Store.newest` gives them, asked of this part alone: only those date partitions
    and this part's rows are read (the store's shared question over every part's rows in a
    long window is more than its result cache keeps)."""
    start, end = _minute_up(since), _minute_up(until)
    return store.query(
        "SELECT * FROM latest WHERE status = 'accepted' AND accelerator = ? AND collected BETWEEN ? AND ? "
        f"QUALIFY row_number() OVER (PARTITION BY {', '.join(OFFER)} ORDER BY collected DESC) = 1 "
        "ORDER BY per_accelerator_hour, provider, instance_type, region, pricing, term",
        [accelerator, start, end],
        start.date(),
        end.date(),
        accelerator,
    )


def _minute_up(moment: dt.datetime) -> dt.datetime:
    whole = moment.replace(second=0, microsecond=0)
    return whole if whole == moment else whole + dt.timedelta(minutes=1)


CHEAPEST = "cheapest prices"
"""The namespace of :func:`cheapest_prices`' answers in the active cache (:func:`computeatlas.core.cache.active`)."""


def cheapest_prices(
    store: Store, now: dt.datetime, freshness_days: int = 90, catalog: CloudCatalog | None = None
) -> dict[str, CheapestPrice]:
    """:func:`cheapest_price` of every observed part (of ``catalog``'s parts when it is given;
    default variant), by accelerator id, from one store query: current ones, and for a part with no current observation its newest
    (``current=False``). A part with nothing the rule takes is absent (never a zero).

    Worked out once per store, store version (an import changes it), minute of ``now``,
    window and catalog (its data version), and kept in the active cache (namespace
    :data:`CHEAPEST`): the silicon table, every comparison, the estimate and the bound of that
    minute ask the same question. The answer is shared: read it, do not change it."""
    key = (str(store.root), store.version(), now.replace(second=0, microsecond=0), freshness_days, catalog.version if catalog else "")
    cache = active()
    found: dict[str, CheapestPrice] | None = cache.get(CHEAPEST, key)
    if found is not None:
        return found
    groups: dict[str, list[dict[str, Any]]] = {}
    parts = frozenset(catalog.accelerators) if catalog is not None else None  # no page shows a part the catalog lacks
    for row in store.newest(None, now, columns=PICKED, parts=parts):
        if row["accelerator"]:
            groups.setdefault(row["accelerator"], []).append(row)
    sole = sole_keys(catalog)
    picked = {acc: _pick(rows, acc, now, freshness_days, None, sole) for acc, rows in groups.items()}
    found = {acc: price for acc, price in picked.items() if price is not None}
    cache.put(CHEAPEST, key, found)
    return found


def current_prices(prices: Mapping[str, CheapestPrice]) -> dict[str, CheapestPrice]:
    """Only the current ones of ``prices``: what rankings and spreads may use."""
    return {acc: p for acc, p in prices.items() if p.current}


def left_out(catalog: CloudCatalog, prices: Mapping[str, CheapestPrice], ranked: Iterable[str], store: Store) -> list[tuple[str, str]]:
    """The parts a price ranking leaves out, each with why, as (accelerator id, reason): every
    part rented or observed (an accepted or held observation, or cloud-only) that is not in
    ``ranked``: "no current price: last seen 2026-03-21, 257 days ago" or "no price observed"."""
    inside = set(ranked)
    observed = store.observed_accelerators()
    out = []
    for ident, acc in catalog.accelerators.items():
        if ident in inside:
            continue
        found = prices.get(ident)
        if found is not None and not found.current:
            out.append((ident, f"no current price: {found.seen} ({found.per_accelerator_hour:.4g} USD per accelerator-hour)"))
        elif found is None and (ident in observed or acc.availability.value in ("cloud-only", "rent")):
            words = (
                "no on-demand USD price of a stated variant observed"
                if ident in observed
                else "no price observed: the atlas holds no accepted observation of it"
            )
            out.append((ident, words))
    return out


__all__ = [
    "CHEAPEST",
    "CURRENCY",
    "ON_DEMAND",
    "PICKED",
    "CheapestPrice",
    "age_text",
    "cheapest_price",
    "cheapest_prices",
    "current_prices",
    "default_variant",
    "excluded_because",
    "is_fresh",
    "left_out",
    "newest_of",
    "price_ends",
]
