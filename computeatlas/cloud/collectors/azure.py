"""Azure's Retail Prices API (https://prices.azure.com/api/retail/prices): public, no key.

:class:`Azure` (and :func:`collect`, the same as a function) asks for the Virtual Machines consumption prices of the given ARM SKU
names (``Standard_ND96isr_H100_v5`` …), in chunks joined with ``or`` in one OData
``$filter``, follows ``NextPageLink`` until it is null, and turns each item into an
:class:`~computeatlas.cloud.observations.Observation`:

- ``armSkuName`` is the instance type; a Windows ``productName`` is a price with a Windows
  licence (named ``… (Windows)``, held by the ``licence_included`` rule) and the ``skuName``
  gives the pricing kind (spot, Low Priority, on_demand): both read by
  :mod:`computeatlas.cloud.azure_meters`;
- ``retailPrice`` in ``currencyCode`` per ``unitOfMeasure`` ("1 Hour" only; other units and
  volume tiers above zero are skipped); ``armRegionName`` is the region;
- the meter and SKU fields (meterName, meterId, skuId, productName, skuName,
  effectiveStartDate, isPrimaryMeterRegion) are kept in ``raw_extra``.

The collection time is when the page was read (UTC). Errors: :class:`CollectorError` names
the source, the URL and the field (or the HTTP status, or the transport failure); nothing is
stored then. The base URL may be a mirror: ``NextPageLink`` is followed on its host.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from computeatlas.cloud.azure_meters import licensed_name, meter_pricing
from computeatlas.cloud.collectors.base import Collected, Collector, Progress
from computeatlas.cloud.observations import ISO_4217, Observation

if TYPE_CHECKING:
    import httpx  # imported where it is used: `computeatlas serve` loads this module and never collects

API = "https://prices.azure.com/api/retail/prices"
CHUNK = 10
"""ARM SKU names per request (the ``$filter`` stays well under URL length limits)."""


def filter_for(skus: Iterable[str]) -> str:
    """The OData ``$filter`` for consumption prices of Virtual Machines with these SKU names."""
    names = " or ".join(f"armSkuName eq '{s.replace(chr(39), chr(39) * 2)}'" for s in skus)
    return f"serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and ({names})"


def observation(item: dict[str, object], collected: dt.datetime, url: str) -> Observation | str:
    """One API item as an observation, or the reason it is skipped."""
    unit = str(item.get("unitOfMeasure", ""))
    if unit != "1 Hour":
        return f"unit of measure {unit!r} is not one hour"
    if float(item.get("tierMinimumUnits") or 0) > 0:  # type: ignore[arg-type]
        return "a volume tier above zero units"
    if str(item.get("type", "Consumption")) != "Consumption":
        return f"price type {item.get('type')!r}"
    code = str(item.get("currencyCode", ""))
    if code not in ISO_4217:
        return f"unknown currency code {code!r}"
    sku, product = str(item.get("skuName", "")), str(item.get("productName", ""))
    name = str(item.get("armSkuName") or "")
    if not name:
        return "no armSkuName"
    pricing, term = meter_pricing(sku)
    name = licensed_name(name, product)
    keep = ("meterName", "meterId", "skuId", "productName", "skuName", "effectiveStartDate", "isPrimaryMeterRegion", "location")
    extra = {k: item[k] for k in keep if k in item}
    return Observation(
        provider="azure",
        instance_type=name,
        region=str(item.get("armRegionName", "")),
        pricing=pricing,
        term=term,
        amount=float(item["retailPrice"]),  # type: ignore[arg-type]
        currency=code,
        unit="hour",
        price_basis="instance",
        collected=collected,
        source_url=url,
        source_title="Azure Retail Prices API",
        via="collector azure",
        raw_extra=json.dumps(extra, ensure_ascii=False, sort_keys=True),
    )


class Azure(Collector):
    """Azure's Retail Prices API: the hourly consumption prices of our Azure instance types."""

    name = "azure"
    provider = "azure"
    title = "Azure Retail Prices API"
    reads = (API,)
    BASE_URL = "https://prices.azure.com"

    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """Every hourly consumption price of :attr:`instance_types` (none given: nothing asked).

        Raises :class:`CollectorError` for an HTTP error status after the retries, a transport
        failure, a body that is not the API's JSON (no ``Items`` list, an item's
        ``retailPrice`` not a number), or more than :attr:`max_pages` pages."""
        names = sorted(self.instance_types)
        out = Collected()
        endpoint = self.on_base(API)
        for start in range(0, len(names), CHUNK):
            url: str | None = endpoint
            params: dict[str, str] | None = {"$filter": filter_for(names[start : start + CHUNK])}
            first = ""
            while url and not self.bounded(out, url):
                self.page(out, url)
                asked, body = self.get_json(client, url, params)
                first, params = first or asked, None
                items = self.need(body, "Items", list, asked)
                link = body.get("NextPageLink")
                if link is not None and not isinstance(link, str):
                    raise self.error(asked, f"expected a URL or null, got {type(link).__name__}", "NextPageLink")
                url = self.on_base(link) if link else None
                collected = self.now()
                for n, item in self.counted(out, items, asked):
                    if not isinstance(item, dict):
                        raise self.error(asked, f"expected an object, got {type(item).__name__}", f"Items[{n}]")
                    self.price(item.get("retailPrice"), asked, f"Items[{n}].retailPrice")
                    result = observation(item, collected, first)
                    if isinstance(result, str):
                        out.skip(result)
                    else:
                        out.observations.append(result)
                if progress:
                    progress(len(items))
        return out


def collect(
    client: httpx.Client, skus: Iterable[str], now: Callable[[], dt.datetime] | None = None, progress: Callable[[int], None] | None = None
) -> Collected:
    """Every hourly consumption price of ``skus`` from the API, through ``client`` (:class:`Azure`)."""
    return Azure(now=now, instance_types=skus).collect(client, progress)


__all__ = ["API", "Azure", "collect", "filter_for", "observation"]
