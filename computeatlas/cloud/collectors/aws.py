"""AWS's Price List Bulk API (https://pricing.us-east-1.amazonaws.com): public, no key.

:class:`Aws` reads the offer index (``/offers/v1.0/aws/index.json``: ``offers.AmazonEC2.
currentRegionIndexUrl``), then the EC2 region index (``regions.<code>.currentVersionUrl``),
then each region's offer file in its CSV form (the same path ending ``index.csv``, as AWS
documents): five lines of metadata (``Publication Date`` is kept with each reading), a
header line, then one line per price dimension. The files are several GB: each is streamed
line by line and only the lines of our instance types (:attr:`Collector.instance_types`)
become readings, so memory does not grow with the file; at most :attr:`Aws.MAX_ROWS` lines
are read in all.

A line becomes an observation when it is a ``Compute Instance`` of ``Shared`` tenancy,
``Used`` capacity (a running instance, not a reservation's unused capacity), with no
pre-installed software, of ``MarketOption`` ``OnDemand`` (a ``CapacityBlock`` line is a
Capacity Block's placeholder, published at 0.00 per hour beside the on-demand price of the
same instance type: never an on-demand price), priced per ``Hrs``:

- ``TermType`` ``OnDemand`` is on-demand; ``Reserved`` with ``PurchaseOption`` ``No Upfront``
  is ``reserved`` with the term ``1 year`` / ``3 years`` and the offering class
  (``1 year standard``, ``3 years convertible``): an hourly price that is the whole price.
  A reservation paid partly or wholly up front is skipped (its hourly line is not its price);
- ``Operating System`` ``Linux`` is the plain instance; ``Windows`` is named
  ``<instance> (Windows)`` (a licence-included price, held by the ``licence_included`` rule);
  any other system is skipped;
- ``PricePerUnit`` in ``Currency`` is the amount per instance-hour; ``Region Code`` the region.

A ``PricePerUnit`` that is not a number, or a header without a column read here, is a
:class:`~computeatlas.cloud.collectors.base.CollectorError` naming the URL and the column.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from computeatlas.cloud.collectors.base import Collected, Collector, Progress
from computeatlas.cloud.observations import ISO_4217, LICENSED_SUFFIX, Observation

if TYPE_CHECKING:
    import httpx

OFFER_INDEX = "/offers/v1.0/aws/index.json"
COLUMNS = (
    "SKU",
    "TermType",
    "PriceDescription",
    "Unit",
    "PricePerUnit",
    "Currency",
    "LeaseContractLength",
    "PurchaseOption",
    "OfferingClass",
    "Product Family",
    "Instance Type",
    "Tenancy",
    "Operating System",
    "Pre Installed S/W",
    "CapacityStatus",
    "MarketOption",
    "Region Code",
)
"""The columns of a regional offer file read here (a file without one is a collection error)."""
TERMS = {"1yr": "1 year", "3yr": "3 years"}
METADATA_LINES = 5


class Aws(Collector):
    """AWS EC2 on-demand and reserved (no upfront) prices of our instance types, by region.

    ``regions`` limits the regions read (default: every region of the region index)."""

    name = "aws"
    provider = "aws"
    title = "AWS Price List Bulk API (AmazonEC2 offer file)"
    reads = (
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/index.json",
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/region_index.json",
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/<version>/<region>/index.csv",
    )
    BASE_URL = "https://pricing.us-east-1.amazonaws.com"
    MAX_ROWS = 200_000_000

    def __init__(self, *args: Any, regions: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.regions = frozenset(regions)

    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """The readings of every regional offer file (see the module). Raises
        :class:`~computeatlas.cloud.collectors.base.CollectorError` for a response that is not
        the Price List API's."""
        out = Collected()
        if not self.instance_types:
            out.warnings.append(f"{self.name}: no AWS instance types in the instance table: nothing asked")
            return out
        self.page(out, OFFER_INDEX)
        url, index = self.get_json(client, self.on_base(OFFER_INDEX))
        offers = self.need(index, "offers", dict, url)
        ec2 = self.need(offers, "AmazonEC2", dict, url, "offers")
        regional = self.need(ec2, "currentRegionIndexUrl", str, url, "offers.AmazonEC2")
        self.page(out, regional)
        url, region_index = self.get_json(client, self.on_base(regional))
        regions = self.need(region_index, "regions", dict, url)
        for code in sorted(regions):
            if self.regions and code not in self.regions:
                continue
            version = self.need(regions[code], "currentVersionUrl", str, url, f"regions.{code}")
            if not version.endswith(".json"):
                raise self.error(url, f"expected a path ending .json, got {version!r}", f"regions.{code}.currentVersionUrl")
            if self.bounded(out, url):
                break
            file = self.on_base(version.removesuffix(".json") + ".csv")
            self.page(out, file)
            self._read_file(client, file, out, progress)
        return out

    def _read_file(self, client: httpx.Client, url: str, out: Collected, progress: Progress | None) -> None:
        import httpx

        try:
            with client.stream("GET", url) as response:
                if response.status_code != 200:
                    raise self.error(url, f"HTTP {response.status_code} {response.reason_phrase}")
                self._read_lines(response.iter_lines(), url, out, progress)
        except httpx.TimeoutException as exc:
            raise self.error(url, f"timed out ({type(exc).__name__})") from None
        except httpx.HTTPError as exc:
            raise self.error(url, f"the body could not be read whole ({type(exc).__name__}: {exc})") from None

    def _read_lines(self, lines: Iterator[str], url: str, out: Collected, progress: Progress | None) -> None:
        reader = csv.reader(lines)
        meta: dict[str, str] = {}
        for n in range(METADATA_LINES):
            row = next(reader, None)
            if row is None or len(row) != 2:
                raise self.error(url, f"line {n + 1} is not a metadata line (name, value) of an offer file", "(metadata)")
            meta[row[0]] = row[1]
        if meta.get("OfferCode") != "AmazonEC2":
            raise self.error(url, f"not the AmazonEC2 offer file (OfferCode {meta.get('OfferCode')!r})", "OfferCode")
        header = next(reader, None) or []
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise self.error(url, "missing column", missing[0])
        at = {c: header.index(c) for c in COLUMNS}
        kind = at["Instance Type"]
        collected, published = self.now(), meta.get("Publication Date", "")
        read = 0
        for row in reader:
            if self.bounded(out, url):
                break
            out.rows_read += 1
            read += 1
            if progress and read % 10_000 == 0:
                progress(10_000)
            if len(row) <= kind or row[kind] not in self.instance_types:
                continue
            if len(row) != len(header):
                raise self.error(url, f"a line of {len(row)} cells under a header of {len(header)} (line {read + METADATA_LINES + 1})")
            result = self._observation({c: row[i] for c, i in at.items()}, url, collected, published)
            if isinstance(result, str):
                out.skip(result)
            else:
                out.observations.append(result)
        if progress:
            progress(read % 10_000)

    def _observation(self, row: dict[str, str], url: str, collected: Any, published: str) -> Observation | str:
        """One line of our instance types as an observation, or the reason it is skipped."""
        if row["Product Family"] != "Compute Instance":
            return f"product family {row['Product Family']!r}"
        if row["Tenancy"] != "Shared":
            return f"tenancy {row['Tenancy']!r} (only shared tenancy is read)"
        if row["CapacityStatus"] != "Used":
            return f"capacity status {row['CapacityStatus']!r} (not a running instance's price)"
        if row["Pre Installed S/W"] not in ("NA", ""):
            return "pre-installed software in the price"
        if row["MarketOption"] not in ("OnDemand", ""):
            return f"market option {row['MarketOption']!r} (not an on-demand or reserved instance's price)"
        if row["Unit"] != "Hrs":
            return f"unit {row['Unit']!r} (an upfront fee, not an hourly price)"
        system = row["Operating System"]
        if system not in ("Linux", "Windows"):
            return f"operating system {system!r}"
        term_type, term = row["TermType"], ""
        if term_type == "Reserved":
            if row["PurchaseOption"] != "No Upfront":
                return "a reservation paid partly or wholly up front (its hourly line is not its price)"
            length = TERMS.get(row["LeaseContractLength"])
            if length is None:
                raise self.error(url, f"an unknown lease length {row['LeaseContractLength']!r}", "LeaseContractLength")
            term = f"{length} {row['OfferingClass']}".strip()
        elif term_type != "OnDemand":
            return f"term type {term_type!r}"
        try:
            amount = float(row["PricePerUnit"])
        except ValueError:
            raise self.error(url, f"a price must be a number, got {row['PricePerUnit']!r:.40}", "PricePerUnit") from None
        if row["Currency"] not in ISO_4217:
            raise self.error(url, f"an unknown currency code {row['Currency']!r}", "Currency")
        name = row["Instance Type"] + (LICENSED_SUFFIX if system == "Windows" else "")
        extra = {k: row[k] for k in ("SKU", "PriceDescription", "PurchaseOption", "OfferingClass", "LeaseContractLength") if row[k]}
        return Observation(
            provider=self.provider,
            instance_type=name,
            region=row["Region Code"],
            pricing="reserved" if term else "on_demand",
            term=term,
            amount=amount,
            currency=row["Currency"],
            unit="hour",
            price_basis="instance",
            collected=collected,
            source_url=url,
            source_title=self.title,
            via=f"collector {self.name}",
            raw_extra=json.dumps({**extra, "Publication Date": published}, ensure_ascii=False, sort_keys=True),
        )


__all__ = ["COLUMNS", "OFFER_INDEX", "Aws"]
