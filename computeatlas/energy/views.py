"""Energy-layer figures: rack-scale systems' specs, energy topics' dated figures and the
economics claims on them, as values (:mod:`computeatlas.pages.energy` adds the links and
assembles the pages).

The same view objects are rendered by the templates and returned by the API. System
figures are totals on the system's own basis (node, rack, pod) and are shown with that
basis; nothing here divides a system total into a per-accelerator figure.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from computeatlas.core.citation import SourceView, source_view
from computeatlas.core.claimants import Interest
from computeatlas.core.claims import (
    Claim,
    Source,
)
from computeatlas.core.numbers import canonical_unit
from computeatlas.core.presentation import present
from computeatlas.core.states import State
from computeatlas.core.units import humanize
from computeatlas.economics.claims import EconomicsClaim, Metric
from computeatlas.energy.catalog import EnergyCatalog
from computeatlas.energy.records import EnergyFigure, EnergyTopic
from computeatlas.silicon.systems import System

SELLING = (Interest.CHIP_VENDOR, Interest.CLOUD, Interest.MODEL_PROVIDER)
"""Interests that sell one side of a comparison: their figures are marked as such."""

POWER_TOPICS = ("rack-power-density", "interconnection-queue", "tokens-per-watt")
"""Energy topics the power question draws on, in the order it shows them."""

INTEREST_WORDS = {
    Interest.CHIP_VENDOR: "sells chips: one side of the comparison",
    Interest.CLOUD: "rents out accelerators: one side of the comparison",
    Interest.MODEL_PROVIDER: "sells access to models",
    Interest.INDEPENDENT: "sells neither the chips nor the cloud time (as recorded)",
    Interest.UTILITY: "a utility: sells power",
    Interest.GOVERNMENT: "a government body",
    Interest.INDUSTRY_GROUP: "an industry group",
}
METRIC_LABELS = {Metric.COST_PER_MILLION_TOKENS: "Cost per million tokens", Metric.TOKENS_PER_WATT: "Tokens per watt"}


class FigureView(BaseModel):
    """A dated energy figure with who claims it and what they sell."""

    topic: str
    key: str
    label: str
    value: str = Field(description="the figure with its unit, as the claimant states it")
    watts: float | None = Field(None, description="the figure in W when it is a power, else null")
    as_of: dt.date = Field(description="the date the figure describes")
    claimant: str
    claimant_interest: Interest
    interest_words: str
    sells_one_side: bool
    source: SourceView
    note: str | None = None


class SystemClaimView(BaseModel):
    """One system spec: a total on the system's basis (``per rack``), or its state in words."""

    key: str
    label: str
    state: State = Field(
        description="the state as shown (computeatlas.core.presentation): published_as_text for words where a figure belongs"
    )
    state_label: str
    display: str
    value: str | None = None
    amount: float | None = Field(None, description="canonical amount (B, B/s, FLOP/s, W) of the whole system")
    unit: str | None = None
    basis: str | None = None
    source: SourceView | None = None
    note: str | None = None
    published_text: str | None = Field(None, description="the vendor's words, for a not comparable figure")
    disputed: bool = False
    primary_reason: str | None = None
    other_claims: list[str] = Field(default_factory=list, description="competing figures, each 'value — publisher'")


def source_of(sources: dict[str, Source], key: str | None) -> SourceView | None:
    """The cited source ``key`` of ``sources`` as shown, or None (no key, or not among them)."""
    if key is None or key not in sources:
        return None
    return source_view(key, sources[key])


def claim_view(sources: dict[str, Source], key: str, label: str, claim: Claim) -> SystemClaimView:
    """One spec of a system (or an accelerator's power) with its basis kept in the display."""
    unit = canonical_unit(key)
    shown = present(claim, unit=unit, what=label)
    others = [f"{o.value or o.text} — {sources[o.source].publisher if o.source in sources else o.source}" for o in claim.other_claims]
    return SystemClaimView(
        key=key, label=label, state=shown.state, state_label=shown.label, display=shown.total_display,
        value=claim.value, amount=shown.stated_amount, unit=unit if shown.stated_amount is not None else None,
        basis=shown.basis, source=source_of(sources, claim.source), note=claim.note,
        published_text=claim.published_text, disputed=claim.disputed, primary_reason=claim.primary_reason, other_claims=others,
    )  # fmt: skip


def figure_view(topic: EnergyTopic, fig: EnergyFigure) -> FigureView:
    """An energy figure with its claimant's interest in words."""
    source = source_of(topic.sources, fig.source)
    assert source is not None  # the record validates its source keys
    return FigureView(
        topic=topic.id, key=fig.key, label=fig.label, value=fig.value, watts=fig.power.amount if fig.power else None,
        as_of=fig.as_of, claimant=fig.claimant, claimant_interest=fig.claimant_interest,
        interest_words=INTEREST_WORDS[fig.claimant_interest], sells_one_side=fig.claimant_interest in SELLING,
        source=source, note=fig.note,
    )  # fmt: skip


def _names(system: System) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(system.name) + r"(?![\w-])", re.IGNORECASE)


def mentions(system: System, text: str) -> bool:
    """True when ``text`` (a figure's label) names ``system`` by its full name, as a whole word."""
    return _names(system).search(text) is not None


def reported_power(catalog: EnergyCatalog, system: System) -> list[FigureView]:
    """Power figures in the energy topics whose label names ``system`` (its full name).

    These are other parties' claims (press, analysts), shown beside the vendor's state,
    never in place of it.
    """
    pattern = _names(system)
    return [
        figure_view(topic, fig)
        for topic in catalog.energy.values()
        for fig in topic.figures
        if fig.power is not None and pattern.search(fig.label)
    ]


@dataclass(frozen=True)
class SystemFigures:
    """What the records say of one system, before the page adds its links: the vendor's
    name, every spec but power (:func:`claim_view`), its power, and others' power figures."""

    vendor: str
    specs: list[SystemClaimView]
    power: SystemClaimView
    reported_power: list[FigureView]


SPEC_WORDS = {"memory": "Accelerator memory", "memory_bandwidth": "Memory bandwidth", "power": "Power"}
"""How a system page labels its specs (compute: "Compute, FP8 dense")."""


def system_figures(catalog: EnergyCatalog, system: System) -> SystemFigures:
    """The figures of ``system`` (totals on its own basis, or their states in words)."""
    specs = [
        claim_view(system.sources, key, SPEC_WORDS.get(key) or f"Compute, {key.split('.', 1)[1]} dense", claim)
        for key, claim in system.claims()
    ]
    vendor = catalog.vendors.get(system.vendor)
    return SystemFigures(
        vendor=vendor.name if vendor else system.vendor,
        specs=[s for s in specs if s.key != "power"],
        power=next(s for s in specs if s.key == "power"),
        reported_power=reported_power(catalog, system),
    )


def claims_on(catalog: EnergyCatalog, metric: Metric | None = None, accelerator: str | None = None) -> list[EconomicsClaim]:
    """The economics claims on ``metric`` naming ``accelerator`` (None: any), newest first, then by claimant and id."""
    chosen = [c for c in catalog.claims.values()
              if (metric is None or c.metric is metric) and (accelerator is None or accelerator in c.accelerators)]  # fmt: skip
    chosen.sort(key=lambda c: (-c.date.toordinal(), c.claimant.casefold(), c.id))
    return chosen


def latest_figures(catalog: EnergyCatalog, topic_id: str) -> list[FigureView]:
    """The newest figure of each label in a topic (its history stays on the topic page)."""
    topic = catalog.energy.get(topic_id)
    if topic is None:
        return []
    newest: dict[str, EnergyFigure] = {}
    for fig in topic.figures:
        if fig.label not in newest or fig.as_of > newest[fig.label].as_of:
            newest[fig.label] = fig
    return [figure_view(topic, f) for f in newest.values()]


def systems_of(catalog: EnergyCatalog, ident: str) -> list[System]:
    """The systems that have accelerator ``ident`` among their members, by name."""
    return [s for s in catalog.systems.values() if any(m.accelerator == ident for m in s.members)]


def number_text(value: float) -> str:
    """A claimant's number as text: whole numbers with thousands separators (``2,756,947``), else as written (``0.106``)."""
    return f"{value:,.0f}" if value.is_integer() else f"{value:g}"


def system_power_text(view: SystemClaimView) -> str:
    """A system's power for a table cell: ``"10.2 kW per node"`` or the state in words."""
    if view.amount is not None and view.basis:
        return f"{humanize(view.amount, 'W')} per {view.basis}"
    return view.display


__all__ = [
    "INTEREST_WORDS", "METRIC_LABELS", "POWER_TOPICS", "SELLING", "SPEC_WORDS", "FigureView", "SystemClaimView", "SystemFigures",
    "claim_view", "claims_on", "figure_view", "latest_figures", "mentions", "number_text", "reported_power", "source_of",
    "system_figures", "system_power_text", "systems_of",
]  # fmt: skip
