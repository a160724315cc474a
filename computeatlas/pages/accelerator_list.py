"""The accelerator list in the API (``/api/accelerators``): each part's who and what, its core
figures with their states (:func:`computeatlas.silicon.specs.core_figure`) and its links."""

from __future__ import annotations

from pydantic import BaseModel, Field

from computeatlas.core.urls import site_path
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.specs import CoreFigure, core_figure, spec_view


class AcceleratorSummary(BaseModel):
    """A row of the accelerator list in the API: who and what, and the core figures with their states."""

    id: str
    name: str
    vendor: str
    family: str
    availability: str
    workload: str
    verified: str = Field(description="the date the record was last checked against its sources (ISO 8601)")
    url: str
    api_url: str
    specs: list[CoreFigure] = Field(description="memory, memory bandwidth, dense compute per number format, power, interconnect, software")


def summary_view(acc: Accelerator) -> AcceleratorSummary:
    """The short form of ``acc`` used in API lists, with its core figures (details left out)
    and its page and API paths (site paths: the templates and the API put them under the base path)."""
    return AcceleratorSummary(
        id=acc.id,
        name=acc.name,
        vendor=acc.vendor,
        family=acc.family,
        availability=acc.availability.value,
        workload=acc.workload.value,
        verified=acc.verified.isoformat(),
        url=site_path("silicon_page", ident=acc.id),
        api_url=site_path("api_accelerator", ident=acc.id),
        specs=[core_figure(spec_view(acc, key, claim)) for key, claim in acc.claims() if not key.startswith("details.")],
    )


__all__ = ["AcceleratorSummary", "summary_view"]
