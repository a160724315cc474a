"""A price in another currency shows its USD figure with the rate and the rate's date on every
surface that shows it: the market table of ``/cloud/``, the provider's page, the part's price
page, ``/api/offers``, the history CSV, the price dataset and the CLI's ``prices``; all in the
words of one function (:func:`computeatlas.cloud.rates.conversion_words`)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.cli import app as cli
from computeatlas.cloud import rules
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rates import Rate, RateTable, conversion_words
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import BUNDLED_DATA, Settings
from computeatlas.web.app import create_app
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
SEEN = NOW - dt.timedelta(days=1)
RATE_DAY = (NOW - dt.timedelta(days=10)).date()
RATE = Rate(RATE_DAY, "EUR", 1.05, "https://www.ecb.europa.eu/stats/", "ECB euro reference rates")
# 8 × L4 at 19.20 EUR an instance-hour: 2.40 EUR per GPU-hour, ≈ 2.52 USD at 1.05 USD per euro
WORDS = f"≈ 2.52 USD per GPU-hour at 1 EUR = 1.05 USD on {RATE_DAY} (ECB euro reference rates, https://www.ecb.europa.eu/stats/)"


def _obs(currency: str, amount: float, instance: str) -> Observation:
    return Observation(
        provider="examplecloud",
        instance_type=instance,
        region="eu" if currency == "EUR" else "us",
        pricing="on_demand",
        amount=amount,  # type: ignore[arg-type]
        currency=currency,
        unit="hour",
        collected=SEEN,
        source_url="https://examplecloud.example/pricing",
        via="test",
    )


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A copy of the bundled data folder whose rate table holds one euro rate, and a store with
    one euro and one dollar price of an 8 × L4 instance."""
    root = tmp_path_factory.mktemp("converted")
    data = root / "data"
    shutil.copytree(BUNDLED_DATA, data, ignore=shutil.ignore_patterns("prices"))
    (data / "prices").mkdir()
    (data / "prices" / "rates.csv").write_text(
        f"date,currency,usd_per_unit,source_url,source_title\n{RATE_DAY},EUR,1.05,https://www.ecb.europa.eu/stats/,ECB euro reference rates\n",
        encoding="utf-8",
    )
    store = Store(root / "prices")
    table = load_instances(FIXTURES / "instances")
    import_readings(
        "atlas",
        [],
        store,
        table,
        RateTable([RATE]),
        rules.Limits(),
        now=NOW,
        observations=[_obs("EUR", 19.2, "8x L4"), _obs("USD", 3.2, "1x L4")],
    )
    return data, root / "prices"


@pytest.fixture(scope="module")
def catalog(folders: tuple[Path, Path]) -> Catalog:
    return load(folders[0])


@pytest.fixture(scope="module")
def client(folders: tuple[Path, Path], catalog: Catalog) -> Iterator[TestClient]:
    with TestClient(create_app(catalog, Settings(data=folders[0], prices=folders[1]))) as opened:
        yield opened


def _html(client: TestClient, path: str) -> BeautifulSoup:
    response = client.get(path)
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "lxml")


def test_the_words_are_made_in_one_place() -> None:
    assert conversion_words("EUR", 2.52, RATE, SEEN.date(), "GPU-hour") == WORDS
    assert conversion_words("USD", 3.2, None, SEEN.date(), "GPU-hour") is None
    assert conversion_words("JPY", None, None, dt.date(2026, 11, 30), "GPU-hour") == (
        "Priced in JPY: no exchange rate dated on or before 2026-11-30 is held, so it is shown as published and left out of USD figures."
    )


@pytest.mark.parametrize("path", ["/cloud/?accelerator=nvidia-l4", "/cloud/examplecloud"])
def test_market_and_provider_tables_show_the_rate_and_its_date(client: TestClient, path: str) -> None:
    rows = _html(client, path).select("table.offers tbody tr[data-offer]")
    euro = [r for r in rows if "EUR" in r.get_text()]
    assert len(euro) == 1
    assert euro[0].select_one("td[data-key=per-accelerator] .currency-note").get_text(strip=True) == WORDS
    dollar = [r for r in rows if "8x L4" not in r.get_text() and "examplecloud" in r["data-offer"]]
    assert dollar and all(r.select_one(".currency-note") is None for r in dollar)  # a dollar price needs no rate


def test_the_price_page_shows_the_rate_and_its_date(client: TestClient) -> None:
    rows = _html(client, "/cloud/prices/nvidia-l4").select("#current table.observed tbody tr[data-provider=examplecloud]")
    notes = [r.select_one(".currency-note").get_text(strip=True) for r in rows if r.select_one(".currency-note")]
    assert notes == [WORDS.replace("GPU-hour", "accelerator-hour")]


def test_the_api_gives_the_usd_figure_with_the_rate_and_its_date(client: TestClient) -> None:
    offers = [o for o in client.get("/api/offers", params={"accelerator": "nvidia-l4"}).json() if o["provider"] == "examplecloud"]
    euro = next(o for o in offers if o["currency"] == "EUR")
    assert euro["per_accelerator_hour"] == pytest.approx(2.4) and euro["usd_per_accelerator_hour"] == pytest.approx(2.52)
    assert (euro["usd_per_unit"], euro["rate_date"], euro["currency_note"]) == (1.05, RATE_DAY.isoformat(), WORDS)
    assert euro["usd_comparable"] is False  # shown beside dollar prices, never mixed into a spread
    dollar = next(o for o in offers if o["currency"] == "USD")
    assert (dollar["usd_per_accelerator_hour"], dollar["rate_date"], dollar["currency_note"]) == (3.2, None, None)
    current = client.get("/api/prices/nvidia-l4/current").json()["prices"]
    assert next(p for p in current if p["currency"] == "EUR")["rate_date"] == RATE_DAY.isoformat()


def test_the_csv_files_carry_the_rate_and_its_date(client: TestClient) -> None:
    history = client.get("/api/prices/nvidia-l4/history", params={"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(history.content.decode("utf-8-sig"))))
    euro = next(r for r in rows if r["currency"] == "EUR")
    assert (euro["usd_per_accelerator_hour"], euro["rate_date"], euro["usd_per_unit"]) == ("2.52", RATE_DAY.isoformat(), "1.05")
    assert euro["currency_note"] == WORDS.replace("GPU-hour", "accelerator-hour")
    dataset = client.get("/data/prices/observations.csv")
    rows = list(csv.DictReader(io.StringIO(dataset.content.decode("utf-8-sig"))))
    euro = next(r for r in rows if r["currency"] == "EUR")
    assert float(euro["usd_per_accelerator_hour"]) == pytest.approx(2.52)
    assert (euro["rate_usd_per_unit"], euro["rate_date"], euro["rate_source_url"]) == (
        "1.05",
        RATE_DAY.isoformat(),
        "https://www.ecb.europa.eu/stats/",
    )
    dollar = next(r for r in rows if r["currency"] == "USD")
    assert (dollar["usd_per_accelerator_hour"], dollar["rate_date"]) == ("3.2", "")


def test_the_cli_prices_shows_the_rate_and_its_date(folders: tuple[Path, Path]) -> None:
    result = CliRunner().invoke(
        cli, ["prices", "nvidia-l4", "--data", str(folders[0]), "--prices", str(folders[1]), "--json"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert WORDS in result.output
    table = CliRunner().invoke(cli, ["prices", "nvidia-l4", "--data", str(folders[0]), "--prices", str(folders[1])], env={"COLUMNS": "400"})
    assert table.exit_code == 0, table.output
    assert f"1 EUR = 1.05 USD on {RATE_DAY}" in " ".join(table.output.split())
