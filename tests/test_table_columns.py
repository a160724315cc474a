"""The silicon table's column picker and filter statement, parsed as HTML: the columns a
visitor picks are the ones shown, in every sort link and the clear link; an unknown column
is a 400 naming it and the allowed ones; the line above the table states the filters."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient


def page(client: TestClient, query: str) -> BeautifulSoup:
    response = client.get(f"/silicon/?{query}")
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "lxml")


def shown(html: BeautifulSoup) -> list[str]:
    return [th["data-key"] for th in html.select("#silicon-table thead th[data-key]") if not th.has_attr("hidden")]


def row_cells(html: BeautifulSoup, ident: str) -> list[str]:
    return [td["data-key"] for td in html.select(f'#silicon-table tr[data-id="{ident}"] td') if not td.has_attr("hidden")]


def test_every_column_but_the_vendor_is_shown_by_default(client: TestClient) -> None:
    html = page(client, "")
    assert shown(html) == [
        "name",
        "memory",
        "memory_bandwidth",
        "fp8",
        "bf16",
        "fp4",
        "power",
        "price",
        "availability",
        "workload",
        "form_factor",
    ]
    boxes = {box["value"]: box.has_attr("checked") for box in html.select("form.filters input[type=checkbox][name=columns]")}
    assert boxes["memory"] and not boxes["vendor"] and "name" not in boxes


def test_the_picked_columns_are_shown_and_kept_hidden_across_sort_links(client: TestClient) -> None:
    html = page(client, "columns=memory,vendor&sort=-memory")
    assert shown(html) == ["name", "vendor", "memory"]
    assert row_cells(html, "acme-a2") == ["vendor", "memory"]
    assert html.select_one('tr[data-id="acme-a2"] td[data-key="vendor"]').get_text(strip=True) == "acme"
    power = html.select_one('#silicon-table th[data-key="power"]')
    assert power.has_attr("hidden")
    # Every sort link keeps the choice, so sorting never brings a hidden column back.
    for link in html.select("#silicon-table thead th a"):
        assert parse_qs(urlsplit(link["href"]).query)["columns"] == ["name,vendor,memory"]
    followed = page(client, urlsplit(html.select_one('th[data-key="memory"] a')["href"]).query)
    assert shown(followed) == ["name", "vendor", "memory"]
    assert [tr["data-id"] for tr in followed.select("#silicon-table tbody tr[data-id]")] == [
        "globex-g1",
        "acme-a1",
        "acme-a2",
    ]  # 24, 80, 144 GB
    assert followed.select_one('th[data-key="memory"]')["aria-sort"] == "ascending"


def test_the_picker_form_sends_one_parameter_per_column(client: TestClient) -> None:
    # What the checkboxes send (the hidden name, then each one ticked) reads as one list.
    assert shown(page(client, "columns=name&columns=power&columns=price")) == ["name", "power", "price"]
    assert shown(page(client, "columns=name")) == ["name"]


@pytest.mark.parametrize(
    ("query", "bad"),
    [("columns=memory,colour", "'colour'"), ("columns=memory&columns=size&columns=colour", "'colour', 'size'")],
)
def test_an_unknown_column_is_a_400_naming_it_and_the_allowed_ones(client: TestClient, query: str, bad: str) -> None:
    response = client.get(f"/silicon/?{query}")
    assert response.status_code == 400
    text = BeautifulSoup(response.text, "lxml").get_text(" ")
    assert f"query parameter 'columns': no column {bad}; choose from name, vendor, memory, memory_bandwidth" in text
    assert client.get(f"/api/accelerators?{query}").status_code == 400


@pytest.mark.parametrize(
    ("query", "statement"),
    [
        ("", "Showing all 3 accelerators."),
        ("sort=-memory&columns=memory", "Showing all 3 accelerators."),  # sorting and columns are not filters
        ("vendor=acme", "Showing 2 of 3 accelerators: vendor acme."),
        ("vendor=globex,acme&memory_min=80", "Showing 2 of 3 accelerators: vendor acme or globex, memory ≥ 80 GB."),
        ("memory_min=100+GB&power_max=1+kW", "Showing 0 of 3 accelerators: memory ≥ 100 GB, power ≤ 1000 W."),
    ],
)
def test_the_line_above_the_table_states_its_filters(client: TestClient, query: str, statement: str) -> None:
    line = page(client, query).select_one("p.filter-statement")
    assert line.get_text("", strip=False).strip().removesuffix(" Clear the filters") == statement


def test_the_clear_link_drops_the_filters_and_keeps_sort_and_columns(client: TestClient) -> None:
    html = page(client, "vendor=acme&sort=-memory&columns=memory,power")
    link = html.select_one("p.filter-statement a.clear-filters")["href"]
    assert parse_qs(urlsplit(link).query) == {"sort": ["-memory"], "columns": ["name,memory,power"]}
    assert page(client, "").select_one("p.filter-statement a") is None  # nothing to clear
