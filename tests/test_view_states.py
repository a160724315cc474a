"""The silicon, energy and page views show what the presentation rule decided (no second decision
after ``present()``); tests/test_states.py checks every ``state`` field is the one State type."""

from __future__ import annotations

from computeatlas.catalog import Catalog
from computeatlas.core import states
from computeatlas.core.claims import NumberFormat
from computeatlas.core.presentation import present
from computeatlas.core.states import State
from computeatlas.energy.views import claim_view
from computeatlas.pages.energy import system_view
from computeatlas.silicon import derive
from computeatlas.silicon.specs import spec_view


def test_a_derived_figure_s_state_is_derived_or_its_weakest_input_s(real_catalog: Catalog) -> None:
    h100 = real_catalog.accelerators["nvidia-h100-sxm"]
    ridge = derive.ridge_point(h100, NumberFormat.FP8)
    assert ridge.state is State.DERIVED and ridge.state_label == "derived from published figures" == State.DERIVED.label
    assert [i.state for i in ridge.inputs] == [State.PUBLISHED, State.PUBLISHED]
    fp4 = derive.ridge_point(h100, NumberFormat.FP4)  # Hopper has no FP4
    assert fp4.state is State.NOT_APPLICABLE and fp4.state_label == "not applicable" and fp4.display == "not applicable"
    assert set(derive.DERIVED_STATES) == {State.DERIVED, *(s for s in states.SPEC_STATES if s is not State.PUBLISHED)}


def test_a_spec_row_shows_the_presented_figure_and_words(real_catalog: Catalog) -> None:
    h100 = real_catalog.accelerators["nvidia-h100-sxm"]
    claim = h100.specs.memory
    view = spec_view(h100, "memory", claim)
    shown = present(claim, unit="B", what="Memory")
    assert view.primary.display == shown.record_display == shown.display == "80 GB"
    assert view.primary.amount == shown.stated_amount == 80e9 and view.primary.unit == "B"


def test_a_not_comparable_claim_names_its_basis_on_the_record_page(real_catalog: Catalog) -> None:
    found = [
        (a, key, c)
        for a in real_catalog.accelerators.values()
        for key, c in a.claims()
        if c.state is State.NOT_COMPARABLE and c.basis is not None
    ]
    assert found  # the bundled data holds figures published only on another basis
    acc, key, claim = found[0]
    shown = present(claim)
    assert shown.display == "not comparable"
    assert spec_view(acc, key, claim).primary.display == shown.record_display == f"not comparable per accelerator ({claim.basis.value})"


def test_a_system_total_keeps_its_basis(real_catalog: Catalog) -> None:
    system = real_catalog.systems["nvidia-gb200-nvl72"]
    view = system_view(real_catalog, system)
    memory = next(s for s in view.specs if s.key == "memory")
    claim = system.specs.memory
    shown = present(claim, unit="B")
    assert memory.display == shown.total_display == f"{claim.value} per {claim.basis.value}"
    assert memory.amount == shown.stated_amount and memory.amount is not None and memory.unit == "B"
    assert claim_view(system.sources, "memory", "Accelerator memory", claim) == memory
