"""The SkyPilot catalog's published ``vms.csv`` files: an aggregator feed (no key).

SkyPilot (github.com/skypilot-org/skypilot-catalog, Apache-2.0) publishes one
``catalogs/<version>/<cloud>/vms.csv`` per cloud it covers, refreshed by its own fetchers.
:class:`SkyPilot` reads one cloud's file from the repository's raw files
(``https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/<cloud>/vms.csv``,
or an older schema folder for a cloud in :data:`VERSIONS`),
streamed to a temporary file (at most :attr:`Collector.max_rows` lines), and turns it into
readings with the existing importer (:mod:`computeatlas.cloud.importers.skypilot`), so a
collected file and an imported file are read the same way. The prices are SkyPilot's copy of
the provider's, not the provider's own page: ``via`` says ``aggregator: SkyPilot catalog``.

:data:`CLOUDS` maps SkyPilot's cloud folders to our provider ids; each is its own collector
(``skypilot-lambda`` …), each collection its own run.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from computeatlas.cloud.collectors.base import Collected, Collector, Progress
from computeatlas.cloud.importers import skypilot as importer
from computeatlas.cloud.importers.cells import Skip
from computeatlas.cloud.observations import InputFailed
from computeatlas.core.tabular import TableError

if TYPE_CHECKING:
    import httpx

VERSION = "v8"
"""The catalog's schema version read (its folder under ``catalogs/``) unless :data:`VERSIONS` names another."""
PATH = "/skypilot-org/skypilot-catalog/master/catalogs/{version}/{cloud}/vms.csv"
CLOUDS = {
    "lambda": "lambda",
    "runpod": "runpod",
    "nebius": "nebius",
    "cudo": "cudo",
    "hyperbolic": "hyperbolic",
    "shadeform": "shadeform",
    "do": "digitalocean",
    "paperspace": "paperspace",
    "fluidstack": "fluidstack",
    "scaleway": "scaleway",
}
"""SkyPilot's cloud folder → our provider id. Another cloud of the catalog (``vast`` → ``vast-ai``,
``hyperstack`` …) is one entry here and one recorded ``vms.csv`` in the tests."""
VERSIONS = {"do": "v6", "paperspace": "v6", "fluidstack": "v6", "scaleway": "v6"}
"""Clouds whose ``vms.csv`` is read from an older schema folder than :data:`VERSION`: the stored
copies of the catalog repository hold these only under ``catalogs/v5/`` and ``v6/`` (no ``v7`` or
``v8`` folder read has DigitalOcean's, Paperspace's, Fluidstack's or Scaleway's file). The
columns are the same nine; Paperspace's and Scaleway's files order them differently (Scaleway's
adds ``AvailabilityZone``), which the importer does not mind."""
CURRENCIES = {"scaleway": "EUR"}
"""Clouds whose ``Price`` is not in US dollars (the catalog names no currency). SkyPilot's
``fetch_scaleway.py`` (skypilot-org/skypilot, ``sky/clouds/service_catalog/data_fetchers/``,
commit 33116726) writes
``'Price': server_type.hourly_price`` from Scaleway's Instance API unconverted, and that
API's ``hourly_price`` is "Hourly price in Euro" (Scaleway's API schema as generated into
scaleway_api_rs, ``ScalewayInstanceV1ServerType``). Every other cloud: USD."""


def catalog_path(cloud: str) -> str:
    """The raw-file path of ``cloud``'s ``vms.csv`` (``cloud`` a key of :data:`CLOUDS`), in its
    schema folder (:data:`VERSIONS`, else :data:`VERSION`)."""
    return PATH.format(version=VERSIONS.get(cloud, VERSION), cloud=cloud)


class SkyPilot(Collector):
    """One cloud's ``vms.csv`` of the SkyPilot catalog; ``cloud`` is a key of :data:`CLOUDS`."""

    name = "skypilot"
    provider = ""
    title = "SkyPilot catalog vms.csv"
    reads = (f"https://raw.githubusercontent.com{PATH}",)
    BASE_URL = "https://raw.githubusercontent.com"

    def __init__(self, *args: Any, cloud: str = "lambda", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if cloud not in CLOUDS:
            raise ValueError(f"unknown SkyPilot cloud {cloud!r}; known: {', '.join(CLOUDS)}")
        self.cloud = cloud
        self.name = f"skypilot-{cloud}"  # type: ignore[misc]  # one collector per cloud
        self.provider = CLOUDS[cloud]  # type: ignore[misc]

    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """The cloud's readings (on-demand and spot, per instance-hour, in USD or the cloud's
        :data:`CURRENCIES` entry). Raises
        :class:`~computeatlas.cloud.collectors.base.CollectorError` for a body that is not a
        SkyPilot ``vms.csv`` (a missing column, a price as text), naming the URL and the column."""
        import httpx

        out = Collected()
        url = self.on_base(catalog_path(self.cloud))
        self.page(out, url)
        with tempfile.TemporaryDirectory(prefix="computeatlas-skypilot-") as folder:
            path = Path(folder) / self.cloud / "vms.csv"
            path.parent.mkdir()
            collected = self.now()
            try:
                with client.stream("GET", url) as response, path.open("w", encoding="utf-8", newline="") as file:
                    if response.status_code != 200:
                        raise self.error(url, f"HTTP {response.status_code} {response.reason_phrase}")
                    if "html" in response.headers.get("content-type", ""):
                        raise self.error(url, "not CSV (text/html)")
                    for n, line in enumerate(response.iter_lines()):
                        if n > self.max_rows:  # the header and max_rows lines
                            self.bounded(out, url)
                            break
                        file.write(line + "\n")
            except httpx.TimeoutException as exc:
                raise self.error(url, f"timed out ({type(exc).__name__})") from None
            except httpx.HTTPError as exc:
                raise self.error(url, f"the body could not be read whole ({type(exc).__name__}: {exc})") from None
            try:
                currency = CURRENCIES.get(self.cloud, "USD")
                for reading in importer.read(path, provider=self.provider, collected=collected, now=collected, currency=currency):
                    result = reading.result
                    if isinstance(result, TableError):
                        raise self.error(url, f"line {result.line}: {result.message}", result.column)
                    if isinstance(result, Skip):
                        out.skip(result.reason)
                    else:
                        out.observations.append(
                            result.model_copy(update={"source_url": url, "via": f"aggregator: SkyPilot catalog ({self.name})"})
                        )
            except InputFailed as exc:
                first = exc.errors[0]
                raise self.error(url, first.message, first.column) from None
            except TableError as exc:
                raise self.error(url, exc.message, exc.column) from None
            with path.open(encoding="utf-8") as written:
                out.rows_read = max(0, sum(1 for _ in written) - 1)
        if progress:
            progress(out.rows_read)
        return out


__all__ = ["CLOUDS", "CURRENCIES", "PATH", "VERSION", "VERSIONS", "SkyPilot", "catalog_path"]
