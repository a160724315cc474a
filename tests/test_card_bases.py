"""Accelerators sold as cards of several chips, wafers or systems: each figure keeps its basis.

Expected values were read from the sources the records cite: Tenstorrent's Wormhole card
table (docs.tenstorrent.com), Qualcomm's Cloud AI SDK SKU table, SambaNova's Hot Chips 2024
slides and the press relay of Cerebras' WSE-2 launch figures.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.core.claims import (
    Basis,
    NumberFormat,
    SourceKind,
)
from computeatlas.core.states import State


def test_wormhole_n300_is_one_card_of_two_chips_on_the_package_basis(real_catalog: Catalog) -> None:
    # Tenstorrent: n150 = 1 ASIC, 12 GB, 288 GB/s, 262 FP8 TFLOPS, 160 W; n300 = 2 ASICs, 24 GB, 576 GB/s, 466, 300 W.
    n150 = real_catalog.accelerator("tenstorrent-wormhole-n150")
    n300 = real_catalog.accelerator("tenstorrent-wormhole-n300")
    assert n150.specs.memory.basis is Basis.CHIP and n150.specs.memory.figure.amount == 12e9
    assert n300.specs.memory.basis is Basis.PACKAGE and n300.specs.memory.figure.amount == 24e9
    assert n300.specs.memory_bandwidth.figure.amount == pytest.approx(576e9)
    fp8 = n300.compute(NumberFormat.FP8)
    assert fp8.basis is Basis.PACKAGE and fp8.figure.amount == pytest.approx(466e12)
    assert fp8.sparse is None  # Tenstorrent publishes no sparse figure
    assert n300.specs.power.figure.amount == 300 and n150.specs.power.figure.amount == 160
    assert n300.compute(NumberFormat.BF16).state is State.NOT_PUBLISHED  # the table lists FP16, not BF16
    assert n300.sources[n300.specs.memory.source].kind is SourceKind.VENDOR


def test_cloud_ai_100_ultra_is_recorded_per_card_of_four_socs(real_catalog: Catalog) -> None:
    # Qualcomm SKU table: Ultra = 4 SoCs, 128 GB, 548 GB/s, FP16 290 TFLOPs, Int8 870 TOPs, 150 W.
    ultra = real_catalog.accelerator("qualcomm-cloud-ai-100-ultra")
    assert ultra.specs.memory.basis is Basis.PACKAGE and ultra.specs.memory.figure.amount == 128e9
    assert ultra.specs.memory_bandwidth.figure.amount == pytest.approx(548e9)
    assert ultra.compute(NumberFormat.FP16).figure.amount == pytest.approx(290e12)
    assert ultra.compute(NumberFormat.INT8).figure.amount == pytest.approx(870e12)
    assert ultra.specs.power.figure.amount == 150
    assert ultra.compute(NumberFormat.FP8).state is State.NOT_PUBLISHED
    standard = real_catalog.accelerator("qualcomm-cloud-ai-100-standard")
    assert standard.specs.memory.basis is Basis.CHIP and standard.specs.memory.figure.amount == 16e9


def test_a_system_only_figure_is_not_shown_as_a_per_chip_one(real_catalog: Catalog) -> None:
    # SambaNova states memory bandwidth only for a 16-socket system; Cerebras' CS-1 power is a system figure.
    sn40l = real_catalog.accelerator("sambanova-sn40l")
    assert sn40l.specs.memory_bandwidth.state is State.NOT_COMPARABLE
    assert sn40l.specs.memory_bandwidth.basis is Basis.NODE
    assert sn40l.specs.memory_bandwidth.figure is None
    assert sn40l.compute(NumberFormat.BF16).figure.amount == pytest.approx(638e12)
    wse1 = real_catalog.accelerator("cerebras-wse-1")
    assert wse1.specs.power.state is State.NOT_COMPARABLE and wse1.specs.power.basis is Basis.NODE


def test_wafer_scale_figures_are_per_wafer(real_catalog: Catalog) -> None:
    # Cerebras' WSE-2 launch figures: 40 GB of on-wafer SRAM at 20 PB/s.
    wse2 = real_catalog.accelerator("cerebras-wse-2")
    assert wse2.form_factor == "wafer-scale engine"
    assert wse2.specs.memory.figure.amount == 40e9
    assert wse2.specs.memory_bandwidth.figure.amount == pytest.approx(20e15)
    assert real_catalog.accelerator("cerebras-wse-3").predecessor == "cerebras-wse-2"


def test_n300_page_says_per_package_and_keeps_the_missing_bf16_honest(real_client: TestClient) -> None:
    page = BeautifulSoup(real_client.get("/silicon/tenstorrent-wormhole-n300").text, "lxml")
    memory = page.select_one('[data-spec="memory"] dd').get_text(" ", strip=True)
    assert memory.startswith("24 GB GDDR6 per package")
    assert page.select_one('[data-spec="compute.FP8"] dd').get_text(" ", strip=True).startswith("466 TFLOPS per package dense")
    bf16 = page.select_one('[data-spec="compute.BF16"]')
    assert bf16["data-state"] == "not_published"
    sn40l = BeautifulSoup(real_client.get("/silicon/sambanova-sn40l").text, "lxml")
    bandwidth = sn40l.select_one('[data-spec="memory_bandwidth"]')
    assert bandwidth["data-state"] == "not_comparable"
    assert "per node" in bandwidth.select_one("dd").get_text(" ", strip=True)
