"""One cheapest price on every face, over a small store where two offers tie.

Alpha's 8-accelerator instance (24.00 USD ÷ 8 = 3.00 per accelerator-hour) and Beta's one-accelerator price (3.00)
were both seen on 2026-11-20: a tie at the cheap end, which goes to the newest observation and
then the lowest offer id (Alpha's). Alpha's and Gamma's 5.00, both seen on 2026-11-10, tie at the
dear end: Alpha's again, on every face (the price page's spread named Gamma's, the part's rent
section Alpha's, before both ends were chosen by one ranking). Gamma's spot price and Beta's
euro price are cheaper but never count. /cloud/'s price table, the part's price page,
/silicon/acme-a1 (the card and the rent section), the API and the CLI name the same price and
the same offer; the spreads' cheap ends and the rule's cheapest price are one ranking.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cli import app as cli
from computeatlas.cloud import history
from computeatlas.cloud.cheapest_price import cheapest_price, price_ends
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.core.states import State
from tests.conftest import CliRunner
from tests.test_pricing import NOW, offer, priced_cloud

ROWS = [
    offer("alpha", "acme-a1", "A1 PCIe 80GB", "8x A1", 8, "instance", "on-demand", "24.00", "2026-11-20"),  # 3.00, tied
    offer("beta", "acme-a1", "A1 PCIe 80GB", "a1.large", 1, "accelerator", "on-demand", "3.00", "2026-11-20"),  # 3.00, tied
    offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1", 1, "accelerator", "on-demand", "5.00", "2026-11-10"),  # dearest, tied
    offer("alpha", "acme-a1", "A1 PCIe 80GB", "1x A1", 1, "accelerator", "on-demand", "5.00", "2026-11-10"),  # dearest, tied
    offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1 spot", 1, "accelerator", "spot", "1.00", "2026-11-20"),  # spot: never counts
    offer("beta", "acme-a1", "A1 PCIe 80GB", "a1.eu", 1, "accelerator", "on-demand", "2.00", "2026-11-20", currency="EUR"),  # euros
]

ALPHA = "alpha-8x-a1-on-demand-2026-11-20"
DEAR = "alpha-1x-a1-on-demand-2026-11-10"


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "utcnow", lambda: NOW)


@pytest.fixture(scope="module")
def tied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Catalog, Store]:
    folder = tmp_path_factory.mktemp("tied") / "data"
    catalog, store = priced_cloud(folder, ROWS)
    return folder, catalog, store


def _text(client: TestClient, path: str, selector: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    found = BeautifulSoup(response.text, "lxml").select_one(selector)
    assert found is not None, (path, selector)
    return " ".join(found.get_text(" ", strip=True).split())


def test_price_ends_breaks_a_tie_by_the_newest_then_the_offer_id() -> None:
    day = dt.datetime(2026, 11, 20, tzinfo=dt.UTC)
    items = [(3.0, day, "b"), (3.0, day, "a"), (3.0, day - dt.timedelta(hours=1), "0"), (5.0, day, "d"), (5.0, day, "c")]
    ends = price_ends(items, lambda i: i[0], lambda i: i[1], lambda i: i[2])
    assert ends == ((3.0, day, "a"), (5.0, day, "c"))
    assert price_ends([], lambda i: i[0], lambda i: i[1], lambda i: i[2]) is None


def test_every_face_shows_the_same_cheapest_price_and_offer(tied: tuple[Path, Catalog, Store], make_client) -> None:
    folder, catalog, store = tied
    rule = cheapest_price(store, "acme-a1", NOW, 90, catalog=catalog, current_only=False)
    assert rule is not None and (rule.per_accelerator_hour, rule.provider, rule.offer_id, rule.counted) == (3.0, "alpha", ALPHA, 4)
    client = make_client(catalog, Settings(data=folder))

    # /cloud/: the first on-demand USD row of the part's price table
    response = client.get("/cloud/", params={"accelerator": "acme-a1", "pricing": "on-demand"})
    first = BeautifulSoup(response.text, "lxml").select_one("tr[data-offer]")
    assert first is not None and first["data-offer"] == ALPHA
    assert "3.00 USD per accelerator-hour" in first.get_text(" ", strip=True)

    # the price page: "Cheapest now" and the spread's cheap end
    page = _text(client, "/cloud/prices/acme-a1", "main")
    assert "Cheapest now: 3.00 USD per accelerator-hour on demand, variant pcie-80gb — Alpha GPU, 8x A1, seen 2026-11-20" in page
    assert (
        "1.67× over 4 observations — cheapest 3.00 USD (Alpha GPU, 8x A1, 2026-11-20, source ), dearest 5.00 USD (Alpha GPU, 1x A1, 2026-11-10"
        in page
    )

    # /silicon/acme-a1: the card's "from" and the rent section's range
    assert _text(client, "/silicon/acme-a1", ".glance-price").startswith("Price 3.00–5.00 USD per accelerator-hour")
    rent = _text(client, "/silicon/acme-a1", ".rent-range")
    assert "from 3.00 USD per accelerator-hour (Alpha GPU, 8x A1, 2026-11-20) to 5.00 USD (Alpha GPU, 1x A1, 2026-11-10)" in rent

    # the API: the rule's figure and both spreads' cheap ends
    current = client.get("/api/prices/acme-a1/current").json()
    assert (current["cheapest"]["per_accelerator_hour"], current["cheapest"]["offer_id"]) == (3.0, ALPHA)
    assert (current["spread"]["cheapest"]["provider"], current["spread"]["cheapest"]["instance_type"]) == ("alpha", "8x A1")
    assert (current["spread"]["counted"], current["spread"]["ratio"]) == (4, 5.0 / 3.0)
    assert (current["spread"]["dearest"]["provider"], current["spread"]["dearest"]["instance_type"]) == ("alpha", "1x A1")
    rent = client.get("/api/accelerators/acme-a1").json()["rent"]["spread"]
    assert (rent["state"], rent["cheapest"]["offer_id"], rent["dearest"]["offer_id"]) == (State.DERIVED.value, ALPHA, DEAR)
    assert (rent["state_label"], rent["counted_text"]) == ("derived from published figures", "computed from 4 offers")

    # the CLI: the rule's line and the spread's cheap end
    shown = CliRunner().invoke(cli, ["prices", "acme-a1", "--data", str(folder)], env={"COLUMNS": "400"})
    assert shown.exit_code == 0, shown.output
    assert (
        f"Cheapest price: 3.00 USD per accelerator-hour on demand, variant pcie-80gb — alpha, 8x A1, seen 2026-11-20 ({ALPHA})"
        in shown.output
    )
    assert "  cheapest: 3.00 USD per accelerator-hour — Alpha GPU, 8x A1, seen 2026-11-20" in shown.output
    as_json = json.loads(CliRunner().invoke(cli, ["prices", "acme-a1", "--json", "--data", str(folder)]).output)
    assert (as_json["spread"]["cheapest"]["offer_id"], as_json["cheapest"]["offer_id"]) == (ALPHA, ALPHA)
    assert as_json["spread"]["dearest"]["offer_id"] == DEAR
