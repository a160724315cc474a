"""The economics views as pages and the API show them: the domain's values with their links.

The economics layer returns ids (:mod:`computeatlas.economics.model_view`,
:mod:`computeatlas.economics.estimate`, :mod:`computeatlas.economics.rental_price`); this module
fills in each page's path from the URL registry (:func:`computeatlas.core.urls.site_path`), so
the page, the JSON API and the CLI's ``--json`` carry the same links, and turns an
:class:`~computeatlas.economics.errors.UnknownId` into a 404 whose suggestions are links.
"""

from __future__ import annotations

from computeatlas.core.errors import NotFound
from computeatlas.core.urls import site_path
from computeatlas.economics.errors import UnknownId
from computeatlas.economics.estimate import Estimate
from computeatlas.economics.model_view import AcceleratorBound, ModelSummary, ModelView
from computeatlas.economics.rental_price import LeftOut

ROUTES = {"model": "economics_model", "accelerator": "silicon_page"}
"""The route of each kind of record an :class:`~computeatlas.economics.errors.UnknownId` names."""


def linked_error(exc: UnknownId) -> NotFound:
    """``exc`` as a 404 whose suggestions link to the closest records' pages."""
    route = ROUTES[exc.kind]
    return NotFound(exc.title, exc.detail, [(name, site_path(route, ident=i)) for name, i in exc.near])


def linked_bound(row: AcceleratorBound | None) -> AcceleratorBound | None:
    """``row`` with its accelerator's page (None stays None)."""
    return row.model_copy(update={"accelerator_url": site_path("silicon_page", ident=row.accelerator)}) if row is not None else None


def linked_left_out(rows: list[LeftOut]) -> list[LeftOut]:
    """Each left-out part with its page."""
    return [r.model_copy(update={"url": site_path("silicon_page", ident=r.accelerator)}) for r in rows]


def linked_view(view: ModelView) -> ModelView:
    """A model's page data with every accelerator's page filled in."""
    return view.model_copy(
        update={
            "bounds": [linked_bound(b) for b in view.bounds],
            "left_out": linked_left_out(view.left_out),
            "lowest_output_bound": linked_bound(view.lowest_output_bound),
            "lowest_input_bound": linked_bound(view.lowest_input_bound),
        }
    )


def linked_summaries(rows: list[ModelSummary]) -> list[ModelSummary]:
    """The models table with each model's page and its cheapest bound's accelerator page."""
    return [
        r.model_copy(update={"url": site_path("economics_model", ident=r.id), "cheapest_bound": linked_bound(r.cheapest_bound)})
        for r in rows
    ]


def linked_estimate(result: Estimate) -> Estimate:
    """The estimate with its accelerator's page and its model's (none for a parameter count alone)."""
    return result.model_copy(
        update={
            "accelerator_url": site_path("silicon_page", ident=result.accelerator),
            "model_url": site_path("economics_model", ident=result.model) if result.model else "",
            "result": linked_bound(result.result),
        }
    )


__all__ = ["ROUTES", "linked_bound", "linked_error", "linked_estimate", "linked_left_out", "linked_summaries", "linked_view"]
