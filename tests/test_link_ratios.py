"""Interconnect rows of a comparison: one unit (GB/s) on every side, and a ratio only between
bandwidths their sources count the same way."""

from __future__ import annotations

from pathlib import Path

from computeatlas.catalog import load
from computeatlas.silicon.comparison import build

from .conftest import TODAY, make_record, write_data


def _link(value: str, direction: str, text: str) -> dict:
    return {"state": "published", "text": text, "value": value, "direction": direction, "basis": "chip", "source": "sheet"}


def test_ratios_only_between_figures_counted_the_same_way(tmp_path: Path) -> None:
    records = [
        # H100 SXM-like: 900 GB/s counted in both directions together
        make_record("acme-a1", name="Acme A1", specs__interconnect=_link("900 GB/s", "bidirectional", "AcmeLink 4")),
        # B200-like: 1.8 TB/s, also both directions, but stated in TB/s
        make_record("acme-a2", name="Acme A2", specs__interconnect=_link("1.8 TB/s", "bidirectional", "AcmeLink 5")),
        # a part whose maker counts one direction, in bits: 400 Gb/s = 50 GB/s
        make_record("globex-g1", name="Globex G1", vendor="globex", specs__interconnect=_link("400 Gb/s", "per_direction", "GlobexLink")),
        # a part whose maker does not say
        make_record("globex-g2", name="Globex G2", vendor="globex", specs__interconnect=_link("896 GB/s", "not_stated", "GlobexFabric")),
    ]
    catalog = load(write_data(tmp_path / "data", records), today=TODAY)
    table = build(catalog, ["acme-a1", "acme-a2", "globex-g1", "globex-g2"])
    row = next(r for r in table.rows if r.key == "interconnect")
    cells = {c.id: c for c in row.cells}
    assert table.reference == "acme-a1" and cells["acme-a1"].is_reference
    assert cells["acme-a1"].display == "AcmeLink 4 · 900 GB/s (bidirectional)"
    assert cells["acme-a2"].display == "AcmeLink 5 · 1,800 GB/s (bidirectional)"  # TB/s shown in the row's GB/s
    assert cells["acme-a2"].ratio == 2.0 and cells["acme-a2"].ratio_display == "2× higher than Acme A1"
    g1 = cells["globex-g1"]
    assert (g1.display, g1.secondary) == ("GlobexLink · 400 Gb/s (per direction)", "= 50 GB/s")
    assert g1.ratio is None and g1.ratio_reason == "no ratio: this figure is counted per direction, Acme A1's in both directions together"
    g2 = cells["globex-g2"]
    assert (
        g2.ratio is None
        and g2.ratio_reason == "no ratio: this figure is counted without a stated direction, Acme A1's in both directions together"
    )
    assert row.note is not None and "a ratio only between figures counted the same way" in row.note


def test_no_ratio_against_a_reference_whose_direction_is_not_stated(tmp_path: Path) -> None:
    records = [
        make_record("acme-a1", name="Acme A1", specs__interconnect=_link("896 GB/s", "not_stated", "AcmeFabric")),
        make_record("acme-a2", name="Acme A2", specs__interconnect=_link("1.8 TB/s", "not_stated", "AcmeLink 5")),
    ]
    catalog = load(write_data(tmp_path / "data", records), today=TODAY)
    row = next(r for r in build(catalog, ["acme-a1", "acme-a2"]).rows if r.key == "interconnect")
    assert [c.ratio for c in row.cells] == [None, None]  # two unstated conventions may differ
