"""The route table: every page and API endpoint of the site, joined from each layer's module.

Page handlers and API handlers build the same view objects; pages render them with
Jinja2, the API returns them as JSON. Add a layer by adding its module's ``ROUTES`` here.

A layer module may also define ``static_paths(catalog) -> Iterable[str]``: the concrete
URLs of its pages (one per record) that the static build renders.
"""

from __future__ import annotations

from computeatlas.catalog import Catalog
from computeatlas.core.settings import Settings
from computeatlas.web import (
    api_docs,
    charts,
    cloud,
    cloud_status,
    compare,
    coverage,  # listed before silicon, so /silicon/coverage is not read as an accelerator id
    dataset,
    economics,
    energy,
    price_charts,
    silicon,
    site,
)
from computeatlas.web.page import Route

LAYERS = (
    coverage,
    silicon,
    compare,
    energy,
    economics,
    cloud_status,  # before cloud, so /cloud/status is not read as a provider id
    cloud,
    charts,
    price_charts,
    site,
    dataset,
    api_docs,
)  # a new layer: add its module here

ROUTES: tuple[Route, ...] = tuple(route for layer in LAYERS for route in layer.ROUTES)


def all_paths(catalog: Catalog, settings: Settings | None = None) -> list[str]:
    """Every concrete URL the site renders statically, in route-table order, once; the
    price charts listed are those of parts with a current price in ``settings``' store
    (default: :meth:`Settings.from_env`)."""
    return site.paths_of(LAYERS, catalog, settings if settings is not None else Settings.from_env())
