"""The magnitude band of a token price: far from its model's median, it is surely a unit slip.

A per-token price is held by the rule ``far_from_median`` when it is more than
:data:`BAND_FACTOR` (1,000) times above, or below 1/1,000 of, the **median** of its model's
prices on the same side (input and output are judged separately).

The median, defined honestly:

- the pool is every *accepted* price placed on the model in the store (the newest decision
  per key) plus every row of the import being decided that passed the other rules (the row
  itself included);
- each provider counts once: the median is taken over the providers' own medians (a
  provider with fifteen monthly snapshots of one price, or five regional products, is one
  voice), as the rental band of :mod:`computeatlas.cloud.rules` does;
- it needs prices from at least :data:`MIN_PROVIDERS` providers: with fewer, no median is
  formed and no row is held by this rule (a band is not invented from one or two voices).

A thousandfold either way is far wider than the market's real spread (Llama 3.1 8B ran from
about 0.02 to 0.2 USD per million tokens across providers in 2024–2026): the band catches a
per-token price read as per-million (×1,000,000) or a cents/dollars slip on a thin pool,
not a dear provider.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from computeatlas.economics.token_prices import TokenObservation

BAND_FACTOR = 1000.0
"""How far from the model's median (either way, as a factor) a price may be before it is held."""

MIN_PROVIDERS = 3
"""Fewest providers whose prices form a median; below it the band does not judge."""

SIDES = ("input", "output")


def provider_median(prices: Iterable[tuple[str, float]]) -> tuple[float, int] | None:
    """The median of the providers' medians of ``prices`` ((provider, USD per million) pairs)
    and how many providers it counts; None when fewer than :data:`MIN_PROVIDERS` providers."""
    by_provider: dict[str, list[float]] = defaultdict(list)
    for provider, price in prices:
        if price > 0:
            by_provider[provider].append(price)
    if len(by_provider) < MIN_PROVIDERS:
        return None
    return statistics.median(statistics.median(v) for v in by_provider.values()), len(by_provider)


def medians(stored: Iterable[Mapping[str, object]], candidates: Sequence[TokenObservation]) -> dict[tuple[str, str], tuple[float, int]]:
    """(model, side) → (median in USD per million tokens, providers counted), from the accepted
    ``stored`` rows (dicts with ``model``, ``provider`` and the two prices) and the accepted
    ``candidates`` of this import."""
    pool: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for row in stored:
        for side in SIDES:
            pool[(str(row["model"]), side)].append((str(row["provider"]), float(row[f"{side}_per_million"])))  # type: ignore[arg-type]
    for obs in candidates:
        for side in SIDES:
            pool[(obs.model, side)].append((obs.provider, getattr(obs, f"{side}_per_million")))
    out = {}
    for key, prices in pool.items():
        found = provider_median(prices)
        if found is not None:
            out[key] = found
    return out


def judge(obs: TokenObservation, band: Mapping[tuple[str, str], tuple[float, int]]) -> TokenObservation:
    """``obs`` held by ``far_from_median`` (once per side that is out) when a price is more than
    :data:`BAND_FACTOR` × above or below its model's median; unchanged otherwise (or with no median)."""
    for side in SIDES:
        found = band.get((obs.model, side))
        value = getattr(obs, f"{side}_per_million")
        if found is None or value <= 0:
            continue
        median, providers = found
        if value > median * BAND_FACTOR or value < median / BAND_FACTOR:
            obs = obs.held(
                "far_from_median",
                f"the {side} price {value:.4g} USD per million tokens is more than {BAND_FACTOR:,.0f}× "
                f"from the median {median:.4g} of {providers} providers' medians for {obs.model}",
            )
    return obs


__all__ = ["BAND_FACTOR", "MIN_PROVIDERS", "judge", "medians", "provider_median"]
