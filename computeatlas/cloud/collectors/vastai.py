"""Vast.ai's public offer search (https://console.vast.ai/api/v0/bundles/): no key.

:class:`VastAi` asks the bundles endpoint once per Vast GPU name of our instance table, with
the query (``?q=``, JSON) ``{"gpu_name": {"eq": <name>}, "rentable": {"eq": true}, "type":
"on-demand", "order": [["dph_total", "asc"]], "limit": 64}``, the shape getcomputable/gpu-index
runs unauthenticated (``gpu_index/observatory/sources/vast.py``; dstack's gpuhunt reads the same
endpoint without a key). The answer is one JSON object, ``offers``: one rentable ask each.

An offer becomes one on-demand observation of the whole offer, ``num_gpus`` GPUs of
``gpu_name``: ``dph_total`` USD per hour (Vast's ``dph_base`` for the GPUs plus
``storage_total_cost`` for the offer's default disk; bandwidth is billed apart), with the
stated count ``num_gpus``. The instance type is named as SkyPilot's Vast fetcher names its
catalog rows (``fetch_vast.py``, ``create_instance_type``): ``<num_gpus>x-<gpu_name, spaces as
_>-<cpu_cores>-<cpu_ram>``; only a name our instance table lists is placed (the table's rows
are SkyPilot's, from a search that rounds the specs, so a raw offer is mostly held
``unplaced``). The region is ``geolocation`` as Vast writes it. Skipped and counted: a bid
(``is_bid``), an offer whose ``gpu_name`` is not the one asked, one without ``cpu_cores``
(no name can be made). ``min_bid`` (interruptible) is not read.

A response without ``offers``, or an offer without its fields, or a price as text, is a
:class:`~computeatlas.cloud.collectors.base.CollectorError` naming the URL and the field.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from computeatlas.cloud.collectors.base import Collected, Collector, Progress
from computeatlas.cloud.observations import Observation

if TYPE_CHECKING:
    import httpx

PATH = "/api/v0/bundles/"
LIMIT = 64
"""Offers asked per GPU name (gpu-index saw the server answer at most 64)."""
NAME = re.compile(r"^\d+x-(?P<gpu>.+)-\d+-\d+$")
"""An instance name of SkyPilot's Vast catalog: count, GPU name, CPU cores, memory."""


def gpu_names(instance_types: frozenset[str]) -> list[str]:
    """Vast's GPU names (``H100 SXM``) of instance names such as ``8x-H100_SXM-32-65536``, sorted."""
    return sorted({m["gpu"].replace("_", " ") for t in instance_types if (m := NAME.match(t))})


class VastAi(Collector):
    """Vast.ai's rentable on-demand offers of the GPUs in our instance table, USD per offer-hour."""

    name = "vastai"
    provider = "vast-ai"
    title = "Vast.ai offer search (bundles API)"
    reads = ("https://console.vast.ai/api/v0/bundles/?q=<query>",)
    BASE_URL = "https://console.vast.ai"

    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """The offers of each GPU name (see the module). Raises
        :class:`~computeatlas.cloud.collectors.base.CollectorError` for a response that is not the
        bundles API's (no ``offers`` list, an offer without ``dph_total``, a price as text)."""
        out = Collected()
        names = gpu_names(self.instance_types)
        if not names:
            out.warnings.append(f"{self.name}: no Vast.ai instance types in the instance table: nothing asked")
            return out
        for gpu in names:
            if self.bounded(out, PATH):
                break
            query = {
                "gpu_name": {"eq": gpu},
                "rentable": {"eq": True},
                "type": "on-demand",
                "order": [["dph_total", "asc"]],
                "limit": LIMIT,
            }
            self.page(out, PATH)
            url, body = self.get_json(client, self.on_base(PATH), {"q": json.dumps(query)})
            offers = self.need(body, "offers", list, url)
            if len(offers) >= LIMIT:
                out.warnings.append(f"{self.name}: {gpu!r} answered {len(offers)} offers, the limit asked: dearer ones were not read")
            self._read(offers, gpu, url, out)
            if progress:
                progress(len(offers))
        return out

    def _read(self, offers: list[object], gpu: str, url: str, out: Collected) -> None:
        collected = self.now()
        for n, offer in self.counted(out, offers, url):
            where = f"offers[{n}]"
            if self.need(offer, "is_bid", bool, url, where):
                out.skip("a bid, not an on-demand ask")
                continue
            if self.need(offer, "gpu_name", str, url, where) != gpu:
                out.skip("gpu_name not the one asked")
                continue
            count = self.need(offer, "num_gpus", int, url, where)
            cores = self.need(offer, "cpu_cores", (int, type(None)), url, where)
            memory = self.need(offer, "cpu_ram", (int, float), url, where)
            amount = self.price(self.need(offer, "dph_total", object, url, where), url, f"{where}.dph_total")
            if cores is None or count < 1:
                out.skip("no CPU cores or GPU count stated (no instance name can be made)")
                continue
            ram = int(memory) if float(memory).is_integer() else memory
            stub = re.sub(r"\s", "_", gpu)
            region = self.need(offer, "geolocation", (str, type(None)), url, where) or ""
            assert isinstance(offer, dict)  # need() checked it is an object
            extra = {k: offer.get(k) for k in ("id", "machine_id", "dph_base", "storage_total_cost", "gpu_ram", "gpu_frac", "verification")}
            out.observations.append(
                Observation(
                    provider=self.provider,
                    instance_type=f"{count}x-{stub}-{cores}-{ram}",
                    region=region,
                    pricing="on_demand",
                    amount=amount,
                    currency="USD",
                    unit="hour",
                    price_basis="instance",
                    stated_accelerators=count,
                    collected=collected,
                    source_url=url,
                    source_title=self.title,
                    via=f"collector {self.name}",
                    raw_extra=json.dumps(extra, sort_keys=True),
                )
            )


__all__ = ["LIMIT", "PATH", "VastAi", "gpu_names"]
