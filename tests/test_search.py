"""Search by family and words: ranked lists, exact matches first, nothing picked silently."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.pages.search import search_result
from computeatlas.silicon import resolve
from computeatlas.silicon.search import build_index, search, words

BLACKWELL = {
    "nvidia-b100",
    "nvidia-b200",
    "nvidia-b300",
    "nvidia-gb200",
    "nvidia-gb300",
    "nvidia-geforce-rtx-5090",
    "nvidia-rtx-pro-6000-blackwell-server",
    "nvidia-rtx-pro-6000-blackwell-workstation",
}
HOPPER = {
    "nvidia-h100-sxm",
    "nvidia-h100-pcie",
    "nvidia-h100-nvl",
    "nvidia-h200-sxm",
    "nvidia-h200-nvl",
    "nvidia-h20",
    "nvidia-h800-sxm",
    "nvidia-gh200-96gb",
    "nvidia-gh200-144gb",
}


def ids(catalog: Catalog, text: str) -> list[tuple[str, str]]:
    return [(m.id, m.matched_by) for m in search(catalog, text).matches]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The MI300-series parts in our records: the MI300X GPU and the MI300A APU.
        ("MI300", {"amd-instinct-mi300x", "amd-instinct-mi300a"}),
        (
            "TPU",
            {
                "google-tpu-v2",
                "google-tpu-v3",
                "google-tpu-v4",
                "google-tpu-v4i",
                "google-tpu-v5e",
                "google-tpu-v5p",
                "google-tpu-v6e",
                "google-tpu-v7",
            },
        ),
        ("Blackwell", BLACKWELL),
        ("Hopper", HOPPER),
        ("Trainium", {"aws-trainium", "aws-trainium-2", "aws-trainium-3"}),
        ("nvidia hopper", HOPPER),
    ],
)
def test_families_list_their_parts(real_catalog: Catalog, text: str, expected: set[str]) -> None:
    found = search(real_catalog, text)
    assert {m.id for m in found.matches} == expected
    assert found.status in ("partial", "found")


def test_exact_matches_come_first_and_decide_nothing_alone(real_catalog: Catalog) -> None:
    # "Trainium" is an alias of the first Trainium; the later ones follow as word matches, newest first.
    assert ids(real_catalog, "Trainium") == [("aws-trainium", "alias"), ("aws-trainium-3", "words"), ("aws-trainium-2", "words")]
    found = search(real_catalog, "Trainium")
    assert found.status == "found" and found.match is not None and found.match.id == "aws-trainium"
    # "H100" is shared: both candidates, exact, and no match picked.
    h100 = search(real_catalog, "H100")
    assert h100.status == "ambiguous" and h100.match is None
    assert ids(real_catalog, "H100") == [("nvidia-h100-sxm", "alias"), ("nvidia-h100-nvl", "alias"), ("nvidia-h100-pcie", "alias")]
    # A family word is never a "found" match: MI300 lists the MI300X and MI300A, it resolves to neither.
    mi300 = search(real_catalog, "MI300")
    assert mi300.status == "partial" and mi300.match is None
    with pytest.raises(resolve.UnknownName):
        resolve.resolve_id(real_catalog, "MI300")


def test_a_word_must_begin_a_word(real_catalog: Catalog) -> None:
    assert ids(real_catalog, "B200") == [("nvidia-b200", "alias")]  # not the GB200
    assert ids(real_catalog, "GB200") == [("nvidia-gb200", "alias")]
    assert search(real_catalog, "lackwell").status == "unknown"


def test_whole_word_matches_rank_before_prefixes(real_catalog: Catalog) -> None:
    # "v5" begins the v5e's and the v5p's words; "v5p" is a whole word of the v5p only.
    assert ids(real_catalog, "TPU v5p")[0] == ("google-tpu-v5p", "alias")
    ranked = [i for i, _ in ids(real_catalog, "tpu v5")]
    assert set(ranked) == {"google-tpu-v5e", "google-tpu-v5p"}


def test_normalisation_matches_the_resolver(real_catalog: Catalog) -> None:
    assert words("Google TPU7x (Ironwood)") == ["google", "tpu7x", "ironwood"]
    assert ids(real_catalog, "ＴＰＵ\u200b") == ids(real_catalog, "tpu")
    with pytest.raises(resolve.InvalidName):
        search(real_catalog, "  ")


def test_the_index_holds_what_the_script_needs(real_catalog: Catalog) -> None:
    index = build_index(real_catalog)
    assert {p.id for p in index.parts} == set(real_catalog.accelerators)
    positions = {p.id: n for n, p in enumerate(index.parts)}
    assert sorted((positions[p.id], 1) for p in index.parts if p.id.startswith("nvidia-h100")) == sorted(map(tuple, index.exact["h100"]))
    assert index.exact["nvidia b200"] == [(positions["nvidia-b200"], 0), (positions["nvidia-b200"], 2)]  # its id and its name
    assert build_index(real_catalog) is index  # built once per catalog


def test_the_search_page_lists_a_family_and_opens_an_exact_match(real_client: TestClient) -> None:
    page = real_client.get("/search?q=Blackwell")
    assert page.status_code == 200
    listed = BeautifulSoup(page.text, "lxml").select("#results .matches li")
    assert {li["data-id"] for li in listed if li["data-kind"] == "accelerator"} == BLACKWELL
    # The B300's name says "Blackwell Ultra", so the B200-B300 comparison is named by the word too.
    assert {li["data-id"] for li in listed if li["data-kind"] != "accelerator"} == {"nvidia-b200-vs-nvidia-b300"}
    # Nothing is called "Blackwell": aliases such as "Blackwell B200" and "Blackwell Ultra" begin with it; the rest have the word.
    assert {li["data-id"] for li in listed if li["data-matched-by"] == "prefix"} == {
        "nvidia-b100",
        "nvidia-b200",
        "nvidia-b300",
        "nvidia-gb300",
    }
    assert {li["data-matched-by"] for li in listed} == {"prefix", "words"}
    trainium = BeautifulSoup(real_client.get("/search?q=Trainium").text, "lxml").select("#results .matches li")
    assert trainium[0]["data-id"] == "aws-trainium" and len([li for li in trainium if li["data-kind"] == "accelerator"]) == 3
    opened = real_client.get("/search?q=Trn2", follow_redirects=False)
    assert opened.status_code == 302 and opened.headers["location"] == "/silicon/aws-trainium-2"
    # "Trn3" is the Trainium3's alias, and it begins a word of the Trn3 UltraServer's name: both are listed.
    trn3 = BeautifulSoup(real_client.get("/search?q=Trn3").text, "lxml").select("#results .matches li")
    assert [(li["data-kind"], li["data-id"]) for li in trn3] == [("accelerator", "aws-trainium-3"), ("system", "aws-trn3-ultraserver")]
    api = real_client.get("/api/search?q=TPU").json()
    assert api["status"] == "partial" and api["match"] is None
    assert [m["id"] for m in api["matches"] if m["kind"] == "accelerator"] == [
        "google-tpu-v7", "google-tpu-v6e", "google-tpu-v5p", "google-tpu-v5e", "google-tpu-v4", "google-tpu-v2", "google-tpu-v3", "google-tpu-v4i"
    ]  # fmt: skip
    assert api["matches"][8] == {"kind": "system", "id": "google-tpu-v7-pod", "name": "Google TPU7x (Ironwood) Pod",
                                 "url": "/systems/google-tpu-v7-pod", "matched_by": "words"}  # fmt: skip
    index = real_client.get("/api/search-index").json()
    catalog = real_client.app.state.catalog
    assert {p["id"] for p in index["parts"] if p["kind"] == "accelerator"} == set(catalog.accelerators)
    assert {p["id"] for p in index["parts"] if p["kind"] == "model"} == set(catalog.models)


@pytest.mark.parametrize(
    ("text", "status", "expected"),
    [
        # "Llama 3.3 70B" is the name Together publishes the model by; Llama 3.1 70B shares every word's start.
        ("llama 3.3 70b", "found", [("model", "llama-3-3-70b", "alias"), ("model", "llama-3-1-70b", "words")]),
        ("gpt-oss", "partial", [("model", "gpt-oss-120b", "prefix"), ("model", "gpt-oss-20b", "prefix")]),
        ("gpt-oss-120b", "found", [("model", "gpt-oss-120b", "id")]),
        ("coreweave", "found", [("provider", "coreweave", "id")]),
        ("CoreWeave", "found", [("provider", "coreweave", "id")]),
        ("tokens per watt", "found", [("energy topic", "tokens-per-watt", "id")]),
        ("rack power", "partial", [("energy topic", "rack-power-density", "prefix")]),
        ("NVIDIA GB200 NVL72", "found", [("system", "nvidia-gb200-nvl72", "id")]),
        ("nvidia-b200-vs-nvidia-b300", "found", [("comparison", "nvidia-b200-vs-nvidia-b300", "id")]),
        # The part itself, then the rack named after it.
        ("GB200", "found", [("accelerator", "nvidia-gb200", "alias"), ("system", "nvidia-gb200-nvl72", "words")]),
    ],
)
def test_the_site_search_finds_every_kind_with_a_page(
    real_catalog: Catalog, text: str, status: str, expected: list[tuple[str, str, str]]
) -> None:
    found = search_result(real_catalog, text)
    assert found.status == status
    assert [(m.kind, m.id, m.matched_by) for m in found.matches] == expected


def test_the_site_search_ranks_exact_then_prefix_then_words(real_catalog: Catalog) -> None:
    found = search_result(real_catalog, "Trainium")
    assert [(m.kind, m.id, m.matched_by) for m in found.matches[:3]] == [
        ("accelerator", "aws-trainium", "alias"), ("accelerator", "aws-trainium-3", "prefix"), ("accelerator", "aws-trainium-2", "prefix")
    ]  # fmt: skip
    assert {m.kind for m in found.matches[3:]} == {"comparison"} and all(m.matched_by == "words" for m in found.matches[3:])
    assert "aws-trainium-2-vs-aws-trainium-3" in {m.id for m in found.matches}
    assert found.match is not None and found.match.kind == "accelerator" and found.match.url == "/silicon/aws-trainium"


def test_the_site_search_lists_providers_shown_only_by_their_prices(real_catalog: Catalog) -> None:
    found = search_result(
        real_catalog, "tensordock", {**{i: p.name for i, p in real_catalog.providers.items()}, "tensordock": "TensorDock"}
    )
    assert [(m.kind, m.id, m.name, m.url) for m in found.matches] == [("provider", "tensordock", "TensorDock", "/cloud/tensordock")]
    assert search_result(real_catalog, "tensordock").status == "unknown"


def test_the_live_search_reads_the_providers_from_the_price_store(real_client: TestClient) -> None:
    # JarvisLabs has prices in the bundled store and no provider record: its page exists, so search finds it.
    api = real_client.get("/api/search?q=jarvis").json()
    assert [(m["kind"], m["id"], m["url"]) for m in api["matches"]] == [("provider", "jarvislabs", "/cloud/jarvislabs")]
    assert real_client.get("/cloud/jarvislabs").status_code == 200


def test_the_search_page_shows_kinds_and_opens_a_model(real_client: TestClient) -> None:
    opened = real_client.get("/search?q=gpt-oss-120b", follow_redirects=False)
    assert opened.status_code == 302 and opened.headers["location"] == "/economics/models/gpt-oss-120b"
    listed = BeautifulSoup(real_client.get("/search?q=llama+3.3+70b").text, "lxml").select("#results .matches li")
    assert [(li["data-kind"], li["data-id"]) for li in listed] == [("model", "llama-3-3-70b"), ("model", "llama-3-1-70b")]
    assert listed[0].select_one(".kind").get_text() == "model" and listed[0].a["href"] == "/economics/models/llama-3-3-70b"
    assert real_client.get("/search?q=coreweave", follow_redirects=False).headers["location"] == "/cloud/coreweave"


def test_hostile_queries_are_refused(real_client: TestClient) -> None:
    assert real_client.get("/api/search", params={"q": "x" * 201}).status_code == 400
    assert real_client.get("/search", params={"q": "x" * 201}).status_code == 400
    assert real_client.get("/api/search", params={"q": "   "}).status_code == 400


def test_a_misspelt_name_suggests_the_closest_of_every_kind(real_client: TestClient) -> None:
    page = real_client.get("/search?q=corewave")
    assert page.status_code == 404
    suggested = BeautifulSoup(page.text, "lxml").select("#results .suggestions li")
    assert (suggested[0]["data-kind"], suggested[0].a["href"]) == ("provider", "/cloud/coreweave")
    llama = real_client.get("/api/search?q=lama+3.3+70b").json()
    assert llama["status"] == "unknown" and llama["suggestions"][0]["url"] == "/economics/models/llama-3-3-70b"
