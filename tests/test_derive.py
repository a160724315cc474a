"""Derived figures: hand-worked arithmetic from the records, and states that propagate."""

from __future__ import annotations

import pytest

from computeatlas.catalog import Catalog
from computeatlas.core.claims import NumberFormat
from computeatlas.core.states import State
from computeatlas.silicon import derive

FP8, BF16 = NumberFormat.FP8, NumberFormat.BF16


def test_h100_sxm_figures(real_catalog: Catalog) -> None:
    h100 = real_catalog.accelerators["nvidia-h100-sxm"]
    ridge = derive.ridge_point(h100, FP8)
    assert ridge.state is State.DERIVED
    assert ridge.value == pytest.approx(1979e12 / 3.35e12)  # 590.7 FLOP/byte
    assert ridge.display == "591 FLOP/byte"  # three significant figures
    assert ridge.worked == "1,979 TFLOPS ÷ 3.35 TB/s = 591 FLOP/byte"
    assert ridge.provenance == "derived from published figures"
    assert [i.key for i in ridge.inputs] == ["compute.FP8", "memory_bandwidth"]
    sweeps = derive.bandwidth_per_capacity(h100)
    assert sweeps.value == pytest.approx(3.35e12 / 80e9)  # 41.875 per second
    assert sweeps.display == "41.9 per second"  # 3.35e12 ÷ 80e9 = 41.875, three significant figures
    per_watt = derive.compute_per_watt(h100, BF16)
    assert per_watt.value == pytest.approx(989e12 / 700)  # 1.4129 TFLOP/s per W (NVIDIA: 989 TFLOPS dense BF16, 700 W)
    assert per_watt.display == "1.41 TFLOP/s per W"  # three significant figures
    assert derive.largest_model(h100, FP8).value == pytest.approx(80e9)
    assert derive.largest_model(h100, BF16).display == "40 billion parameters"


def test_gib_memory_is_converted(real_catalog: Catalog) -> None:
    trn3 = real_catalog.accelerators["aws-trainium-3"]  # 144 GiB, as AWS writes it
    model = derive.largest_model(trn3, BF16)
    assert model.value == pytest.approx(144 * 2**30 * 8 / 16)  # 77.3 billion
    assert model.display == "77.3 billion parameters"  # 144 GiB × 8 ÷ 16 = 77.309e9


def test_power_not_published_makes_per_watt_not_published(real_catalog: Catalog) -> None:
    trn3 = real_catalog.accelerators["aws-trainium-3"]
    figure = derive.compute_per_watt(trn3, FP8)
    assert figure.state is State.NOT_PUBLISHED
    assert figure.value is None and figure.worked is None
    assert figure.display == "not published"
    assert figure.reason == "power: not published"


def test_not_comparable_input_makes_the_figure_not_comparable(real_catalog: Catalog) -> None:
    gh200 = real_catalog.accelerators["nvidia-gh200-144gb"]  # FP8 stated per superchip, not per GPU
    figure = derive.ridge_point(gh200, FP8)
    assert figure.state is State.NOT_COMPARABLE and figure.value is None  # the weakest input's state
    assert "not comparable" in figure.reason


def test_not_applicable_input_is_not_applicable(real_catalog: Catalog) -> None:
    a100 = real_catalog.accelerators["nvidia-a100-sxm-80gb"]  # no FP8 in the hardware
    assert derive.ridge_point(a100, FP8).state is State.NOT_APPLICABLE
    assert derive.largest_model(a100, FP8).display == "not applicable"
    assert derive.ridge_point(a100, BF16).value == pytest.approx(312e12 / 2039e9)


def test_missing_format_is_not_yet_collected(real_catalog: Catalog) -> None:
    v5e = real_catalog.accelerators["google-tpu-v5e"]  # the record holds no FP4 claim at all
    figure = derive.ridge_point(v5e, NumberFormat.FP4)
    assert figure.state is State.NOT_COLLECTED and figure.display == "not yet collected"
    h100 = real_catalog.accelerators["nvidia-h100-sxm"]  # Hopper has no FP4 (NVIDIA's Transformer Engine matrix)
    assert derive.ridge_point(h100, NumberFormat.FP4).state is State.NOT_APPLICABLE


def test_page_set_follows_the_record_formats(real_catalog: Catalog) -> None:
    keys = [f.key for f in derive.derived_figures(real_catalog.accelerators["aws-trainium-3"])]
    assert keys == [
        "bandwidth_per_capacity",
        "ridge_point.FP4",
        "ridge_point.FP8",
        "ridge_point.BF16",
        "compute_per_watt.FP4",
        "compute_per_watt.FP8",
        "compute_per_watt.BF16",
        "largest_model.FP4",
        "largest_model.FP8",
        "largest_model.BF16",
    ]


def test_mi250x_per_gcd_figures_are_derived_from_the_package(real_catalog: Catalog) -> None:
    mi250x = real_catalog.accelerators["amd-instinct-mi250x"]  # one OAM module, ROCm lists 2 GPUs
    assert mi250x.devices is not None and (mi250x.devices.count, mi250x.devices.name) == (2, "GCD")
    memory = derive.per_device(mi250x, "memory")
    assert memory.state is State.DERIVED
    assert memory.value == pytest.approx(64e9)  # AMD: "64GB per GCD x 2"
    assert memory.display == "64 GB per GCD"
    assert memory.worked == "128 GB ÷ 2 = 64 GB per GCD"
    assert memory.provenance == "derived from published figures"
    assert derive.per_device(mi250x, "memory_bandwidth").value == pytest.approx(1.6e12)  # ROCm: 1.6 TB/s per GCD
    assert derive.per_device(mi250x, "compute.BF16").value == pytest.approx(383e12 / 2)
    assert derive.per_device(mi250x, "compute.FP8").state is State.NOT_APPLICABLE  # CDNA 2 has no FP8
    keys = [f.key for f in derive.derived_figures(mi250x)]
    assert keys[-4:] == ["per_device.memory", "per_device.memory_bandwidth", "per_device.compute.FP8", "per_device.compute.BF16"]


def test_single_device_parts_get_no_per_device_figure(real_catalog: Catalog) -> None:
    mi300x = real_catalog.accelerators["amd-instinct-mi300x"]  # one package, one device
    assert derive.per_device(mi300x, "memory") is None
    assert not [f for f in derive.derived_figures(mi300x) if f.key.startswith("per_device.")]


def test_only_a_per_package_figure_is_divided_per_device(tmp_path) -> None:
    from computeatlas.catalog import check

    from .conftest import TODAY, make_record, write_data

    devices = {"count": 2, "name": "die", "source": "sheet"}
    folder = write_data(tmp_path / "data", [make_record("acme-dual", devices=devices)])  # figures per chip
    catalog, problems = check(folder, today=TODAY)
    assert problems == []
    figure = derive.per_device(catalog.accelerators["acme-dual"], "memory")
    assert figure.state is State.NOT_COMPARABLE and figure.value is None
    assert figure.reason == "memory capacity is stated per chip, not per package"


def test_max_1550_per_stack_figures(real_catalog: Catalog) -> None:
    max1550 = real_catalog.accelerators["intel-data-center-gpu-max-1550"]  # Intel: "use each stack as a device"
    assert (max1550.devices.count, max1550.devices.name) == (2, "stack")
    assert derive.per_device(max1550, "memory").display == "64 GB per stack"  # 128 GB ÷ 2
    assert derive.per_device(max1550, "compute.BF16").value == pytest.approx(832e12 / 2)
    assert derive.per_device(max1550, "compute.FP8").state is State.NOT_SOURCED
