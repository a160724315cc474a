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

import bisect
import datetime as dt
import statistics
from collections import defaultdict
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
    return (
        f"no dated {obs.currency} rate on or before {obs.collected:%Y-%m-%d} in data/prices/rates.csv: the price cannot be checked "
        "against the bounds in USD; add a sourced rate and import the file again"
    )


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


def provider_median(window: list[tuple[dt.datetime, float, str]]) -> float:
    """The median of the providers' medians: a provider with hundreds of regional rows
    counts once, so one hyperscaler's price list cannot set the band for everyone else."""
    by_provider: dict[str, list[float]] = defaultdict(list)
    for _, price, provider in window:
        by_provider[provider].append(price)
    return statistics.median(statistics.median(v) for v in by_provider.values())


def window_median(
    series: list[tuple[dt.datetime, float, str]],
    when: dt.datetime,
    window: dt.timedelta,
    cache: dict[tuple[int, int, int], tuple[float, int, int]],
) -> tuple[float, int, int] | None:
    """(median of the providers' medians, providers, observations) of ``series`` (sorted)
    within ``window`` either side of ``when``, or None when the window is empty."""
    lo = bisect.bisect_left(series, (when - window,))
    hi = bisect.bisect_right(series, (when + window, float("inf"), "\uffff"))
    if hi <= lo:
        return None
    if (id(series), lo, hi) not in cache:  # rows collected together share one window
        cache[(id(series), lo, hi)] = (provider_median(series[lo:hi]), len({p for _, _, p in series[lo:hi]}), hi - lo)
    return cache[(id(series), lo, hi)]


def _median(ordered: list[float]) -> float:
    """:func:`statistics.median` of an already sorted list (the same arithmetic)."""
    n = len(ordered)
    if n % 2 == 1:
        return ordered[n // 2]
    i = n // 2
    return (ordered[i - 1] + ordered[i]) / 2


_ONE_BY_ONE = 16
"""Up to how many new (or vanished) distinct prices are put in (or taken out of) a provider's
sorted list one by one (a bisection each); more are merged in one sort or one pass."""


class _Prices:
    """One provider's prices in a moving window, as counts of distinct values kept in order:
    a price entering or leaving costs a count, and a bisection only when the value is new or
    gone (real prices repeat: a list of every price would move on each)."""

    __slots__ = ("counts", "n", "ordered")

    def __init__(self) -> None:
        self.counts: dict[float, int] = {}
        self.ordered: list[float] = []
        self.n = 0

    def enter(self, prices: list[float]) -> None:
        counts, new = self.counts, []
        for price in prices:
            if price in counts:
                counts[price] += 1
            else:
                counts[price] = 1
                new.append(price)
        self.n += len(prices)
        if len(new) <= _ONE_BY_ONE:
            for price in new:
                bisect.insort(self.ordered, price)
        else:
            self.ordered.extend(new)
            self.ordered.sort()

    def leave(self, prices: list[float]) -> None:
        counts, gone = self.counts, []
        for price in prices:
            left = counts[price] - 1
            if left:
                counts[price] = left
            else:
                del counts[price]
                gone.append(price)
        self.n -= len(prices)
        if len(gone) <= _ONE_BY_ONE:
            for price in gone:
                del self.ordered[bisect.bisect_left(self.ordered, price)]
        else:
            self.ordered = [price for price in self.ordered if price in counts]

    def add(self, price: float, count: int) -> None:
        """``count`` prices of ``price`` enter (the state :meth:`enter` of them one by one leaves)."""
        counts = self.counts
        if price in counts:
            counts[price] += count
        else:
            counts[price] = count
            bisect.insort(self.ordered, price)
        self.n += count

    def remove(self, price: float, count: int) -> None:
        """``count`` prices of ``price`` leave (the state :meth:`leave` of them one by one leaves)."""
        counts = self.counts
        left = counts[price] - count
        if left:
            counts[price] = left
        else:
            del counts[price]
            del self.ordered[bisect.bisect_left(self.ordered, price)]
        self.n -= count

    def median(self) -> float:
        """:func:`statistics.median` of the prices (the same middle values, the same arithmetic)."""
        n, counts = self.n, self.counts
        low, high = (n - 1) // 2, n // 2  # the middle one, or the middle two
        seen, first = 0, None
        for price in self.ordered:
            seen += counts[price]
            if first is None and seen > low:
                first = price
            if seen > high:
                assert first is not None  # seen passed low before it passed high
                return first if n % 2 == 1 else (first + price) / 2
        raise ValueError("no prices")


def _by_provider(entries: list[tuple[dt.datetime, float, str]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for _, price, provider in entries:
        out[provider].append(price)
    return out


def window_medians(
    series: list[tuple[dt.datetime, float, str]], times: Iterable[dt.datetime], window: dt.timedelta
) -> dict[dt.datetime, tuple[float, int, int] | None]:
    """:func:`window_median` of ``series`` (sorted) at each of ``times``, in one sweep: the
    window moves forward through the series, each price entering and leaving its provider's
    counts once (:class:`_Prices`), instead of every window's prices being grouped and sorted again (which
    is quadratic when a long history gives every hour its own window). The same answers:
    the same windows (the same bisections), the same medians (:func:`_median` is
    :func:`statistics.median`'s arithmetic on the same values)."""
    out: dict[dt.datetime, tuple[float, int, int] | None] = {}
    by_provider: dict[str, _Prices] = {}
    lo = hi = 0
    for when in sorted(set(times)):
        new_lo = bisect.bisect_left(series, (when - window,))
        new_hi = bisect.bisect_right(series, (when + window, float("inf"), "\uffff"))
        if new_hi <= new_lo:
            out[when] = None
            continue
        if new_lo >= hi:  # no overlap with the last window: start again
            by_provider.clear()
            lo = hi = new_lo
        for provider, entering in _by_provider(series[hi:new_hi]).items():
            if provider not in by_provider:
                by_provider[provider] = _Prices()
            by_provider[provider].enter(entering)
        for provider, leaving in _by_provider(series[lo:new_lo]).items():
            by_provider[provider].leave(leaving)
            if not by_provider[provider].n:
                del by_provider[provider]
        lo, hi = new_lo, new_hi
        out[when] = (_median(sorted(v.median() for v in by_provider.values())), len(by_provider), hi - lo)
    return out


def counted_window_medians(
    series: list[tuple[dt.datetime, float, str, int]], times: Iterable[dt.datetime], window: dt.timedelta
) -> dict[dt.datetime, tuple[float, int, int] | None]:
    """:func:`window_medians` of the series in which each ``(time, price, provider, count)`` of
    ``series`` (sorted) stands for ``count`` equal entries: the same answers (the same windows,
    since equal entries share their time; the same counts of each price per provider, so the
    same medians), each distinct entry entering and leaving once (real prices repeat: a day of
    hourly collections is a few distinct prices ×24)."""
    keys = [entry[:3] for entry in series]
    sums = [0]
    for entry in series:
        sums.append(sums[-1] + entry[3])
    out: dict[dt.datetime, tuple[float, int, int] | None] = {}
    by_provider: dict[str, _Prices] = {}
    lo = hi = 0
    last: tuple[float, int, int] | None = None
    for when in sorted(set(times)):
        new_lo = bisect.bisect_left(keys, (when - window,))
        new_hi = bisect.bisect_right(keys, (when + window, float("inf"), "\uffff"))
        if new_hi <= new_lo:
            out[when] = None
            continue
        if (new_lo, new_hi) == (lo, hi) and last is not None:  # the same prices as the last window: the same answer
            out[when] = last
            continue
        if new_lo >= hi:  # no overlap with the last window: start again
            by_provider.clear()
            lo = hi = new_lo
        for _, price, provider, count in series[hi:new_hi]:
            prices = by_provider.get(provider)
            if prices is None:
                prices = by_provider[provider] = _Prices()
            prices.add(price, count)
        for _, price, provider, count in series[lo:new_lo]:
            prices = by_provider[provider]
            prices.remove(price, count)
            if not prices.n:
                del by_provider[provider]
        lo, hi = new_lo, new_hi
        out[when] = last = (_median(sorted(v.median() for v in by_provider.values())), len(by_provider), sums[hi] - sums[lo])
    return out


def against_sibling(
    obs: Observation,
    price: float,
    siblings: Mapping[str, tuple[str, ...]],
    priced: set[str],
    groups: dict[tuple[str, str], list[tuple[dt.datetime, float, str]]],
    window: dt.timedelta,
    medians: dict[tuple[int, int, int], tuple[float, int, int]],
    band: tuple[float, float],
) -> Observation:
    """A part's first price held as ``far_from_sibling`` when it is more than the band away
    (``band``: the low and high factors) from the median of its closest sibling with prices of
    the same kind near it in time (``groups``: sorted (time, USD, provider) per (part, pricing);
    ``priced``: the parts with any; ``medians``: the windows already computed)."""
    low, high = band
    for sibling in siblings.get(obs.accelerator, ()):
        if sibling not in priced:
            continue
        found = window_median(groups.get((sibling, obs.pricing.value), []), obs.collected, window, medians)
        if found is None:
            continue
        median, providers, count = found
        if price < low * median or price > high * median:
            return obs.held(
                "far_from_sibling",
                f"the first price of {obs.accelerator}: {price:.4g} USD per accelerator-hour is "
                f"outside {low:g}–{high:g} × the median {median:.4g} of its "
                f"closest sibling {sibling} ({count} {obs.pricing.value} observations, "
                f"{providers} provider(s))",
            )
        return obs
    return obs


__all__ = [
    "CLOCK_SKEW",
    "against_sibling",
    "bound_problem",
    "counted_window_medians",
    "date_problem",
    "no_rate_reason",
    "provider_median",
    "sibling_map",
    "window_median",
    "window_medians",
]
