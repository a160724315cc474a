"""The API's OpenAPI document: FastAPI's, with the error bodies the site really sends.

Every input error is a 400 (never FastAPI's 422), and a path naming a record that does not
exist is a 404; both carry :class:`ErrorBody`. :func:`install` replaces the app's
``openapi()`` so ``/openapi.json`` and the API reference page say so.
"""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel


class Suggestion(BaseModel):
    """A record close to what was asked for."""

    name: str
    url: str


class ErrorBody(BaseModel):
    """The JSON body of every API error: a title, a sentence naming the parameter, the status."""

    error: str
    detail: str
    status: int
    suggestions: list[Suggestion] | None = None


_REF = {"$ref": "#/components/schemas/ErrorBody"}
_BAD = {
    "description": "Bad request: the detail names the parameter and says what was expected",
    "content": {"application/json": {"schema": _REF}},
}
_MISSING = {"description": "No such record; the closest ids are suggested", "content": {"application/json": {"schema": _REF}}}

LOOKUPS = ("/api/compare", "/api/estimate")
"""Operations that look records up by ids given in the query: an unknown id is a 404 there too."""


def document(app: FastAPI, base_path: str = "") -> dict[str, Any]:
    """The OpenAPI document of ``app``: 422 replaced by 400 and a 404 on every path with a
    path parameter and on the :data:`LOOKUPS`. Under a ``base_path`` the paths are the site's (``/api/accelerators``)
    and the base path is the document's server URL.

    Apps mount routes made from the one route table (see
    :mod:`computeatlas.web.app`), so the document is generated once per set of route
    definitions, title, version, description and base path, and each app gets its own copy."""
    routes = [route for route in app.routes if isinstance(route, APIRoute)]
    key = (tuple(map(_definition, routes)), app.title, app.version, app.description, base_path)
    if key not in _MADE:
        _MADE[key] = _document(routes, app.title, app.version, app.description, base_path)
        while len(_MADE) > 8:
            del _MADE[next(iter(_MADE))]
    return copy.deepcopy(_MADE[key])


def _definition(route: APIRoute) -> tuple[Any, ...]:
    """What the document says of ``route`` comes from these (the endpoint's signature and
    docstring included); a static build's routes differ from a live app's only in the
    response class's linking, not its media type."""
    return (
        route.path,
        tuple(sorted(route.methods or ())),
        route.name,
        route.endpoint,
        route.response_model,
        route.summary,
        route.include_in_schema,
        getattr(route.response_class, "media_type", None),
    )


_MADE: dict[tuple[Any, ...], dict[str, Any]] = {}
"""Documents made, by their routes' definitions and the app's texts; the oldest go first."""


def _document(routes: list[APIRoute], title: str, version: str, description: str, base_path: str) -> dict[str, Any]:
    schema = get_openapi(title=title, version=version, description=description, routes=routes)
    if base_path:
        schema["paths"] = {path.removeprefix(base_path): item for path, item in schema.get("paths", {}).items()}
        schema["servers"] = [{"url": base_path}]
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["ErrorBody"] = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(components["ErrorBody"].pop("$defs", {}))
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    for path, operations in schema.get("paths", {}).items():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            had_params = responses.pop("422", None) is not None or bool(operation.get("parameters"))
            if had_params:
                responses["400"] = _BAD
            if "{" in path or path in LOOKUPS:
                responses["404"] = _MISSING
    return schema


def install(app: FastAPI, base_path: str = "") -> None:
    """Make ``app.openapi()`` return :func:`document` (built once)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document(app, base_path)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
