"""States by their definitions: not published needs the maker's own document; a measured power is
not a rating; an interconnect text that states a bandwidth needs the bandwidth cell."""

from __future__ import annotations

from pathlib import Path

from computeatlas.catalog import Catalog, check, load
from computeatlas.core.claims import NumberFormat
from computeatlas.core.presentation import present
from computeatlas.core.states import State
from computeatlas.silicon.derive import compute_per_watt

from .conftest import TODAY, make_record, write_data

# Cerebras WSE-2's power as it read before: "not published", resting on launch press coverage.
LAUNCH_PRESS = {
    "title": "Cerebras unveils WSE-2",
    "url": "https://www.anandtech.com/show/16626/cerebras-unveils-wafer-scale-engine-two-wse2",
    "publisher": "AnandTech",
    "kind": "press",
    "accessed": "2026-11-01",
}
# AMD's CDNA 5 white paper as the MI455X record reads it: a Markdown conversion on GitHub.
CONVERSION = {
    "title": "Introducing AMD CDNA 5 Architecture white paper",
    "url": "https://github.com/kuhar/amdgpu-isa-manuals/blob/0266938/cdna5/whitepaper.md",
    "publisher": "Acme",
    "kind": "vendor",
    "copy_form": "conversion",
    "copy_of": "https://acme.example/cdna5-whitepaper.pdf",
    "accessed": "2026-11-01",
}


def problems_for(tmp_path: Path, *records: dict) -> list[str]:
    _, problems = check(write_data(tmp_path / "data", records), today=TODAY)
    return [str(p) for p in problems]


def test_press_alone_cannot_make_a_figure_not_published(tmp_path: Path) -> None:
    record = make_record(
        "acme-a1",
        sources={**make_record("x")["sources"], "press": LAUNCH_PRESS},
        specs__power={"state": "not_published", "source": "press", "note": "No WSE-2 power figure in the launch coverage we read."},
    )
    (problem,) = problems_for(tmp_path, record)
    assert "power: 'not_published' means the maker's own document lists the part's specifications and omits this one" in problem
    assert "not a press source" in problem and "the state is 'not_sourced'" in problem


def test_not_published_names_the_makers_document(tmp_path: Path) -> None:
    record = make_record("acme-a1", specs__power={"state": "not_published", "note": "Acme withholds it."})
    (problem,) = problems_for(tmp_path, record)
    assert "power: 'not_published' means the maker's own document" in problem and "not a " not in problem.split("cite it")[1][:60]


def test_a_conversion_cannot_show_that_the_maker_omits_a_figure(tmp_path: Path) -> None:
    record = make_record(
        "acme-a1",
        sources={**make_record("x")["sources"], "cdna5-wp": CONVERSION},
        specs__power={"state": "not_published", "source": "cdna5-wp", "note": "The white paper gives no per-GPU power."},
    )
    (problem,) = problems_for(tmp_path, record)
    assert problem.startswith("data/accelerators/acme-a1.toml: specs.power.source: 'not_published' rests on github.com/kuhar's conversion")


def test_the_same_cell_as_not_sourced_is_valid(tmp_path: Path) -> None:
    record = make_record(
        "acme-a1",
        sources={**make_record("x")["sources"], "press": LAUNCH_PRESS},
        specs__power={"state": "not_sourced", "source": "press", "note": "No WSE-2 power figure in the launch coverage we read."},
    )
    assert problems_for(tmp_path, record) == []


def test_a_measured_power_is_shown_as_measured_and_never_divided_as_a_tdp(tmp_path: Path) -> None:
    # Google's TPU v4 page: "Measured min/mean/max power 90/170/192 W"
    measured = {"state": "published", "value": "192 W", "measured": True, "basis": "chip", "source": "sheet"}
    catalog = load(write_data(tmp_path / "data", [make_record("acme-a1", specs__power=measured)]), today=TODAY)
    acc = catalog.accelerators["acme-a1"]
    shown = present(acc.specs.power, unit="W", what="power")
    assert (shown.state, shown.display, shown.amount, shown.stated_amount) == (State.PUBLISHED, "192 W (measured, not a TDP)", None, 192.0)
    assert acc.specs.power.comparable is False
    per_watt = compute_per_watt(acc, NumberFormat.BF16)
    assert (per_watt.state, per_watt.value) == (State.NOT_COMPARABLE, None)
    assert per_watt.reason == "power: a measured power, not a rating, so never divided as a TDP"


def test_measured_needs_a_published_value(tmp_path: Path) -> None:
    record = make_record("acme-a1", specs__power={"state": "not_published", "measured": True, "source": "sheet", "note": "x"})
    (problem,) = problems_for(tmp_path, record)
    assert "measured = true marks a published power figure" in problem


def test_interconnect_text_stating_a_bandwidth_needs_the_bandwidth(tmp_path: Path) -> None:
    # NVIDIA GH200's interconnect as it read before: the figure in the words, none in the cell
    gh200 = {
        "state": "published",
        "text": "NVLink-C2C to the Grace CPU (900 GB/s CPU-to-GPU, per NVIDIA's datasheet); PCIe Gen5 for networking",
        "source": "sheet",
    }
    nic = {**gh200, "text": "scale-out through a JetStream Ethernet NIC (2x 200 Gb/s or 1x 400 Gb/s)"}
    a1, a2 = make_record("acme-a1", specs__interconnect=gh200), make_record("acme-a2", specs__interconnect=nic)
    problems = problems_for(tmp_path, a1, a2)
    assert len(problems) == 2
    assert "interconnect text states a bandwidth ('900 GB/s') while the bandwidth cell has none" in problems[0]
    assert "('200 Gb/s')" in problems[1]
    fine = {**gh200, "text": "Infinity Fabric, 25 GT/s per link; PCIe Gen 4 x16"}  # a transfer rate is not a bandwidth
    assert problems_for(tmp_path / "ok", make_record("acme-a1", specs__interconnect=fine)) == []


def test_real_not_published_cells_all_rest_on_the_makers_document(real_catalog: Catalog) -> None:
    kinds = set()
    for acc in real_catalog.accelerators.values():
        maker = real_catalog.vendors[acc.vendor]
        for _, claim in acc.claims():
            if claim.state is State.NOT_PUBLISHED:
                source = acc.sources[claim.source]
                kinds.add((source.kind.value, maker.read_at(source).value, source.copy_form))
    assert kinds <= {("vendor", "maker_hosted", None), ("vendor", "maker_copy", "verbatim")}
    ascend = real_catalog.accelerators["huawei-ascend-910c"]
    assert ascend.compute(NumberFormat.BF16).state is State.NOT_SOURCED  # a paper and press estimates, no Huawei figure
    assert real_catalog.accelerators["cerebras-wse-3"].specs.power.state is State.NOT_SOURCED
    gc200 = real_catalog.accelerators["graphcore-gc200"]
    assert (gc200.specs.power.state, gc200.compute(NumberFormat.FP8).state) == (State.NOT_SOURCED, State.NOT_SOURCED)


def test_real_tpu_v3_and_v4_power_is_measured(real_catalog: Catalog) -> None:
    # Google: "Measured min/mean/max power 123/220/262 W" (v3) and "90/170/192 W" (v4)
    for ident, watts in (("google-tpu-v3", "262 W"), ("google-tpu-v4", "192 W")):
        tpu = real_catalog.accelerators[ident]
        assert (tpu.specs.power.value, tpu.specs.power.measured, tpu.specs.power.comparable) == (watts, True, False)
        assert compute_per_watt(tpu, NumberFormat.BF16).state is State.NOT_COMPARABLE


BEFORE_FP4 = (
    # AMD: CDNA1-3 and RDNA3-4 (AMD's precision-support page: float4 only on CDNA4)
    "amd-instinct-mi100", "amd-instinct-mi210", "amd-instinct-mi250", "amd-instinct-mi250x", "amd-instinct-mi300a",
    "amd-instinct-mi300x", "amd-instinct-mi325x", "amd-radeon-pro-w7900", "amd-radeon-rx-7900-xtx", "amd-radeon-ai-pro-r9700",
)  # fmt: skip
BLACKWELL = (
    "nvidia-b100",
    "nvidia-b200",
    "nvidia-b300",
    "nvidia-gb200",
    "nvidia-gb300",
    "nvidia-geforce-rtx-5090",
    "nvidia-rtx-pro-6000-blackwell",
)


def test_real_fp4_is_not_applicable_before_blackwell_and_cdna4(real_catalog: Catalog) -> None:
    nvidia_before = [i for i, a in real_catalog.accelerators.items() if a.vendor == "nvidia" and not i.startswith(BLACKWELL)]
    assert "nvidia-h100-sxm" in nvidia_before and "nvidia-b200" not in nvidia_before
    for ident in (*BEFORE_FP4, *nvidia_before):
        fp4 = real_catalog.accelerators[ident].compute(NumberFormat.FP4)
        assert fp4 is not None and fp4.state is State.NOT_APPLICABLE, ident
