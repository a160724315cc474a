"""The accelerator page's data: one view object built once from every domain.

The page renders it with Jinja2, ``/api/accelerators/{id}`` returns it as JSON and
``computeatlas show`` prints it, so the three faces cannot disagree.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.catalog import Catalog
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.rental import RentSummary, rent_summary
from computeatlas.cloud.store import Store
from computeatlas.core.citation import SourceView, source_view
from computeatlas.core.urls import site_path
from computeatlas.pages.cloud_links import link_rent, offer_page
from computeatlas.pages.energy import PowerQuestion, power_question
from computeatlas.pages.glance import Glance, glance
from computeatlas.pages.related import CuratedLink, RelatedPart, compared_against, related
from computeatlas.silicon.derive import DerivedFigure, derived_figures
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.specs import SPEC_LABELS, SpecView, spec_view


class AcceleratorView(BaseModel):
    """Everything an accelerator page shows, and the body of ``/api/accelerators/{id}``."""

    id: str
    name: str
    vendor: str
    vendor_id: str
    family: str
    aliases: list[str]
    summary: str
    workload: str
    form_factor: str
    availability: str
    availability_note: str
    audience: str
    catch: str
    economics: str
    announced: dt.date | None
    verified: dt.date
    predecessor: str | None
    specs: list[SpecView]
    details_missing: list[str] = Field(description="optional details nobody has collected yet")
    sources: list[SourceView]
    data_file: str
    data_version: str
    kind: Literal["accelerator"] = "accelerator"
    compared_against: list[CuratedLink] = Field(default_factory=list, description="curated comparisons that include this part")
    related: list[RelatedPart] = Field(default_factory=list, description="related silicon picked from the records")
    derived: list[DerivedFigure] = Field(default_factory=list, description="derived from published figures, with formulas")
    rent: RentSummary | None = Field(None, description="where you actually rent this: providers, on-demand price range, cloud-only note")
    power: PowerQuestion | None = Field(None, description="the power question: this part's power, its systems' power, energy figures")
    glance: Glance | None = Field(None, description="the summary card: core figures, availability, current price range, the catch")


def accelerator_view(
    catalog: Catalog,
    acc: Accelerator,
    store: Store | None = None,
    now: dt.datetime | None = None,
    freshness_days: int = 90,
    rates: RateTable | None = None,
) -> AcceleratorView:
    """Build the full page data for ``acc`` from the catalog; with ``store``, the rental
    section's price range is the current observed range as of ``now``."""
    details = acc.details
    maker = catalog.vendor_of(acc)
    specs = [spec_view(acc, key, claim, maker) for key, claim in acc.claims()]
    rent = link_rent(rent_summary(catalog, acc, store=store, now=now, freshness_days=freshness_days, rates=rates, link=offer_page), acc.id)
    return AcceleratorView(
        id=acc.id,
        name=acc.name,
        vendor=maker.name,
        vendor_id=acc.vendor,
        family=acc.family,
        aliases=list(acc.aliases),
        summary=acc.summary,
        workload=acc.workload.value,
        form_factor=acc.form_factor,
        availability=acc.availability.value,
        availability_note=acc.availability_note,
        audience=acc.audience,
        catch=acc.catch,
        economics=acc.economics,
        announced=acc.announced,
        verified=acc.verified,
        predecessor=acc.predecessor,
        specs=specs,
        details_missing=[SPEC_LABELS[f"details.{n}"] for n in ("process", "transistors", "die_size") if getattr(details, n) is None],
        sources=[source_view(k, s, maker.read_at(s)) for k, s in acc.sources.items()],
        data_file=catalog.files[f"accelerators/{acc.id}"],
        data_version=catalog.version,
        compared_against=compared_against(catalog, acc),
        related=related(catalog, acc),
        derived=derived_figures(acc),
        rent=rent,
        power=power_question(catalog, acc),
        glance=glance(
            specs,
            acc.availability.value,
            acc.availability_note,
            acc.catch,
            rent,
            site_path("cloud_prices", ident=acc.id),
            prices_read=store is not None,
            names={i: p.name for i, p in catalog.providers.items()},
        ),
    )
