"""A SkyPilot catalog ``vms.csv`` (github.com/skypilot-org/skypilot-catalog, Apache-2.0).

Columns read: ``InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price,
Region, GpuInfo, SpotPrice`` (and ``AvailabilityZone`` when present). One row gives up to
two observations: the on-demand ``Price`` and the ``SpotPrice``, both per instance-hour, in USD
unless the caller gives the cloud's currency.

The file names neither the cloud nor the time: the caller gives ``provider`` (our provider
id) and ``collected`` (when the catalog was fetched, UTC). Rows without an accelerator are
skipped (CPU-only shapes); a row without an instance name (Google Cloud prices GPUs apart
from their host) is named ``<count>x <AcceleratorName>`` and placed, like every row, only
through our instance table. ``GpuInfo``'s total GPU memory (MiB) is kept as the memory the
source states per instance, read per cloud as SkyPilot's own fetcher writes it
(:data:`PER_GPU_FEEDS`, :func:`stated_memory_gb`). ``AcceleratorCount`` is the count the
source states (a count that is not our instance table's holds the row as ``count_mismatch``),
except for a TPU slice (``tpu-v4-8``), where it counts slices, not chips, and no count is stated.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.importers.cells import Reading, Skip, count, price, rows
from computeatlas.cloud.observations import InputFailed, Observation
from computeatlas.core.tabular import CellError, TableError

COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "Region", "GpuInfo", "SpotPrice")
CATALOG_URL = "https://github.com/skypilot-org/skypilot-catalog"
MIB_GB = 1.048576e-3
GB_AS_MIB_BELOW = 1024
"""A RunPod ``SizeInMiB`` under this is RunPod's ``memoryInGb`` copied unconverted (no GPU has
under 1 GiB), so it is read as GB; at or above it, as MiB."""

PER_GPU_FEEDS = {
    "lambda": "mib",
    "runpod": "gb_when_small",
    "shadeform": "gb",
}
"""Clouds (our provider ids) whose ``GpuInfo`` does not mean what its names say, and how
:func:`stated_memory_gb` reads it: from the per-GPU ``Gpus[0].MemoryInfo.SizeInMiB`` times
``AcceleratorCount``, never from ``TotalGpuMemoryInMiB``. The evidence is SkyPilot's own
fetchers (skypilot-org/skypilot, ``sky/catalog/data_fetchers/``):

- ``lambda`` (``fetch_lambda_cloud.py``, commit 115eca47): ``GPU_TO_MEMORY`` gives one GPU's
  memory in MiB by name ("Source: https://lambdalabs.com/service/gpu-cloud", ``'H100': 81920``)
  and the fetcher writes ``'SizeInMiB': GPU_TO_MEMORY[gpu]`` and ``'TotalGpuMemoryInMiB':
  GPU_TO_MEMORY[gpu]``: the "total" is one GPU's memory, not multiplied by the count
  (``gpu_8x_h100_sxm5`` states 81920 MiB for eight GPUs);
- ``runpod`` (``fetch_runpod.py``, commit 8c488dc5): ``gpu_memory = gpu_type.get('memoryInGb', 0)``
  ("the VRAM memory per GPU (not scaled to count)") is written as ``'SizeInMiB': gpu_memory``
  and ``'TotalGpuMemoryInMiB': gpu_memory * gpu_count``: RunPod's GB figure under a MiB name
  (``SizeInMiB: 80`` for an 80 GB A100). A later version (commit 06f47324) converts first
  (``gpu_memory_mib = gpu_memory_gib * 1024``), so a value of :data:`GB_AS_MIB_BELOW` or more
  is MiB;
- ``shadeform`` (``fetch_shadeform.py``, commit 6dd899d5): ``parse_gpu_info`` writes
  ``'SizeInMiB': ram_per_gpu`` from Shadeform's ``vram_per_gpu_in_gb`` and puts
  ``'TotalGpuMemoryInMiB': ram_per_gpu * num_gpus`` inside ``Gpus[0]``, not beside it: one GPU's
  GB under a MiB name (``SizeInMiB: 80`` for an 80 GB H100), so it is always read as GB.

Every other cloud's ``TotalGpuMemoryInMiB`` is read as written."""


def stated_memory_gb(text: str, n: int | None, provider: str = "") -> float | None:
    """The GPU memory per instance (GB) a ``GpuInfo`` cell states, or None when it states none
    or is not readable; ``n`` is the row's ``AcceleratorCount``, ``provider`` our provider id
    (it picks the reading of :data:`PER_GPU_FEEDS`)."""
    if not text.strip():
        return None
    try:
        info = ast.literal_eval(text) if text.strip().startswith("{") else json.loads(text)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(info, dict):
        return None
    gpus = info.get("Gpus") or []
    size = gpus[0].get("MemoryInfo", {}).get("SizeInMiB") if gpus and isinstance(gpus[0], dict) else None
    feed = PER_GPU_FEEDS.get(provider)
    if feed is not None:
        if not size:
            return None
        as_gb = feed == "gb" or (feed == "gb_when_small" and float(size) < GB_AS_MIB_BELOW)
        per_gpu = float(size) if as_gb else float(size) * MIB_GB
        return round(per_gpu * (n or 1), 3)
    if info.get("TotalGpuMemoryInMiB"):
        return round(float(info["TotalGpuMemoryInMiB"]) * MIB_GB, 3)
    return round(float(size) * MIB_GB * (n or 1), 3) if size else None


def read(
    path: Path,
    provider: str | None = None,
    collected: dt.datetime | None = None,
    now: dt.datetime | None = None,
    currency: str = "USD",
    **_: object,
) -> Iterator[Reading]:
    """Observations of a SkyPilot ``vms.csv``; ``provider`` and ``collected`` are required.
    ``currency`` (ISO 4217) is the prices' currency, which the file does not name: USD but
    where the caller knows the cloud's fetcher copies another (Scaleway's euros)."""
    now = now or dt.datetime.now(dt.UTC)
    if not provider or collected is None:
        raise InputFailed(
            [
                TableError(
                    str(path),
                    1,
                    "(file)",
                    "a SkyPilot catalog names neither the cloud nor the time: give the provider and the collection time",
                )
            ]
        )
    if collected.tzinfo is None or collected > now + dt.timedelta(minutes=5):
        raise InputFailed([TableError(str(path), 1, "(file)", "the collection time must be UTC and not in the future", str(collected))])
    cloud = path.parent.name if path.parent.name else provider

    def parse(raw: dict[str, str]) -> list[Observation | Skip]:
        accelerator = raw["AcceleratorName"].strip()
        if not accelerator:
            return [Skip("no accelerator (a CPU-only shape)")]
        n = count(raw, "AcceleratorCount")  # for a TPU slice (tpu-v4-8) it counts slices, not chips: no stated count
        name = raw["InstanceType"].strip() or (accelerator if accelerator.startswith("tpu-") else f"{n or 1}x {accelerator}")
        region = "/".join(p for p in (raw["Region"].strip(), (raw.get("AvailabilityZone") or "").strip()) if p)
        extra = json.dumps(
            {k: raw[k] for k in ("AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "GpuInfo", "AvailabilityZone") if raw.get(k)},
            ensure_ascii=False,
            sort_keys=True,
        )
        common = dict(
            provider=provider,
            instance_type=name,
            region=region,
            term="",
            currency=currency,
            unit="hour",
            price_basis="instance",
            stated_accelerators=None if accelerator.startswith("tpu-") else n,
            stated_memory_gb=stated_memory_gb(raw["GpuInfo"], n, provider or ""),
            collected=collected,
            source_url=CATALOG_URL,
            source_title=f"SkyPilot catalog vms.csv ({cloud})",
            via=f"SkyPilot {path.name}",
            raw_extra=extra,
        )
        out: list[Observation | Skip] = []
        on_demand, spot = price(raw, "Price", required=False), price(raw, "SpotPrice", required=False)
        if on_demand is None and spot is None:
            raise CellError("Price", "neither Price nor SpotPrice is given", "")
        if on_demand is not None:
            out.append(Observation(pricing="on_demand", amount=on_demand, **common))
        if spot is not None:
            out.append(Observation(pricing="spot", amount=spot, **common))
        return out

    yield from rows(path, COLUMNS, parse)
