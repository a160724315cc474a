"""The JSON API: the same page data as HTML, OpenAPI-described, errors as JSON."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient


def test_list_with_same_filters_as_the_table(client: TestClient) -> None:
    body = client.get("/api/accelerators?availability=cloud-only").json()
    assert [row["id"] for row in body] == ["acme-a2"]
    assert body[0]["url"] == "/silicon/acme-a2"
    ranged = client.get("/api/accelerators?sort=-memory&memory_min=50").json()
    assert [row["id"] for row in ranged] == ["acme-a2", "acme-a1"]


def test_one_accelerator_carries_state_basis_canonical_amount_and_source(client: TestClient) -> None:
    body = client.get("/api/accelerators/acme-a1").json()
    specs = {s["key"]: s for s in body["specs"]}
    bf16 = specs["compute.BF16"]
    assert bf16["state"] == "published"
    assert bf16["primary"]["amount"] == 989.5e12 and bf16["primary"]["unit"] == "FLOP/s"
    assert bf16["primary"]["basis"] == "chip"
    assert bf16["sparse"]["amount"] == 1979e12 and bf16["sparse_pattern"] == "2:4"
    assert bf16["primary"]["source"]["url"] == "https://acme.example/sheet.pdf"
    assert specs["memory"]["primary"]["amount"] == 80e9 and specs["memory"]["memory_type"] == "HBM3"
    assert body["verified"] == "2026-11-01"


def test_not_published_is_a_state_not_a_zero(client: TestClient) -> None:
    specs = {s["key"]: s for s in client.get("/api/accelerators/acme-a2").json()["specs"]}
    assert specs["power"]["state"] == "not_published"
    assert specs["power"]["primary"]["amount"] is None
    assert specs["power"]["primary"]["display"] == "not published"


def test_unknown_id_is_a_json_404_with_suggestions(client: TestClient) -> None:
    response = client.get("/api/accelerators/acme-a9")
    assert response.status_code == 404
    body = response.json()
    assert body["error"] == "No such accelerator"
    assert {s["url"] for s in body["suggestions"]} == {"/silicon/acme-a1", "/silicon/acme-a2"}


def test_bad_parameter_is_a_json_400(client: TestClient) -> None:
    response = client.get("/api/accelerators?sort=colour")
    assert response.status_code == 400
    assert response.json()["detail"].startswith("query parameter 'sort'")


def test_openapi_documents_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/api/accelerators", "/api/accelerators/{ident}"} <= set(schema["paths"])
    view = schema["components"]["schemas"]["AcceleratorView"]
    assert {"specs", "sources", "verified", "data_version"} <= set(view["properties"])
    assert "/silicon/" not in schema["paths"]  # pages are not API


def test_api_reference_page_is_generated_from_openapi(client: TestClient) -> None:
    from bs4 import BeautifulSoup

    response = client.get("/api/docs")
    assert response.status_code == 200
    page = BeautifulSoup(response.text, "lxml")
    headings = [h.get_text(" ", strip=True) for h in page.select("section.endpoint h2")]
    assert "GET /api/accelerators/{ident}" in headings
    assert page.select("script") == []  # no CDN script, nothing the CSP would block


def test_openapi_documents_400_and_404_never_422(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    listing = schema["paths"]["/api/accelerators"]["get"]
    assert set(listing["responses"]) == {"200", "400"}
    assert set(schema["paths"]["/api/accelerators/{ident}"]["get"]["responses"]) == {"200", "400", "404"}
    assert listing["responses"]["400"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
    assert not any("422" in op["responses"] for ops in schema["paths"].values() for op in ops.values())
    names = [p["name"] for p in listing["parameters"]]
    assert {"memory_min", "memory_max", "power_max", "fp8_min", "memory_bandwidth_min"} <= set(names)


def test_openapi_states_the_limits_the_api_enforces(client: TestClient) -> None:
    """What a schema-driven fuzzer found: limits the API enforced but the schema did not state."""
    schema = client.get("/openapi.json").json()
    params = {p["name"]: p for p in schema["paths"]["/api/accelerators"]["get"]["parameters"]}
    assert params["memory_min"]["schema"]["maxLength"] == 64  # a longer figure is a 400
    assert client.get("/api/accelerators", params={"memory_min": "8" * 65}).status_code == 400
    assert client.get("/api/accelerators", params={"memory_min": "80 GB"}).status_code == 200
    search = {p["name"]: p for p in schema["paths"]["/api/search"]["get"]["parameters"]}
    assert search["q"]["schema"]["maxLength"] == 200
    compare = schema["paths"]["/api/compare"]["get"]
    assert {p["name"]: p["required"] for p in compare["parameters"]} == {"ids": True}
    assert set(compare["responses"]) == {"200", "400", "404"}
    assert client.get("/api/compare", params={"ids": "nvidia-h100-sxm,no-such-part"}).status_code == 404


def test_fastapis_validation_errors_are_the_same_400_body(client: TestClient) -> None:
    ours = client.get("/api/accelerators?sort=colour")
    theirs = client.get("/api/accelerators", params={"sort": "x" * 201})
    assert ours.status_code == theirs.status_code == 400
    assert set(ours.json()) == set(theirs.json()) == {"error", "detail", "status"}
    assert theirs.json()["error"] == "Bad query parameter"
    assert theirs.json()["detail"] == f"query parameter 'sort': '{'x' * 40}…' is longer than 200 characters, the most allowed"
    missing = client.get("/api/search")
    assert missing.status_code == 400
    assert missing.json()["detail"] == "query parameter 'q': is required and was not given"


@pytest.mark.parametrize("which", ["client", "real_client"])
def test_api_reference_renders_markup_and_gives_a_working_example_per_endpoint(which: str, request: pytest.FixtureRequest) -> None:
    from bs4 import BeautifulSoup

    real_client: TestClient = request.getfixturevalue(which)  # the small catalog and the bundled one
    page = BeautifulSoup(real_client.get("/api/docs").text, "lxml")
    sections = page.select("section.endpoint")
    assert len(sections) == len(real_client.get("/openapi.json").json()["paths"])
    assert "`" not in page.select_one("main").get_text()  # reST literals are rendered, not shown as backticks
    pair = page.select_one("#get--api-compare-pair .description code")
    assert pair is not None and pair.get_text() == "/compare/{a}-vs-{b}"
    for section in sections:
        request = section.select_one("code.request").get_text()
        assert request.startswith("curl -s 'http://127.0.0.1:8000/api/"), request
        url = request.split("'")[1].removeprefix("http://127.0.0.1:8000")
        assert "{" not in url, url
        # The bundled records have something of every kind; the small catalog has no energy
        # topic, system or observed price, so those examples name a record that is not there.
        assert real_client.get(url).status_code in ((200,) if which == "real_client" else (200, 404)), url
    if which == "client":
        return
    search = page.select_one("#get--api-search code.request").get_text()
    assert search == "curl -s 'http://127.0.0.1:8000/api/search?q=TPU'"


def test_the_accelerator_list_gives_core_figures_with_their_states(real_client: TestClient) -> None:
    listed = {row["id"]: row for row in real_client.get("/api/accelerators").json()}
    trn3 = {spec["key"]: spec for spec in listed["aws-trainium-3"]["specs"]}
    # AWS's Trainium3 page: 4.9 TB/s of memory bandwidth per chip; AWS publishes no per-chip power.
    assert trn3["memory_bandwidth"]["amount"] == 4.9e12 and trn3["memory_bandwidth"]["unit"] == "B/s"
    assert trn3["memory_bandwidth"]["state"] == "published" and trn3["memory_bandwidth"]["basis"] == "chip"
    assert trn3["power"]["state"] == "not_published" and trn3["power"]["amount"] is None and trn3["power"]["display"] == "not published"
    assert {"memory", "memory_bandwidth", "power", "interconnect", "software"} <= set(trn3)
    assert not any(key.startswith("details.") for key in trn3)
    # Every core figure of every part is in one of the states, never a blank.
    for row in listed.values():
        assert row["verified"] and all(spec["state"] and spec["display"] for spec in row["specs"]), row["id"]
        one = real_client.get(row["api_url"]).json()
        assert [s["key"] for s in row["specs"]] == [s["key"] for s in one["specs"] if not s["key"].startswith("details.")]
