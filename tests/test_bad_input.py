"""Bad input is answered alike by the JSON API, the pages and the CLI, on the bundled data: an
accelerator filter reads an alias (a name several parts share is a 300 listing them), the
pricing kind either spelling, a provider id any case (an unknown one a 400 or 404 with the
known ids), a validation error names the parameter, the value and what is allowed, the model
API names the parameter that was given, a known collector with no attempt is "never"
collected, the CLI's bad-input messages wrap at 80 columns, and the price dataset writes prices
with the digits they were published with."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from computeatlas.cli import app as cli
from tests.conftest import CliRunner

A100S = {"nvidia-a100-pcie-40gb", "nvidia-a100-sxm-40gb", "nvidia-a100-pcie-80gb", "nvidia-a100-sxm-80gb"}


def test_an_offers_filter_reads_an_alias_as_the_pages_do(real_client) -> None:
    by_alias = real_client.get("/api/offers", params={"accelerator": "MI300X"})
    by_id = real_client.get("/api/offers", params={"accelerator": "amd-instinct-mi300x"})
    assert by_alias.status_code == 200 and by_alias.json() == by_id.json()
    assert by_alias.json() and {o["accelerator"] for o in by_alias.json()} == {"amd-instinct-mi300x"}
    assert real_client.get("/api/offers", params={"accelerator": "Trn3"}).status_code == 200  # AWS Trainium3, no current offer
    bad = real_client.get("/api/offers", params={"accelerator": "MI999"})
    assert bad.status_code == 400 and "'accelerator'" in bad.json()["detail"] and "'MI999'" in bad.json()["detail"]


def test_a_name_several_parts_share_is_a_300_listing_them_never_one(real_client) -> None:
    offers = real_client.get("/api/offers", params={"accelerator": "A100", "provider": "aws"})
    assert offers.status_code == 300 and "parameter 'accelerator'" in offers.json()["detail"]
    urls = {s["url"] for s in offers.json()["suggestions"]}
    assert urls == {f"/api/offers?accelerator={i}&provider=aws" for i in A100S}  # the same request, one per part
    for path, params in (
        ("/api/estimate", {"accelerator": "A100", "model": "llama-3-3-70b", "format": "FP16", "utilisation": "0.5"}),
        ("/api/economics/models/llama-3-3-70b", {"accelerator": "A100", "price": "2"}),
        ("/cloud/", {"accelerator": "A100"}),
    ):
        answer = real_client.get(path, params=params)
        assert answer.status_code == 300 and all(i in answer.text for i in A100S), path


def test_either_pricing_spelling_filters_alike_in_the_api_the_page_and_the_cli(real_client) -> None:
    for canonical, alias in (("on_demand", "on-demand"), ("capacity_block", "capacity-block")):  # AWS's blocks are all stale
        one = real_client.get("/api/offers", params={"pricing": canonical, "include_stale": "true"})
        other = real_client.get("/api/offers", params={"pricing": alias.upper(), "include_stale": "true"})
        assert one.status_code == other.status_code == 200 and one.json() and one.json() == other.json()
        assert real_client.get("/cloud/", params={"pricing": canonical}).status_code == 200
    bad = real_client.get("/api/offers", params={"pricing": "hourly"}).json()["detail"]
    assert bad.startswith("parameter 'pricing': 'hourly' is not one of on_demand, spot,") and "capacity_block" in bad
    docs = real_client.get("/api/docs").text  # the API reference says which spelling is the data's and that both are read
    assert (
        "<code>on_demand</code> and <code>capacity_block</code>" in docs
        and "<code>on-demand</code> and <code>capacity-block</code> are accepted" in docs
    )
    shown = CliRunner().invoke(cli, ["prices", "show", "amd-instinct-mi300x", "--pricing", "on_demand"])
    assert shown.exit_code == 0 and "crusoe" in shown.stdout.lower()


def test_an_unknown_provider_is_refused_everywhere_with_the_known_ids(real_client) -> None:
    for path in ("/api/offers", "/api/prices/nvidia-h100-sxm", "/api/prices/nvidia-h100-sxm/history"):
        answer = real_client.get(path, params={"provider": "nosuch"})
        assert answer.status_code == 400, path
        detail = answer.json()["detail"]
        assert "'provider'" in detail and "'nosuch'" in detail and "coreweave" in detail and "voltage-park" in detail, path
    page = real_client.get("/api/providers/nosuch")
    assert page.status_code == 404 and "coreweave" in page.json()["detail"]
    history = CliRunner().invoke(cli, ["prices", "history", "nvidia-h100-sxm", "--provider", "nosuch"])
    assert history.exit_code == 2 and "option '--provider'" in history.stderr and "coreweave" in history.stderr


def test_a_provider_id_is_read_in_any_case(real_client) -> None:
    mixed = real_client.get("/api/offers", params={"provider": "CoreWeave"})
    lower = real_client.get("/api/offers", params={"provider": "coreweave"})
    assert mixed.status_code == 200 and mixed.json() and mixed.json() == lower.json()
    moved = real_client.get("/api/providers/CoreWeave?x=1", follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == "/api/providers/coreweave?x=1"
    assert real_client.get("/cloud/CoreWeave", follow_redirects=False).headers["location"] == "/cloud/coreweave"
    history = real_client.get("/api/prices/nvidia-h100-sxm/history", params={"provider": "CoreWeave", "window": "all"}).json()
    assert history["filters"]["provider"] == "coreweave" and {o["provider"] for o in history["observations"]} == {"coreweave"}


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/api/prices/nvidia-h100-sxm/history?limit=0", "query parameter 'limit': '0' is below 1, the least allowed"),
        ("/api/prices/nvidia-h100-sxm/history?limit=ten", "query parameter 'limit': 'ten' is not a whole number"),
        ("/api/prices/nvidia-h100-sxm/history?format=xml", "query parameter 'format': 'xml' is not one of json or csv"),
        ("/api/prices/nvidia-h100-sxm?since=2026-13-01", "query parameter 'since': '2026-13-01' is not a date (write YYYY-MM-DD)"),
        (
            "/api/prices/nvidia-h100-sxm?pricing=hourly",
            "query parameter 'pricing': 'hourly' is not one of on_demand, spot, committed, reserved, capacity_block, "
            "marketplace, monthly or weekly",
        ),
        (
            "/api/economics/models/llama-3-3-70b?kv_bits=1e400",
            "query parameter 'kv_bits': '1e400' is longer than 3 characters, the most allowed",
        ),
    ],
)
def test_a_refused_value_is_named_with_what_is_allowed_not_pydantics_words(real_client, path: str, says: str) -> None:
    answer = real_client.get(path)
    assert answer.status_code == 400 and answer.json()["detail"] == says


def test_the_model_api_names_the_parameter_that_was_given(real_client) -> None:
    alone = real_client.get("/api/economics/models/llama-3-3-70b", params={"accelerator": "nvidia-h100-sxm"})
    assert alone.status_code == 400 and alone.json()["detail"].startswith(
        "query parameter 'accelerator': 'nvidia-h100-sxm' is given without a price"
    )
    assert real_client.get("/api/economics/models/llama-3-3-70b", params={"accelerator": " "}).status_code == 200  # blank: not given
    blank_offer = real_client.get("/api/economics/models/llama-3-3-70b", params={"offer": " ", "price": "2", "accelerator": "H100 SXM"})
    h100 = next(b for b in blank_offer.json()["bounds"] if b["accelerator"] == "nvidia-h100-sxm")  # an alias, as elsewhere
    assert h100["price"]["origin"] == "given by you" and h100["price"]["per_accelerator_hour"] == 2
    fmt = real_client.get("/api/economics/models/llama-3-3-70b", params={"format": "FP9"}).json()["detail"]
    assert fmt.startswith("query parameter 'format': 'FP9' is not a number format (INT4, FP4")  # as every other parameter error reads


def test_a_known_collector_with_no_attempt_yet_is_never_collected(real_client) -> None:
    status = real_client.get("/api/status/collectors", params={"source": "aws"})  # the bundled store keeps no collection log
    assert status.status_code == 200
    (aws,) = status.json()["sources"]
    assert aws["source"] == "aws" and aws["schedule"] == "never" and aws["attempts"] == 0 and aws["last_attempt"] is None
    unknown = real_client.get("/api/status/collectors", params={"source": "amazon"})
    assert unknown.status_code == 400 and "aws, azure, gcp, oracle" in unknown.json()["detail"]


def test_a_cli_error_is_wrapped_at_80_columns_and_loses_no_word() -> None:
    result = CliRunner().invoke(cli, ["show", "A100"], env={"COLUMNS": "80"})
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and len(lines) > 1 and all(len(line) <= 80 for line in lines)
    said = " ".join(lines)
    assert said.startswith("'A100' could mean several accelerators:") and all(i in said for i in A100S)


def test_the_price_dataset_writes_prices_with_the_digits_they_were_published_with(tmp_path: Path) -> None:

    from computeatlas.catalog import load
    from computeatlas.cloud.observations import PriceUnit
    from computeatlas.cloud.store import Store
    from computeatlas.core.settings import Settings
    from computeatlas.publish.exports.csv import cell_text
    from computeatlas.web.app import create_app
    from tests.test_observations_fixes import _cells, _import, _obs

    # Google Cloud's bundled a2-highgpu-1g 1-year commitment, 1682.1512932 USD a month, on an
    # 8-accelerator instance: 1682.1512932 / 730 / 8 is 0.28803960500000003 in floating point.
    monthly = _obs(1682.1512932).model_copy(update={"unit": PriceUnit.MONTH})
    assert _import(Store(tmp_path / "prices"), monthly).accepted == 1
    client = TestClient(create_app(load(), Settings(prices=tmp_path / "prices")))
    (row,) = _cells(client.get("/data/prices/observations.csv").text.lstrip("\ufeff"))
    assert row["amount"] == "1682.1512932" and row["per_accelerator_hour"] == "0.288039605"
    (listed,) = _cells(client.get("/api/prices/nvidia-l4/history", params={"format": "csv"}).text.lstrip("\ufeff"))
    assert listed["amount"] == "1682.1512932" and listed["per_accelerator_hour"] == "0.288039605"
    assert cell_text(2.1999999999999997) == "2.2" and cell_text(24.3589000058082) == "24.3589000058082"  # 15 digits as published


@pytest.mark.parametrize(
    ("asked", "target"),
    [
        ("/cloud?provider=coreweave", "/cloud/?provider=coreweave"),
        ("/cloud/prices?pricing=spot", "/cloud/?pricing=spot#prices"),
        ("/silicon?sort=-memory&columns=memory", "/silicon/?sort=-memory&columns=memory"),
        ("/compare?ids=Trn3,Ironwood,MI300X", "/compare/?ids=Trn3,Ironwood,MI300X"),
        ("/data?x=1", "/data/?x=1"),
        ("/silicon", "/silicon/"),
    ],
)
def test_a_section_address_without_its_slash_keeps_the_query(real_client: TestClient, asked: str, target: str) -> None:
    response = real_client.get(asked, follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (301, target)
