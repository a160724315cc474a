"""The bundled data: real figures a person can check against the vendors' documents.

Each expected value below was read from the source cited in the record (see the record's
``[sources]``); the Epoch AI dataset in ``../shared/reference`` is used only as a second
opinion, never as a source.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

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
from computeatlas.publish.exports import silicon_table

REQUIRED_PARTS = {
    "nvidia-a100-sxm-80gb", "nvidia-h100-sxm", "nvidia-h100-pcie", "nvidia-h200-sxm", "nvidia-b200",
    "nvidia-b300", "nvidia-gb200", "nvidia-l40s", "nvidia-l4", "amd-instinct-mi250x", "amd-instinct-mi300x",
    "amd-instinct-mi325x", "amd-instinct-mi355x", "amd-instinct-mi455x", "google-tpu-v4", "google-tpu-v5e",
    "google-tpu-v5p", "google-tpu-v6e", "google-tpu-v7", "aws-trainium", "aws-trainium-2", "aws-trainium-3",
    "aws-inferentia-2", "intel-gaudi-2", "intel-gaudi-3", "microsoft-maia-100", "microsoft-maia-200",
    "cerebras-wse-3", "groq-lpu", "huawei-ascend-910c", "meta-mtia-v2",
}  # fmt: skip


def test_catalog_has_every_part_the_first_release_promises(real_catalog: Catalog) -> None:
    assert set(real_catalog.accelerators) >= REQUIRED_PARTS
    assert len(real_catalog.accelerators) >= 30


def test_trainium_3_figures_match_aws_documentation(real_catalog: Catalog) -> None:
    # AWS Neuron docs, "Trainium3 architecture": 144 GiB HBM, 4.9 TB/s, 2,517 MXFP8 TFLOPS, 671 BF16.
    trn3 = real_catalog.accelerator("aws-trainium-3")
    assert trn3.specs.memory.figure.amount == 144 * 2**30
    assert trn3.specs.memory_bandwidth.figure.amount == pytest.approx(4.9e12)
    assert trn3.compute(NumberFormat.FP8).figure.amount == pytest.approx(2517e12)
    assert trn3.compute(NumberFormat.BF16).figure.amount == pytest.approx(671e12)
    assert trn3.specs.power.state is State.NOT_PUBLISHED
    assert trn3.sources[trn3.specs.memory.source].kind is SourceKind.VENDOR


def test_trainium_3_page_shows_vendor_figures_and_the_disagreement(real_client: TestClient) -> None:
    page = BeautifulSoup(real_client.get("/silicon/aws-trainium-3").text, "lxml")
    memory = page.select_one('[data-spec="memory"] dd').get_text(" ", strip=True)
    assert memory.startswith("144 GiB HBM per chip")
    assert "Disputed" in memory and "144 GB" in memory  # the GB figure other summaries give, with its source
    assert page.select_one('[data-spec="memory_bandwidth"] dd').get_text(" ", strip=True).startswith("4.9 TB/s per chip")
    fp8 = page.select_one('[data-spec="compute.FP8"] dd').get_text(" ", strip=True)
    assert fp8.startswith("2,517 TFLOPS per chip dense")  # AWS: "2,517 MXFP8 TFLOPS"
    power = page.select_one('[data-spec="power"]')
    assert power["data-state"] == "not_published"
    assert power.select_one("dd").get_text(" ", strip=True).startswith("not published")


def test_h100_sxm_dense_bf16_with_sparse_beside_it(real_catalog: Catalog, real_client: TestClient) -> None:
    # NVIDIA H100 SXM: 989 BF16 TFLOPS non-sparse (NVIDIA's benchmarking README), 1,979 "with sparsity".
    bf16 = real_catalog.accelerator("nvidia-h100-sxm").compute(NumberFormat.BF16)
    assert bf16.figure.amount == pytest.approx(989e12)
    assert real_catalog.accelerator("nvidia-h100-sxm").sources[bf16.source].kind.value == "vendor"
    assert bf16.sparse_figure.amount == pytest.approx(1979e12)
    page = BeautifulSoup(real_client.get("/silicon/nvidia-h100-sxm").text, "lxml")
    text = page.select_one('[data-spec="compute.BF16"] dd').get_text(" ", strip=True)
    assert text.startswith("989 TFLOPS per chip dense")
    assert "1,979 TFLOPS with 2:4 sparsity" in text


def test_a100_has_no_fp8(real_catalog: Catalog) -> None:
    assert real_catalog.accelerator("nvidia-a100-sxm-80gb").compute(NumberFormat.FP8).state is State.NOT_APPLICABLE


def test_gb200_never_mixes_superchip_figures_into_per_gpu_specs(real_catalog: Catalog) -> None:
    gb200 = real_catalog.accelerator("nvidia-gb200")
    for _, claim in gb200.claims():
        if claim.state is State.PUBLISHED and claim.figure is not None:
            assert claim.basis in (Basis.CHIP, Basis.PACKAGE)
    assert "superchip" in gb200.summary.lower()


def test_every_record_is_verified_and_sourced(real_catalog: Catalog) -> None:
    for acc in real_catalog.accelerators.values():
        assert acc.verified <= dt.date.today()
        for key, claim in acc.claims():
            if claim.state in (State.PUBLISHED, State.NOT_COMPARABLE):
                assert claim.source in acc.sources, (acc.id, key)


def test_silicon_table_sorts_not_published_last_on_real_data(real_client: TestClient) -> None:
    for order in ("power", "-power"):
        page = BeautifulSoup(real_client.get(f"/silicon/?sort={order}").text, "lxml")
        tds = page.select('td[data-key="power"]')
        cells = [(td.select_one(".num") or td).get_text(strip=True) for td in tds]
        numbers = [float(c.replace(",", "")) for c in cells if c.replace(".", "").replace(",", "").isdigit()]
        assert cells[: len(numbers)] == [f"{n:,g}" for n in numbers]  # every number before any state, with separators
        assert numbers == sorted(numbers, reverse=order.startswith("-"))
        assert "not published" in cells[len(numbers) :]


EPOCH = Path(__file__).resolve().parents[2] / "shared" / "reference" / "epoch_ml_hardware.csv"
# (our id, Epoch's hardware name, our format, Epoch's column): rows where Epoch and the vendor agree.
CROSS_CHECKS = [
    ("nvidia-h100-sxm", "NVIDIA H100 SXM5 80GB", NumberFormat.BF16, "Tensor-FP16/BF16 performance (FLOP/s)"),
    ("nvidia-a100-sxm-80gb", "NVIDIA A100 SXM4 80 GB", NumberFormat.BF16, "Tensor-FP16/BF16 performance (FLOP/s)"),
    ("amd-instinct-mi300x", "AMD Instinct MI300X", NumberFormat.BF16, "Tensor-FP16/BF16 performance (FLOP/s)"),
    ("aws-trainium-3", "Amazon Trainium3", NumberFormat.BF16, "Tensor-FP16/BF16 performance (FLOP/s)"),
    ("google-tpu-v5p", "Google TPU v5p", NumberFormat.BF16, "Tensor-FP16/BF16 performance (FLOP/s)"),
]


@pytest.mark.skipif(not EPOCH.exists(), reason="Epoch reference copy not beside the checkout")
@pytest.mark.parametrize(("ident", "epoch_name", "fmt", "column"), CROSS_CHECKS)
def test_cross_check_against_epoch(real_catalog: Catalog, ident: str, epoch_name: str, fmt: NumberFormat, column: str) -> None:
    with EPOCH.open(encoding="utf-8", newline="") as handle:
        rows = {row["Hardware name"]: row for row in csv.DictReader(handle)}
    assert epoch_name in rows, f"Epoch has no row {epoch_name!r}"
    theirs = float(rows[epoch_name][column])
    ours = real_catalog.accelerator(ident).compute(fmt).figure.amount
    assert ours == pytest.approx(theirs, rel=0.01), f"{ident} {fmt}: ours {ours:g}, Epoch {theirs:g}: re-read the vendor source"


def test_a_sourcing_gap_is_not_called_vendor_withholding(real_catalog: Catalog, real_client: TestClient) -> None:
    # AMD's MI50 product page and datasheet were not in our stored copies: ours, not AMD's, gap.
    bf16 = real_catalog.accelerator("amd-instinct-mi50").compute(NumberFormat.BF16)
    assert bf16.state is State.NOT_SOURCED
    page = BeautifulSoup(real_client.get("/silicon/amd-instinct-mi50").text, "lxml")
    assert page.select_one('[data-spec="compute.BF16"] dd').get_text(" ", strip=True).startswith("not yet sourced")


def test_a_dense_figure_the_maker_does_not_print_says_whose_it_is(real_client: TestClient) -> None:
    # NVIDIA prints H200 compute only with sparsity; Yobitel's knowledge base: "989 TFLOPS BF16 dense".
    page = BeautifulSoup(real_client.get("/silicon/nvidia-h200-sxm").text, "lxml")
    assert (
        page.select_one('[data-spec="compute.BF16"] dd').get_text(" ", strip=True).startswith("989 TFLOPS (from Yobitel, not from NVIDIA)")
    )
    api = real_client.get("/api/accelerators/nvidia-h200-sxm").json()
    assert "989 TFLOPS (from Yobitel, not from NVIDIA)" in str(api)


def test_the_dataset_row_says_whose_dense_figure_it_is(real_catalog: Catalog) -> None:
    # itkb.uw.cz, values "in dense mode (without 2:4 structured sparsity …)": "FP8 (dense) ~1,979 TFLOPS"
    row = next(r for r in silicon_table.build(real_catalog).records() if r["id"] == "nvidia-h200-sxm")
    assert "1979 TFLOPS (from itkb.uw.cz, not from NVIDIA)" in row.values()
