"""Layer 1 and economics pages: energy topics, rack-scale systems, claims with the claimant's
interest, and the power question on accelerator pages, parsed as HTML and read as JSON.

``write_energy_data`` adds systems, energy topics, claims, a provider and offers to the
small catalog of ``conftest`` (SMALL_CATALOG is unchanged); ``test_estimate`` uses it too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.web import energy as energy_pages
from computeatlas.web.app import create_app
from tests.conftest import SMALL_CATALOG, TODAY, fresh_client, make_record, write_data

SOURCE = {
    "title": "Acme rack guide",
    "url": "https://acme.example/rack.pdf",
    "publisher": "Acme",
    "kind": "vendor",
    "accessed": "2026-11-01",
}
PRESS = {
    "title": "Racks are hot",
    "url": "https://press.example/racks",
    "publisher": "The Register",
    "kind": "press",
    "accessed": "2026-11-01",
}
SURVEY = {
    "title": "Survey 2025",
    "url": "https://survey.example/2025",
    "publisher": "AFCOM",
    "kind": "independent",
    "accessed": "2026-11-01",
}

SYSTEMS = [
    {
        "id": "acme-rack", "name": "Acme Rack 72", "vendor": "acme", "kind": "rack", "summary": "72 Acme A2 in one rack.",
        "cooling": "liquid", "verified": "2026-11-01", "members": [{"accelerator": "acme-a2", "count": 72}],
        "sources": {"guide": SOURCE},
        "specs": {
            "memory": {"state": "published", "value": "10.4 TB", "basis": "rack", "source": "guide"},
            "power": {"state": "not_published", "source": "guide", "note": "Acme gives no rack power figure."},
        },
    },
    {
        "id": "acme-node", "name": "Acme Node 8", "vendor": "acme", "kind": "node", "summary": "Eight Acme A1 in a server.",
        "cooling": "air", "verified": "2026-11-01", "members": [{"accelerator": "acme-a1", "count": 8}],
        "sources": {"guide": SOURCE},
        "specs": {
            "memory": {"state": "published", "value": "640 GB", "basis": "node", "source": "guide"},
            "power": {"state": "published", "value": "10.2 kW", "basis": "node", "source": "guide"},
        },
    },
]  # fmt: skip


def _figure(key: str, label: str, value: str, as_of: str, claimant: str, interest: str, source: str) -> dict[str, Any]:
    return {"key": key, "label": label, "value": value, "as_of": as_of, "claimant": claimant,
            "claimant_interest": interest, "source": source}  # fmt: skip


TOPICS = [
    {
        "id": "rack-power-density", "title": "Rack power density", "summary": "Typical racks against frontier racks.",
        "verified": "2026-11-01", "sources": {"survey": SURVEY, "press": PRESS},
        "figures": [
            _figure("average-2024", "Average rack density", "12 kW", "2024-01-01", "AFCOM", "industry group", "survey"),
            _figure("average-2025", "Average rack density", "16 kW", "2025-01-01", "AFCOM", "industry group", "survey"),
            _figure("acme-rack", "Power of one Acme Rack 72 rack", "120 kW", "2026-03-11", "The Register", "independent", "press"),
        ],
    },
    {
        "id": "interconnection-queue", "title": "The grid interconnection queue", "summary": "Capacity waiting to connect.",
        "verified": "2026-11-01", "sources": {"lbnl": {**SURVEY, "publisher": "LBNL"}},
        "figures": [_figure("us-queue-2023", "Capacity in US queues", "2600 GW", "2023-12-31", "LBNL", "independent", "lbnl")],
    },
    {
        "id": "tokens-per-watt", "title": "Tokens per watt", "summary": "Who claims what.", "verified": "2026-11-01",
        "sources": {"acme": SOURCE},
        "figures": [_figure("acme-a2-vs-a1", "Acme A2 throughput per megawatt against A1", "10x", "2026-10-01", "Acme Silicon", "chip vendor", "acme")],
    },
]  # fmt: skip


def _claim(ident: str, metric: str, value: float, unit: str, claimant: str, sells: str, parts: list[str], date: str) -> dict[str, Any]:
    return {"id": ident, "metric": metric, "value": value, "unit": unit, "claimant": claimant, "claimant_sells": sells,
            "accelerators": parts, "model": "Llama 3 70B", "conditions": "Batch 64, FP8, as the source states.",
            "date": date, "source": "src", "verified": "2026-11-01", "sources": {"src": SOURCE}}  # fmt: skip


CLAIMS = [
    _claim("acme-a2-cost", "cost_per_million_tokens", 0.05, "USD per million tokens", "Acme Silicon", "chip vendor", ["acme-a2"], "2026-10-01"),
    _claim("lab-a1-cost", "cost_per_million_tokens", 0.3, "USD per million tokens", "Bench Lab", "independent", ["acme-a1"], "2026-09-01"),
    _claim("acme-a2-per-mw", "tokens_per_watt", 2756947, "tokens per second per provisioned megawatt", "Bench Lab", "independent", ["acme-a2"], "2026-08-01"),
]  # fmt: skip

PROVIDER = {
    "id": "cloudco", "name": "CloudCo", "kind": "neocloud", "url": "https://cloudco.example/", "regions": ["US"],
    "summary": "Rents Acme parts.", "verified": "2026-11-01",
    "sources": {"pricing": {**SOURCE, "publisher": "CloudCo", "url": "https://cloudco.example/pricing"}},
}  # fmt: skip
OFFERS = """provider,accelerator,variant,instance_type,accelerators_per_instance,price_basis,pricing,term,price_per_hour,currency,region,seen,source_url,note
cloudco,acme-a1,A1 80GB,8x A1,8,instance,on-demand,,40.00,USD,US,2026-11-01,https://cloudco.example/pricing,
cloudco,acme-a1,A1 80GB,A1 bundle,8,bundle,on-demand,,30.00,USD,US,2026-11-01,https://cloudco.example/pricing,storage included
cloudco,acme-a2,A2 144GB,1x A2,1,accelerator,on-demand,,3.50,USD,US,2026-11-01,https://cloudco.example/pricing,
"""


def write_energy_data(folder: Path) -> Path:
    """The small catalog plus two systems, three energy topics, three claims, a provider and three offers."""
    write_data(folder, SMALL_CATALOG)
    for sub, records in (("systems", SYSTEMS), ("energy", TOPICS), ("claims", CLAIMS), ("providers", [PROVIDER])):
        (folder / sub).mkdir(exist_ok=True)
        for record in records:
            (folder / sub / f"{record['id']}.toml").write_text(tomli_w.dumps(record), encoding="utf-8")
    (folder / "offers").mkdir(exist_ok=True)
    (folder / "offers" / "cloud.csv").write_text(OFFERS, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def energy_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The small catalog with the energy layer's records."""
    return load(write_energy_data(tmp_path_factory.mktemp("energy") / "data"), today=TODAY)


@pytest.fixture(scope="module")
def energy_app(energy_catalog: Catalog) -> FastAPI:
    return create_app(energy_catalog)


@pytest.fixture
def energy_client(energy_app: FastAPI) -> TestClient:
    """A client over the app serving ``energy_catalog``."""
    return fresh_client(energy_app)


def soup(response) -> BeautifulSoup:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    return BeautifulSoup(response.text, "lxml")


def text(node) -> str:  # type: ignore[no-untyped-def]
    """The node's text with whitespace collapsed and no space before punctuation."""
    return re.sub(r"\s+([,.;:)])", r"\1", " ".join(node.get_text(" ", strip=True).split()))


# --- systems ---------------------------------------------------------------------------


def test_system_page_links_members_and_keeps_rack_totals_per_rack(energy_client: TestClient) -> None:
    page = soup(energy_client.get("/systems/acme-rack"))
    member = page.select_one('li[data-accelerator="acme-a2"]')
    assert text(member) == "72 × Acme A2" and member.a["href"] == "/silicon/acme-a2"
    assert text(page.select_one('[data-spec="memory"] dd')).startswith("10.4 TB per rack (total)")
    assert text(page.select_one('[data-spec="power"] dd')).startswith("not published")
    totals = [text(dd) for dd in page.select("#totals dd")]
    assert not [t for t in totals if "per chip" in t or "per package" in t]
    assert "144.4 GB" not in text(page.select_one("article"))  # 10.4 TB ÷ 72 is never shown


def test_system_page_shows_others_power_claims_beside_not_published(energy_client: TestClient) -> None:
    page = soup(energy_client.get("/systems/acme-rack"))
    row = page.select_one('#reported-power tr[data-key="acme-rack"]')
    cells = [text(td) for td in row.select("td")]
    assert cells[0] == "120 kW" and cells[1] == "2026-03-11" and cells[2].startswith("The Register independent")
    assert "publishes no power figure" in text(page.select_one("#reported-power"))


def test_system_api_keeps_basis_and_state(energy_client: TestClient) -> None:
    body = energy_client.get("/api/systems/acme-node").json()
    assert body["power"]["state"] == "published" and body["power"]["amount"] == 10200.0 and body["power"]["basis"] == "node"
    assert body["members"] == [{"accelerator": "acme-a1", "name": "Acme A1", "count": 8, "url": "/silicon/acme-a1"}]
    rack = energy_client.get("/api/systems/acme-rack").json()
    assert rack["power"]["state"] == "not_published" and rack["power"]["amount"] is None
    assert [f["watts"] for f in rack["reported_power"]] == [120000.0]


def test_systems_table_shows_power_or_state(energy_client: TestClient) -> None:
    page = soup(energy_client.get("/systems/"))
    assert text(page.select_one('tr[data-id="acme-node"] td[data-key="power"]')) == "10.2 kW per node"
    rack = text(page.select_one('tr[data-id="acme-rack"] td[data-key="power"]'))
    assert rack.startswith("not published") and "others report 120 kW, The Register" in rack


@pytest.mark.parametrize(
    ("url", "status"), [("/systems/acme-rak", 404), ("/api/systems/acme-rak", 404), ("/energy/rack-power", 404), ("/api/energy/nope", 404)]
)
def test_unknown_ids_are_404_with_suggestions(energy_client: TestClient, url: str, status: int) -> None:
    response = energy_client.get(url)
    assert response.status_code == status
    if url.startswith("/api/"):
        assert response.json()["status"] == 404
    else:
        assert response.headers["content-type"].startswith("text/html") and "Did you mean" in response.text


# --- energy topics ---------------------------------------------------------------------


def test_topic_page_lists_dated_figures_with_claimants(energy_client: TestClient) -> None:
    page = soup(energy_client.get("/energy/rack-power-density"))
    rows = {tr["data-key"]: [text(td) for td in tr.select("td")] for tr in page.select("tr[data-key]")}
    assert rows["average-2024"][:2] == ["12 kW", "2024-01-01"]
    assert rows["average-2025"][:2] == ["16 kW", "2025-01-01"]
    assert rows["average-2025"][2].startswith("AFCOM industry group")
    assert [a["href"] for a in page.select("#systems a")] == ["/systems/acme-rack"]


def test_chip_vendor_energy_figure_is_marked(energy_client: TestClient) -> None:
    page = soup(energy_client.get("/energy/tokens-per-watt"))
    row = page.select_one('tr[data-key="acme-a2-vs-a1"]')
    assert "sells" in row["class"] and "sells chips: one side of the comparison" in text(row)
    assert [c["data-id"] for c in page.select("#claims .econ-claim")] == ["acme-a2-per-mw"]


def test_energy_index_and_api(energy_client: TestClient) -> None:
    page = soup(energy_client.get("/energy/"))
    assert [li["data-id"] for li in page.select(".topic-list li[data-id]")] == [
        "interconnection-queue",
        "rack-power-density",
        "tokens-per-watt",
    ]
    assert "newest as of 2026-03-11" in text(page.select_one('li[data-id="rack-power-density"]'))
    body = energy_client.get("/api/energy/interconnection-queue").json()
    assert body["figures"][0]["value"] == "2600 GW" and body["figures"][0]["as_of"] == "2023-12-31"


# --- the power question ----------------------------------------------------------------


def test_power_question_for_a_part_with_power_not_published(energy_client: TestClient) -> None:
    section = soup(energy_client.get("/silicon/acme-a2")).select_one("#power-question")
    assert section.select_one('[data-spec="part-power"]')["data-state"] == "not_published"
    assert text(section.select_one('[data-spec="part-power"] dd')).startswith("not published")
    system = section.select_one('li[data-system="acme-rack"]')
    assert "72 of these" in text(system) and "power for the whole rack not published" in text(system)
    assert "The Register reports 120 kW per rack (as of 2026-03-11, independent)" in text(system)
    density = [text(tr.select_one("td")) for tr in section.select("table.figures")[0].select("tbody tr")]
    assert density == ["16 kW", "120 kW"]  # the 2025 average replaces the 2024 one; history stays on the topic page
    assert "2,600 GW" in text(section.select("table.figures")[1])  # LBNL's 2600 GW, with a thousands separator
    assert [li["data-claim"] for li in section.select(".efficiency-claims li")] == ["acme-a2-per-mw"]
    assert "2,756,947 tokens per second per provisioned megawatt" in text(section.select_one(".efficiency-claims"))
    links = [a["href"] for a in section.select(".topic-links a")]
    assert links == ["/energy/rack-power-density", "/energy/interconnection-queue", "/energy/tokens-per-watt"]


def test_power_question_for_a_part_with_power_published(energy_client: TestClient) -> None:
    section = soup(energy_client.get("/silicon/acme-a1")).select_one("#power-question")
    part = text(section.select_one('[data-spec="part-power"] dd'))
    assert part.startswith("700 W per chip") and "total" not in part
    assert "power for the whole node 10.2 kW per node" in text(section.select_one('li[data-system="acme-node"]'))


def test_power_question_for_a_part_in_no_system(energy_client: TestClient) -> None:
    section = soup(energy_client.get("/silicon/globex-g1")).select_one("#power-question")
    assert text(section.select_one(".none")) == "Not a member of any rack-scale system in the atlas."


def test_power_question_without_energy_records(client: TestClient) -> None:
    section = soup(client.get("/silicon/acme-a2")).select_one("#power-question")
    assert text(section.select_one('[data-spec="part-power"] dd')).startswith("not published")
    assert section.select("table.figures") == [] and section.select_one(".topic-links") is None


def test_power_question_in_accelerator_api(energy_client: TestClient) -> None:
    power = energy_client.get("/api/accelerators/acme-a2").json()["power"]
    assert power["part_power"]["state"] == "not_published"
    assert [(s["id"], s["count"], s["power"]["state"]) for s in power["systems"]] == [("acme-rack", 72, "not_published")]


# --- economics -------------------------------------------------------------------------


def test_economics_shows_chip_vendor_claim_with_its_interest(energy_client: TestClient) -> None:
    page = soup(energy_client.get("/economics/"))
    card = page.select_one("#claim-acme-a2-cost")
    assert card["data-interest"] == "chip vendor" and "sells" in card["class"]
    assert text(card.select_one(".claim-figure")) == "0.05 USD per million tokens"
    who = text(card.select_one(".claim-who"))
    assert "Acme Silicon chip vendor sells chips: one side of the comparison" in who
    assert "the vendor of the hardware it is about" in who
    independent = page.select_one("#claim-lab-a1-cost")
    assert independent["data-interest"] == "independent" and "sells" not in independent["class"]
    ids = [c["data-id"] for c in page.select("#cost-per-million-tokens .econ-claim")]
    assert ids == ["acme-a2-cost", "lab-a1-cost"]  # newest first
    assert "1 of the 3 claims below come from a party that sells one side" in text(page.select_one(".lede"))


def test_economics_api(energy_client: TestClient) -> None:
    body = energy_client.get("/api/economics").json()
    claim = body["groups"]["Cost per million tokens"][0]
    assert (claim["id"], claim["claimant_sells"], claim["sells_one_side"], claim["sells_these_parts"]) == (
        "acme-a2-cost",
        "chip vendor",
        True,
        True,
    )
    assert body["selling_count"] == 1 and body["claim_count"] == 3


def test_every_static_path_renders(energy_client: TestClient, energy_catalog: Catalog) -> None:
    paths = list(energy_pages.static_paths(energy_catalog))
    assert "/systems/acme-rack" in paths and "/api/energy/tokens-per-watt" in paths
    for path in paths:
        assert energy_client.get(path).status_code == 200, path


def test_api_is_in_openapi(energy_client: TestClient) -> None:
    paths = energy_client.get("/openapi.json").json()["paths"]
    for path in ("/api/estimate", "/api/systems/{ident}", "/api/energy/{ident}", "/api/economics"):
        assert path in paths


def test_nav_links_to_energy_and_economics(energy_client: TestClient) -> None:
    nav = [a["href"] for a in soup(energy_client.get("/energy/")).select("header nav a")]
    assert "/energy/" in nav and "/economics/" in nav


# --- real data -------------------------------------------------------------------------


def test_real_chip_vendor_claim_shown_with_interest(real_client: TestClient) -> None:
    card = soup(real_client.get("/economics/")).select_one("#claim-nvidia-b200-gpt-oss-cost")
    assert card["data-interest"] == "chip vendor"
    assert text(card.select_one(".claim-figure")) == "0.02 USD per million tokens"
    assert "NVIDIA chip vendor sells chips" in text(card.select_one(".claim-who"))


def test_real_gb200_rack_power_not_published_with_press_figure(real_client: TestClient) -> None:
    section = soup(real_client.get("/silicon/nvidia-gb200")).select_one("#power-question")
    system = text(section.select_one('li[data-system="nvidia-gb200-nvl72"]'))
    assert "power for the whole rack not published" in system and "The Register reports 120 kW per rack" in system


def test_real_part_with_power_not_published(real_client: TestClient) -> None:
    section = soup(real_client.get("/silicon/google-tpu-v7")).select_one("#power-question")
    assert section.select_one('[data-spec="part-power"]')["data-state"] == "not_published"
    assert "9216 of these" in text(section.select_one('li[data-system="google-tpu-v7-pod"]'))


def test_real_dgx_power_is_per_node(real_client: TestClient) -> None:
    section = soup(real_client.get("/silicon/nvidia-h100-sxm")).select_one("#power-question")
    assert "power for the whole node 10.2 kW per node" in text(section.select_one('li[data-system="nvidia-dgx-h100"]'))


def test_real_energy_and_system_pages_render(real_client: TestClient, real_catalog: Catalog) -> None:
    for path in energy_pages.static_paths(real_catalog):
        assert real_client.get(path).status_code == 200, path


def test_power_stated_per_superchip_is_not_shown_as_per_chip(tmp_path: Path) -> None:
    part = make_record("acme-s1", name="Acme S1", specs__power={
        "state": "not_comparable", "basis": "superchip", "source": "sheet",
        "published_text": "Up to 2700 W per superchip (two GPUs and one CPU)"})  # fmt: skip
    client = TestClient(create_app(load(write_data(tmp_path / "data", [part]), today=TODAY)))
    dd = soup(client.get("/silicon/acme-s1")).select_one('#power-question [data-spec="part-power"] dd')
    assert text(dd).startswith("not comparable stated per superchip: Up to 2700 W per superchip")
    power = client.get("/api/accelerators/acme-s1").json()["power"]["part_power"]
    assert power["state"] == "not_comparable" and power["amount"] is None and power["basis"] == "superchip"


# --- economics claims: plausibility at load, and an API that never answers 500 --------------


@pytest.mark.parametrize(
    ("value", "unit", "words"),
    [
        (15000, "USD per million tokens", "at most 1,000 USD per million tokens"),
        (-0.5, "USD per million tokens", "must be a positive number"),
        (0.0, "USD per million tokens", "must be a positive number"),
        (float("nan"), "USD per million tokens", "must be a finite number"),
        (float("inf"), "times lower cost per million tokens than A1", "must be a finite number"),
        (5000, "times lower cost per million tokens than A1", "at most 1,000 times"),
        (0.5, "times lower cost per million tokens than A1", "at least 1 and at most 1,000 times"),
        (50000, "percent more tokens per dollar than A1", "at most 10,000 percent"),
        (1e12, "tokens per second per provisioned megawatt", "at most 10,000,000,000 tokens per second per megawatt"),
    ],
)
def test_an_implausible_economics_claim_is_a_load_error_naming_file_and_field(tmp_path: Path, value: float, unit: str, words: str) -> None:
    from computeatlas.catalog import check

    folder = write_energy_data(tmp_path / "data")
    bad = _claim("bad-claim", "cost_per_million_tokens", value, unit, "Bench Lab", "independent", ["acme-a1"], "2026-09-01")
    (folder / "claims" / "bad-claim.toml").write_text(tomli_w.dumps(bad), encoding="utf-8")
    _, problems = check(folder, today=TODAY)
    found = [str(p) for p in problems]
    assert len(found) == 1, found
    assert found[0].startswith("data/claims/bad-claim.toml: value: "), found[0]
    assert words in found[0]


@pytest.mark.parametrize(
    ("value", "unit"),
    [
        (0.0001, "USD per million tokens"),
        (1000, "USD per million tokens"),
        (1, "times lower cost than A1"),
        (40, "percent more tokens per dollar than A1"),
        (2756947, "tokens per second per provisioned megawatt"),
        (3, "kilotokens per joule"),
    ],
)
def test_plausible_economics_claims_load(tmp_path: Path, value: float, unit: str) -> None:
    from computeatlas.catalog import check

    folder = write_energy_data(tmp_path / "data")
    good = _claim("good-claim", "cost_per_million_tokens", value, unit, "Bench Lab", "independent", ["acme-a1"], "2026-09-01")
    (folder / "claims" / "good-claim.toml").write_text(tomli_w.dumps(good), encoding="utf-8")
    _, problems = check(folder, today=TODAY)
    assert [str(p) for p in problems] == []


def test_economics_api_answers_even_for_a_claim_that_is_not_a_finite_number(energy_catalog: Catalog) -> None:
    claim = energy_catalog.claims["lab-a1-cost"]
    object.__setattr__(claim, "value", float("nan"))  # what validation now refuses, built around it
    response = TestClient(create_app(energy_catalog)).get("/api/economics")
    assert response.status_code == 200
    [found] = [c for group in response.json()["groups"].values() for c in group if c["id"] == "lab-a1-cost"]
    assert found["value"] is None and found["display"] == "not a finite number (USD per million tokens)"
