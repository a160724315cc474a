"""Azure GPU VM prices as andy-diericks/azure-pricing-radar recorded them (MIT licence).

The radar's GitHub Action reads Azure's Retail Prices API
(https://prices.azure.com/api/retail/prices) every 6 hours and commits a region's price
sheet (``data/latest/vm-<region>.json``) whenever it changed; the flattened CSV has one row
per (snapshot, meter) with the columns :data:`COLUMNS`.

- A snapshot is the region's whole state at that commit, so each row is an observation
  collected at ``commit_date_utc``: the only date the radar gives is the commit's, and
  ``via`` says so ("published by 2026-07-15 (commit 25ddcc8)") beside the upstream file at
  that commit. ``source_url`` is the API the radar read.
- The size is the API's ``skuName`` without its pricing suffix (``ND96isrH100v5``; the
  radar kept no ``armSkuName``): the instance table finds an Azure size under either
  spelling (:func:`~computeatlas.cloud.azure_meters.sku_key`). The pricing kind is in the
  name (:func:`~computeatlas.cloud.azure_meters.meter_pricing`: "… Spot" → spot, "… Low
  Priority" → spot with the term ``Low Priority``, else on_demand); a Windows product is
  named ``<size> (Windows)`` and held by ``licence_included``.
- ``retailPrice`` is USD per hour for the whole VM; ``unitOfMeasure`` must be ``1 Hour``
  (any other unit is a bad cell naming the column). ``savingsPlanPrice``, where a
  pay-as-you-go meter gives one, is a second observation: ``committed`` with the term
  ``1 year savings plan``, USD per hour (the radar has none on Spot or Low Priority meters).
- A spot meter priced at exactly the on-demand price of the same product and size in the
  same region and snapshot (``ND96isrH200v5 Spot`` = 106.0 in francecentral) is kept as
  observed and held as ``spot_at_on_demand``.

Errors: a missing column fails the file (:class:`~computeatlas.cloud.observations.InputFailed`);
a bad cell rejects its row with file, line and column.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.azure_meters import base_sku, licensed_name, meter_pricing
from computeatlas.cloud.importers.cells import Reading, open_csv, price, rows, timestamp
from computeatlas.cloud.observations import InputFailed, Observation, PricingKind
from computeatlas.core.tabular import CellError, TableError

COLUMNS = (
    "snapshot_commit",
    "commit_date_utc",
    "file",
    "key",
    "armRegionName",
    "productName",
    "skuName",
    "meterName",
    "unitOfMeasure",
    "retailPrice",
    "unitPrice",
    "savingsPlanPrice",
)
API = "https://prices.azure.com/api/retail/prices"
REPOSITORY = "https://github.com/andy-diericks/azure-pricing-radar"
SAVINGS_PLAN = "1 year savings plan"
"""The term of the API's ``savingsPlanPrice`` (the 1-year savings-plan hourly price)."""
HOUR = "1 Hour"

_COMMIT = re.compile(r"[0-9a-f]{7,40}")


def _on_demand_prices(path: Path) -> dict[tuple[str, str, str, str], str]:
    """The on-demand ``retailPrice`` text of each (commit, region, product, size) in the file."""
    found: dict[tuple[str, str, str, str], str] = {}
    try:
        for _, raw in open_csv(path, COLUMNS):
            if isinstance(raw, TableError):
                continue  # the row pass reports it
            sku = (raw.get("skuName") or "").strip()
            if sku and meter_pricing(sku)[0] is PricingKind.ON_DEMAND:
                found[(raw["snapshot_commit"], raw["armRegionName"], raw["productName"], sku)] = (raw.get("retailPrice") or "").strip()
    except TableError as exc:
        raise InputFailed([exc]) from None
    return found


def read(path: Path, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of the radar's ``azure_gpu_vm_prices.csv`` (see the module docstring)."""
    now = now or dt.datetime.now(dt.UTC)
    on_demand = _on_demand_prices(path)

    def parse(raw: dict[str, str]) -> list[Observation]:
        if raw["unitOfMeasure"].strip() != HOUR:
            raise CellError("unitOfMeasure", f"must be {HOUR!r}: only hourly meters are prices per hour", raw["unitOfMeasure"])
        commit = raw["snapshot_commit"].strip()
        if not _COMMIT.fullmatch(commit):
            raise CellError("snapshot_commit", "not a git commit (7 to 40 lower-case hex digits)", raw["snapshot_commit"])
        sku, product, region = raw["skuName"].strip(), raw["productName"].strip(), raw["armRegionName"].strip()
        if not sku:
            raise CellError("skuName", "the meter's size name is required", raw["skuName"])
        if not region:
            raise CellError("armRegionName", "the region is required", raw["armRegionName"])
        collected = timestamp(raw, "commit_date_utc", now)
        amount = price(raw, "retailPrice")
        pricing, term = meter_pricing(sku)
        upstream = f"{REPOSITORY}/blob/{commit}/{raw['file'].strip()}"
        extra = json.dumps(
            {
                k: raw[k]
                for k in ("key", "productName", "skuName", "meterName", "unitPrice", "savingsPlanPrice", "file", "snapshot_commit")
                if raw.get(k)
            },
            ensure_ascii=False,
            sort_keys=True,
        )
        common = dict(
            provider="azure",
            instance_type=licensed_name(base_sku(sku), product),
            region=region,
            currency="USD",
            unit="hour",
            price_basis="instance",
            collected=collected,
            source_url=API,
            source_title="Azure Retail Prices API (as recorded by andy-diericks/azure-pricing-radar)",
            via=f"azure-pricing-radar {upstream} (MIT), published by {collected:%Y-%m-%d} (commit {commit[:7]})",
            raw_extra=extra,
        )
        obs = Observation(pricing=pricing, term=term, amount=amount, **common)
        if pricing is PricingKind.SPOT:
            same = on_demand.get((raw["snapshot_commit"], raw["armRegionName"], raw["productName"], base_sku(sku)))
            if same and _number(same) == amount:
                obs = obs.held(
                    "spot_at_on_demand",
                    f"the spot meter {sku!r} is priced {amount:g}, the on-demand price of "
                    f"{base_sku(sku)!r} ({product}) in {region} in the same snapshot: kept as observed, "
                    "never averaged into spot prices",
                )
        out = [obs]
        plan = price(raw, "savingsPlanPrice", required=False)
        if plan is not None and pricing is PricingKind.ON_DEMAND:  # a savings plan covers pay-as-you-go use only
            out.append(Observation(pricing=PricingKind.COMMITTED, term=SAVINGS_PLAN, amount=plan, **common))
        return out

    yield from rows(path, COLUMNS, parse)  # type: ignore[arg-type]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


__all__ = ["API", "COLUMNS", "SAVINGS_PLAN", "read"]
