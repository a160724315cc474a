"""The API reference page, rendered on the server from the app's own OpenAPI document.

FastAPI's Swagger page loads scripts from a CDN and runs inline script, which our content
security policy forbids and an offline machine cannot fetch; this page lists the same
endpoints, parameters and response schemas as plain HTML, generated from ``/openapi.json``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from computeatlas.core.catalog import Catalog
from computeatlas.core.urls import site_path
from computeatlas.web.page import Route, render


class Parameter(BaseModel):
    """One query or path parameter of an endpoint."""

    name: str
    where: str
    required: bool
    description: str


class Endpoint(BaseModel):
    """One documented endpoint: method, path, summary, parameters and response schema name."""

    method: str
    path: str
    summary: str
    description: str
    parameters: list[Parameter]
    response: str | None


def endpoints(openapi: dict[str, Any]) -> list[Endpoint]:
    """The endpoints of an OpenAPI document, sorted by path then method."""
    out = []
    for path, operations in sorted(openapi.get("paths", {}).items()):
        for method, op in sorted(operations.items()):
            schema = op.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {}).get("schema", {})
            ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
            response = ref.rsplit("/", 1)[-1] + ("[]" if "items" in schema else "") if ref else None
            out.append(
                Endpoint(
                    method=method.upper(),
                    path=path,
                    summary=op.get("summary", ""),
                    description=op.get("description", ""),
                    parameters=[
                        Parameter(name=p["name"], where=p["in"], required=p.get("required", False), description=p.get("description", ""))
                        for p in op.get("parameters", [])
                    ],
                    response=response,
                )
            )
    return out


def api_docs(request: Request) -> HTMLResponse:
    """Every API endpoint with its parameters and response schema, from the OpenAPI document."""
    return render(request, "api_docs.html", page_title="API reference", endpoints=endpoints(request.app.openapi()))


def static_paths(catalog: Catalog) -> Iterable[str]:
    """The API reference page, for the static build."""
    yield site_path("api_docs")


ROUTES: tuple[Route, ...] = (Route(api_docs, "api_docs"),)
