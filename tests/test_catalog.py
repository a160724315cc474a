"""The composition root: every domain's record kinds, read in one order into one catalog."""

from __future__ import annotations

import csv
from pathlib import Path

import computeatlas
from computeatlas import catalog as composition
from computeatlas.catalog import DEFAULT_DATA, KINDS, Catalog
from computeatlas.cloud.catalog import CloudCatalog
from computeatlas.core.catalog import Layout
from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.economics.claims import EconomicsClaim
from computeatlas.energy.catalog import EnergyCatalog
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.systems import System


def test_collections_come_in_load_order() -> None:
    """The order ``computeatlas validate`` counts them in: TOML folders, then CSV tables."""
    assert [k.folder for k in KINDS] == [
        "vendors",
        "accelerators",
        "comparisons",
        "coverage",
        "providers",
        "systems",
        "energy",
        "claims",
        "models",
        "offers",
        "instances",
    ]
    assert [k.folder for k in KINDS if k.layout is Layout.CSV_ROWS] == ["offers", "instances"]
    assert [k.folder for k in KINDS if k.by_name] == ["accelerators", "providers", "systems", "models"]


def _rows(folder: Path) -> int:
    return sum(sum(1 for _ in csv.DictReader(p.read_text("utf-8-sig").splitlines())) for p in folder.glob("*.csv"))


def test_the_bundled_catalog_holds_one_record_per_file_or_row(real_catalog: Catalog) -> None:
    for kind in KINDS:
        folder = DEFAULT_DATA / kind.folder
        expected = len(list(folder.glob("*.toml"))) if kind.layout is Layout.TOML_FILES else _rows(folder)
        assert (kind.folder, len(real_catalog.collections[kind.folder])) == (kind.folder, expected)
    assert list(real_catalog.collections) == [k.folder for k in KINDS]


def test_the_catalog_is_every_domains_view_of_it(real_catalog: Catalog) -> None:
    assert isinstance(real_catalog, Catalog)
    for view in (SiliconCatalog, CloudCatalog, EconomicsCatalog, EnergyCatalog):
        assert isinstance(real_catalog, view)
    system = real_catalog.systems["nvidia-gb200-nvl72"]
    assert isinstance(system, System) and system.accelerator_count == 72  # NVIDIA: 72 Blackwell GPUs per rack
    assert isinstance(real_catalog.claims["nvidia-gb300-nvl72-vs-hopper-cost"], EconomicsClaim)
    assert real_catalog.vendor_of(real_catalog.accelerator("nvidia-h100-sxm")).name == "NVIDIA"


def test_the_package_load_is_the_composition_roots() -> None:
    assert computeatlas.load is composition.load
    assert computeatlas.Catalog is composition.Catalog
