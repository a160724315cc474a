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
_BAD = {"description": "Bad request: the detail names the parameter and says what was expected", "content": {"application/json": {"schema": _REF}}}
_MISSING = {"description": "No such record; the closest ids are suggested", "content": {"application/json": {"schema": _REF}}}

LOOKUPS = ("/api/compare", "/api/estimate")
"""Operations that look records up by ids given in the query: an unknown id is a 404 there too."""




def document(app: FastAPI, base_path: str = "") -> dict[str, Any]:
    """The OpenAPI document of ``app``: 422 replaced by 400 and a 404 on every path with a
    path parameter and on the :data:`LOOKUPS`. Under a ``base_path`` the paths are the site's (``/api/accelerators``)
    and the base path is the document's server URL.

    Apps with the same settings mount the same route objects (see
    :func:`computeatlas.web.app.site_routes`), so the document is generated once per route
    set, title, version, description and base path, and each app gets its own copy."""
    operations = [route for route in app.routes if isinstance(route, APIRoute)]
    key = (tuple(map(id, operations)), app.title, app.version, app.description, base_path)
    made = _MADE.get(key)
    if made is None or any(a is not b for a, b in zip(made[0], operations, strict=True)):
        made = _MADE[key] = (operations, _document(operations, app.title, app.version, app.description, base_path))
        while len(_MADE) > 16:
            del _MADE[next(iter(_MADE))]
    return copy.deepcopy(made[1])


_MADE: dict[tuple[Any, ...], tuple[list[APIRoute], dict[str, Any]]] = {}
"""Documents made, by the identities of their routes and the app's texts (the routes are
kept with each, so an identity is not reused while its entry lives); the oldest go first."""


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
