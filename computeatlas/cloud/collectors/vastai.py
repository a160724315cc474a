"""Vast.ai's public offer search (https://console.vast.ai/api/v0/bundles/): no key.

:class:`VastAi` asks the bundles endpoint once per Vast GPU name of our instance table, with
the query (``?q=``, JSON) ``{"gpu_name": {"eq": <name>}, "rentable": {"eq": true}, "type":
"on-demand", "order": [["dph_total", "asc"]], "limit": 64}``, the shape getcomputable/gpu-index
runs unauthenticated (``gpu_index/observatory/sources/vast.py``; dstack's gpuhunt reads the same
endpoint without a key). The answer is one JSON object, ``offers``: one rentable ask each.

An offer becomes one on-demand observation of the whole offer, ``num_gpus`` GPUs of
``gpu_name``: ``dph_total`` USD per hour (Vast's ``dph_base`` for the GPUs plus
``storage_total_cost`` for the offer's default disk; bandwidth is billed apart), with the
stated count ``num_gpus``. The instance type is Vast's own words, ``<num_gpus>x <gpu_name>``
(``8x H100 SXM``): our instance table (``data/instances/vast-ai.csv``) places Vast's GPU names
and counts on our accelerators, so a name the table lacks (another GPU, or a count it has no
row for) is held ``unplaced`` with that name. The table's SkyPilot rows
(``8x-H100_SXM-32-65536``, SkyPilot's catalog names) name GPUs to ask too (:func:`gpu_names`).
The region is ``geolocation`` as Vast writes it; the host's ``cpu_cores`` and ``cpu_ram`` go in
``raw_extra``. Skipped and counted: a bid (``is_bid``), an offer whose ``gpu_name`` is not the
one asked, one whose ``num_gpus`` is below one. ``min_bid`` (interruptible) is not read.

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
OWN = re.compile(r"^\d+x (?P<gpu>\S.*)$")
"""An instance name in Vast's own words: ``<num_gpus>x <gpu_name>``."""


def instance_name(count: int, gpu: str) -> str:
    """The instance type of an offer of ``count`` GPUs named ``gpu`` by Vast: ``8x H100 SXM``."""
    return f"{count}x {gpu}"


def gpu_names(instance_types: frozenset[str]) -> list[str]:
    """Vast's GPU names (``H100 SXM``) of instance names in Vast's own words (``8x H100 SXM``)
    or SkyPilot's (``8x-H100_SXM-32-65536``), sorted, once each."""
    names = {m["gpu"] for t in instance_types if (m := OWN.match(t))}
    names |= {m["gpu"].replace("_", " ") for t in instance_types if (m := NAME.match(t))}
    return sorted(names)


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
            memory = self.need(offer, "cpu_ram", (int, float, type(None)), url, where)
            amount = self.price(self.need(offer, "dph_total", object, url, where), url, f"{where}.dph_total")
            if count < 1:
                out.skip("a GPU count below one")
                continue
            region = self.need(offer, "geolocation", (str, type(None)), url, where) or ""
            assert isinstance(offer, dict)  # need() checked it is an object
            extra = {k: offer.get(k) for k in ("id", "machine_id", "dph_base", "storage_total_cost", "gpu_ram", "gpu_frac", "verification")}
            extra |= {"cpu_cores": cores, "cpu_ram": memory}
            out.observations.append(
                Observation(
                    provider=self.provider,
                    instance_type=instance_name(count, gpu),
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


__all__ = ["LIMIT", "PATH", "VastAi", "gpu_names", "instance_name"]
