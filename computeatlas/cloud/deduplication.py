"""Deduplication of an import's decided rows: against each other (a ``conflict`` is the same
observation priced twice in one import, :func:`conflicts_within`) and against the store
(:func:`stored`: the newest stored row per key, only what the comparison reads; the
comparison itself is :func:`computeatlas.cloud.runs.import_readings`'), and the stored prices
other sources gave the same offers near the same time (:func:`neighbours`, for ``stale_repeat``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Sequence

from computeatlas.cloud.group_rules import could_supersede, offer
from computeatlas.cloud.observations import Observation, PriceBasis, PriceUnit, PricingKind, Status
from computeatlas.cloud.store import Store


def conflicts_within(decided: list[Observation], keys: Sequence[tuple[str, ...]] | None = None) -> list[Observation]:
    """Rows of one import that share a key but not a price: the first accepted one stands;
    every other is held as a ``conflict`` against it. Where none is accepted, none is a
    conflict (a held row never blocks another price of the same observation). ``keys`` are
    the rows' keys when already known."""
    keys = keys if keys is not None else [obs.key() for obs in decided]
    standing: dict[tuple[str, ...], Observation] = {}
    for obs, key in zip(decided, keys, strict=True):
        if obs.status is Status.ACCEPTED:
            standing.setdefault(key, obs)
    out = []
    for obs, key in zip(decided, keys, strict=True):
        first = standing.get(key)
        if first is not None and obs is not first:
            obs = obs.held("conflict", f"the same observation is priced {first.amount:g} {first.currency} elsewhere in this import")
        out.append(obs)
    return out


WORD: dict[object, str] = {member: member.value for kind in (Status, PriceUnit, PriceBasis) for member in kind}
"""Each member's word (a dict read: an enum's ``value`` is a property call)."""

SEP = "\x1f"
"""What joins the words of a stored row's price and decision (:data:`PRIOR_SQL`, where a NULL
word is a NUL, ``chr(0)``: no cell of an import holds either, a NUL byte refuses the file and a
unit separator is no word of ours)."""


def words(*words: str) -> str:
    """``words`` joined as :data:`PRIOR_SQL` joins a stored row's (by :data:`SEP`)."""
    return SEP.join(words)


PRIOR_SQL = (
    "SELECT provider, instance_type, region, pricing, term, "
    "CASE WHEN epoch_us(collected) % 1000000 = 0 THEN strftime(collected, '%Y-%m-%dT%H:%M:%S+00:00') "
    "ELSE strftime(collected, '%Y-%m-%dT%H:%M:%S.%f+00:00') END, amount, "
    "concat_ws(chr(31), coalesce(currency, chr(0)), coalesce(unit, chr(0)), coalesce(price_basis, chr(0))), status, "
    "concat_ws(chr(31), coalesce(status, chr(0)), coalesce(accelerator, chr(0)), coalesce(variant, chr(0)), "
    "array_to_string(coalesce(rules, []), chr(31))), run FROM latest WHERE provider IN ({marks})"
)
"""A stored row as deduplication compares it: its key (the time written as
:meth:`~computeatlas.cloud.observations.Observation.key` writes it), amount, the words of its
price (currency, unit, basis), status, the words of its decision (status, accelerator, variant,
rules) and run."""

Prior = tuple[float, str, str, str, str]
"""(amount, price words, status, decision words, run) of a stored row (:data:`PRIOR_SQL`)."""


def stored(store: Store, providers: Iterable[str], first: dt.date, last: dt.date) -> dict[tuple[str, ...], Prior]:
    """The newest stored row per key of ``providers`` collected between ``first`` and
    ``last`` (dates, inclusive; :meth:`Store.stored_keys`), as :data:`Prior`: only what
    deduplication compares, the words joined by the engine (a re-import reads every stored
    row of its days, and a column costs more to hand over than to join)."""
    names = sorted(set(providers))
    if not names:
        return {}
    rows = store.fetch(PRIOR_SQL.format(marks=", ".join("?" for _ in names)), names, first, last)
    return {
        (provider, instance, region, pricing, term, when): (float(amount), price, status, decision, run)
        for provider, instance, region, pricing, term, when, amount, price, status, decision, run in rows
    }


NEIGHBOURS_SQL = (
    "SELECT provider, instance_type, region, pricing, term, currency, unit, price_basis, amount, collected, via, "
    "coalesce(raw_extra, '') FROM latest WHERE status = 'accepted' AND provider IN ({marks}) AND collected BETWEEN ? AND ? "
    "AND ((via LIKE 'collector %' AND via NOT LIKE '%aggregator%') OR raw_extra LIKE '%effective%')"
)
"""The stored accepted rows :func:`neighbours` reads: those that can show another row older-sourced
(:func:`~computeatlas.cloud.group_rules.could_supersede`: the provider's own, or with an effective
date), which is all a stored row does for ``stale_repeat`` (it never holds a stored row)."""


def neighbours(store: Store, rows: Sequence[Observation], window_days: int) -> list[Observation]:
    """The stored accepted rows of the offers of ``rows`` (:func:`~computeatlas.cloud.group_rules.offer`)
    collected within ``window_days`` days of the accepted rows' times, from another source than
    the rows' own where they have one (``via``): :func:`stored_offers` of the accepted rows.
    Empty when none is accepted."""
    rows = [o for o in rows if o.status is Status.ACCEPTED]  # a held row is compared with nothing
    if not rows:
        return []
    widen = dt.timedelta(days=window_days)
    since, until = min(o.collected for o in rows) - widen, max(o.collected for o in rows) + widen
    return stored_offers(store, {offer(o) for o in rows}, {o.via for o in rows}, since, until)


def stored_offers(
    store: Store, wanted: Collection[tuple[str, ...]], vias: Collection[str], since: dt.datetime, until: dt.datetime
) -> list[Observation]:
    """The stored accepted rows of the offers ``wanted`` (:func:`~computeatlas.cloud.group_rules.offer`'s
    words) collected in [``since``, ``until``] (aware UTC), leaving out the one source of ``vias``
    when it is one, that can show another row older-sourced, as observations of the fields
    :func:`~computeatlas.cloud.group_rules.stale_repeats` reads (status accepted)."""
    names = sorted({w[0] for w in wanted})
    if not names:
        return []
    sql = NEIGHBOURS_SQL.format(marks=", ".join("?" for _ in names))
    params: list[object] = [*names, since, until]
    if len(vias) == 1:
        sql += " AND via IS DISTINCT FROM ?"  # of one source, only another's stored prices can disagree
        params += list(vias)
    found = []
    for provider, instance, region, pricing, term, currency, unit, basis, amount, collected, via, extra in store.fetch(
        sql, params, since.date(), until.date()
    ):
        o = Observation.trusted(
            {
                "provider": provider,
                "instance_type": instance,
                "region": region,
                "pricing": PricingKind(pricing),
                "term": term or "",
                "currency": currency,
                "unit": PriceUnit(unit),
                "price_basis": PriceBasis(basis),
                "amount": float(amount),
                "collected": collected.astimezone(dt.UTC),
                "via": via or "",
                "raw_extra": extra,
                "status": Status.ACCEPTED,
            }
        )
        if offer(o) in wanted and could_supersede(o):
            found.append(o)
    return found


__all__ = ["NEIGHBOURS_SQL", "SEP", "WORD", "Prior", "conflicts_within", "neighbours", "stored", "stored_offers", "words"]
