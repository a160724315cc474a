"""The API reference page, rendered on the server from the app's own OpenAPI document.

FastAPI's Swagger page loads scripts from a CDN and runs inline script, which our content
security policy forbids and an offline machine cannot fetch; this page lists the same
endpoints, parameters and response schemas as plain HTML, generated from ``/openapi.json``,
with each description's markup rendered (:func:`prose`) and an example request for each
endpoint made from the catalog's own ids (:func:`example`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup
from pydantic import BaseModel

from computeatlas.core.catalog import Catalog
from computeatlas.core.urls import site_path
from computeatlas.web.page import Route, catalog_of, render, urls_of

_CODE = re.compile(r"``(.+?)``|:[a-z]+:`~?([^`]+?)`|`([^`]+?)`")
_STRONG = re.compile(r"\*\*(.+?)\*\*")


def prose(text: str) -> Markup:
    """``text`` (a docstring or description in reStructuredText-like markup) as safe HTML:
    paragraphs at blank lines, ````x````, ```x``` and roles such as ``:class:`~a.B``` as
    ``<code>`` (a role shows its last dotted name), ``**x**`` as ``<strong>``. Everything
    else is escaped."""

    def code(match: re.Match[str]) -> str:
        literal, role, plain = match.groups()
        shown = literal if literal is not None else (role.rsplit(".", 1)[-1] if role is not None else plain)
        return f"<code>{shown}</code>"

    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    rendered = (_STRONG.sub(r"<strong>\1</strong>", _CODE.sub(code, html.escape(p, quote=False))) for p in paragraphs)
    return Markup("".join(f"<p>{p}</p>" for p in rendered))


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
    example: str = ""


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


def example(catalog: Catalog, endpoint: Endpoint) -> str:
    """A request for ``endpoint`` that answers 200 on ``catalog``: its path with every path
    parameter filled with a real id and every required query parameter with a real value
    (``/api/accelerators/nvidia-h100-sxm``, ``/api/search?q=TPU``), as a site path."""
    accs = list(catalog.accelerators)
    first = next((a for a in ("nvidia-h100-sxm", "nvidia-h200-sxm") if a in catalog.accelerators), accs[0] if accs else "")
    second = next((a for a in accs if a != first), first)
    priced = next((o.accelerator for o in catalog.offers.values() if o.accelerator in catalog.accelerators), first)
    by_path = {
        "ident": {
            "energy": next(iter(catalog.energy), ""),
            "systems": next(iter(catalog.systems), ""),
            "providers": next(iter(catalog.providers), ""),
            "prices": priced,
        },
        "pair": next(iter(catalog.comparisons), "-vs-".join(sorted((first, second)))),
        "fmt": "FP8",
    }
    path = endpoint.path
    for p in endpoint.parameters:
        if p.where != "path":
            continue
        value = by_path.get(p.name, "")
        if isinstance(value, dict):
            value = next((v for k, v in value.items() if f"/{k}/" in path), first)
        path = path.replace("{" + p.name + "}", str(value))
    query = {"ids": f"{first},{second}", "q": "TPU", "accelerator": first, "params": "70e9", "format": "FP8", "utilisation": "0.5"}
    wanted = {p.name: query[p.name] for p in endpoint.parameters if p.where == "query" and p.required and p.name in query}
    return path + ("?" + urlencode(wanted, safe=",") if wanted else "")


def api_docs(request: Request) -> HTMLResponse:
    """Every API endpoint with its parameters and response schema, from the OpenAPI document,
    each with an example request."""
    catalog = catalog_of(request)
    found = [e.model_copy(update={"example": example(catalog, e)}) for e in endpoints(request.app.openapi())]
    urls = urls_of(request)
    return render(request, "api_docs.html", page_title="API reference", endpoints=found, prose=prose,
                  example_url=lambda path: urls.absolute(path))  # fmt: skip


def static_paths(catalog: Catalog) -> Iterable[str]:
    """The API reference page, for the static build."""
    yield site_path("api_docs")


ROUTES: tuple[Route, ...] = (Route(api_docs, "api_docs"),)
