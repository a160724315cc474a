"""The model page's token-price history: the chart per provider, input and output, and stale prices marked
with their date and age, never shown as current (real genai-prices and LiteLLM excerpts, tests/fixtures/tokens/)."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from computeatlas.cloud import history
from computeatlas.core.settings import Settings
from computeatlas.economics.token_import import import_token_files
from computeatlas.economics.token_prices import token_store

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tokens"
DATA = Path(__file__).resolve().parent.parent / "data"
NOW = dt.datetime(2026, 9, 15, 12, tzinfo=dt.UTC)  # 25 days after genai-prices' v2 commit of 2026-08-21: those are fresh


@pytest.fixture
def client(make_client, real_catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("tokens", "prices"))
    store = token_store(data / "tokens")
    import_token_files(sorted((FIXTURES / "genai-prices").glob("*.json")), store, real_catalog.models.values(), now=NOW, fmt="genai-prices")
    import_token_files(sorted((FIXTURES / "litellm").glob("*.json")), store, real_catalog.models.values(), now=NOW, fmt="litellm")
    return make_client(real_catalog, Settings(data=data, prices=DATA / "prices"))


def test_the_newest_price_per_product_with_stale_ones_marked(client) -> None:  # type: ignore[no-untyped-def]
    soup = BeautifulSoup(client.get("/economics/models/llama-3-1-70b").text, "lxml")
    rows = {(tr["data-provider"], tr["data-product"]): tr for tr in soup.select("table.market-prices tbody tr")}
    aws = rows[("aws", "meta.llama3-1-70b-instruct-v1:0")]  # genai-prices v2, 2026-08-21: 0.72 / 0.72
    assert (aws["data-date"], aws["data-stale"], aws.select_one("td.output").get_text(strip=True)) == ("2026-08-21", "false", "0.72")
    assert not aws.select(".badge.stale")
    groq = rows[("groq", "groq/llama-3.1-70b-versatile")]  # LiteLLM 2024-10-14: 5.9e-07 / 7.9e-07 USD per token
    assert (groq["data-date"], groq["data-stale"], groq.select_one("td.input").get_text(strip=True)) == ("2024-10-14", "true", "0.59")
    assert groq.select_one("td.collected").get_text(" ", strip=True) == "2024-10-14 stale: 701 days old"
    assert "stale" in groq["class"]
    glance = soup.select_one("li.glance-market").get_text(" ", strip=True)
    # fresh only: AWS Bedrock 0.72 and Together 0.88 (2026-08-21); DeepInfra's 0.4 of 2025-09-01 is stale and not counted
    assert glance == "Providers charge 0.72 to 0.88 USD per million output tokens (AWS Bedrock, 2026-08-21; Together AI, 2026-08-21)."
    assert "fresh prices only" in soup.select_one("#market p").get_text(" ", strip=True)
    assert [a["href"] for a in aws.select("a.pricing-url")] == ["https://aws.amazon.com/bedrock/pricing/"]


def test_the_chart_plots_each_provider_over_time_and_says_what_is_stale(client) -> None:  # type: ignore[no-untyped-def]
    soup = BeautifulSoup(client.get("/economics/models/llama-3-1-70b").text, "lxml")
    figure = soup.select_one("figure.token-history")
    assert figure.select_one("img")["src"] == "/economics/models/llama-3-1-70b/token-prices.svg"
    caption = figure.select_one("p.chart-desc").get_text(" ", strip=True)
    assert "USD per million input tokens (top) and output tokens (bottom)" in caption
    table = soup.select("table.token-history-table tbody tr")
    stale = [tr for tr in table if tr["data-stale"] == "true"]
    fresh = {(tr["data-provider"], tr["data-date"]) for tr in table if tr["data-stale"] == "false"}
    assert fresh == {("aws", "2026-07-25"), ("together", "2026-07-25"), ("aws", "2026-08-21"), ("together", "2026-08-21")}
    assert f"{len(stale)} of the {len(table)} prices were collected before 2026-06-17" in caption  # 90 days before 2026-09-15
    assert {tr["data-date"] for tr in table if tr["data-provider"] == "aws"} == {"2024-10-14", "2025-09-01", "2026-07-25", "2026-08-21"}
    svg = client.get("/economics/models/llama-3-1-70b/token-prices.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    picture = BeautifulSoup(svg.text, "xml")
    assert (
        picture.svg["role"] == "img"
        and picture.find("title").get_text() == "Llama 3.1 70B: price per million tokens by provider over time (USD)"
    )
    assert "AWS Bedrock" in svg.text and "Input price" in svg.text and "Output price" in svg.text and "fresh: the last 90 days" in svg.text


def test_a_model_with_no_token_price_has_no_chart(client) -> None:  # type: ignore[no-untyped-def]
    soup = BeautifulSoup(client.get("/economics/models/qwen3-235b-a22b").text, "lxml")
    assert not soup.select("figure.token-history") and soup.select_one("#market p.state")
    assert client.get("/economics/models/qwen3-235b-a22b/token-prices.svg").status_code == 404
