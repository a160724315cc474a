"""Energy-layer page data: rack-scale systems, energy topics, economics claims and the
power question on each accelerator page, built once from the records.

The same view objects are rendered by the templates and returned by the API. System
figures are totals on the system's own basis (node, rack, pod) and are shown with that
basis; nothing here divides a system total into a per-accelerator figure.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable

from pydantic import BaseModel, Field

from computeatlas.core.citation import SourceView, source_view
from computeatlas.core.claimants import Interest
from computeatlas.core.claims import (
    Claim,
    Source,
)
from computeatlas.core.presentation import (
    canonical_unit,
    present,
)
from computeatlas.core.states import State
from computeatlas.core.units import humanize
from computeatlas.core.urls import site_path
from computeatlas.economics.claims import EconomicsClaim, Metric
from computeatlas.energy.catalog import EnergyCatalog
from computeatlas.energy.records import EnergyFigure, EnergyTopic
from computeatlas.silicon.records import Accelerator
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


class Link(BaseModel):
    """A link to another page of the atlas."""

    id: str
    name: str
    url: str


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


class MemberView(BaseModel):
    """``count`` accelerators of one kind in a system, linking to the accelerator page."""

    accelerator: str
    name: str
    count: int
    url: str


class SystemView(BaseModel):
    """Everything a system page shows, and the body of ``/api/systems/{id}``."""

    id: str
    name: str
    vendor: str
    kind: str
    summary: str
    cooling: str
    verified: dt.date
    members: list[MemberView]
    accelerator_count: int
    specs: list[SystemClaimView]
    power: SystemClaimView
    reported_power: list[FigureView] = Field(description="power figures for this system from others, never the vendor's own")
    sources: list[SourceView]
    url: str
    api_url: str
    data_file: str


class ClaimView(BaseModel):
    """An economics claim shown as a claim: the claimant's number, words and interest."""

    id: str
    metric: Metric
    metric_label: str
    value: float | None = Field(description="the claimant's number; null only if it is not a finite number (validation refuses those)")
    unit: str
    display: str = Field(description="value and unit as the claimant states them")
    claimant: str
    claimant_sells: Interest
    interest_words: str
    sells_one_side: bool
    sells_these_parts: bool = Field(description="True when the claimant is the vendor of an accelerator the claim is about")
    accelerators: list[Link]
    model: str
    conditions: str
    date: dt.date
    source: SourceView
    verified: dt.date
    data_file: str


class TopicView(BaseModel):
    """An energy topic page and the body of ``/api/energy/{topic}``."""

    id: str
    title: str
    summary: str
    verified: dt.date
    figures: list[FigureView]
    claims: list[ClaimView] = Field(default_factory=list, description="economics claims on the same metric")
    systems: list[Link] = Field(default_factory=list)
    url: str
    api_url: str
    data_file: str


class EconomicsView(BaseModel):
    """The economics page and ``/api/economics``: claims grouped by metric, newest first."""

    groups: dict[str, list[ClaimView]]
    claim_count: int
    selling_count: int = Field(description="claims made by a party that sells one side")


class SystemPowerView(BaseModel):
    """A system the part is a member of, with the system's own power total or its state."""

    id: str
    name: str
    kind: str
    url: str
    count: int = Field(description="how many of this accelerator the system holds")
    accelerator_count: int
    power: SystemClaimView
    reported_power: list[FigureView]


class PowerQuestion(BaseModel):
    """The power question on an accelerator page, built from the part's own power spec,
    the systems it is a member of and the energy topics' latest figures."""

    part_power: SystemClaimView = Field(description="the part's own power spec, per accelerator, or its state")
    systems: list[SystemPowerView]
    rack_density: list[FigureView] = Field(description="the newest figure of each kind in rack-power-density")
    queue: list[FigureView] = Field(description="the newest figure of each kind in interconnection-queue")
    efficiency_claims: list[ClaimView] = Field(description="tokens-per-watt claims naming this part")
    topics: list[Link]


def _source(sources: dict[str, Source], key: str | None) -> SourceView | None:
    if key is None or key not in sources:
        return None
    return source_view(key, sources[key])


def claim_view(sources: dict[str, Source], key: str, label: str, claim: Claim) -> SystemClaimView:
    """One spec of a system (or an accelerator's power) with its basis kept in the display."""
    unit = canonical_unit(key)
    shown = present(claim, unit=unit, what=label)
    fig = claim.figure if claim.state is State.PUBLISHED else None
    if fig is not None:
        display = f"{claim.value} per {claim.basis.value}" if claim.basis else str(claim.value)
    elif claim.state is State.NOT_COMPARABLE:
        display = f"not comparable ({claim.basis.value if claim.basis else 'other basis'}): {claim.published_text}"
    elif claim.state is State.PUBLISHED and claim.text:
        display = claim.text
    else:
        display = claim.state.label
    others = [f"{o.value or o.text} — {sources[o.source].publisher if o.source in sources else o.source}" for o in claim.other_claims]
    return SystemClaimView(
        key=key, label=label, state=shown.state, state_label=shown.label, display=display,
        value=claim.value, amount=fig.amount if fig else None, unit=unit if fig else None,
        basis=claim.basis.value if claim.basis else None, source=_source(sources, claim.source), note=claim.note,
        published_text=claim.published_text, disputed=claim.disputed, primary_reason=claim.primary_reason, other_claims=others,
    )  # fmt: skip


def figure_view(topic: EnergyTopic, fig: EnergyFigure) -> FigureView:
    """An energy figure with its claimant's interest in words."""
    source = _source(topic.sources, fig.source)
    assert source is not None  # the record validates its source keys
    return FigureView(
        topic=topic.id, key=fig.key, label=fig.label, value=fig.value, watts=fig.power.amount if fig.power else None,
        as_of=fig.as_of, claimant=fig.claimant, claimant_interest=fig.claimant_interest,
        interest_words=INTEREST_WORDS[fig.claimant_interest], sells_one_side=fig.claimant_interest in SELLING,
        source=source, note=fig.note,
    )  # fmt: skip


def _names(system: System) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(system.name) + r"(?![\w-])", re.IGNORECASE)


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


def system_view(catalog: EnergyCatalog, system: System) -> SystemView:
    """The page data of one system."""
    labels = {"memory": "Accelerator memory", "memory_bandwidth": "Memory bandwidth", "power": "Power"}
    specs = [
        claim_view(system.sources, key, labels.get(key) or f"Compute, {key.split('.', 1)[1]} dense", claim)
        for key, claim in system.claims()
    ]
    vendor = catalog.vendors.get(system.vendor)
    return SystemView(
        id=system.id, name=system.name, vendor=vendor.name if vendor else system.vendor, kind=system.kind.value,
        summary=system.summary, cooling=system.cooling, verified=system.verified,
        members=[
            MemberView(accelerator=m.accelerator, count=m.count, url=site_path("silicon_page", ident=m.accelerator),
                       name=catalog.accelerators[m.accelerator].name if m.accelerator in catalog.accelerators else m.accelerator)
            for m in system.members
        ],
        accelerator_count=system.accelerator_count,
        specs=[s for s in specs if s.key != "power"],
        power=next(s for s in specs if s.key == "power"),
        reported_power=reported_power(catalog, system),
        sources=[source_view(k, s) for k, s in system.sources.items()],
        url=site_path("system_page", ident=system.id), api_url=site_path("api_system", ident=system.id),
        data_file=catalog.files[f"systems/{system.id}"],
    )  # fmt: skip


def _link_parts(catalog: EnergyCatalog, ids: Iterable[str]) -> list[Link]:
    return [
        Link(id=i, name=catalog.accelerators[i].name if i in catalog.accelerators else i, url=site_path("silicon_page", ident=i))
        for i in ids
    ]


def economics_claim_view(catalog: EnergyCatalog, claim: EconomicsClaim) -> ClaimView:
    """A claim with the claimant's interest; ``sells_these_parts`` when it is the parts' vendor.

    A value that is not finite (which validation refuses, but a catalog built in code could
    hold) is shown as null and "not a finite number", so the API still answers."""
    vendors = {catalog.vendors[a.vendor].name.casefold() for i in claim.accelerators
               if (a := catalog.accelerators.get(i)) is not None and a.vendor in catalog.vendors}  # fmt: skip
    source = _source(claim.sources, claim.source)
    assert source is not None  # the record validates its source key
    value = claim.value if math.isfinite(claim.value) else None  # never NaN in JSON, never a 500
    return ClaimView(
        id=claim.id, metric=claim.metric, metric_label=METRIC_LABELS[claim.metric], value=value, unit=claim.unit,
        display=f"{number_text(value)} {claim.unit}" if value is not None else f"not a finite number ({claim.unit})", claimant=claim.claimant, claimant_sells=claim.claimant_sells,
        interest_words=INTEREST_WORDS[claim.claimant_sells], sells_one_side=claim.claimant_sells in SELLING,
        sells_these_parts=claim.claimant.casefold() in vendors,
        accelerators=_link_parts(catalog, claim.accelerators), model=claim.model, conditions=claim.conditions,
        date=claim.date, source=source, verified=claim.verified, data_file=catalog.files[f"claims/{claim.id}"],
    )  # fmt: skip


def _claims(catalog: EnergyCatalog, metric: Metric | None = None, accelerator: str | None = None) -> list[ClaimView]:
    chosen = [c for c in catalog.claims.values()
              if (metric is None or c.metric is metric) and (accelerator is None or accelerator in c.accelerators)]  # fmt: skip
    chosen.sort(key=lambda c: (-c.date.toordinal(), c.claimant.casefold(), c.id))
    return [economics_claim_view(catalog, c) for c in chosen]


def economics_view(catalog: EnergyCatalog) -> EconomicsView:
    """Every economics claim, grouped by metric label, newest first."""
    groups = {METRIC_LABELS[m]: _claims(catalog, m) for m in Metric}
    views = [c for group in groups.values() for c in group]
    return EconomicsView(groups=groups, claim_count=len(views), selling_count=sum(c.sells_one_side for c in views))


def topic_view(catalog: EnergyCatalog, topic: EnergyTopic) -> TopicView:
    """The page data of one energy topic; tokens-per-watt also lists the matching claims."""
    figures = [figure_view(topic, f) for f in topic.figures]
    systems = {s.id: s for s in catalog.systems.values() if any(_names(s).search(f.label) for f in topic.figures)}
    return TopicView(
        id=topic.id, title=topic.title, summary=topic.summary, verified=topic.verified, figures=figures,
        claims=_claims(catalog, Metric.TOKENS_PER_WATT) if topic.id == "tokens-per-watt" else [],
        systems=[Link(id=i, name=s.name, url=site_path("system_page", ident=i)) for i, s in systems.items()],
        url=site_path("energy_topic", ident=topic.id), api_url=site_path("api_energy_topic", ident=topic.id), data_file=catalog.files[f"energy/{topic.id}"],
    )  # fmt: skip


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


def power_question(catalog: EnergyCatalog, acc: Accelerator) -> PowerQuestion:
    """The power question for ``acc``: its own power, its systems' power totals (or "not
    published"), the newest rack-density and queue figures, and its tokens-per-watt claims."""
    systems = []
    for system in systems_of(catalog, acc.id):
        view = system_view(catalog, system)
        systems.append(SystemPowerView(
            id=system.id, name=system.name, kind=system.kind.value, url=view.url,
            count=sum(m.count for m in system.members if m.accelerator == acc.id),
            accelerator_count=system.accelerator_count, power=view.power, reported_power=view.reported_power,
        ))  # fmt: skip
    return PowerQuestion(
        part_power=claim_view(acc.sources, "power", "Power", acc.specs.power),
        systems=systems,
        rack_density=latest_figures(catalog, "rack-power-density"),
        queue=latest_figures(catalog, "interconnection-queue"),
        efficiency_claims=_claims(catalog, Metric.TOKENS_PER_WATT, acc.id),
        topics=[
            Link(id=t, name=catalog.energy[t].title, url=site_path("energy_topic", ident=t)) for t in POWER_TOPICS if t in catalog.energy
        ],
    )


def number_text(value: float) -> str:
    """A claimant's number as text: whole numbers with thousands separators (``2,756,947``), else as written (``0.106``)."""
    return f"{value:,.0f}" if value.is_integer() else f"{value:g}"


def system_power_text(view: SystemClaimView) -> str:
    """A system's power for a table cell: ``"10.2 kW per node"`` or the state in words."""
    if view.amount is not None and view.basis:
        return f"{humanize(view.amount, 'W')} per {view.basis}"
    return view.display


__all__ = [
    "ClaimView", "EconomicsView", "FigureView", "Link", "MemberView", "PowerQuestion", "SystemClaimView",
    "SystemPowerView", "SystemView", "TopicView", "claim_view", "economics_claim_view", "economics_view",
    "figure_view", "latest_figures", "number_text", "power_question", "reported_power", "system_power_text", "system_view",
    "systems_of", "topic_view",
]  # fmt: skip
