"""Google Cloud's Cloud Billing Catalog API: the SKUs of Compute Engine's GPUs and TPUs (an API key).

:class:`Gcp` lists ``/v1/services/6F81-5844-456A/skus`` (Compute Engine) with the API key
of the setting ``COMPUTEATLAS_GCP_API_KEY`` (never in a file in git; without it the collector
is skipped and says so), following ``nextPageToken`` until it is empty. A SKU whose
``category.resourceGroup`` is ``GPU`` or ``TPU`` and whose ``category.usageType`` is
``OnDemand``, ``Preemptible`` (spot), ``Commit1Yr`` or ``Commit3Yr`` (committed use) becomes
one observation per ``serviceRegions`` entry: the first tier's ``unitPrice`` (``units`` +
``nanos`` × 10⁻⁹, in its ``currencyCode``) per ``usageUnit`` ``h``, per accelerator-hour:
Google bills a GPU apart from the machine it is attached to (the machine's vCPU and memory
are other SKUs), so the price is the accelerator's share alone. The instance name is the SKU's
``description`` without its `` running in <place>`` (``Nvidia Tesla A100 GPU``), placed, like
every row, only through our instance table; ``skuId`` and ``effectiveTime`` go in ``raw_extra``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from computeatlas.cloud.collectors.base import Collected, Collector, Progress
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


class Gcp(Collector):
    """Compute Engine's GPU and TPU prices per accelerator-hour, by region."""

    name = "gcp"
    provider = "google-cloud"
    title = "Google Cloud Billing Catalog API (Compute Engine SKUs)"
    reads = (f"https://cloudbilling.googleapis.com{PATH}?key=<COMPUTEATLAS_GCP_API_KEY>",)
    needs = ("gcp_api_key",)
    BASE_URL = "https://cloudbilling.googleapis.com"

    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """Every GPU and TPU SKU (see the module). Raises
        :class:`~computeatlas.cloud.collectors.base.CollectorError` for a response that is not
        the Billing Catalog's (no ``skus`` list, a SKU without its category or price, a price
        as text); the API key never appears in a message."""
        out = Collected()
        token = ""
        key = self.settings.get("gcp_api_key", "")
        while not self.bounded(out, PATH):
            self.page(out, PATH)
            params = {"key": key, "pageSize": "5000", **({"pageToken": token} if token else {})}
            url, body = self.get_json(client, self.on_base(PATH), params)
            url = url.replace(key, "<key>") if key else url
            skus = self.need(body, "skus", list, url)
            collected = self.now()
            for n, sku in self.counted(out, skus, url):
                self._read(sku, f"skus[{n}]", url, collected, out)
            if progress:
                progress(len(skus))
            token = body.get("nextPageToken") or ""
            if not isinstance(token, str):
                raise self.error(url, "expected text", "nextPageToken")
            if not token:
                break
        return out

    def _read(self, sku: Any, where: str, url: str, collected: Any, out: Collected) -> None:
        category = self.need(sku, "category", dict, url, where)
        group = self.need(category, "resourceGroup", str, url, f"{where}.category")
        if group not in GROUPS:
            out.skip("not a GPU or TPU SKU")
            return
        usage = self.need(category, "usageType", str, url, f"{where}.category")
        if usage not in USAGE:
            out.skip(f"usage type {usage!r}")
            return
        pricing, term = USAGE[usage]
        description = self.need(sku, "description", str, url, where)
        info = self.need(sku, "pricingInfo", list, url, where)
        if not info:
            raise self.error(url, "no pricing information", f"{where}.pricingInfo")
        expression = self.need(info[0], "pricingExpression", dict, url, f"{where}.pricingInfo[0]")
        unit = self.need(expression, "usageUnit", str, url, f"{where}.pricingInfo[0].pricingExpression")
        if unit != "h":
            out.skip(f"usage unit {unit!r} is not an hour")
            return
        tiers = self.need(expression, "tieredRates", list, url, f"{where}.pricingInfo[0].pricingExpression")
        if not tiers:
            raise self.error(url, "no rate", f"{where}.pricingInfo[0].pricingExpression.tieredRates")
        at = f"{where}.pricingInfo[0].pricingExpression.tieredRates[0].unitPrice"
        price = self.need(tiers[0], "unitPrice", dict, url, at.removesuffix(".unitPrice"))
        units = self.need(price, "units", str, url, at)
        if not units.lstrip("-").isdigit():
            raise self.error(url, f"expected whole units as text, got {units!r}", f"{at}.units")
        nanos = self.need(price, "nanos", int, url, at)
        currency = self.need(price, "currencyCode", str, url, at)
        if currency not in ISO_4217:
            raise self.error(url, f"an unknown currency code {currency!r}", f"{at}.currencyCode")
        amount = self.price((int(units) * 1_000_000_000 + nanos) / 1e9, url, at)  # exact to the nano
        regions = self.need(sku, "serviceRegions", list, url, where)
        name = RUNNING_IN.sub("", description).strip()
        extra = json.dumps(
            {"skuId": sku.get("skuId", ""), "description": description, "effectiveTime": info[0].get("effectiveTime", "")}, sort_keys=True
        )
        for region in regions:
            out.observations.append(
                Observation(
                    provider=self.provider,
                    instance_type=name,
                    region=str(region),
                    pricing=pricing,
                    term=term,
                    amount=amount,
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


__all__ = ["PATH", "SERVICE", "Gcp"]
