"""The route table: every page and API endpoint of the site, joined from each layer's module.

Page handlers and API handlers build the same view objects; pages render them with
Jinja2, the API returns them as JSON. Add a layer by adding its module's ``ROUTES`` here.
"""

from __future__ import annotations

from computeatlas.web import silicon
from computeatlas.web.page import Route

ROUTES: tuple[Route, ...] = (*silicon.ROUTES,)
