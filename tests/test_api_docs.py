"""The API reference as a reference: an index of every endpoint of the one route table, and
for each a real example response (asked of the app itself) whose shape is the live answer's,
with examples on the configured public origin."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.core.settings import Settings
from computeatlas.web.api_docs import EXAMPLE_ITEMS, shortened
from computeatlas.web.routes import ROUTES


def shape(value: Any) -> Any:
    """The keys and JSON types of ``value``; a list by its first item."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool) or value is None:
        return repr(value) if value is None else "boolean"
    return "number" if isinstance(value, int | float) else type(value).__name__


def test_shortened_keeps_the_shape_and_says_when_it_cut() -> None:
    assert shortened({"a": [1, 2, 3], "b": {"c": [4]}}) == ({"a": [1, 2], "b": {"c": [4]}}, True)
    assert shortened([{"x": 1}]) == ([{"x": 1}], False)
    assert EXAMPLE_ITEMS == 2


def test_every_api_route_is_indexed_with_an_example_response_shaped_as_the_live_one(real_client: TestClient) -> None:
    page = BeautifulSoup(real_client.get("/api/docs").text, "lxml")
    index = {a.get_text(" ", strip=True): a["href"] for a in page.select("nav.api-index a")}
    api_routes = [r for r in ROUTES if r.in_schema]
    assert len(api_routes) >= 25 and len(index) == len(page.select("section.endpoint"))
    for route in api_routes:
        for method in route.methods:
            anchor = index.get(f"{method} {route.path}")
            assert anchor is not None, f"{method} {route.path} is not in the index"
            section = page.select_one(f"section{anchor}")
            assert section is not None, anchor
            request = section.select_one("code.request").get_text()
            url = request.split("'")[1].removeprefix("http://127.0.0.1:8000")
            shown = json.loads(section.select_one("pre.answer").get_text())
            live = real_client.get(url)
            assert live.status_code == 200, url
            assert shape(shown) == shape(shortened(live.json())[0]), url
    # A real answer from the bundled records: the accelerator list names AMD's MI100 first (sorted by name).
    listing = json.loads(page.select_one("#get--api-accelerators pre.answer").get_text())
    assert [row["id"] for row in listing] == [row["id"] for row in real_client.get("/api/accelerators").json()[:EXAMPLE_ITEMS]]
    assert "lists cut to their first 2 items" in page.select_one("#get--api-accelerators details summary").get_text()


def test_examples_use_the_configured_origin(make_client: Callable[..., TestClient], catalog: Catalog) -> None:
    client = make_client(catalog, Settings.from_env(public_origin="https://atlas.example.org"))
    page = BeautifulSoup(client.get("/api/docs").text, "lxml")
    requests = [c.get_text() for c in page.select("code.request")]
    assert requests and all(r.startswith("curl -s 'https://atlas.example.org/api/") for r in requests)
    assert "8000" not in " ".join(requests)
