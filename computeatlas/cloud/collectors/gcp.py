"""Google Cloud's Cloud Billing Catalog API: Compute Engine's GPU and TPU SKUs, and A2-style machines joined from their parts (an API key).

:class:`Gcp` lists ``/v1/services/6F81-5844-456A/skus`` (Compute Engine) with the API key
of the setting ``COMPUTEATLAS_GCP_API_KEY`` (never in a file in git; without it the collector
is skipped and says so), following ``nextPageToken`` until it is empty. A SKU whose
``category.resourceGroup`` is ``GPU`` or ``TPU`` and whose ``category.usageType`` is
``OnDemand``, ``Preemptible`` (spot), ``Commit1Yr`` or ``Commit3Yr`` (committed use) becomes
one observation per ``serviceRegions`` entry: the first tier's ``unitPrice`` (``units`` +
``nanos`` × 10⁻⁹, in its ``currencyCode``) per ``usageUnit`` ``h``, per accelerator-hour:
Google bills a GPU apart from the machine it is attached to, so the price is the
accelerator's share alone (held ``split_bill`` on import: never an all-in price). The
instance name is the SKU's ``description`` without its `` running in <place>`` (``Nvidia
Tesla A100 GPU``), placed, like every row, only through our instance table; ``skuId`` and
``effectiveTime`` go in ``raw_extra``.

Machines joined from their parts (:class:`Machine`, from the instance table's rows with a host
shape, ``vcpus`` and ``memory_gib``): the machine type ``a2-highgpu-1g`` is billed as its
series' ``<SERIES> Instance Core`` SKU per vCPU-hour (``resourceGroup`` ``CPU``, unit ``h``),
its ``<SERIES> Instance Ram`` SKU per GiB-hour (``RAM``, unit ``GiBy.h``) and the GPU SKU per
GPU-hour, the series being the machine name's first word (``A2``) and the GPU SKU one whose
name the table places on the machine's accelerator as an ``accelerator_component``. For every
region and usage type where all three are priced, in one currency, the machine is one
observation of the whole instance: ``vcpus × core + memory_gib × ram + accelerators × gpu``
(summed in nanos, exact), ``price_basis`` ``instance`` with the count stated, the SKUs and the
sum in ``note`` and ``raw_extra``. 12 × 0.031611 + 85 × 0.004237 + 1 × 2.933908 = 3.673385
USD per hour is ``a2-highgpu-1g`` on demand. Core and RAM SKUs of no machine of ours, and
those described otherwise (Google's spot and commitment SKUs are), are skipped and counted,
so only the usage types whose three parts are all matched are joined.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from computeatlas.cloud.collectors.base import SECRET, Collected, Collector, Progress
from computeatlas.cloud.instances import Billing, InstanceType
from computeatlas.cloud.observations import ISO_4217, Observation

if TYPE_CHECKING:
    import httpx

SERVICE = "6F81-5844-456A"
"""Compute Engine's service id in the Billing Catalog."""
PATH = f"/v1/services/{SERVICE}/skus"
GROUPS = frozenset({"GPU", "TPU"})
USAGE = {
    "OnDemand": ("on_demand", ""),
    "Preemptible": ("spot", ""),
    "Commit1Yr": ("committed", "1 year"),
    "Commit3Yr": ("committed", "3 years"),
}
RUNNING_IN = re.compile(r"\s+running in\s+.*$", re.IGNORECASE)
HOST_PART = re.compile(r"^(?P<series>[A-Za-z0-9]+) Instance (?P<part>Core|Ram)$")
"""A machine series' vCPU or memory SKU, by its description without `` running in …``."""
HOST_UNITS = {"Core": ("CPU", "h"), "Ram": ("RAM", "GiBy.h")}
"""Each host part's resource group and usage unit."""
NANO = 1_000_000_000


@dataclass(frozen=True)
class Machine:
    """A machine type billed in parts: its series (``A2``), host shape, GPU count and the GPU
    SKU names (``Nvidia Tesla A100 GPU``) the instance table places on its accelerator."""

    instance_type: str
    series: str
    vcpus: int
    memory_gib: float
    accelerators: int
    gpu_skus: frozenset[str]


def machines(rows: Iterable[InstanceType]) -> list[Machine]:
    """The machines of the instance ``rows`` (one provider's) that state a host shape and whose
    accelerator has at least one ``accelerator_component`` row (a GPU SKU name), by name."""
    rows = list(rows)
    parts: dict[str, set[str]] = {}
    for r in rows:
        if r.billing == Billing.ACCELERATOR_COMPONENT:
            parts.setdefault(r.accelerator, set()).add(r.instance_type)
    return sorted(
        (
            Machine(
                r.instance_type,
                r.instance_type.split("-")[0].upper(),
                r.vcpus,
                r.memory_gib,
                r.accelerators,
                frozenset(parts[r.accelerator]),
            )
            for r in rows
            if r.billing == Billing.ALL_IN and r.vcpus and r.memory_gib and r.accelerator in parts
        ),
        key=lambda m: m.instance_type,
    )


def _exact(nanos: int) -> str:
    """An amount in nanos written in full, without trailing zeros: ``2933908000`` is ``2.933908``."""
    whole, part = divmod(nanos, NANO)
    return f"{whole}.{part:09d}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class _Price:
    """One SKU's price in one region: nanos of ``currency`` per unit, and where it came from."""

    nanos: int
    currency: str
    sku: str
    effective: str
    url: str


class Gcp(Collector):
    """Compute Engine's GPU and TPU prices per accelerator-hour, and the machines of ``machines``
    joined from their core, RAM and GPU SKUs per instance-hour, by region (see the module)."""

    name = "gcp"
    provider = "google-cloud"
    title = "Google Cloud Billing Catalog API (Compute Engine SKUs)"
    reads = (f"https://cloudbilling.googleapis.com{PATH}?key=<COMPUTEATLAS_GCP_API_KEY>",)
    needs = ("gcp_api_key",)
    BASE_URL = "https://cloudbilling.googleapis.com"

    def __init__(self, *args: Any, machines: Iterable[Machine] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.machines = tuple(machines)

    @classmethod
    def table_options(cls, rows: Iterable[InstanceType]) -> dict[str, Any]:
        """The machines billed in parts of the provider's instance ``rows`` (:func:`machines`)."""
        return {"machines": machines(rows)}

    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """Every GPU and TPU SKU, then the machines joined from their parts (see the module).
        Raises :class:`~computeatlas.cloud.collectors.base.CollectorError` for a response that
        is not the Billing Catalog's (no ``skus`` list, a SKU without its category or price, a
        price as text); the API key never appears in a message."""
        out = Collected()
        token = ""
        key = self.settings.get("gcp_api_key", "")
        series = {m.series for m in self.machines}
        gpus: dict[tuple[str, str, str, str], _Price] = {}  # (GPU SKU name, usage, region, currency)
        hosts: dict[tuple[str, str, str, str, str], _Price] = {}  # (series, part, usage, region, currency)
        while not self.bounded(out, PATH):
            self.page(out, PATH)
            params = {"key": key, "pageSize": "5000", **({"pageToken": token} if token else {})}
            url, body = self.get_json(client, self.on_base(PATH), params)
            url = SECRET.sub(r"\1<key>", url)  # the key's value only, never a letter of the rest
            skus = self.need(body, "skus", list, url)
            collected = self.now()
            for n, sku in self.counted(out, skus, url):
                self._read(sku, f"skus[{n}]", url, collected, out, series, gpus, hosts)
            if progress:
                progress(len(skus))
            token = body.get("nextPageToken") or ""
            if not isinstance(token, str):
                raise self.error(url, "expected text", "nextPageToken")
            if not token:
                break
        self._join(gpus, hosts, out)
        return out

    def _read(
        self,
        sku: Any,
        where: str,
        url: str,
        collected: Any,
        out: Collected,
        series: set[str],
        gpus: dict[tuple[str, str, str, str], _Price],
        hosts: dict[tuple[str, str, str, str, str], _Price],
    ) -> None:
        category = self.need(sku, "category", dict, url, where)
        group = self.need(category, "resourceGroup", str, url, f"{where}.category")
        description = self.need(sku, "description", str, url, where)
        name = RUNNING_IN.sub("", description).strip()
        host = HOST_PART.match(name)
        is_host = host is not None and host["series"].upper() in series and HOST_UNITS[host["part"]][0] == group
        if group not in GROUPS and not is_host:
            out.skip("not a GPU or TPU SKU, nor a core or RAM SKU of a machine of ours")
            return
        usage = self.need(category, "usageType", str, url, f"{where}.category")
        if usage not in USAGE:
            out.skip(f"usage type {usage!r}")
            return
        info = self.need(sku, "pricingInfo", list, url, where)
        if not info:
            raise self.error(url, "no pricing information", f"{where}.pricingInfo")
        expression = self.need(info[0], "pricingExpression", dict, url, f"{where}.pricingInfo[0]")
        unit = self.need(expression, "usageUnit", str, url, f"{where}.pricingInfo[0].pricingExpression")
        wanted = HOST_UNITS[host["part"]][1] if is_host and host else "h"
        if unit != wanted:
            out.skip(f"usage unit {unit!r} is not {wanted!r}")
            return
        nanos, currency = self._unit_price(expression, url, f"{where}.pricingInfo[0].pricingExpression")
        regions = [str(r) for r in self.need(sku, "serviceRegions", list, url, where)]
        price = _Price(nanos, currency, str(sku.get("skuId", "")), str(info[0].get("effectiveTime", "")), url)
        if is_host and host:
            for region in regions:
                hosts[(host["series"].upper(), host["part"], usage, region, currency)] = price
            return
        pricing, term = USAGE[usage]
        extra = json.dumps({"skuId": price.sku, "description": description, "effectiveTime": price.effective}, sort_keys=True)
        for region in regions:
            gpus[(name, usage, region, currency)] = price
            out.observations.append(
                Observation(
                    provider=self.provider,
                    instance_type=name,
                    region=region,
                    pricing=pricing,
                    term=term,
                    amount=nanos / NANO,
                    currency=currency,
                    unit="hour",
                    price_basis="accelerator",
                    collected=collected,
                    source_url=url,
                    source_title=self.title,
                    via=f"collector {self.name}",
                    raw_extra=extra,
                )
            )

    def _unit_price(self, expression: dict[str, Any], url: str, where: str) -> tuple[int, str]:
        """The first tier's unit price in nanos (exact) and its currency."""
        tiers = self.need(expression, "tieredRates", list, url, where)
        if not tiers:
            raise self.error(url, "no rate", f"{where}.tieredRates")
        at = f"{where}.tieredRates[0].unitPrice"
        price = self.need(tiers[0], "unitPrice", dict, url, f"{where}.tieredRates[0]")
        units = self.need(price, "units", str, url, at)
        if not units.lstrip("-").isdigit():
            raise self.error(url, f"expected whole units as text, got {units!r}", f"{at}.units")
        nanos = self.need(price, "nanos", int, url, at)
        currency = self.need(price, "currencyCode", str, url, at)
        if currency not in ISO_4217:
            raise self.error(url, f"an unknown currency code {currency!r}", f"{at}.currencyCode")
        total = int(units) * NANO + nanos
        self.price(total / NANO, url, at)  # finite, not negative
        return total, currency

    def _join(
        self, gpus: dict[tuple[str, str, str, str], _Price], hosts: dict[tuple[str, str, str, str, str], _Price], out: Collected
    ) -> None:
        """One observation per machine, region and usage type whose core, RAM and GPU SKUs are all priced."""
        collected = self.now()
        for m in self.machines:
            for (gpu_name, usage, region, currency), gpu in sorted(gpus.items()):
                if gpu_name not in m.gpu_skus:
                    continue
                core = hosts.get((m.series, "Core", usage, region, currency))
                ram = hosts.get((m.series, "Ram", usage, region, currency))
                if core is None or ram is None:
                    continue
                nanos = m.vcpus * core.nanos + round(m.memory_gib * ram.nanos) + m.accelerators * gpu.nanos
                basis = (
                    f"{m.vcpus} vCPU × {_exact(core.nanos)} ({core.sku}) + {m.memory_gib:g} GiB × {_exact(ram.nanos)} ({ram.sku}) "
                    f"+ {m.accelerators} GPU × {_exact(gpu.nanos)} ({gpu.sku}) = {_exact(nanos)} {currency} per hour"
                )
                pricing, term = USAGE[usage]
                extra = {
                    "basis": basis,
                    "skuIds": [core.sku, ram.sku, gpu.sku],
                    "effectiveTime": max(core.effective, ram.effective, gpu.effective),
                }
                out.observations.append(
                    Observation(
                        provider=self.provider,
                        instance_type=m.instance_type,
                        region=region,
                        pricing=pricing,
                        term=term,
                        amount=nanos / NANO,
                        currency=currency,
                        unit="hour",
                        price_basis="instance",
                        stated_accelerators=m.accelerators,
                        collected=collected,
                        source_url=gpu.url,
                        source_title=self.title,
                        via=f"collector {self.name}",
                        note=f"joined from the Billing Catalog's core, RAM and GPU SKUs: {basis}",
                        raw_extra=json.dumps(extra, ensure_ascii=False, sort_keys=True),
                    )
                )


__all__ = ["PATH", "SERVICE", "Gcp", "Machine", "machines"]
