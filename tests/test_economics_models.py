"""/economics/models/{model}, its JSON twin, the models table and `computeatlas tokens`, read as a person would."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from computeatlas.cli import app as cli
from computeatlas.cloud import history
from computeatlas.cloud.store import Store
from computeatlas.economics.bound_settings import request_from
from computeatlas.economics.model_view import BELOW_FLAG, model_view
from computeatlas.economics.token_prices import TokenObservation, token_store
from tests.conftest import CliRunner

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "utcnow", lambda: NOW)


def _rows(soup: BeautifulSoup, table: str) -> dict[str, BeautifulSoup]:
    return {
        tr.get("data-accelerator") or f"{tr.get('data-provider')}|{tr.get('data-product')}|{tr.get('data-date')}": tr
        for tr in soup.select(f"table.{table} tbody tr")
    }


def test_llama_3_3_70b_page_shows_market_bound_and_figures(real_client) -> None:
    r = real_client.get("/economics/models/llama-3-3-70b")
    assert r.status_code == 200
    soup = BeautifulSoup(r.text, "lxml")
    market = _rows(soup, "market-prices")
    # OpenRouter's product as pydantic/genai-prices lists it on 2026-08-21 (v2 feed): 0.05 in, 0.24 out per million tokens;
    # its March 2026 collections (completion_price_per_token "0.00000032" × 1,000,000 = 0.32) are in the history below
    row = market["openrouter|meta-llama/llama-3.3-70b-instruct|2026-08-21"]  # the newest of OpenRouter's observations
    assert row.select_one("td.output").get_text(strip=True) == "0.24"
    assert "openrouter|meta-llama/llama-3.3-70b-instruct|2026-03-23" not in market
    assert row.select_one("td.input").get_text(strip=True) == "0.05"
    # DeepInfra's cents_per_output_token 4e-05 US cents = 4e-07 USD per token → 0.40 USD per million
    assert market["deepinfra|meta-llama/Llama-3.3-70B-Instruct|2026-03-22"].select_one("td.output").get_text(strip=True) == "0.4"
    assert market["together|Llama 3.3 70B|2026-03-23"].select_one("td.output").get_text(strip=True) == "0.88"
    assert "10.00×" in soup.select_one("strong.spread").get_text()  # SambaNova 1.2 ÷ DeepInfra Turbo 0.12 (LiteLLM, 2025-09-01)
    bounds = _rows(soup, "bounds")
    h100 = bounds["nvidia-h100-sxm"]
    # the cheapest fresh on-demand H100 SXM that states its variant (the price page's spread rule): RunPod, 2.69 USD
    assert "2.69 USD per accelerator-hour" in h100.get_text() and "2026-11-09" in h100.get_text()
    # 1 × 2.69 ÷ (1,218.5 tokens/s × 3600) × 1e6 (see tests/test_bound.py for the 1,218.5)
    assert h100.select_one("td.cost-output").get_text(strip=True) == "0.6132"
    assert {"nvidia-h100-sxm", "nvidia-h200-sxm", "amd-instinct-mi300x", "nvidia-b200"} <= set(bounds)
    assert "not applicable" in bounds["nvidia-a100-sxm-80gb"].get_text()  # an A100 has no FP8
    figures = {tr["data-figure"]: tr for tr in soup.select("table.model-figures tr[data-figure]")}
    assert figures["kv_heads"].select_one(".figure").get_text() == "8"
    # one price sits below the lowest bound: DeepInfra's Turbo (FP8) input at 0.038 (LiteLLM, 2025-09-01), against an L40S
    flags = [p.get_text(" ", strip=True) for p in soup.select("p.flag")]
    assert len(flags) == 1 and "0.04191 USD on NVIDIA L40S at 0.79 USD per accelerator-hour" in flags[0]
    assert "upper bound on throughput" in soup.select_one("p.lede").get_text()


def test_the_json_twin_has_the_same_figures(real_client) -> None:
    doc = real_client.get("/api/economics/models/llama-3-3-70b").json()
    outputs = {(m["provider"], m["collected"][:10]): m["output_per_million"] for m in doc["market"]}
    assert outputs[("openrouter", "2026-03-21")] == 0.32 and outputs[("novita", "2026-03-22")] == 0.4
    h100 = next(b for b in doc["bounds"] if b["accelerator"] == "nvidia-h100-sxm")
    assert h100["cost_output"]["amount"] == pytest.approx(0.61324, rel=1e-4)
    assert h100["bound"]["decode"]["formula"] == "the lower of memory-bound and compute-bound decode"


def test_economics_index_lists_models_with_market_and_bound(real_client) -> None:
    soup = BeautifulSoup(real_client.get("/economics/").text, "lxml")
    row = soup.select_one('table.models-table tr[data-model="llama-3-3-70b"]')
    # the cheapest newest price of any product: DeepInfra's Turbo in LiteLLM's table of 2025-09-01, history, said so
    assert row.select_one("td.market").get_text(" ", strip=True) == "0.12 DeepInfra, 2025-09-01 stale: 456 days old"
    assert row.select_one("td.bound").get_text(" ", strip=True).startswith("0.09554")  # MI300X at 3.45 USD/h
    assert len(soup.select("table.models-table tbody tr")) == 14


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/economics/models/llama-3-3-7b", 404, "Llama 3.3 70B Instruct"),  # the closest names
        ("/api/economics/models/nope", 404, "no model"),
        ("/economics/models/llama-3-3-70b?context=0", 400, "context"),
        ("/economics/models/llama-3-3-70b?context=200000", 400, "131,072"),
        ("/economics/models/llama-3-3-70b?format=FP9", 400, "not a number format"),
        ("/api/economics/models/llama-3-3-70b?utilisation=nan", 400, "utilisation"),
        ("/api/economics/models/llama-3-3-70b?mix=3", 400, "mix"),
        ("/api/economics/models/llama-3-3-70b?batch=-4", 400, "batch"),
        ("/api/economics/models/llama-3-3-70b?accelerators=1e9", 400, "accelerators"),
    ],
)
def test_bad_input_is_a_clear_4xx(real_client, path: str, status: int, says: str) -> None:
    r = real_client.get(path)
    assert r.status_code == status and says.lower() in r.text.lower()


def test_a_batch_that_does_not_fit_names_the_least_count(real_client) -> None:
    doc = real_client.get("/api/economics/models/llama-3-3-70b?format=BF16&accelerators=1&batch=8").json()
    h100 = next(b for b in doc["bounds"] if b["accelerator"] == "nvidia-h100-sxm")
    assert h100["bound"] is None and "at least 2 accelerators" in h100["reason"]


def test_a_market_price_below_the_bound_is_flagged(real_catalog, tmp_path: Path) -> None:
    store = token_store(tmp_path / "tokens")
    store.append(
        [
            TokenObservation(
                provider="openrouter",
                product="meta-llama/llama-3.3-70b-instruct",
                model="llama-3-3-70b",
                input_per_million=0.01,
                output_per_million=0.02,
                published_input="0.00000001",
                published_output="0.00000002",
                published_unit="USD per token",
                collected=dt.datetime(2026, 3, 21, tzinfo=dt.UTC),
            )
        ],
        "run-1",
        {},
    )
    view = model_view(real_catalog, real_catalog.models["llama-3-3-70b"], request_from(), Store(DATA / "prices"), store, NOW)
    flags = view.market[0].flags
    assert any(f.startswith(f"output price {BELOW_FLAG}") and "AMD Instinct MI300X" in f for f in flags)  # 0.02 < 0.0955
    assert any(f.startswith(f"input price {BELOW_FLAG}") for f in flags)  # 0.01 < 0.039 (H100 SXM prefill)


def test_claims_are_compared_only_with_a_stated_basis(real_client) -> None:
    doc = real_client.get("/api/economics/models/deepseek-r1").json()
    claims = {c["id"]: c for c in doc["claims"]}
    assert claims["semianalysis-gb200-nvl72-deepseek-r1-cost"]["compared"] is False
    assert (
        "does not state whether it prices rented or owned hardware, its batch"
        in claims["semianalysis-gb200-nvl72-deepseek-r1-cost"]["comparison"]
    )
    assert claims["semianalysis-gb200-nvl72-deepseek-r1-cost"]["claimant_sells"]  # the claimant's interest travels with it


def test_cli_tokens(monkeypatch) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["tokens", "llama-3-3-70b", "--json", "--data", str(DATA)])
    assert result.exit_code == 0, result.output
    assert '"output_per_million": 0.88' in result.output
    spelled = runner.invoke(cli, ["tokens", "Llama 3.3 70B", "--json", "--data", str(DATA)])  # a spelling of one model's name
    assert spelled.exit_code == 0 and '"id": "llama-3-3-70b"' in spelled.output
    bad = runner.invoke(cli, ["tokens", "llama-3-3-7b", "--data", str(DATA)])
    assert bad.exit_code == 2 and "llama-3-3-70b" in bad.output
    bad = runner.invoke(cli, ["tokens", "llama-3-3-70b", "--context", "0", "--data", str(DATA)])
    assert bad.exit_code == 2 and "context" in bad.output


def test_a_chosen_offer_or_price_replaces_the_cheapest(real_client) -> None:
    doc = real_client.get("/api/economics/models/llama-3-3-70b?offer=lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20").json()
    h100 = next(b for b in doc["bounds"] if b["accelerator"] == "nvidia-h100-sxm")
    assert (
        h100["price"]["per_accelerator_hour"] == 4.29
        and h100["price"]["origin"] == "chosen offer lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20"
    )
    assert h100["cost_output"]["amount"] == pytest.approx(4.29 / (1218.47 * 3600) * 1e6, rel=1e-4)  # 0.978 USD per million
    doc = real_client.get("/api/economics/models/llama-3-3-70b?price=1&accelerator=nvidia-h100-sxm").json()
    h100 = next(b for b in doc["bounds"] if b["accelerator"] == "nvidia-h100-sxm")
    assert h100["price"]["origin"] == "given by you" and h100["cost_output"]["amount"] == pytest.approx(0.22797, rel=1e-4)


@pytest.mark.parametrize(
    ("query", "status", "says"),
    [
        ("price=0&accelerator=nvidia-h100-sxm", 400, "above 0"),
        ("price=nan&accelerator=nvidia-h100-sxm", 400, "finite"),
        ("price=-3&accelerator=nvidia-h100-sxm", 400, "price"),
        ("price=2", 400, "accelerator"),
        ("price=2&accelerator=nvidia-h100", 404, "nvidia-h100-sxm"),
        ("offer=lambda-1x-h100", 404, "no offer"),
    ],
)
def test_a_bad_chosen_price_is_a_4xx(real_client, query: str, status: int, says: str) -> None:
    r = real_client.get(f"/api/economics/models/llama-3-3-70b?{query}")
    assert r.status_code == status and says in r.text


def test_a_claim_with_its_basis_stated_is_compared_with_the_bound(real_client) -> None:
    doc = real_client.get("/api/economics/models/llama-3-1-70b").json()
    claim = next(c for c in doc["claims"] if c["id"] == "gpuadvisor-llama-3-1-70b-h100-cost")
    # FP8, batch 16, 1,024-token context on the faster part it may mean (H100 SXM, 2.69 USD/h): decode ≤ 16 × 3.35e12 ÷
    # (70e9 + 16 × 1024 × 327,680) = 711.2 tokens/s, so at least 2.69 ÷ (711.2 × 3600) × 1e6 = 1.051 USD per million
    assert claim["compared"] is True and claim["comparison"].startswith("below the bound: 0.38 USD against 1.051 USD")
    assert "NVIDIA H100 SXM5 80GB" in claim["comparison"] and claim["claimant_sells"] == "independent"
    soup = BeautifulSoup(real_client.get("/economics/models/llama-3-1-70b").text, "lxml")
    shown = soup.select_one('div.claim[data-claim="gpuadvisor-llama-3-1-70b-h100-cost"]')
    assert shown["data-compared"] == "true" and "below the bound" in shown.select_one("p.comparison").get_text()


def test_owned_hardware_is_named_as_the_basis_that_differs(real_catalog) -> None:
    from computeatlas.economics.claims import HardwareBasis
    from computeatlas.economics.model_view import compare_claim

    claim = real_catalog.claims["gpuadvisor-llama-3-1-70b-h100-cost"].model_copy(update={"basis_hardware": HardwareBasis.OWNED})
    compared, text = compare_claim(claim, real_catalog.models["llama-3-1-70b"], real_catalog, request_from(), {})
    assert compared is False and "owned hardware" in text and "rented hardware" in text


def test_an_import_of_token_prices_is_seen_without_a_restart(make_client, real_catalog, tmp_path: Path, monkeypatch) -> None:
    import shutil

    from computeatlas.cloud import dataset as store_module
    from computeatlas.core.settings import Settings

    monkeypatch.setattr(store_module, "VERSION_RECHECK_SECONDS", 0.0)  # the cache looks at the stores' runs on every request
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("tokens", "prices"))
    client = make_client(real_catalog, Settings(data=data, prices=DATA / "prices", page_cache=True))
    first = BeautifulSoup(client.get("/economics/models/llama-3-3-70b").text, "lxml")
    assert not first.select("table.market-prices")  # no token prices in this data folder yet
    token_store(data / "tokens").append(
        [
            TokenObservation(
                provider="together",
                product="Llama 3.3 70B",
                model="llama-3-3-70b",
                input_per_million=0.88,
                output_per_million=0.88,
                published_input="$0.88",
                published_output="$0.88",
                published_unit="USD per million tokens",
                collected=dt.datetime(2026, 3, 23, tzinfo=dt.UTC),
            )
        ],
        "run-1",
        {},
    )
    again = BeautifulSoup(client.get("/economics/models/llama-3-3-70b").text, "lxml")
    assert again.select_one("table.market-prices td.output").get_text(strip=True) == "0.88"


def test_the_glance_answers_the_buyers_question(real_client) -> None:
    soup = BeautifulSoup(real_client.get("/economics/models/llama-3-3-70b").text, "lxml")
    market = soup.select_one("li.glance-market").get_text(" ", strip=True)
    # the newest bundled price is genai-prices' of 2026-08-21, more than 90 days before 2026-12-01: not current, and said so
    assert market.startswith("No current price: every per-token price placed on this model is older than the 90-day freshness window.")
    assert (
        "collected by 2026-08-21 (102 days ago), ran from 0.12 to 1.2 USD per million output tokens" in market
    )  # DeepInfra Turbo … SambaNova
    bound = soup.select_one("li.glance-bound").get_text(" ", strip=True)
    assert "0.09554 USD per million output tokens" in bound and "AMD Instinct MI300X" in bound and "3.45 USD per accelerator-hour" in bound
    assert soup.select_one("li.glance-claims").get_text(" ", strip=True).startswith("0 published claims about this model")
    other = BeautifulSoup(real_client.get("/economics/models/llama-3-1-70b").text, "lxml")
    assert "1 sits below the bound" in other.select_one("li.glance-claims").get_text(" ", strip=True)


def test_the_glance_range_names_both_ends(real_client) -> None:
    soup = BeautifulSoup(real_client.get("/economics/models/llama-3-1-70b").text, "lxml")
    text = soup.select_one("li.glance-market").get_text(" ", strip=True)
    assert text.startswith("No current price") and "ran from 0.28 to 3.54 USD per million output tokens" in text
    assert "(DeepInfra, 2025-09-01; Azure AI Foundry (serverless), 2025-09-01)" in text
    assert "1 states its basis and is compared; 1 sits below the bound" in soup.select_one("li.glance-claims").get_text(" ", strip=True)


def test_attention_figures_show_on_the_model_page_and_size_the_cache(real_client) -> None:
    soup = BeautifulSoup(real_client.get("/economics/models/deepseek-v3").text, "lxml")
    figures = {tr["data-figure"]: tr for tr in soup.select("table.model-figures tr[data-figure]")}
    assert figures["kv_lora_rank"].select_one(".figure").get_text() == "512"
    assert figures["qk_rope_head_dim"].select_one(".figure").get_text() == "64"
    assert figures["head_size"]["data-state"] == "not_applicable"
    doc = real_client.get("/api/economics/models/gpt-oss-120b").json()
    h100 = next(b for b in doc["bounds"] if b["accelerator"] == "nvidia-h100-sxm")
    # default 1,024-token context: (18 × 1,024 + 18 × 128) × 2,048 B ÷ 1,024 = 41,472 B per token
    assert h100["bound"]["kv_per_token"]["amount"] == 41_472
    assert "18 hold at most 128" in h100["bound"]["kv_per_token"]["working"]


def test_an_estimate_below_peak_flags_only_what_the_bound_flags(real_client) -> None:
    # At 10% of peak the figures are an estimate: prices are weighed against the bound at utilisation 1 only, so the
    # estimate flags exactly what the bound flags (DeepInfra's Turbo input at 0.038), never Together's 0.88.
    doc = real_client.get("/api/economics/models/llama-3-3-70b?utilisation=0.1").json()
    bound = real_client.get("/api/economics/models/llama-3-3-70b").json()
    assert doc["label"].startswith("estimate") or "estimate" in doc["label"]
    assert [m["flags"] for m in doc["market"]] == [m["flags"] for m in bound["market"]]
    assert {(m["provider"], m["input_per_million"]) for m in doc["market"] if m["flags"]} == {("deepinfra", 0.038)}
    page = BeautifulSoup(real_client.get("/economics/models/llama-3-3-70b?utilisation=0.1").text, "lxml")
    assert page.select_one("#bound h2").get_text(strip=True).startswith("The estimate (utilisation 0.1)")


@pytest.mark.parametrize("spelling", ["llama-3.3-70b", "Llama-3-3-70b", "Llama 3.3 70B", "LLAMA-3.3-70B-INSTRUCT"])
def test_another_spelling_of_one_model_moves_to_its_id(real_client, spelling: str) -> None:
    moved = real_client.get(f"/economics/models/{spelling}?context=2048", follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == "/economics/models/llama-3-3-70b?context=2048"
    # a look-alike is never taken for another model: 3.1 70B is not 3.1 405B
    assert (
        real_client.get("/api/economics/models/llama-3.1-70b", follow_redirects=False).headers["location"]
        == "/api/economics/models/llama-3-1-70b"
    )


def test_an_offer_and_a_price_together_are_refused(real_client) -> None:
    # one of them would otherwise be ignored without a word
    both = real_client.get("/api/economics/models/llama-3-3-70b?offer=x-2026-09-20&price=2&accelerator=nvidia-h100-sxm")
    assert both.status_code == 400 and "not both" in both.text
