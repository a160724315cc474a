"""Cloud TPU prices from dstack gpuhunt's hand-copied ``tpu_pricing.json`` (MPL-2.0).

gpuhunt's maintainers copy Google's Cloud TPU pricing page (on-demand and committed-use)
and Spot VM pricing page (spot) into ``src/gpuhunt/resources/tpu_pricing.json``:
``{TPU type: {region: {"Location", "On Demand (USD)", "Spot (USD)", and in the 2024
versions "1-year Commitment (USD)", "3-year Commitment (USD)"}}}``. Each region entry gives
up to four observations in USD per hour: on-demand, spot, committed 1 year, committed 3
years. The observation is named by the TPU type as the file names it (``TPU v4 pod``).

The file carries no date: the caller gives ``collected``, the upstream commit date of the
version read (the folder's README lists them), and ``via`` says "published by DATE".

The unit is not stated upstream beyond "USD" (per chip, per device or per slice). It is
taken only where Google's own pricing page, as read for this importer, establishes it
(:data:`PER_CHIP`): the Cloud TPU pricing page says of v4 that "the v4 pricing is based
on the number of chips in the topology", so ``TPU v4 pod`` is a price per chip-hour
(``price_basis`` accelerator). For every other type the stored copies of the page that
could be read stop before their price tables, so the unit is not established: those rows
are held as ``unit_not_stated`` (:data:`UNIT_NOT_STATED`), never placed by a guess. A spot
price above the on-demand price of the same type and region (``TPU v4 pod`` us-central2:
3.686 against 3.22) is not a spot discount but a copying slip or stale cell: held as
``spot_above_on_demand`` (:data:`SPOT_ABOVE_ON_DEMAND`).

Errors: a file that is not JSON of that shape raises :class:`InputFailed` (line and
column of the JSON error); an entry with an unknown key or a price that is not a
non-negative number is rejected, naming the line of its region and the key as column.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.importers.cells import CLOCK_SKEW, Reading
from computeatlas.cloud.observations import InputFailed, Observation
from computeatlas.core.tabular import TableError

PRICING_URL = "https://cloud.google.com/tpu/pricing"
SPOT_URL = "https://cloud.google.com/spot-vms/pricing"
UPSTREAM = "dstack gpuhunt src/gpuhunt/resources/tpu_pricing.json"

KEYS = {
    "On Demand (USD)": ("on_demand", ""),
    "Spot (USD)": ("spot", ""),
    "1-year Commitment (USD)": ("committed", "1 year"),
    "3-year Commitment (USD)": ("committed", "3 years"),
}
"""The price keys of a region entry: pricing kind and term. ``Location`` is the city name."""

PER_CHIP = {
    "TPU v4 pod": "Google's Cloud TPU pricing page: 'The v4 pricing is based on the number of chips in the topology'",
}
"""TPU types whose price Google's own pricing page, as read, establishes per chip-hour."""

UNIT_NOT_STATED = "unit_not_stated"
"""Rule name: the price's unit (per chip, device or slice) is not established from Google's page."""

SPOT_ABOVE_ON_DEMAND = "spot_above_on_demand"
"""Rule name: a spot price above the on-demand price of the same type, region and file."""


def _line_of(text: str, start: int, name: str) -> tuple[int, int]:
    """The 1-based line of the next ``"name"`` key at or after offset ``start``, and its offset."""
    at = text.find(json.dumps(name), start)
    at = start if at < 0 else at
    return text.count("\n", 0, at) + 1, at


def _price(value: object) -> bool:
    """A usable price: a finite, non-negative number (not a boolean)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value) and value >= 0


def _load(path: Path) -> tuple[str, dict[str, dict[str, dict[str, object]]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        raise InputFailed([TableError(str(path), 1, "(file)", f"not UTF-8 text: {exc.reason}")]) from None
    except json.JSONDecodeError as exc:
        raise InputFailed([TableError(str(path), exc.lineno, f"(character {exc.colno})", f"not JSON: {exc.msg}")]) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) and all(isinstance(e, dict) for e in v.values()) for v in data.values()):
        raise InputFailed([TableError(str(path), 1, "(file)", "not a gpuhunt TPU table: expected {TPU type: {region: {price key: USD}}}")])
    return text, data


def read(path: Path, collected: dt.datetime | None = None, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of a gpuhunt ``tpu_pricing.json``; ``collected`` (UTC, the upstream
    commit date) is required. Raises :class:`InputFailed` without it or for a bad file."""
    now = now or dt.datetime.now(dt.UTC)
    if collected is None:
        raise InputFailed(
            [
                TableError(
                    str(path),
                    1,
                    "(file)",
                    "a gpuhunt TPU table carries no date: give its upstream commit "
                    "date as the collection time (--collected 2024-12-23T00:00:00Z)",
                )
            ]
        )
    if collected.tzinfo is None or collected > now + CLOCK_SKEW:
        raise InputFailed([TableError(str(path), 1, "(file)", "the collection time must be UTC and not in the future", str(collected))])
    text, data = _load(path)
    via = f"{UPSTREAM} ({path.name}, MPL-2.0), published by {collected:%Y-%m-%d}"
    cursor = 0
    for tpu, regions in data.items():
        _tpu_line, cursor = _line_of(text, cursor, tpu)
        for region, entry in regions.items():
            line, cursor = _line_of(text, cursor, region)
            unknown = [k for k in entry if k not in KEYS and k != "Location"]
            bad = [k for k in entry if k in KEYS and not _price(entry[k])]
            if unknown or bad:
                column, why = (
                    (unknown[0], "unknown price key (known: " + ", ".join(KEYS) + ")") if unknown else (bad[0], "not a non-negative number")
                )
                yield Reading(line, TableError(str(path), line, f"{tpu}/{region}/{column}", why, str(entry[column])))
                continue
            location = str(entry.get("Location", "")).strip()
            observations = []
            for key, (pricing, term) in KEYS.items():
                if key not in entry:
                    continue
                obs = Observation(
                    provider="google-cloud",
                    instance_type=tpu,
                    region=region,
                    pricing=pricing,
                    term=term,
                    amount=float(entry[key]),  # type: ignore[arg-type]
                    currency="USD",
                    unit="hour",
                    price_basis="accelerator",
                    collected=collected,
                    source_url=SPOT_URL if pricing == "spot" else PRICING_URL,
                    source_title=("Spot VMs pricing" if pricing == "spot" else "Cloud TPU pricing") + " (Google), hand-copied by gpuhunt",
                    via=via,
                    raw_extra=json.dumps({"Location": location, "key": key}, ensure_ascii=False, sort_keys=True),
                )
                if tpu not in PER_CHIP:
                    obs = obs.held(
                        UNIT_NOT_STATED,
                        f"gpuhunt gives {tpu!r} in 'USD' without saying per chip, device or slice, and "
                        f"Google's pricing page as read does not establish it for {tpu!r}",
                    )
                observations.append(obs)
            on_demand = entry.get("On Demand (USD)")
            for obs in observations:
                if obs.pricing == "spot" and isinstance(on_demand, int | float) and obs.amount > on_demand:
                    obs = obs.held(
                        SPOT_ABOVE_ON_DEMAND,
                        f"spot {obs.amount:g} is above on-demand {on_demand:g} for {tpu} in {region}: not a spot price",
                    )
                yield Reading(line, obs)


__all__ = ["KEYS", "PER_CHIP", "PRICING_URL", "SPOT_ABOVE_ON_DEMAND", "SPOT_URL", "UNIT_NOT_STATED", "read"]
