"""Azure's Retail Prices API (https://prices.azure.com/api/retail/prices): public, no key.

:func:`collect` asks for the Virtual Machines consumption prices of the given ARM SKU
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

The collection time is when the request was made (UTC). Errors: :class:`CollectorError`
names the URL and the HTTP status or the transport failure; nothing is stored then.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from computeatlas.cloud.azure_meters import licensed_name, meter_pricing
from computeatlas.cloud.observations import ISO_4217, Observation

if TYPE_CHECKING:
    import httpx  # imported where it is used: `computeatlas serve` loads this module and never collects

API = "https://prices.azure.com/api/retail/prices"
CHUNK = 10
"""ARM SKU names per request (the ``$filter`` stays well under URL length limits)."""
MAX_PAGES = 1000
"""A guard against a NextPageLink that never ends."""


class CollectorError(Exception):
    """The API could not be read: the message names the URL and the reason."""


@dataclass
class Collected:
    """What a collection gave: observations, and skipped items counted by reason."""

    observations: list[Observation] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    pages: int = 0

    def skip(self, reason: str) -> None:
        """Count one skipped item."""
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


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


def collect(
    client: httpx.Client, skus: Iterable[str], now: Callable[[], dt.datetime] | None = None, progress: Callable[[int], None] | None = None
) -> Collected:
    """Every hourly consumption price of ``skus`` from the API, through ``client``.

    Raises :class:`CollectorError` for an HTTP error status, a transport failure, a body
    that is not the API's JSON, or more than :data:`MAX_PAGES` pages.
    """
    import httpx

    clock = now or (lambda: dt.datetime.now(dt.UTC))
    names = sorted(set(skus))
    out = Collected()
    for start in range(0, len(names), CHUNK):
        request = client.build_request("GET", API, params={"$filter": filter_for(names[start : start + CHUNK])})
        url: str | None = str(request.url)
        first = url
        while url:
            if out.pages >= MAX_PAGES:
                raise CollectorError(f"{first}: more than {MAX_PAGES} pages; stopped")
            try:
                response = client.get(url)
            except httpx.HTTPError as exc:
                raise CollectorError(f"{url}: {type(exc).__name__}: {exc}") from None
            if response.status_code != 200:
                raise CollectorError(f"{url}: HTTP {response.status_code} {response.reason_phrase}")
            try:
                body = response.json()
                items, url = body["Items"], body.get("NextPageLink")
            except (ValueError, KeyError, TypeError):
                raise CollectorError(f"{response.url}: not the Retail Prices API's JSON (no Items)") from None
            out.pages += 1
            collected = clock()
            for item in items:
                result = observation(item, collected, str(first))
                if isinstance(result, str):
                    out.skip(result)
                else:
                    out.observations.append(result)
            if progress:
                progress(len(items))
    return out


__all__ = ["API", "Collected", "CollectorError", "collect", "filter_for", "observation"]
