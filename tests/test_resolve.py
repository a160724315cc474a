"""Names people use → ids: exact id, alias, name; ambiguity listed; never a substring match."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from computeatlas.catalog import Catalog
from computeatlas.silicon import resolve
from tests.comparedata import compare_catalog, compare_data  # noqa: F401  (fixtures)


@pytest.mark.parametrize(
    ("text", "ident", "tier"),
    [
        ("nvidia-h100-sxm", "nvidia-h100-sxm", "id"),
        ("NVIDIA-H100-SXM", "nvidia-h100-sxm", "id"),
        ("H100 SXM5 80GB", "nvidia-h100-sxm", "alias"),
        ("h100 sxm", "nvidia-h100-sxm", "alias"),
        ("Trn3", "aws-trainium-3", "alias"),
        ("trn3", "aws-trainium-3", "alias"),
        ("Ironwood", "google-tpu-v7", "alias"),
        ("TPU7x", "google-tpu-v7", "alias"),
        ("tpu-v7", "google-tpu-v7", "alias"),  # separators are equivalent
        ("GB200", "nvidia-gb200", "alias"),
        ("B200", "nvidia-b200", "alias"),
        ("NVIDIA H100 PCIe 80GB", "nvidia-h100-pcie", "name"),
    ],
)
def test_real_names_resolve(real_catalog: Catalog, text: str, ident: str, tier: str) -> None:
    found = resolve.resolve(real_catalog, text)
    assert found.status == "found"
    assert found.match is not None and found.match.id == ident
    assert found.matched_by == tier


def test_h100_is_ambiguous_between_sxm_pcie_and_nvl(real_catalog: Catalog) -> None:
    found = resolve.resolve(real_catalog, "H100")
    assert found.status == "ambiguous" and found.match is None
    assert {c.id for c in found.candidates} == {"nvidia-h100-sxm", "nvidia-h100-pcie", "nvidia-h100-nvl"}
    with pytest.raises(resolve.AmbiguousName) as exc:
        resolve.resolve_id(real_catalog, "h100")
    assert "nvidia-h100-sxm" in exc.value.message and "nvidia-h100-pcie" in exc.value.message


@pytest.mark.parametrize("text", ["GB20", "H10", "B2", "Trn", "TPU", "nvidia"])
def test_no_substring_matches(real_catalog: Catalog, text: str) -> None:
    assert resolve.resolve(real_catalog, text).status == "unknown"


def test_gb200_is_not_b200(real_catalog: Catalog) -> None:
    assert resolve.resolve_id(real_catalog, "GB200") == "nvidia-gb200"
    assert resolve.resolve_id(real_catalog, "gb200 superchip") == "nvidia-gb200"
    assert resolve.resolve_id(real_catalog, "B200") == "nvidia-b200"


def test_unknown_suggests_closest_ids(compare_catalog: Catalog) -> None:
    found = resolve.resolve(compare_catalog, "acme-a3")
    assert found.status == "unknown"
    assert {c.id for c in found.suggestions} >= {"acme-a1", "acme-a2"}
    with pytest.raises(resolve.UnknownName) as exc:
        resolve.resolve_id(compare_catalog, "acme-a3")
    assert exc.value.message.startswith("No accelerator with id 'acme-a3'")
    assert "acme-a1" in exc.value.message


def test_shared_alias_lists_all_parts(compare_catalog: Catalog) -> None:
    found = resolve.resolve(compare_catalog, "ACME")
    assert found.status == "ambiguous"
    assert [c.id for c in found.candidates] == ["acme-a1", "acme-a2"]


def test_alias_is_matched_whole(compare_catalog: Catalog) -> None:
    assert resolve.resolve_id(compare_catalog, "acme one") == "acme-a1"
    assert resolve.resolve(compare_catalog, "one").status == "unknown"
    assert resolve.resolve(compare_catalog, "A").status == "unknown"


@pytest.mark.parametrize("text", ["", "   ", "x" * (resolve.MAX_NAME + 1)])
def test_empty_or_overlong_name_is_invalid(compare_catalog: Catalog, text: str) -> None:
    with pytest.raises(resolve.InvalidName):
        resolve.resolve(compare_catalog, text)


ALIASED_PATHS = [
    ("/silicon/Trn3", "/silicon/aws-trainium-3"),
    ("/api/accelerators/Trn3", "/api/accelerators/aws-trainium-3"),
    ("/cloud/prices/trn3?variant=all", "/cloud/prices/aws-trainium-3?variant=all"),
    ("/api/prices/Trn3", "/api/prices/aws-trainium-3"),
    ("/charts/prices/H100%20SXM5", "/charts/prices/nvidia-h100-sxm"),
    ("/charts/prices/H100-SXM-80GB.svg", "/charts/prices/nvidia-h100-sxm.svg"),
    ("/api/charts/prices/h100%20sxm", "/api/charts/prices/nvidia-h100-sxm"),
]


@pytest.mark.parametrize(("path", "target"), ALIASED_PATHS)
def test_every_path_naming_an_accelerator_redirects_an_alias_to_its_id(real_catalog: Catalog, path: str, target: str) -> None:
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app

    client = TestClient(create_app(real_catalog), follow_redirects=False)
    assert resolve.resolve_id(real_catalog, "Trn3") == "aws-trainium-3"  # as `computeatlas show Trn3` resolves it
    assert resolve.resolve_id(real_catalog, "H100 SXM5") == "nvidia-h100-sxm"
    response = client.get(path)
    assert response.status_code == 301
    assert response.headers["location"] == target
    assert client.get(target).status_code == 200


def test_an_unknown_id_in_a_path_is_still_a_404_with_suggestions(real_catalog: Catalog) -> None:
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app

    client = TestClient(create_app(real_catalog), follow_redirects=False)
    response = client.get("/api/accelerators/trainium-nine")
    assert response.status_code == 404 and response.json()["error"] == "No such accelerator"


def test_an_ambiguous_alias_in_a_path_lists_the_candidates(real_catalog: Catalog) -> None:
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app

    response = TestClient(create_app(real_catalog)).get("/api/prices/H100")
    assert response.status_code == 300 and response.json()["error"] == "Which accelerator?"  # a list to choose from, not a 404
    assert {s["url"] for s in response.json()["suggestions"]} == {
        "/api/prices/nvidia-h100-pcie",
        "/api/prices/nvidia-h100-sxm",
        "/api/prices/nvidia-h100-nvl",
    }


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("A100", {"nvidia-a100-pcie-40gb", "nvidia-a100-sxm-40gb", "nvidia-a100-pcie-80gb", "nvidia-a100-sxm-80gb"}),
        ("A100 80GB", {"nvidia-a100-pcie-80gb", "nvidia-a100-sxm-80gb"}),  # an SXM and a PCIe card
        ("A100 40GB", {"nvidia-a100-pcie-40gb", "nvidia-a100-sxm-40gb"}),
        ("A100 SXM", {"nvidia-a100-sxm-40gb", "nvidia-a100-sxm-80gb"}),  # 40 GB and 80 GB
        ("A100-SXM4", {"nvidia-a100-sxm-40gb", "nvidia-a100-sxm-80gb"}),
        ("A100 PCIe", {"nvidia-a100-pcie-40gb", "nvidia-a100-pcie-80gb"}),
        ("Blackwell Ultra", {"nvidia-b300", "nvidia-gb300"}),
        ("Grace Blackwell", {"nvidia-gb200", "nvidia-gb300"}),
    ],
)
def test_a_name_several_parts_share_is_never_one_of_them(real_catalog: Catalog, text: str, ids: set[str]) -> None:
    found = resolve.resolve(real_catalog, text)
    assert found.status == "ambiguous" and found.match is None
    assert {c.id for c in found.candidates} == ids


def test_each_a100_still_has_its_own_name(real_catalog: Catalog) -> None:
    for text, ident in (
        ("A100 80GB SXM", "nvidia-a100-sxm-80gb"),
        ("A100 80GB PCIe", "nvidia-a100-pcie-80gb"),
        ("A100-SXM4-40GB", "nvidia-a100-sxm-40gb"),
    ):
        assert resolve.resolve_id(real_catalog, text) == ident


def test_web_and_api_offer_the_list_to_choose_from(real_client) -> None:
    page = real_client.get("/silicon/A100%2080GB", follow_redirects=False)
    assert page.status_code == 300
    links = [a["href"] for a in BeautifulSoup(page.text, "lxml").select(".suggestions a")]
    assert links == ["/silicon/nvidia-a100-pcie-80gb", "/silicon/nvidia-a100-sxm-80gb"]
    api = real_client.get("/api/accelerators/A100", follow_redirects=False)
    assert api.status_code == 300 and api.json()["error"] == "Which accelerator?"
    assert [s["url"] for s in api.json()["suggestions"]] == [
        "/api/accelerators/nvidia-a100-pcie-40gb",
        "/api/accelerators/nvidia-a100-sxm-40gb",
        "/api/accelerators/nvidia-a100-pcie-80gb",
        "/api/accelerators/nvidia-a100-sxm-80gb",
    ]
