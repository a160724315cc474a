"""The OpenComputePrices collectors' CSV (MIT licence; see data/prices/README.md).

Columns read: ``snapshot_ts, source, provider, instance_type, gpu_name, gpu_memory_gb,
gpu_count, region, zone, pricing_type, commitment_period, price_per_hour,
price_per_gpu_hour, currency, price_unit, available, available_count, os, raw_extra``.

What the collector saw is kept as published: provider, instance type, region (with the
zone when given, as ``region/zone``), pricing kind, the instance price, currency, unit and
collection time. Its normalised guesses (``gpu_name``, ``gpu_variant``, ``gpu_memory_gb``,
``gpu_count``, ``price_per_gpu_hour``) are never used to place a row: they are kept in
``raw_extra`` as evidence. The memory and per-GPU figure are compared with our instance
table by the integrity rules; the collector's ``gpu_count`` is not: it is its own guess
(the snapshot's README says so, and some are plainly wrong, such as 12 GPUs for Azure's
8-GPU ``ND96isr_H100_v5``), so the count is always our table's and a disagreement is not
held as ``count_mismatch`` (a source that states its own count, such as the project's own
format, is). A TPU slice's ``gpu_count`` and ``price_per_gpu_hour`` count slices, not
chips, and are not compared.

Rows without an instance name (SkyPilot's Google Cloud GPU rows: accelerators priced apart
from their host) are named ``<count>x <accelerator>`` (``8x L4``; ``A100-80GB`` where the
GPU memory says 80 GiB), TPU slices by their accelerator type (``tpu-v5p-8``). Rows priced
per token (hosted model APIs) are skipped: they are not rental prices. A Windows price is
named ``<instance> (Windows)`` and held by the ``licence_included`` rule; Azure's
retired Low Priority meters are spot prices with the term ``Low Priority``.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.azure_meters import meter_pricing
from computeatlas.cloud.importers.atlas import term_kind
from computeatlas.cloud.importers.cells import Reading, Skip, count, currency, price, provider_id, rows, timestamp
from computeatlas.cloud.importers.skypilot import PER_GPU_FEEDS, stated_memory_gb
from computeatlas.cloud.observations import LICENSED_SUFFIX, Observation
from computeatlas.core.tabular import CellError

COLUMNS = (
    "snapshot_ts",
    "source",
    "provider",
    "instance_type",
    "gpu_name",
    "gpu_memory_gb",
    "gpu_count",
    "region",
    "zone",
    "pricing_type",
    "commitment_period",
    "price_per_hour",
    "price_per_gpu_hour",
    "currency",
    "price_unit",
    "available",
    "available_count",
    "os",
    "raw_extra",
)
MIB_GB = 1.048576e-3
"""GB (10⁹ bytes) in one MiB (2²⁰ bytes)."""

SOURCES = {
    "azure": ("https://prices.azure.com/api/retail/prices", "Azure Retail Prices API"),
    "skypilot": ("https://github.com/skypilot-org/skypilot-catalog", "SkyPilot catalog (catalogs/v7/<cloud>/vms.csv)"),
    "getdeploying": ("https://getdeploying.com/", "GetDeploying GPU price comparison (an aggregator)"),
}
_PRICING = {"on_demand": "on_demand", "spot": "spot", "reserved": "reserved"}
_UNITS = {"hour": "hour", "hr": "hour", "second": "second", "month": "month", "week": "week"}


def _memory(raw: dict[str, str], n: int | None) -> float | None:
    """Memory per instance in GB as the source states it, or None when it does not say. A SkyPilot
    ``GpuInfo`` of a cloud whose fetcher misnames its figures is read as that fetcher writes it
    (:data:`computeatlas.cloud.importers.skypilot.PER_GPU_FEEDS`)."""
    text = raw["gpu_memory_gb"].strip()
    provider = provider_id(raw["provider"])
    if text.startswith("{") and raw["source"] == "skypilot" and provider in PER_GPU_FEEDS:
        return stated_memory_gb(text, n, provider)
    if text.startswith("{"):
        try:
            info = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return None
        if isinstance(info, dict) and info.get("TotalGpuMemoryInMiB"):
            return round(float(info["TotalGpuMemoryInMiB"]) * MIB_GB, 3)
        gpus = info.get("Gpus") if isinstance(info, dict) else None
        size = gpus[0].get("MemoryInfo", {}).get("SizeInMiB") if gpus else None
        return round(float(size) * MIB_GB * (n or 1), 3) if size else None
    try:
        value = float(text)
    except ValueError:
        return None
    return value * (n or 1) if raw["source"] == "azure" else value  # Azure's rows give memory per GPU


def _name(raw: dict[str, str], n: int | None) -> str:
    if raw["instance_type"].strip():
        return raw["instance_type"].strip()
    gpu = raw["gpu_name"].strip()
    if not gpu:
        raise CellError("instance_type", "no instance name and no accelerator name", "")
    if gpu.startswith("tpu-"):
        return gpu
    memory = _memory(raw, 1)
    if gpu == "A100" and memory and memory > 60:
        gpu = "A100-80GB"
    return f"{n or 1}x {gpu}"


def read(path: Path, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of an OpenComputePrices CSV file."""
    now = now or dt.datetime.now(dt.UTC)

    def parse(raw: dict[str, str]) -> Observation | Skip:
        unit = raw["price_unit"].strip().lower()
        if unit == "token" or raw["pricing_type"] == "inference":
            return Skip("a per-token price of a hosted model, not a rental price")
        if unit not in _UNITS:
            raise CellError("price_unit", "must be hour, second, month or week", raw["price_unit"])
        if raw["pricing_type"] not in _PRICING:
            raise CellError("pricing_type", "must be on_demand, spot or reserved", raw["pricing_type"])
        n = count(raw, "gpu_count") if raw["gpu_count"].strip() not in ("0", "0.0") else None  # 0: the collector did not know
        extra = {
            k: raw[k]
            for k in ("source", "gpu_name", "gpu_variant", "gpu_memory_gb", "gpu_count", "price_per_gpu_hour", "os", "tenancy", "zone")
            if raw.get(k)
        }
        if raw["raw_extra"].strip():
            try:
                extra["raw_extra"] = json.loads(raw["raw_extra"])
            except ValueError:
                extra["raw_extra"] = raw["raw_extra"]
        name = _name(raw, n)
        slice_ = raw["gpu_name"].strip().startswith("tpu-")  # gpu_count and price_per_gpu_hour count slices, not chips
        term = raw["commitment_period"].strip()
        raw_extra = extra.get("raw_extra")
        meter = str(raw_extra.get("meter_name", "")) if isinstance(raw_extra, dict) else ""
        if meter and meter_pricing(meter)[1]:
            term = meter_pricing(meter)[1]  # Low Priority
        if raw["os"].strip().lower() == "windows":
            name += LICENSED_SUFFIX
        url, title = SOURCES.get(raw["source"], ("", f"OpenComputePrices collector '{raw['source']}'"))
        available = {"true": "available", "false": "not available"}.get(raw["available"].strip().lower(), "")
        if available and raw["available_count"].strip():
            available += f" ({raw['available_count'].strip()})"
        region = "/".join(p for p in (raw["region"].strip(), raw["zone"].strip()) if p)
        return Observation(
            provider=provider_id(raw["provider"]),
            instance_type=name,
            region=region,
            pricing=term_kind(_PRICING[raw["pricing_type"]], _UNITS[unit]),
            term=term,
            amount=price(raw, "price_per_hour"),
            currency=currency(raw, "currency"),
            unit=_UNITS[unit],
            price_basis="instance",
            stated_accelerators=None,
            stated_memory_gb=_memory(raw, n),
            stated_per_accelerator=None if slice_ else price(raw, "price_per_gpu_hour", required=False),
            collected=timestamp(raw, "snapshot_ts", now, allow_date_alone=False),
            source_url=url,
            source_title=title,
            via=f"OpenComputePrices {path.name} (MIT), collected {raw['snapshot_ts'][:10]}",
            availability=available,
            raw_extra=json.dumps(extra, ensure_ascii=False, sort_keys=True),
        )

    yield from rows(path, COLUMNS, parse)
