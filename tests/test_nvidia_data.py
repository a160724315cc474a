"""NVIDIA records in the bundled data: figures a person can check against NVIDIA's documents.

Each expected value was read from the source the record cites: NVIDIA's Blackwell and GH200
datasheets (copies hosted in a public repository), NVIDIA's DGX Cloud benchmarking README,
NVIDIA's MLPerf system descriptions, NVIDIA's CUDA GPU list and the Transformer Engine
support matrix; and one Intel Gaudi figure from Habana Labs' MLPerf system description.
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
from computeatlas.core.provenance import ReadAt
from computeatlas.core.states import State

FP4, FP8, BF16 = NumberFormat.FP4, NumberFormat.FP8, NumberFormat.BF16


def test_gh200_is_recorded_per_superchip_and_never_as_one_gpu(real_catalog: Catalog) -> None:
    for ident in ("nvidia-gh200-96gb", "nvidia-gh200-144gb"):
        gh200 = real_catalog.accelerator(ident)
        for key, claim in gh200.claims():
            if claim.figure is not None:  # no superchip figure may pose as a per-accelerator one
                assert claim.state is State.NOT_COMPARABLE and claim.basis is Basis.SUPERCHIP, (ident, key)
        fp8 = gh200.compute(FP8)
        assert fp8.state is State.NOT_COMPARABLE
        assert "3,958 teraFLOPS* | 1,979 teraFLOPS" in fp8.published_text  # datasheet: sparse | dense
        assert gh200.sources[fp8.source].kind is SourceKind.VENDOR
    assert "96GB HBM3 | 144GB HBM3e" in real_catalog.accelerator("nvidia-gh200-144gb").specs.memory.published_text


def test_gb300_dense_rates_are_nvidias_non_sparse_figures(real_catalog: Catalog) -> None:
    gb300 = real_catalog.accelerator("nvidia-gb300")
    assert gb300.compute(FP4).figure.amount == pytest.approx(14.7e15)
    assert gb300.compute(FP8).figure.amount == pytest.approx(4.9e15)
    assert gb300.compute(BF16).figure.amount == pytest.approx(2.45e15)
    assert gb300.specs.memory.figure.amount == pytest.approx(279e9)
    assert gb300.specs.power.figure.amount == pytest.approx(1400)
    assert all(gb300.sources[c.source].kind is SourceKind.VENDOR for _, c in gb300.claims() if c.state is State.PUBLISHED)
    # GB200: NVIDIA's own README gives 2,450 TFLOPS BF16 non-sparse, and it wins over the datasheet, which we read
    # only from a third party's copy (5 PFLOPS with sparsity, 2.5 dense); the copy's figure is kept beside it.
    gb200 = real_catalog.accelerator("nvidia-gb200")
    gb200_bf16 = gb200.compute(BF16)
    assert gb200_bf16.figure.amount == pytest.approx(2.45e15) and gb200_bf16.sparse_figure is None
    assert gb200.sources[gb200_bf16.source].url.startswith("https://github.com/NVIDIA/dgxc-benchmarking/")
    assert [f.amount for f in gb200_bf16.other_figures] == pytest.approx([2.25e15, 2.5e15])
    assert gb200.compute(FP8).figure.amount == pytest.approx(4.9e15)


def test_b200_dense_is_half_the_datasheets_sparse_figure(real_catalog: Catalog) -> None:
    b200 = real_catalog.accelerator("nvidia-b200")
    fp8 = b200.compute(FP8)
    assert fp8.figure.amount == pytest.approx(4.5e15) and fp8.sparse_figure.amount == pytest.approx(9e15)
    assert b200.sources[fp8.source].kind is SourceKind.VENDOR
    assert b200.specs.memory_bandwidth.figure.amount == pytest.approx(7.7e12)
    assert b200.compute(NumberFormat.FP64).figure.amount == pytest.approx(37e12)  # datasheet; Lockwood's 40 kept beside it
    assert [f.amount for f in b200.compute(NumberFormat.FP64).other_figures] == pytest.approx([40e12])


def test_a_sparse_only_tensor_rate_is_not_halved_by_us(real_catalog: Catalog) -> None:
    ada = real_catalog.accelerator("nvidia-rtx-6000-ada")
    fp8 = ada.compute(FP8)
    assert fp8.state is State.NOT_COMPARABLE and fp8.figure is None
    assert "1457.0 TFLOPS" in fp8.published_text and "sparsity" in fp8.published_text
    assert ada.compute(BF16).state is State.NOT_SOURCED
    pro = real_catalog.accelerator("nvidia-rtx-pro-6000-blackwell-workstation")
    assert pro.compute(FP4).state is State.NOT_COMPARABLE and "4000 AI TOPS" in pro.compute(FP4).published_text
    assert pro.specs.memory_bandwidth.figure.amount == pytest.approx(1792e9)


def test_formats_older_architectures_lack_are_not_applicable(real_catalog: Catalog) -> None:
    for ident in ("nvidia-v100-sxm2-16gb", "nvidia-v100-sxm3-32gb"):
        v100 = real_catalog.accelerator(ident)
        for fmt in (FP8, BF16):  # Transformer Engine: FP8 needs compute capability 8.9, BF16 8.0; Volta is 7.0
            claim = v100.compute(fmt)
            assert claim.state is State.NOT_APPLICABLE and v100.sources[claim.source].kind is SourceKind.VENDOR
    assert real_catalog.accelerator("nvidia-a30").compute(FP8).state is State.NOT_APPLICABLE
    assert real_catalog.accelerator("nvidia-h100-nvl").compute(FP4).state is State.NOT_APPLICABLE


def test_a10_memory_keeps_both_sources(real_catalog: Catalog) -> None:
    memory = real_catalog.accelerator("nvidia-a10").specs.memory
    assert memory.value == "24 GiB" and memory.figure.amount == pytest.approx(24 * 2**30)
    assert [f.amount for f in memory.other_figures] == pytest.approx([16e9])  # NVIDIA's MLPerf form


def test_gh200_page_shows_the_superchip_words_not_a_number(real_client: TestClient) -> None:
    page = BeautifulSoup(real_client.get("/silicon/nvidia-gh200-144gb").text, "lxml")
    memory = page.select_one('[data-spec="memory"]')
    assert memory["data-state"] == "not_comparable"
    assert "144GB HBM3e" in memory.select_one("dd").get_text(" ", strip=True)


def test_figures_moved_to_nvidias_own_documents(real_catalog: Catalog) -> None:
    # TensorRT-LLM's H200 launch note: "4.8TB/s of memory bandwidth"; LaunchPad H100 MIG lab:
    # "a memory bandwidth of 2 TB/s" (PCIe H100); MIG user guide: A100-PCIE 80GB.
    expected = {
        ("nvidia-h200-sxm", "memory_bandwidth"): (4.8e12, "nvidia-trtllm-h200-launch"),
        ("nvidia-h100-pcie", "memory_bandwidth"): (2e12, "nvidia-launchpad-h100-mig"),
        ("nvidia-a100-pcie-80gb", "memory"): (80e9, "nvidia-mig-supported-gpus"),
        # Hopper In-Depth blog, Table 3, A100 (SXM4, 40 GB): "Memory Bandwidth 1555 GB/sec".
        ("nvidia-a100-sxm-40gb", "memory_bandwidth"): (1555e9, "nvidia-hopper-in-depth"),
        # Ampere tuning guide: "from 900 GB/s on Volta V100".
        ("nvidia-v100-sxm2-16gb", "memory_bandwidth"): (900e9, "nvidia-ampere-tuning-guide"),
    }
    for (ident, field), (amount, source) in expected.items():
        part = real_catalog.accelerator(ident)
        claim = getattr(part.specs, field)
        assert claim.figure.amount == pytest.approx(amount) and claim.source == source, (ident, field)
        assert part.sources[source].kind is SourceKind.VENDOR
    a100_bf16 = real_catalog.accelerator("nvidia-a100-sxm-40gb").compute(BF16)  # Table 3: "312/624", 624 with sparsity
    assert a100_bf16.figure.amount == pytest.approx(312e12) and a100_bf16.sparse_figure.amount == pytest.approx(624e12)
    assert a100_bf16.source == "nvidia-hopper-in-depth"
    # The guide names no board, so the SXM3 module keeps its bandwidth open.
    assert real_catalog.accelerator("nvidia-v100-sxm3-32gb").specs.memory_bandwidth.state is State.NOT_SOURCED
    # No NVIDIA document we could read states the H200's dense tensor rate; never H100's copied, never halved by us:
    # the dense figures are independent sources' in so many words (Yobitel: "989 TFLOPS BF16 dense";
    # itkb.uw.cz, values "in dense mode": "FP8 (dense) ~1,979 TFLOPS"), marked independent_dense.
    h200 = real_catalog.accelerator("nvidia-h200-sxm")
    fp8, bf16 = h200.compute(FP8), h200.compute(BF16)
    assert fp8.independent_dense and fp8.figure is not None and fp8.figure.amount == 1979e12
    assert bf16.independent_dense and bf16.figure is not None and bf16.figure.amount == 989e12
    assert {h200.sources[c.source or ""].kind.value for c in (fp8, bf16)} == {"independent"}
    assert bf16.attribution == "from Yobitel, not from NVIDIA"


def test_new_parts_record_only_what_nvidia_states(real_catalog: Catalog) -> None:
    h20 = real_catalog.accelerator("nvidia-h20")
    assert h20.specs.memory.figure.amount == pytest.approx(96e9)  # MIG guide: "H20 ... 96GB"
    assert real_catalog.accelerator("nvidia-h200-nvl").specs.memory.figure.amount == pytest.approx(141e9)
    for ident, gb in (("nvidia-geforce-rtx-4090", 24e9), ("nvidia-geforce-rtx-5090", 32e9)):  # NIM GPU table
        memory = real_catalog.accelerator(ident).specs.memory
        assert memory.figure.amount == pytest.approx(gb) and memory.source == "nvidia-nim-llm-gpus", ident
    for field in ("memory_bandwidth", "power", "interconnect"):
        assert getattr(h20.specs, field).state is State.NOT_SOURCED and getattr(h20.specs, field).note
    ampere = ("nvidia-geforce-rtx-3090", "nvidia-rtx-a6000", "nvidia-rtx-a5000", "nvidia-rtx-a4000", "nvidia-a16", "nvidia-a2")
    for ident in ampere:  # compute capability 8.6: Transformer Engine's matrix puts FP8 at 8.9 and up
        assert real_catalog.accelerator(ident).compute(FP8).state is State.NOT_APPLICABLE, ident
    for ident in ("nvidia-geforce-rtx-4090", "nvidia-geforce-rtx-5090", "nvidia-rtx-4000-ada"):  # FP8 exists, rate unread
        assert real_catalog.accelerator(ident).compute(FP8).state is State.NOT_SOURCED, ident
    for ident in (*ampere, "nvidia-geforce-rtx-4090", "nvidia-geforce-rtx-5090", "nvidia-rtx-4000-ada", "nvidia-h20", "nvidia-h200-nvl"):
        part = real_catalog.accelerator(ident)
        published = [c for _, c in part.claims() if c.state is State.PUBLISHED]
        assert published and all(part.sources[c.source].kind is SourceKind.VENDOR for c in published), ident


def test_new_names_resolve_to_one_part_each(real_catalog: Catalog) -> None:
    from computeatlas.silicon.resolve import AmbiguousName, resolve_id

    assert resolve_id(real_catalog, "RTX 4090") == "nvidia-geforce-rtx-4090"
    assert resolve_id(real_catalog, "H200 NVL") == "nvidia-h200-nvl"
    assert resolve_id(real_catalog, "H200 SXM") == "nvidia-h200-sxm"
    # NVIDIA's H200 datasheet covers two forms (SXM and NVL): "H200" alone names neither.
    with pytest.raises(AmbiguousName) as exc:
        resolve_id(real_catalog, "H200")
    assert {c.id for c in exc.value.options} == {"nvidia-h200-sxm", "nvidia-h200-nvl"}
    assert resolve_id(real_catalog, "RTX A6000") == "nvidia-rtx-a6000"


def test_h20_page_shows_memory_and_says_what_is_not_yet_sourced(real_client: TestClient) -> None:
    page = BeautifulSoup(real_client.get("/silicon/nvidia-h20").text, "lxml")
    memory = page.select_one('[data-spec="memory"]')
    assert memory["data-state"] == "published" and "96" in memory.select_one("dd").get_text(" ", strip=True)
    bandwidth = page.select_one('[data-spec="memory_bandwidth"]')
    assert bandwidth["data-state"] == "not_sourced"
    assert "not yet sourced" in bandwidth.get_text(" ", strip=True).lower()


def test_rtx_5000_ada_follows_its_datasheet(real_catalog: Catalog) -> None:
    card = real_catalog.accelerator("nvidia-rtx-5000-ada")
    assert card.specs.memory.figure.amount == pytest.approx(32e9)
    assert card.specs.memory_bandwidth.figure.amount == pytest.approx(576e9)
    assert card.specs.power.figure.amount == pytest.approx(250)
    fp8 = card.compute(FP8)  # "1044.4 TFLOPS", footnote 4: effective FP8 using sparsity; never halved by us
    assert fp8.state is State.NOT_COMPARABLE and fp8.figure is None and "1044.4" in fp8.published_text
    assert card.compute(BF16).state is State.NOT_SOURCED


def test_rtx_pro_6000_editions_are_two_parts_under_one_family_word(real_catalog: Catalog) -> None:
    from computeatlas.silicon.resolve import resolve

    server = real_catalog.accelerator("nvidia-rtx-pro-6000-blackwell-server")
    assert server.specs.memory.figure.amount == pytest.approx(96e9)  # MIG guide: "RTX PRO 6000 Blackwell Server Edition ... 96GB"
    assert server.specs.power.state is State.NOT_SOURCED  # the Workstation Edition's 600 W is not copied across
    found = resolve(real_catalog, "RTX PRO 6000")
    assert found.status == "ambiguous"
    assert {c.id for c in found.candidates} == {"nvidia-rtx-pro-6000-blackwell-server", "nvidia-rtx-pro-6000-blackwell-workstation"}


@pytest.mark.parametrize("ident", ["nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-l40s", "nvidia-a100-sxm-80gb", "nvidia-t4"])
def test_parts_before_blackwell_have_no_fp4(real_catalog, ident: str) -> None:
    # NVIDIA's Transformer Engine support matrix: NVFP4 "No" for Ampere, Ada and Hopper; only Blackwell has it.
    fp4 = real_catalog.accelerators[ident].compute(NumberFormat.FP4)
    assert fp4 is not None and fp4.state is State.NOT_APPLICABLE and fp4.source == "te-support-matrix"
    assert real_catalog.accelerators["nvidia-b200"].compute(NumberFormat.FP4).state is State.PUBLISHED


def test_figures_moved_to_the_makers_own_hosts_are_read_there(real_catalog: Catalog) -> None:
    moved = [
        ("nvidia-b200", "memory_bandwidth", 7.7e12),  # DGX Cloud README: 'Memory bandwidth 7.7 TB/s per GPU'
        ("nvidia-b200", "power", 1000),  # 'TDP 1000W'
        ("nvidia-gb200", "memory", 186e9),  # '186 GB HBM3e per GPU'
        ("nvidia-gb200", "memory_bandwidth", 8e12),  # 'Memory bandwidth 8 TB/s per GPU'
        ("intel-gaudi", "memory", 32e9),  # Habana Labs' MLPerf Training v1.0 system: '32 GB', 'HBM2'
    ]
    for ident, field, amount in moved:
        part = real_catalog.accelerator(ident)
        claim = getattr(part.specs, field)
        assert claim.figure.amount == pytest.approx(amount), (ident, field)
        assert real_catalog.vendor_of(part).read_at(part.sources[claim.source]) is ReadAt.MAKER_HOSTED, (ident, field)
    # Intel's MLPerf submitter folders (Habana Labs is Intel's) count as Intel's hosts; another submitter's do not.
    intel = real_catalog.vendors["intel"]
    assert intel.owns("https://github.com/mlcommons/inference_results_v4.0/blob/3c4a1cf/closed/Intel-HabanaLabs/systems/HLS-Gaudi2-PT.json")
    assert not intel.owns("https://github.com/mlcommons/training_results_v3.1/blob/abc/Supermicro/systems/gaudi2.json")
