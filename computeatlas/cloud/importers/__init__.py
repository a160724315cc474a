"""Importers: each reads one file format into price observations, row by row.

An importer is a function ``read(path, **options) -> Iterator[Reading]``. Each
:class:`Reading` is the file's line number and either an
:class:`~computeatlas.cloud.observations.Observation` (not yet placed or checked), an
:class:`~computeatlas.core.tabular.TableError` (the row is rejected: it names the
file, the line and the column) or a :class:`Skip` (a row that is not a rental price, with
the reason). A file that cannot be read at all (not CSV, a missing column) raises
:class:`~computeatlas.cloud.observations.InputFailed` before any row is used. No value of a
row can raise out of an importer that parses through
:func:`~computeatlas.cloud.importers.cells.rows`: any exception of one row's parse becomes
that row's TableError.

An importer's module may set ``FIRST_DATE`` (a :class:`datetime.date`): the first date its
source can have published a price. Rows collected before it are held as ``implausible_date``
(:func:`computeatlas.cloud.runs.first_date`; default
:attr:`~computeatlas.core.settings.Settings.price_first_date`, 2015-01-01).

Formats (:data:`FORMATS`): ``opencomputeprices`` (the OpenComputePrices collectors' CSV),
``skypilot`` (a SkyPilot catalog ``vms.csv``), ``fullstack-cloud-gpus`` (Full Stack Deep
Learning's cloud GPU table, one version or its history), ``atlas`` (the project's own observation
CSV), ``offers`` (the hand-typed ``data/offers/*.csv`` of earlier releases), ``azure-pricing-radar``
(Azure Retail Prices snapshots recorded by andy-diericks/azure-pricing-radar),
``aws-capacity-blocks`` (AWS EC2 Capacity Blocks for ML prices, scraped to JSON),
``cyclenerd-gcp`` (Google Compute Engine GPU machine prices from Cyclenerd's ``pricing.yml`` history) and
``gpuhunt-tpu`` (dstack gpuhunt's hand-copied Cloud TPU price table).
"""

from __future__ import annotations

from computeatlas.cloud.importers import (
    atlas,
    azure_radar,
    capacity_blocks,
    cyclenerd,
    fullstack,
    gpuhunt_tpu,
    offers,
    opencomputeprices,
    skypilot,
)
from computeatlas.cloud.importers.cells import Importer


def formats() -> dict[str, Importer]:
    """Every format name and its reader."""
    return {
        "opencomputeprices": opencomputeprices.read,
        "skypilot": skypilot.read,
        "fullstack-cloud-gpus": fullstack.read,
        "atlas": atlas.read,
        "offers": offers.read,
        "azure-pricing-radar": azure_radar.read,
        "aws-capacity-blocks": capacity_blocks.read,
        "cyclenerd-gcp": cyclenerd.read,
        "gpuhunt-tpu": gpuhunt_tpu.read,
    }


__all__ = ["formats"]
