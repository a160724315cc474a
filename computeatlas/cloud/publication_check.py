"""Checks before a collection is published: hold a run whole when it disagrees with its source's previous run.

A collector (``computeatlas prices collect``) reads a source's whole catalog each time, so a
broken response that still parses (a page of a paginated answer lost, a region left out, a
price column that changed its unit) would otherwise replace good prices with bad ones. Like
gpuhunt, which tests each provider's catalog before publishing it and keeps the previous one
when a test fails, a collection is compared with its source's previous run before it is
committed, and held whole for the operator when

- it would **drop more than half** (:data:`DROP_SHARE`) of the offers the previous run made
  current: offers are (provider, instance, region, pricing, term), and one is dropped when
  the new run has no accepted reading of it; or
- its **median price moved** by more than the factor
  :attr:`~computeatlas.core.settings.Settings.collection_median_factor` (3 by default) either
  way: the median of the USD price per accelerator-hour over the accepted offers of each run
  (another currency through the dated rate table; an offer without a rate, or not separable
  per accelerator, is left out of the median). 2.00 → 7.00 is 3.5×: held; 2.00 → 2.10 is not.

:func:`hold_reason` is the comparison; :func:`decided` decides the new readings as an import
would (placement and every integrity rule, without the store's band pool), so rows the rules
would hold anyway (unplaced instances, Windows licences) count on neither side;
:func:`previous_offers` reads the previous run's offers from the store's current table (the
rows whose ``run`` is the source's newest ``imported`` attempt in the collection log,
:mod:`computeatlas.cloud.collection_log`); :class:`PublicationCheck` puts them together as the
hook ``computeatlas prices collect`` gives :func:`computeatlas.cloud.collection.collect_sources`
(its ``check``), called between "readings collected" and "run committed".

A held run is still committed, so it is visible: every reading is held under the rule
``collection_held`` with the reason (:func:`hold_whole`; ``collect_sources`` does the same) (``prices held`` lists them), and the attempt is
recorded as ``held``. Held rows are never current, and every reading of a new collection has a
new collection time (a new observation key), so the current table keeps the previous run's
rows as each offer's newest accepted row: the previous run stays current. The next collection
is compared with the last run that was published, not with the held one.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from computeatlas.cloud import collection_log, rules
from computeatlas.cloud.band import usd_per_accelerator_hour
from computeatlas.cloud.collectors.base import Collected
from computeatlas.cloud.instances import InstanceTable
from computeatlas.cloud.observations import Observation, Status
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.store import Store, observation_of

RULE = "collection_held"
"""The rule name every row of a run held whole carries first (:data:`computeatlas.cloud.rules.RULES`)."""

DROP_SHARE = 0.5
"""A run that would drop more than this share of its previous run's offers is held."""

Offer = tuple[str, str, str, str, str]
"""An offer: provider, instance type, region, pricing kind, term."""


def offer_of(obs: Observation) -> Offer:
    """The offer ``obs`` is an observation of."""
    return (obs.provider, obs.instance_type, obs.region, obs.pricing.value, obs.term)


def _accepted(rows: Iterable[Observation]) -> dict[Offer, Observation]:
    """The accepted rows of ``rows`` by offer (the first of each offer)."""
    found: dict[Offer, Observation] = {}
    for obs in rows:
        if obs.status is Status.ACCEPTED:
            found.setdefault(offer_of(obs), obs)
    return found


def median_usd(offers: Iterable[Observation], rates: RateTable, hours_per_month: float = 730.0) -> float | None:
    """The median USD price per accelerator-hour of ``offers`` (one row per offer), or None when
    none has one (not placed, not separable, or another currency without a dated rate)."""
    prices = [p for p in (usd_per_accelerator_hour(o, rates, hours_per_month) for o in offers) if p is not None]
    return statistics.median(prices) if prices else None


def hold_reason(
    source: str,
    readings: Sequence[Observation],
    previous: Sequence[Observation],
    *,
    factor: float = 3.0,
    rates: RateTable | None = None,
    hours_per_month: float = 730.0,
) -> str | None:
    """Why the run of ``source`` with ``readings`` (decided: :func:`decided`) must be held whole
    against ``previous`` (the accepted current rows of its previous run, :func:`previous_offers`),
    or None to publish it. Held when it would drop more than :data:`DROP_SHARE` of the previous
    offers, or when the median USD price per accelerator-hour of its accepted offers is more than
    ``factor`` times (or less than 1/``factor`` of) the previous one; both reasons when both hold.
    Without previous offers (a source's first run) nothing is held.

    >>> hold_reason("example", [], [])
    """
    old = _accepted(previous)
    if not old:
        return None
    new = _accepted(readings)
    rates = rates or RateTable([])
    runs = sorted({o.run for o in old.values() if o.run})
    against = f"its previous run ({', '.join(runs)})" if runs else "its previous run"
    reasons = []
    dropped = len(old.keys() - new.keys())
    if dropped > DROP_SHARE * len(old):
        reasons.append(f"it would drop {dropped} of {len(old)} offers of {against}, more than {DROP_SHARE:.0%}")
    before, after = median_usd(old.values(), rates, hours_per_month), median_usd(new.values(), rates, hours_per_month)
    if before and after is not None:
        ratio = after / before
        if ratio > factor or ratio * factor < 1:
            reasons.append(
                f"its median price would move from {before:.2f} to {after:.2f} USD per accelerator-hour ({ratio:.2f}× {against}), "
                f"beyond the factor of {factor:g}"
            )
    return f"{source}: " + "; and ".join(reasons) if reasons else None


def hold_whole(readings: Iterable[Observation], reason: str) -> list[Observation]:
    """Every reading held under :data:`RULE` with ``reason`` (first among its rules): the run is
    committed as it came, visible to ``prices held`` and never current."""
    return [o.held(RULE, reason) for o in readings]


def decided(
    readings: Sequence[Observation],
    table: InstanceTable,
    rates: RateTable,
    limits: rules.Limits,
    now: dt.datetime | None = None,
    siblings: Mapping[str, tuple[str, ...]] | None = None,
) -> list[Observation]:
    """Copies of ``readings`` placed and checked as an import decides them
    (:func:`computeatlas.cloud.rules.apply`, without the store's band pool: the run's own rows
    make its band); ``readings`` are left as they are."""
    return rules.apply(list(readings), table, rates, limits, now=now, siblings=siblings)


def previous_run(store_root: Path, source: str) -> str | None:
    """The run id of the newest ``imported`` attempt of ``source`` in the collection log (held,
    failed and skipped attempts made nothing current), or None."""
    found, _ = collection_log.attempts(store_root, source)
    success = collection_log.last(found, succeeded=True)
    return success.run if success is not None else None


def previous_offers(store: Store, run: str | None, now: dt.datetime | None = None) -> list[Observation]:
    """The current offers (each offer's newest accepted row, from the current table) that run
    ``run`` brought: what a source's previous run made current and still is. Empty without a run."""
    if not run:
        return []
    rows = store.query_current("SELECT * FROM current WHERE run = ?", [run])
    if rows is None:  # no fresh current table: the same rows from the history
        rows = [r for r in store.newest(None, now or dt.datetime.now(dt.UTC)) if r["run"] == run]
    return [observation_of(r) for r in rows]


@dataclass(frozen=True)
class PublicationCheck:
    """The pre-publication hook of :func:`computeatlas.cloud.collection.collect_sources`
    (its ``check``): called with a source's name, what was collected and the store, before the
    import, it returns why the run must be held whole, or None.

    It decides copies of the readings (:func:`decided`, through ``table`` with ``rates`` and
    ``limits``), reads the source's previous run from the store (:func:`previous_run`,
    :func:`previous_offers`) and compares (:func:`hold_reason`) with ``factor``
    (:attr:`~computeatlas.core.settings.Settings.collection_median_factor`)."""

    table: InstanceTable
    rates: RateTable
    limits: rules.Limits
    factor: float = 3.0
    siblings: Mapping[str, tuple[str, ...]] | None = None

    def __call__(self, source: str, collected: Collected, store: Store) -> str | None:
        """Why ``source``'s run of ``collected.observations`` must be held whole, or None to publish it."""
        now = dt.datetime.now(dt.UTC)
        previous = previous_offers(store, previous_run(store.root, source), now)
        if not previous:
            return None
        mine = decided(collected.observations, self.table, self.rates, self.limits, now, self.siblings)
        return hold_reason(source, mine, previous, factor=self.factor, rates=self.rates, hours_per_month=self.limits.hours_per_month)


__all__ = [
    "DROP_SHARE",
    "RULE",
    "Offer",
    "PublicationCheck",
    "decided",
    "hold_reason",
    "hold_whole",
    "median_usd",
    "offer_of",
    "previous_offers",
    "previous_run",
]
