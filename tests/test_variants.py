"""Variants decided by evidence: a part that exists in one variant needs none stated; a part
sold in several (a shared family name such as "H100") keeps "variant not stated" unless the
provider's documentation states it."""

from __future__ import annotations

import datetime as dt

from computeatlas.catalog import Catalog
from computeatlas.cloud import cell_rules, rules
from computeatlas.cloud.instances import InstanceTable, InstanceType, instance_table
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.variants import siblings, sole_variants
from computeatlas.core.states import State


def _row(provider: str, instance_type: str) -> Observation:
    return Observation(
        provider=provider,
        instance_type=instance_type,
        region="us-central1",
        pricing="on_demand",
        amount=10.0,
        currency="USD",
        unit="hour",
        collected=dt.datetime(2026, 7, 30, tzinfo=dt.UTC),
    )


def test_parts_sold_under_one_family_name_are_siblings(real_catalog: Catalog) -> None:
    parts = list(real_catalog.accelerators.values())
    assert set(siblings(real_catalog.accelerator("nvidia-h100-sxm"), parts)) == {"nvidia-h100-pcie", "nvidia-h100-nvl"}
    assert set(siblings(real_catalog.accelerator("nvidia-a100-sxm-80gb"), parts)) == {
        "nvidia-a100-sxm-40gb",
        "nvidia-a100-pcie-40gb",
        "nvidia-a100-pcie-80gb",
    }
    assert siblings(real_catalog.accelerator("nvidia-h200-sxm"), parts) == ["nvidia-h200-nvl"]
    assert siblings(real_catalog.accelerator("google-tpu-v5e"), parts) == []


def test_a_single_variant_part_takes_its_record_variant(real_catalog: Catalog) -> None:
    sole = sole_variants(real_catalog.accelerators.values())
    # Google's TPU v5e: 16 GB of HBM per chip, one form; AWS Trainium2: 96 GiB; NVIDIA L4: one PCIe card of 24 GB.
    assert sole["google-tpu-v5e"] == "16gb" and sole["aws-trainium-2"] == "96gib" and sole["nvidia-l4"] == "pcie-24gb"
    assert "nvidia-h100-sxm" not in sole and "nvidia-a100-sxm-40gb" not in sole


def test_placement_states_the_only_variant_and_keeps_not_stated_for_a_family(real_catalog: Catalog) -> None:
    table = instance_table(real_catalog)
    l4 = cell_rules.place(_row("google-cloud", "g2-standard-4"), table)
    assert (l4.accelerator, l4.variant) == ("nvidia-l4", "pcie-24gb")
    decided = rules.apply([_row("google-cloud", "g2-standard-4")], table, RateTable([]), rules.Limits())
    assert State.VARIANT_NOT_STATED.value not in decided[0].qualifiers
    # A plain "H100" whose provider does not say SXM, PCIe or NVL: placed, variant not stated.
    plain = InstanceType(
        file="neocloud.csv",
        row=2,
        provider="neocloud",
        instance_type="1x H100",
        accelerator="nvidia-h100-sxm",
        accelerators=1,
        billing="all_in",
        source_url="https://example.org/gpus",
        source_title="GPU list",
        verified=dt.date(2026, 12, 3),
    )
    family = InstanceTable([plain], table.sole_variants)
    placed = rules.apply([_row("neocloud", "1x H100")], family, RateTable([]), rules.Limits())[0]
    assert placed.accelerator == "nvidia-h100-sxm" and placed.variant == ""
    assert State.VARIANT_NOT_STATED.value in placed.qualifiers
