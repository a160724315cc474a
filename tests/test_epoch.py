"""Cross-check against Epoch AI's ML hardware dataset (CC-BY 4.0, Epoch AI): every difference
over 2% is listed in ``tests/data/epoch-differences.csv`` with its reason (see :mod:`tests.epoch`)."""

from __future__ import annotations

import pytest

from computeatlas.catalog import Catalog

from .epoch import (
    COLUMNS,
    COMMITTED,
    EPOCH,
    EXPLANATIONS,
    HEADER,
    MAPPING,
    TOLERANCE,
    claim_at,
    differences,
    epoch_rows,
    read_committed,
)

needs_epoch = pytest.mark.skipif(not EPOCH.exists(), reason="Epoch reference copy not beside the checkout (../shared/reference/)")


def test_the_committed_list_has_a_reason_for_every_row() -> None:
    rows = read_committed()
    assert list(rows[0]) == HEADER
    for row in rows:
        assert row["explanation"] in EXPLANATIONS, row
        assert len(row["reason"]) >= 20, row
        assert row["accelerator"] in MAPPING and MAPPING[row["accelerator"]] == row["epoch_name"] and row["field"] in COLUMNS


def test_a_dispute_is_recorded_in_our_record_and_only_a_dispute(real_catalog: Catalog) -> None:
    for row in read_committed():
        claim = claim_at(real_catalog, row["accelerator"], row["field"])
        theirs = float(row["epoch"])
        kept = [f for f in claim.other_figures if f is not None and abs(f.amount - theirs) <= TOLERANCE * theirs]
        if row["explanation"] == "dispute":
            assert kept, f"{row['accelerator']} {row['field']}: called a dispute, but no other claim in our record states {theirs:g}"
        else:
            assert not kept, f"{row['accelerator']} {row['field']}: our record keeps Epoch's figure as another claim: call it a dispute"


@needs_epoch
def test_every_mapped_part_exists_on_both_sides(real_catalog: Catalog) -> None:
    rows = epoch_rows()
    assert [i for i in MAPPING if i not in real_catalog.accelerators] == []
    assert [n for n in MAPPING.values() if n not in rows] == []


@needs_epoch
def test_the_regenerated_differences_equal_the_committed_list(real_catalog: Catalog) -> None:
    found = [[d.accelerator, d.epoch_name, d.field, d.ours, d.epoch, d.difference] for d in differences(real_catalog, epoch_rows())]
    committed = [[r[h] for h in HEADER[:6]] for r in read_committed()]
    assert found == committed, (
        f"the differences from Epoch changed: regenerate {COMMITTED.name} with `PYTHONPATH=. python -m tests.epoch --write` "
        "and give each new row its explanation and reason"
    )
