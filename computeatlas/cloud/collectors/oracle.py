"""Oracle Cloud's public price list API (https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/): no key.

:class:`Oracle` asks for the whole list in US dollars (``?currencyCode=USD``): one JSON
object, ``items`` of products, each with ``partNumber``, ``displayName``, ``metricName``,
``serviceCategory`` and ``currencyCodeLocalizations`` (per currency, ``prices``: ``model`` and
``value``). Oracle prices its GPU compute per GPU-hour: an item whose ``metricName`` is
``GPU Per Hour`` and whose ``serviceCategory`` starts with ``Compute - GPU`` becomes one
on-demand observation (``PAY_AS_YOU_GO``) per accelerator-hour, named by its
``displayName`` exactly as Oracle writes it (placed, like every row, only through our instance
table); other items are skipped and counted. Licences that share the metric (``NVIDIA AI
Enterprise``) and Cloud@Customer appliances fall outside the category and are skipped.
The ``partNumber`` is kept in ``raw_extra``. The API returns the list in one response.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from computeatlas.cloud.collectors.base import Collected, Collector, Progress
from computeatlas.cloud.observations import Observation

if TYPE_CHECKING:
    import httpx

PATH = "/pls/apex/cetools/api/v1/products/"
METRIC = "GPU Per Hour"
CATEGORY = "Compute - GPU"


class Oracle(Collector):
    """Oracle Cloud's GPU prices per GPU-hour from its public price list."""

    name = "oracle"
    provider = "oracle"
    title = "Oracle Cloud price list API"
    reads = ("https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD",)
    BASE_URL = "https://apexapps.oracle.com"

    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """The GPU-hour prices of the list (see the module). Raises
        :class:`~computeatlas.cloud.collectors.base.CollectorError` for a response that is not
        the price list's JSON (no ``items`` list, a GPU item without its fields, a price as text)."""
        out = Collected()
        self.page(out, PATH)
        url, body = self.get_json(client, self.on_base(PATH), {"currencyCode": "USD"})
        items = self.need(body, "items", list, url)
        collected = self.now()
        for n, item in self.counted(out, items, url):
            where = f"items[{n}]"
            metric = self.need(item, "metricName", str, url, where)
            category = self.need(item, "serviceCategory", str, url, where)
            if metric != METRIC:
                out.skip("not priced per GPU-hour")
                continue
            if not category.startswith(CATEGORY) or "NVIDIA AI Enterprise" in str(item.get("displayName", "")):
                out.skip("a GPU-hour item outside Oracle's public GPU compute (a licence or an appliance)")
                continue
            name = self.need(item, "displayName", str, url, where).strip()
            part = self.need(item, "partNumber", str, url, where)
            local = self.need(item, "currencyCodeLocalizations", list, url, where)
            usd = [c for c in local if isinstance(c, dict) and c.get("currencyCode") == "USD"]
            if not usd:
                raise self.error(url, "no USD price (asked with currencyCode=USD)", f"{where}.currencyCodeLocalizations")
            prices = self.need(usd[0], "prices", list, url, f"{where}.currencyCodeLocalizations")
            payg = [p for p in prices if isinstance(p, dict) and p.get("model") == "PAY_AS_YOU_GO"]
            if len(payg) != 1:
                out.skip("no single pay-as-you-go price")
                continue
            amount = self.price(payg[0].get("value"), url, f"{where}.currencyCodeLocalizations.prices.value")
            out.observations.append(
                Observation(
                    provider=self.provider,
                    instance_type=name,
                    pricing="on_demand",
                    amount=amount,
                    currency="USD",
                    unit="hour",
                    price_basis="accelerator",
                    collected=collected,
                    source_url=url,
                    source_title=self.title,
                    via=f"collector {self.name}",
                    raw_extra=json.dumps({"partNumber": part, "serviceCategory": category, "metricName": metric}, sort_keys=True),
                )
            )
        if progress:
            progress(len(items))
        return out


__all__ = ["Oracle"]
