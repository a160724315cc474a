"""A price published per month is shown as published and as its hourly equivalent with the
hours-a-month convention (730 by default) on every surface: the API, the history page, the CLI."""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.cli import app
from tests.conftest import CliRunner


def test_a_monthly_price_keeps_its_published_month_and_says_how_it_was_made_hourly(real_client: TestClient) -> None:
    offers = real_client.get("/api/offers", params={"accelerator": "nvidia-a100-sxm-40gb", "include_stale": "true"}).json()
    monthly = [o for o in offers if o["published_unit"] == "month"]
    assert monthly and all(o["hours_per_month"] == 730 for o in monthly)
    # Google Cloud's 3-year commitment on a2-megagpu-16g: 14241.71597664 USD a month for 16 GPUs
    # (Cyclenerd's pricing.yml), 14241.716 ÷ 730 ≈ 19.5092 USD an hour, ÷ 16 ≈ 1.2193 per GPU-hour.
    mega = next(o for o in monthly if o["instance_type"] == "a2-megagpu-16g" and o["region"] == "us-central1")
    assert mega["published_amount"] == 14241.71597664 and round(mega["price_per_hour"], 4) == 19.5092
    assert mega["arithmetic"].startswith("14241.716 per month ÷ 730.0 h ≈ 19.5092 USD ÷ 16")
    assert all(o["published_unit"] == "hour" and o["hours_per_month"] is None for o in offers if o not in monthly)
    page = BeautifulSoup(real_client.get("/cloud/prices/nvidia-a100-sxm-40gb/history").text, "lxml")
    row = next(
        tr
        for tr in page.select("table.observed tr[data-provider=google-cloud]")
        if "a2-megagpu-16g" in tr.get_text() and "month" in tr.get_text()
    )
    text = row.get_text(" ", strip=True)
    assert (
        "14241.716 USD per month" in text and "1.2193 USD (hourly equivalent derived from the term: a month counted as 730 hours)" in text
    )


def test_the_cli_shows_the_month_and_the_division() -> None:
    shown = CliRunner().invoke(app, ["prices", "nvidia-a100-sxm-40gb", "--include-stale"], env={"COLUMNS": "400"})
    assert shown.exit_code == 0, shown.output
    assert "14241.716 per month ÷ 730.0 h ≈ 19.5092 USD ÷ 16" in shown.stdout
