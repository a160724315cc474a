"""Google Compute Engine GPU machine prices from Cyclenerd's ``pricing.yml`` history (Apache-2.0).

The public project Cyclenerd/google-cloud-pricing-cost-calculator rebuilds ``pricing.yml``
about once a week from the Google Cloud Billing Catalog API (SKUs) and commits it to git.
This format is that history flattened to CSV, one row per snapshot, machine type and
region (the README of the source folder ``cyclenerd-gcp-2026-07`` says how it was made).

Columns read: ``snapshot_commit, commit_date_utc, generated, instance_type, accelerator_key,
accelerator_count, cpu, ram_gb, local_ssd_gb, region, hour, hour_spot, month, month_1y,
month_3y, month_spot``. One row gives up to four observations of the whole VM (vCPU, RAM
and GPUs: our instance table bills these machine types ``all_in``), all in USD:

- ``hour``: on-demand, per instance-hour;
- ``hour_spot``: spot, per instance-hour;
- ``month_1y`` and ``month_3y``: the 1- and 3-year committed-use price per instance-month
  (pricing ``committed``, term ``1 year`` / ``3 years``, unit month).

``month`` (always ``hour`` × 730 here) and ``month_spot`` (``hour_spot`` × 730) are the
same prices over a month: each is checked to be that product (a cent or 0.01% either
way) and skipped with the reason, never stored twice; one that is not is a bad cell
(upstream would then be applying a discount this importer does not know). An empty cell
is a price upstream did not list for that type and region. A committed price equal to
``month`` (the on-demand month) is held as ``committed_equals_on_demand``
(:data:`COMMITTED_EQUALS_ON_DEMAND`).

Collection time: ``commit_date_utc``, the time the snapshot was committed, with ``via``
"Cyclenerd pricing.yml at commit SHA7, published by DATE". Not ``generated`` (when
upstream's script read the Billing Catalog), for three reasons: it is empty in the first
snapshot (2022-02-09, 140 rows); it is C ``date`` text with no time zone, UTC only by
inference; and two snapshots share one ``generated`` second (2025-05-17 15:19:49, commits
0eca132 and d94fa83), so it does not tell snapshots apart. In this file it precedes the
commit by 0 s to 8 minutes, so nothing is lost: the commit time is the source's own,
explicit UTC date. Neither is the date Google changed a price (a change appears at the
first snapshot after it). ``generated`` is kept in ``raw_extra``.

``source_url`` is the upstream file at its commit; ``source_title`` names the Billing
Catalog as what upstream read. Upstream's ``accelerator_key``, ``accelerator_count``,
``cpu``, ``ram_gb`` and ``local_ssd_gb`` are kept in ``raw_extra`` as evidence only: the
row is placed solely through our instance table (the upstream key names the G4 series
``rtx6000`` and early ``ram_gb`` values differ from later ones), and no count is stated.
A fractional ``accelerator_count`` (``g4-standard-6`` shows 0.125: a share of one GPU)
is noted on the observation; our table has no row for such a share, so it is held.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.importers.cells import Reading, Skip, price, rows, timestamp
from computeatlas.cloud.observations import Observation
from computeatlas.core.tabular import CellError

COLUMNS = (
    "snapshot_commit",
    "commit_date_utc",
    "generated",
    "instance_type",
    "accelerator_key",
    "accelerator_count",
    "cpu",
    "ram_gb",
    "local_ssd_gb",
    "region",
    "hour",
    "hour_spot",
    "month",
    "month_1y",
    "month_3y",
    "month_spot",
)
"""The columns a file must have."""

REPOSITORY = "https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator"
SOURCE_TITLE = (
    "Google Cloud Billing Catalog API (Compute Engine SKUs), as summed per machine type by "
    "Cyclenerd/google-cloud-pricing-cost-calculator into pricing.yml"
)
HOURS_PER_MONTH = 730
"""Upstream's month: ``month`` is ``hour`` × 730 in every row of the file."""

COMMITTED_EQUALS_ON_DEMAND = "committed_equals_on_demand"
"""Rule name: a committed price that is exactly the on-demand month (``hour`` × 730). Upstream
writes that where it found no commitment SKU (``a2-ultragpu-*`` from 2022-11 to 2024-08,
3,356 rows): it is not a commitment price, so the observation is held."""

_COMMITTED = (("month_1y", "1 year"), ("month_3y", "3 years"))
_DERIVED = (("month", "hour"), ("month_spot", "hour_spot"))
_EVIDENCE = ("accelerator_key", "accelerator_count", "cpu", "ram_gb", "local_ssd_gb", "generated")


def _commit(raw: dict[str, str]) -> str:
    sha = raw["snapshot_commit"].strip().lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise CellError("snapshot_commit", "not a full git commit id (40 hexadecimal digits)", raw["snapshot_commit"])
    return sha


def _derived(raw: dict[str, str], column: str, base: str, hourly: float | None) -> Skip | None:
    """A :class:`Skip` for ``column`` when it is ``base`` × 730, None when blank."""
    monthly = price(raw, column, required=False)
    if monthly is None:
        return None
    expected = (hourly or 0.0) * HOURS_PER_MONTH
    if hourly is None or abs(monthly - expected) > max(0.01, 1e-4 * expected):
        raise CellError(column, f"not {base} × {HOURS_PER_MONTH} ({expected:g}): a monthly price this importer cannot place", raw[column])
    return Skip(f"{column}: {base} × {HOURS_PER_MONTH}, the same price over a month (stored once, as {base})")


def read(path: Path, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of a Cyclenerd GPU machine-price CSV (see the module text for the columns).

    Yields per row the on-demand, spot and committed observations present and a
    :class:`Skip` for each derived monthly column; a bad cell rejects the row with file,
    line and column; a missing column raises :class:`InputFailed` before any row.
    """
    now = now or dt.datetime.now(dt.UTC)

    def parse(raw: dict[str, str]) -> list[Observation | Skip]:
        sha = _commit(raw)
        collected = timestamp(raw, "commit_date_utc", now)
        name, region = raw["instance_type"].strip(), raw["region"].strip()
        if not name:
            raise CellError("instance_type", "no machine type", raw["instance_type"])
        if not region:
            raise CellError("region", "no region", raw["region"])
        on_demand, spot = price(raw, "hour", required=False), price(raw, "hour_spot", required=False)
        committed = [(term, price(raw, column, required=False)) for column, term in _COMMITTED]
        if on_demand is None and spot is None and all(amount is None for _, amount in committed):
            raise CellError("hour", "no price in hour, hour_spot, month_1y or month_3y", "")
        skips = [s for column, base in _DERIVED if (s := _derived(raw, column, base, on_demand if base == "hour" else spot))]
        share = raw["accelerator_count"].strip()
        note = ""
        if share and not re.fullmatch(r"[0-9]+(?:\.0+)?", share):
            note = f"upstream states {share} GPU per machine: a share of one GPU, which our instance table does not place"
        common = dict(
            provider="google-cloud",
            instance_type=name,
            region=region,
            currency="USD",
            price_basis="instance",
            collected=collected,
            source_url=f"{REPOSITORY}/blob/{sha}/pricing.yml",
            source_title=SOURCE_TITLE,
            via=f"Cyclenerd pricing.yml at commit {sha[:7]}, published by {collected:%Y-%m-%d} (Apache-2.0)",
            note=note,
            raw_extra=json.dumps({k: raw[k].strip() for k in _EVIDENCE if raw[k].strip()}, ensure_ascii=False, sort_keys=True),
        )
        out: list[Observation | Skip] = []
        if on_demand is not None:
            out.append(Observation(pricing="on_demand", amount=on_demand, unit="hour", **common))
        if spot is not None:
            out.append(Observation(pricing="spot", amount=spot, unit="hour", **common))
        for term, amount in committed:
            if amount is None:
                continue
            obs = Observation(pricing="committed", term=term, amount=amount, unit="month", **common)
            if on_demand is not None and abs(amount - on_demand * HOURS_PER_MONTH) <= 0.01:
                obs = obs.held(
                    COMMITTED_EQUALS_ON_DEMAND,
                    f"the {term} committed price {amount:g} per month is the on-demand "
                    f"{on_demand:g} × {HOURS_PER_MONTH}: upstream's column, not a commitment price",
                )
            out.append(obs)
        return out + skips

    yield from rows(path, COLUMNS, parse)


__all__ = ["COLUMNS", "COMMITTED_EQUALS_ON_DEMAND", "HOURS_PER_MONTH", "REPOSITORY", "SOURCE_TITLE", "read"]
