"""The classic mistakes: each rule, with a real-looking bad record in a data folder of its own.

Errors fail ``computeatlas validate``; review flags are listed by ``validate --review`` and
never fail it. Every finding names the file, the field and the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from computeatlas.catalog import check, load
from computeatlas.cli import app as cli
from computeatlas.silicon.checks import BOUNDS, BOUNDS_BY_FORM_FACTOR, review
from tests.conftest import CliRunner

from .conftest import TODAY, make_record, write_data

FILE = "data/accelerators/acme-x.toml"


def _published(value: str, **extra: Any) -> dict[str, Any]:
    return {"state": "published", "value": value, "basis": "chip", "source": "sheet", **extra}


def problems_for(tmp_path: Path, *records: dict) -> list[str]:
    _, problems = check(write_data(tmp_path / "data", records), today=TODAY)
    return [str(p) for p in problems]


def flags_for(tmp_path: Path, *records: dict) -> list[str]:
    return [str(f) for f in review(load(write_data(tmp_path / "data", records), today=TODAY))]


# --- dense, sparse and the pattern ---------------------------------------------------------


def test_a_published_compute_figure_must_say_it_is_dense(tmp_path: Path) -> None:
    # H100 SXM's FP8 as a contributor might copy it from the datasheet's headline (the sparse figure)
    unsaid = _published("3958 TFLOPS")
    found = problems_for(tmp_path, make_record("acme-x", specs__compute__FP8=unsaid))
    assert len(found) == 1
    assert found[0].startswith(f"{FILE}: specs.compute.FP8: a published compute figure must say what it counts: add sparsity = 'dense'")


def test_a_sparse_figure_names_its_pattern(tmp_path: Path) -> None:
    no_pattern = _published("1979 TFLOPS", sparsity="dense", sparse="3958 TFLOPS")
    found = problems_for(tmp_path, make_record("acme-x", specs__compute__FP8=no_pattern))
    assert found == [
        f"{FILE}: specs.compute.FP8.sparse: sparse figure '3958 TFLOPS' needs its sparse_pattern (e.g. '2:4', as the vendor states it)"
    ]


def test_a_pattern_without_a_sparse_figure(tmp_path: Path) -> None:
    stray = _published("1979 TFLOPS", sparsity="dense", sparse_pattern="2:4")
    found = problems_for(tmp_path, make_record("acme-x", specs__compute__FP8=stray))
    assert found == [f"{FILE}: specs.compute.FP8: sparse_pattern '2:4' without a sparse figure"]


# --- link bandwidth: direction, bits and bytes ----------------------------------------------


def test_a_link_bandwidth_says_what_it_counts(tmp_path: Path) -> None:
    # Gaudi 3's "1200 GB/s" is bidirectional in Intel's table; copied without saying so it could be read as one way
    unsaid = {"state": "published", "text": "24 x 200 GbE RoCE", "value": "1200 GB/s", "basis": "chip", "source": "sheet"}
    found = problems_for(tmp_path, make_record("acme-x", specs__interconnect=unsaid))
    assert len(found) == 1
    assert found[0].startswith(f"{FILE}: specs.interconnect.value: interconnect bandwidth '1200 GB/s' needs its direction")


def test_a_direction_without_a_bandwidth(tmp_path: Path) -> None:
    stray = {"state": "published", "text": "PCIe Gen5 x16", "direction": "bidirectional", "basis": "chip", "source": "sheet"}
    found = problems_for(tmp_path, make_record("acme-x", specs__interconnect=stray))
    assert found == [f"{FILE}: specs.interconnect: direction 'bidirectional' without a bandwidth value"]


def test_a_link_in_gigabits_is_read_as_bits(tmp_path: Path) -> None:
    # Maia 100's twelve 400 Gb/s Ethernet ports: 4.8 Tb/s is 600 GB/s
    link = {"state": "published", "text": "12 x 400GbE", "value": "4.8 Tb/s", "direction": "not_stated", "basis": "chip", "source": "sheet"}
    catalog = load(write_data(tmp_path / "data", [make_record("acme-x", specs__interconnect=link)]), today=TODAY)
    assert catalog.accelerators["acme-x"].specs.interconnect.figure.amount == 600e9


def test_sparsity_may_only_say_dense(tmp_path: Path) -> None:
    sparse = _published("3958 TFLOPS", sparsity="sparse")
    found = problems_for(tmp_path, make_record("acme-x", specs__compute__FP8=sparse))
    assert len(found) == 1 and found[0].startswith(f"{FILE}: specs.compute.FP8.sparsity: Input should be 'dense'")


def test_a_dense_figure_equal_to_its_sparse_figure_is_an_error(tmp_path: Path) -> None:
    same = _published("3958 TFLOPS", sparsity="dense", sparse="3958 TFLOPS", sparse_pattern="2:4")
    found = problems_for(tmp_path, make_record("acme-x", specs__compute__FP8=same))
    assert found == [
        (
            f"{FILE}: specs.compute.FP8.value: the dense figure 3958 TFLOPS equals the sparse figure 3958 TFLOPS: is a sparse "
            "figure stored as dense? (record only the sparse figure in 'sparse', with its pattern)"
        )
    ]


def _press_record(note: str | None) -> dict[str, Any]:
    press = {"title": "Launch coverage", "url": "https://press.example/x", "publisher": "Press", "kind": "press", "accessed": "2026-11-01"}
    other = {"value": "3958 TFLOPS", "source": "press"} | ({"note": note} if note else {})
    fp8 = _published(
        "1979 TFLOPS",
        sparsity="dense",
        sparse="3958 TFLOPS",
        sparse_pattern="2:4",
        primary_reason="The datasheet is the formal specification.",
        other_claims=[other],
    )
    return make_record("acme-x", sources={**make_record("x")["sources"], "press": press}, specs__compute__FP8=fp8)


def test_another_sources_figure_equal_to_our_sparse_figure_is_flagged(tmp_path: Path) -> None:
    assert problems_for(tmp_path / "a", _press_record(None)) == []  # not an error …
    assert flags_for(tmp_path / "b", _press_record(None)) == [  # … a flag for a person
        (
            f"{FILE}: specs.compute.FP8.other_claims.0.value: another source's figure 3958 TFLOPS equals our sparse figure "
            "3958 TFLOPS: did it quote the sparse figure as dense? (say so in its note)"
        )
    ]
    assert flags_for(tmp_path / "c", _press_record("The press quoted the sparse figure.")) == []  # explained


# --- plausible bounds ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "field", "text"),
    [
        ({"specs__memory": _published("80 TB", memory_type="HBM3")}, "specs.memory.value", "80 TB"),  # TB for GB
        ({"specs__memory": _published("64 MB", memory_type="SRAM")}, "specs.memory.value", "64 MB"),
        ({"specs__memory_bandwidth": _published("3.35 GB/s")}, "specs.memory_bandwidth.value", "3.35 GB/s"),
        ({"specs__memory_bandwidth": _published("130 TB/s")}, "specs.memory_bandwidth.value", "130 TB/s"),  # a rack's NVLink
        ({"specs__compute__FP8": _published("1979 PFLOPS", sparsity="dense")}, "specs.compute.FP8.value", "1979 PFLOPS"),
        ({"specs__compute__BF16": _published("989.5 GFLOPS", sparsity="dense")}, "specs.compute.BF16.value", "989.5 GFLOPS"),
        ({"specs__power": _published("700 kW")}, "specs.power.value", "700 kW"),
        ({"specs__power": _published("0.7 W")}, "specs.power.value", "0.7 W"),
    ],
)
def test_a_figure_outside_plausible_bounds_is_an_error(tmp_path: Path, override: dict, field: str, text: str) -> None:
    found = problems_for(tmp_path, make_record("acme-x", **override))
    assert len(found) == 1, found
    assert found[0].startswith(f"{FILE}: {field}: {text} is outside the plausible range per accelerator (")


def test_another_claims_figure_is_bounded_too(tmp_path: Path) -> None:
    disputed = _published("80 GB", memory_type="HBM3", primary_reason="Datasheet.", other_claims=[{"value": "80 TB", "source": "sheet"}])
    found = problems_for(tmp_path, make_record("acme-x", specs__memory=disputed))
    assert len(found) == 1 and found[0].startswith(f"{FILE}: specs.memory.other_claims.0.value: 80 TB is outside")


def test_bounds_are_the_documented_defaults() -> None:
    assert {k: (b.low, b.high) for k, b in BOUNDS.items()} == {
        "memory": (0.1e9, 10e12),
        "memory_bandwidth": (10e9, 100e12),
        "compute": (1e12, 100e15),
        "power": (5, 30e3),
    }


def test_a_wafer_scale_engine_is_bounded_per_wafer(tmp_path: Path) -> None:
    # Cerebras WSE-3: 44 GB of on-wafer SRAM at 21 PB/s, one chip the size of a wafer
    sram = {"specs__memory": _published("44 GB", memory_type="SRAM"), "specs__memory_bandwidth": _published("21 PB/s")}
    wafer = make_record("acme-x", form_factor="wafer-scale engine", **sram)
    assert "wafer-scale engine" in BOUNDS_BY_FORM_FACTOR
    assert problems_for(tmp_path / "wafer", wafer) == []
    card = problems_for(tmp_path / "card", make_record("acme-x", **sram))
    assert len(card) == 1 and card[0].startswith(
        f"{FILE}: specs.memory_bandwidth.value: 21 PB/s is outside the plausible range per accelerator"
    )
    beyond = make_record("acme-x", form_factor="wafer-scale engine", specs__memory_bandwidth=_published("210 PB/s"))
    found = problems_for(tmp_path / "beyond", beyond)
    assert len(found) == 1 and "outside the plausible range per wafer (10 GB/s – 100 PB/s" in found[0]


# --- one product, two ids -----------------------------------------------------------------


def test_the_same_name_under_two_ids_is_an_error(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-h100", name="Acme H100"), make_record("acme-x", name="ACME h100"))
    assert found == [
        (
            f"{FILE}: name: 'ACME h100' also names acme-h100 (name 'Acme H100'): the same product under two ids? "
            "A word that covers several parts goes in family_aliases of each"
        )
    ]


def test_an_alias_that_is_another_parts_name_or_alias_is_an_error(tmp_path: Path) -> None:
    found = problems_for(
        tmp_path,
        make_record("acme-a1", name="Acme A1", aliases=["A1", "A1 SXM"]),
        make_record("acme-x", name="Acme X", aliases=["acme a1", "a1-sxm"]),  # case and separators ignored
    )
    assert [f.split(": ")[1] for f in found] == ["aliases", "aliases"]
    assert "'acme a1' also names acme-a1 (name 'Acme A1')" in found[0]
    assert "'a1-sxm' also names acme-a1 (aliases 'A1 SXM')" in found[1]


def test_an_invisible_character_does_not_make_an_alias_new(tmp_path: Path) -> None:
    found = problems_for(
        tmp_path,
        make_record("acme-a1", name="Acme A1", aliases=["A1"]),
        make_record("acme-x", name="Acme X", aliases=["A1\u200b", "Ａ１ SXM"]),  # zero-width space; full-width letters
    )
    assert [f.split(": ")[1] for f in found] == ["aliases"]
    assert "also names acme-a1 (aliases 'A1')" in found[0]


def test_a_part_number_in_two_records_is_an_error(tmp_path: Path) -> None:
    found = problems_for(
        tmp_path,
        make_record("acme-a1", name="Acme A1", part_numbers=["900-21010-0000-000"]),
        make_record("acme-x", name="Acme X", part_numbers=["900-21010-0000-000"]),
    )
    assert found == [
        (
            f"{FILE}: part_numbers: '900-21010-0000-000' also names acme-a1 (part_numbers '900-21010-0000-000'): "
            "the same product under two ids? A word that covers several parts goes in family_aliases of each"
        )
    ]


def test_a_family_alias_may_be_shared_but_never_be_a_parts_own_name(tmp_path: Path) -> None:
    shared = [
        make_record("acme-a1", name="Acme A1", family_aliases=["A-Series"]),
        make_record("acme-a2", name="Acme A2", family_aliases=["A-Series"]),
    ]
    assert problems_for(tmp_path / "ok", *shared) == []
    found = problems_for(tmp_path / "bad", *shared, make_record("acme-x", name="Acme X", aliases=["A Series"]))
    assert len(found) == 1 and found[0].startswith(f"{FILE}: aliases: 'A Series' also names acme-a1 (family_aliases 'A-Series')")


def test_the_real_data_has_no_product_under_two_ids(real_catalog) -> None:
    h100 = [a.id for a in real_catalog.accelerators.values() if "H100" in a.family_aliases]
    assert sorted(h100) == ["nvidia-h100-nvl", "nvidia-h100-pcie", "nvidia-h100-sxm"]


# --- a newer generation below its predecessor ------------------------------------------------


def _generations() -> list[dict[str, Any]]:
    return [
        make_record("acme-a1", name="Acme A1", generation=1),
        make_record(
            "acme-a2",
            name="Acme A2",
            generation=2,
            predecessor="acme-a1",
            specs__memory=_published("8 GB", memory_type="HBM3e"),  # 80 GB written as 8 GB
            specs__compute__BF16=_published("98.95 TFLOPS", sparsity="dense", sparse="197.9 TFLOPS", sparse_pattern="2:4"),
        ),
    ]


def test_a_newer_generation_below_its_predecessor_is_flagged_not_an_error(tmp_path: Path) -> None:
    assert problems_for(tmp_path / "a", *_generations()) == []
    assert flags_for(tmp_path / "b", *_generations()) == [
        (
            "data/accelerators/acme-a2.toml: specs.memory: 8 GB is below its predecessor acme-a1 (80 GB): right for this part, "
            "or a unit, basis or sparsity slip?"
        ),
        (
            "data/accelerators/acme-a2.toml: specs.compute.BF16: 98.95 TFLOPS is below its predecessor acme-a1 (989.5 TFLOPS): "
            "right for this part, or a unit, basis or sparsity slip?"
        ),
    ]


def test_validate_review_lists_flags_and_still_exits_zero(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", _generations())
    plain = CliRunner().invoke(cli, ["validate", "--data", str(folder)])
    assert plain.exit_code == 0 and "Review" not in plain.output
    result = CliRunner().invoke(cli, ["validate", "--review", "--data", str(folder)])
    assert result.exit_code == 0, result.output
    assert "Review: 2 flag(s) for a person to read (not errors):" in result.output
    # Each flag is one item, wrapped at 80 columns; its words are the flag's.
    assert "  - data/accelerators/acme-a2.toml: specs.memory: 8 GB is below its predecessor acme-a1 (80 GB)" in " ".join(
        result.output.split("\n    ")
    )
    assert "OK: 2 vendors, 2 accelerators" in result.output


def test_validate_review_with_errors_lists_both_and_fails(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", [*_generations(), make_record("acme-x", specs__power=_published("700 kW"))])
    result = CliRunner().invoke(cli, ["validate", "--review", "--data", str(folder)])
    assert result.exit_code == 1
    assert "Review: 2 flag(s)" in result.output and "acme-x.toml: specs.power.value: 700 kW is outside" in " ".join(result.output.split())


def _two_datasheets(keynote_value: str, kind: str = "vendor") -> dict[str, Any]:
    keynote = {
        "title": "Acme launch keynote",
        "url": "https://acme.example/keynote",
        "publisher": "Acme",
        "kind": kind,
        "accessed": "2026-11-01",
    }
    bandwidth = _published(
        "7.7 TB/s",
        primary_reason="The datasheet is the formal specification.",
        other_claims=[{"value": keynote_value, "source": "keynote", "note": "Rounded on a launch slide."}],
    )
    return make_record("acme-x", sources={**make_record("x")["sources"], "keynote": keynote}, specs__memory_bandwidth=bandwidth)


def test_two_maker_documents_that_disagree_are_flagged_with_both(tmp_path: Path) -> None:
    assert problems_for(tmp_path / "a", _two_datasheets("8 TB/s")) == []  # a disputed spec is not an error …
    assert flags_for(tmp_path / "b", _two_datasheets("8 TB/s")) == [  # … but the maker against itself is a flag
        (
            f"{FILE}: specs.memory_bandwidth.other_claims.0: two Acme Silicon documents disagree on Acme X memory_bandwidth: "
            "“Acme datasheet” (sheet) says 7.7 TB/s, “Acme launch keynote” (keynote) says 8 TB/s: which one holds?"
        )
    ]
    assert flags_for(tmp_path / "c", _two_datasheets("7700 GB/s")) == []  # one figure written two ways
    assert flags_for(tmp_path / "d", _two_datasheets("8 TB/s", kind="press")) == []  # press against the maker: a note, not a flag


def test_the_real_maker_documents_that_disagree_are_flagged(real_catalog) -> None:
    found = {(f.file.rsplit("/", 1)[-1], f.field): f.text for f in review(real_catalog) if "documents disagree" in f.message}
    # AMD's MI200 table: 'Max Power: 500W & 560W TDP' (560 W recorded); its CDNA 3 white paper's endnote: 'MI250 (500W)'.
    assert found[("amd-instinct-mi250.toml", "specs.power.other_claims.0")] == "500 W"
    # NVIDIA's DGX Cloud benchmarking table gives GB200 4,900 TFLOPS dense FP8; its Blackwell datasheet 5 PFLOPS.
    assert found[("nvidia-gb200.toml", "specs.compute.FP8.other_claims.1")] == "5 PFLOPS"
    assert ("nvidia-h200-sxm.toml", "specs.compute.BF16.other_claims.0") not in found  # no NVIDIA document against the independent figure
    assert len(found) == 19


def test_the_real_data_passes_and_its_flags_are_reviewed(real_catalog) -> None:
    assert [(f.file, f.field) for f in review(real_catalog) if "documents disagree" not in f.message] == [
        ("data/accelerators/google-tpu-v5e.toml", "specs.memory"),  # v5e is Google's cost-efficient line:
        ("data/accelerators/google-tpu-v5e.toml", "specs.memory_bandwidth"),  # less memory, bandwidth and BF16
        ("data/accelerators/google-tpu-v5e.toml", "specs.compute.BF16"),  # than TPU v4, as Google states
    ]
