"""The price dataset's download is a file written once per version of the store and sent from
disk: a second download (or a HEAD) never builds it again, a new run makes a new file and
removes the old one, and what is sent is the export itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.publish.exports import prices as prices_export
from tests.price_support import observation


def _obs(provider: str, usd: float, run: str) -> Observation:
    return observation(provider, "2026-11-27", usd, run=run)


def test_the_download_is_built_once_per_store_version_and_sent_from_disk(
    tmp_path: Path, catalog, make_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "prices")
    store.append([_obs("alpha", 2.25, "r1")], "r1", {"format": "test"})
    client: TestClient = make_client(catalog, Settings(prices=tmp_path / "prices", var=tmp_path / "var"))
    built: list[Path] = []
    real = prices_export._written

    def counted(*args: object) -> None:
        built.append(args[-1])  # type: ignore[arg-type]
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(prices_export, "_written", counted)

    first = client.get("/data/prices/observations.csv")
    assert first.status_code == 200 and first.content == prices_export.export(store, "csv")
    assert first.content.decode("utf-8-sig").splitlines()[1].startswith("2026-11-27T06:00:00Z,alpha,alpha-1x,r1,on_demand")
    again, head = client.get("/data/prices/observations.csv"), client.head("/data/prices/observations.csv")
    assert again.content == first.content and head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len(first.content)
    served = [p for p in built if p.parent.name == "datasets"]  # (the export of the first assertion is not the app's)
    assert len(served) == 1  # one build for three requests
    (kept,) = (tmp_path / "var" / "datasets").glob("observations-*.csv")

    store.append([_obs("beta", 3.0, "r2")], "r2", {"format": "test"})  # a new run: a new version
    newer = client.get("/data/prices/observations.csv")
    assert "beta" in newer.text and len([p for p in built if p.parent.name == "datasets"]) == 2
    assert [p.name for p in (tmp_path / "var" / "datasets").glob("observations-*.csv")] != [kept.name]
    assert not kept.exists()  # the older version's file is gone


def test_export_file_keys_the_file_by_the_rate_table_too(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    store.append([_obs("alpha", 2.25, "r1")], "r1", {"format": "test"})
    plain = prices_export.export_file(store, "parquet", RateTable([]), tmp_path / "out")
    assert plain.read_bytes() == prices_export.export(store, "parquet")
    assert prices_export.export_file(store, "parquet", RateTable([]), tmp_path / "out") == plain
