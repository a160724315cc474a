"""The API reference page, rendered on the server from the app's own OpenAPI document.

FastAPI's Swagger page loads scripts from a CDN and runs inline script, which our content
security policy forbids and an offline machine cannot fetch; this page lists the same
endpoints, parameters and response schemas as plain HTML, generated from ``/openapi.json``,
with each description's markup rendered (:func:`prose`), an index of every endpoint, an
example request for each endpoint made from the catalog's own ids (:func:`example`) on the
configured public origin, and the response that request really gets: the app's own route
called in-process when the page is rendered (:func:`responses`; lists shortened to their
first :data:`EXAMPLE_ITEMS` items, marked as such).
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

import anyio
import httpx
from fastapi import Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup
from pydantic import BaseModel

from computeatlas.catalog import Catalog
from computeatlas.core.urls import Urls, site_path
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
    status: int | None = None
    """The status the example request got when the page was rendered."""
    answer: str = ""
    """The JSON it got, indented (lists shortened by :func:`shortened`)."""
    shortened: bool = False
    """True when a list in :attr:`answer` was cut to its first items."""

    @property
    def anchor(self) -> str:
        """The id of the endpoint's section on the page (``get--api-accelerators-ident``)."""
        return f"{self.method.lower()}-{self.path.replace('/', '-').replace('{', '').replace('}', '')}"


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


def example(catalog: Catalog, endpoint: Endpoint, built: list[str]) -> str:
    """A request for ``endpoint`` that answers 200 on ``catalog``, as a site path: for a path
    with parameters, the first of ``built`` (every layer's static paths, which answer 200)
    that matches it (``/api/accelerators/{ident}`` → ``/api/accelerators/acme-a1``), and
    every required query parameter filled with a real value (``/api/search?q=TPU``). When
    nothing of the kind was built (no part has a price chart), the first part's id stands
    in, and the example answers 404 as the endpoint does for that part."""
    pattern = re.compile("^" + re.sub(r"\\{[a-z_]+\\}", "[^/]+", re.escape(endpoint.path)) + "$")
    ids = list(catalog.accelerators)[:2]
    path = next((p for p in built if pattern.match(p)), None)
    if path is None:  # nothing of this kind was built (no curated pair, no part with prices): the first parts
        stand_in = {"pair": "-vs-".join(sorted(ids)), "fmt": "FP8"}
        path = re.sub(r"\{([a-z_]+)\}", lambda m: stand_in.get(m.group(1), ids[0] if ids else "x"), endpoint.path)
    query = {"ids": ",".join(ids), "q": "TPU", "accelerator": ids[0] if ids else "", "params": "7e9", "format": "FP8", "utilisation": "0.5"}
    wanted = {
        p.name: query[p.name] for p in endpoint.parameters if p.where == "query" and (p.required or p.name == "params") and p.name in query
    }
    return path + ("?" + urlencode(wanted, safe=",") if wanted else "")


EXAMPLE_ITEMS = 2
"""An example response's lists keep this many items (the rest are counted, not shown)."""


def shortened(value: Any) -> tuple[Any, bool]:
    """``value`` (a JSON document) with every list cut to its first :data:`EXAMPLE_ITEMS`
    items, and whether anything was cut. The shape (keys and types) is kept."""
    if isinstance(value, list):
        items = [shortened(v) for v in value[:EXAMPLE_ITEMS]]
        return [v for v, _ in items], len(value) > EXAMPLE_ITEMS or any(c for _, c in items)
    if isinstance(value, dict):
        fields = {k: shortened(v) for k, v in value.items()}
        return {k: v for k, (v, _) in fields.items()}, any(c for _, c in fields.values())
    return value, False


def responses(request: Request, paths: list[str]) -> list[tuple[int, Any]]:
    """The status and JSON body (``None`` when it is not JSON) of a GET of each of ``paths``
    (site paths), asked of the app serving ``request`` in-process (no socket: httpx's ASGI
    transport, on an event loop of this worker thread's own), on its public origin."""
    urls: Urls = urls_of(request)
    transport = httpx.ASGITransport(app=request.app)

    async def ask() -> list[tuple[int, Any]]:
        answers = []
        async with httpx.AsyncClient(transport=transport, base_url=urls.origin) as client:
            for path in paths:
                got = await client.get(urls.prefixed(path), headers={"user-agent": "computeatlas-api-docs"})
                try:
                    answers.append((got.status_code, got.json()))
                except ValueError:
                    answers.append((got.status_code, None))
        return answers

    return anyio.run(ask)


def with_answers(request: Request, found: list[Endpoint]) -> list[Endpoint]:
    """``found`` with each GET endpoint's example response (:func:`responses`), indented and shortened."""
    gets = [e for e in found if e.method == "GET"]
    answered = dict(zip((e.anchor for e in gets), responses(request, [e.example for e in gets]), strict=True))
    done = []
    for e in found:
        if e.anchor not in answered:
            done.append(e)
            continue
        status, body = answered[e.anchor]
        short, cut = shortened(body)
        answer = json.dumps(short, indent=2, ensure_ascii=False) if body is not None else ""
        done.append(e.model_copy(update={"status": status, "answer": answer, "shortened": cut}))
    return done


def api_docs(request: Request) -> HTMLResponse:
    """Every API endpoint with its parameters and response schema, from the OpenAPI document,
    each with an example request and the response it gets (asked of the app itself)."""
    catalog = catalog_of(request)
    built = request.app.state.all_paths(catalog)
    found = [e.model_copy(update={"example": example(catalog, e, built)}) for e in endpoints(request.app.openapi())]
    found = with_answers(request, found)
    return render(request, "api_docs.html", page_title="API reference", endpoints=found, prose=prose,
                  example_url=functools.partial(example_address, urls_of(request)), example_items=EXAMPLE_ITEMS)  # fmt: skip


def example_address(urls: Urls, path: str) -> str:
    """The absolute address of example request ``path``: on the public origin, at its file's
    URL in a static build where it was built, else on the live server (when there is one).
    Unlike a link, an example is text: it is not sent to the live server's link list."""
    bare = path.split("?", 1)[0]
    if urls.files is not None and bare not in urls.files:
        return (urls.live or urls.origin + urls.base_path) + path
    return urls.absolute(path)


def static_paths(catalog: Catalog) -> Iterable[str]:
    """The API reference page, for the static build."""
    yield site_path("api_docs")


ROUTES: tuple[Route, ...] = (Route(api_docs, "api_docs"),)
