"""Energy-layer pages: rack-scale systems, energy topics, economics claims and the power
question on each accelerator page, with their links.

The figures are the energy domain's (:mod:`computeatlas.energy.views`: totals on each
system's own basis, dated figures with who claims them); this adds the page and API paths
and assembles the view objects the templates render and the API returns.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable

from pydantic import BaseModel, Field

from computeatlas.core.citation import SourceView, source_view
from computeatlas.core.claimants import Interest
from computeatlas.core.urls import site_path
from computeatlas.economics.claims import EconomicsClaim, Metric
from computeatlas.energy.catalog import EnergyCatalog
from computeatlas.energy.records import EnergyTopic
from computeatlas.energy.views import (
    INTEREST_WORDS,
    METRIC_LABELS,
    POWER_TOPICS,
    SELLING,
    FigureView,
    SystemClaimView,
    claim_view,
    claims_on,
    figure_view,
    latest_figures,
    mentions,
    number_text,
    source_of,
    system_figures,
    systems_of,
)
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.systems import System


class Link(BaseModel):
    """A link to another page of the atlas."""

    id: str
    name: str
    url: str


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


def system_view(catalog: EnergyCatalog, system: System) -> SystemView:
    """The page data of one system: its figures (:func:`~computeatlas.energy.views.system_figures`) and links."""
    figures = system_figures(catalog, system)
    return SystemView(
        id=system.id, name=system.name, vendor=figures.vendor, kind=system.kind.value,
        summary=system.summary, cooling=system.cooling, verified=system.verified,
        members=[
            MemberView(accelerator=m.accelerator, count=m.count, url=site_path("silicon_page", ident=m.accelerator),
                       name=catalog.accelerators[m.accelerator].name if m.accelerator in catalog.accelerators else m.accelerator)
            for m in system.members
        ],
        accelerator_count=system.accelerator_count,
        specs=figures.specs,
        power=figures.power,
        reported_power=figures.reported_power,
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
    source = source_of(claim.sources, claim.source)
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
    return [economics_claim_view(catalog, c) for c in claims_on(catalog, metric, accelerator)]


def economics_view(catalog: EnergyCatalog) -> EconomicsView:
    """Every economics claim, grouped by metric label, newest first."""
    groups = {METRIC_LABELS[m]: _claims(catalog, m) for m in Metric}
    views = [c for group in groups.values() for c in group]
    return EconomicsView(groups=groups, claim_count=len(views), selling_count=sum(c.sells_one_side for c in views))


def topic_view(catalog: EnergyCatalog, topic: EnergyTopic) -> TopicView:
    """The page data of one energy topic; tokens-per-watt also lists the matching claims."""
    figures = [figure_view(topic, f) for f in topic.figures]
    systems = {s.id: s for s in catalog.systems.values() if any(mentions(s, f.label) for f in topic.figures)}
    return TopicView(
        id=topic.id, title=topic.title, summary=topic.summary, verified=topic.verified, figures=figures,
        claims=_claims(catalog, Metric.TOKENS_PER_WATT) if topic.id == "tokens-per-watt" else [],
        systems=[Link(id=i, name=s.name, url=site_path("system_page", ident=i)) for i, s in systems.items()],
        url=site_path("energy_topic", ident=topic.id), api_url=site_path("api_energy_topic", ident=topic.id), data_file=catalog.files[f"energy/{topic.id}"],
    )  # fmt: skip


def power_question(catalog: EnergyCatalog, acc: Accelerator) -> PowerQuestion:
    """The power question for ``acc``: its own power, its systems' power totals (or "not
    published"), the newest rack-density and queue figures, and its tokens-per-watt claims."""
    systems = []
    for system in systems_of(catalog, acc.id):
        figures = system_figures(catalog, system)
        systems.append(SystemPowerView(
            id=system.id, name=system.name, kind=system.kind.value, url=site_path("system_page", ident=system.id),
            count=sum(m.count for m in system.members if m.accelerator == acc.id),
            accelerator_count=system.accelerator_count, power=figures.power, reported_power=figures.reported_power,
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


__all__ = [
    "ClaimView", "EconomicsView", "Link", "MemberView", "PowerQuestion", "SystemPowerView", "SystemView", "TopicView",
    "economics_claim_view", "economics_view", "power_question", "system_view", "topic_view",
]  # fmt: skip
