"""``computeatlas prices collect`` and :func:`collect_sources` end to end, against recorded responses
on a loopback server (every collector's base URL set by COMPUTEATLAS_COLLECTOR_URLS): each source
into its own run, every attempt recorded, a failing source never blocking the others nor
touching what was stored before, a missing key skipped, a run held whole by the check hook."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import load
from computeatlas.cli import app as cli
from computeatlas.cloud.collection import HELD_RULE, SOURCES, collect_sources
from computeatlas.cloud.collection_log import attempts
from computeatlas.cloud.collectors import http
from computeatlas.cloud.collectors.skypilot import CLOUDS, catalog_path
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from tests.conftest import CliRunner
from tests.loopback import FIXTURES, Answer, Server, serving

NOW = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.UTC)
ORACLE = "/pls/apex/cetools/api/v1/products/"


def _routes(server: Server) -> None:
    server.route("/api/retail/prices", Answer.file("azure-page1.json"), Answer.file("azure-page2.json"))
    server.route("/offers/v1.0/aws/index.json", Answer.file("aws-offer-index.json"))
    server.route("/offers/v1.0/aws/AmazonEC2/current/region_index.json", Answer.file("aws-region-index.json"))
    for region in ("ap-northeast-1", "ca-central-1"):
        server.route(f"/offers/v1.0/aws/AmazonEC2/20250912225308/{region}/index.csv", Answer.file(f"aws-{region}.csv"))
    for region in ("us-east-1", "us-west-2"):
        server.route(f"/offers/v1.0/aws/AmazonEC2/20260910195514/{region}/index.csv", Answer.file(f"aws-{region}.csv"))
    server.route("/v1/services/6F81-5844-456A/skus", Answer.file("gcp-page1.json"), Answer.file("gcp-page2.json"))
    server.route(ORACLE, Answer.file("oracle-products.json"))
    server.route("/api/v0/bundles/", Answer.file("vastai-bundles.json"))
    for cloud in CLOUDS:
        server.route(catalog_path(cloud), Answer.file(f"skypilot-{cloud}-vms.csv"))


@contextlib.contextmanager
def _loopback() -> Iterator[Server]:
    with serving() as server:
        _routes(server)
        yield server


def _settings(tmp_path: Path, server: Server, key: str = "test-key") -> Settings:
    return Settings(prices=tmp_path / "prices", gcp_api_key=key, collector_urls=dict.fromkeys(SOURCES, server.url))


def _fast() -> contextlib.AbstractContextManager:  # type: ignore[type-arg]
    return http.client(timeout=2.0, attempts=2, backoff=0.01)


def test_collect_all_runs_every_collector_into_its_own_run_and_records_each_attempt(tmp_path: Path) -> None:
    with _loopback() as server:
        env = {"COMPUTEATLAS_COLLECTOR_URLS": json.dumps(dict.fromkeys(SOURCES, server.url)), "COMPUTEATLAS_GCP_API_KEY": "test-key"}
        result = CliRunner().invoke(
            cli, ["prices", "collect", "--all", "--prices", str(tmp_path / "prices")], env={**env, "COLUMNS": "200"}
        )
    assert result.exit_code == 0, result.output
    for name in SOURCES:
        assert name in result.stdout
    store = tmp_path / "prices"
    found = {name: attempts(store, name)[0] for name in SOURCES}
    assert {name: [a.result for a in got] for name, got in found.items()} == {name: ["imported"] for name in SOURCES}
    rows = {name: (got[0].rows_read, got[0].accepted, got[0].held) for name, got in found.items()}
    assert rows == {
        "aws": (16, 8, 0),  # Tokyo's and Canada's lines skipped (dedicated, SQL Server), the p5 Capacity Block line too
        "azure": (10, 9, 1),  # two requests of ten instance types each: the second is answered with the last page again
        "gcp": (3, 15, 3),  # five A2 machines joined from the core, RAM and GPU SKUs in three regions; the GPU SKU alone held
        "oracle": (10, 4, 2),
        "vastai": (12, 3, 0),  # four GPU names asked, each answered with the H100 SXM offers: see the next test
        "skypilot-lambda": (5, 3, 1),
        "skypilot-runpod": (3, 3, 3),  # on-demand and spot per line; the spot column copies the on-demand one
        "skypilot-nebius": (4, 4, 1),  # two H100 lines, each on-demand and spot; the B200 unplaced; a CPU line
        "skypilot-cudo": (4, 3, 1),
        "skypilot-hyperbolic": (3, 3, 0),
        "skypilot-shadeform": (4, 2, 2),
        "skypilot-do": (3, 2, 0),  # read from catalogs/v6/
        "skypilot-paperspace": (5, 3, 1),  # catalogs/v6/, its columns in another order
        "skypilot-fluidstack": (4, 3, 1),  # catalogs/v6/
        "skypilot-scaleway": (5, 0, 5),  # catalogs/v6/, in euros: no EUR rate, so held (see below)
    }
    # every source yields accepted readings, but Scaleway's euros, which wait for a sourced EUR rate (data/prices/rates.csv)
    assert [name for name, (_, accepted, _) in rows.items() if accepted == 0] == ["skypilot-scaleway"]
    runs = Store(store).runs()
    assert len(runs) == len(SOURCES) and {r["format"] for r in runs} == {f"collector:{n}" for n in SOURCES}
    assert all(found[n][0].run for n in SOURCES)


def _decided(store: Path, provider: str) -> list[tuple[str, str, str, float, str, list[str]]]:
    rows = Store(store).query(
        "SELECT instance_type, region, pricing, per_accelerator_hour, status, rules FROM latest WHERE provider = ? "
        "ORDER BY instance_type, region, pricing",
        [provider],
    )
    return [
        (r["instance_type"], r["region"], r["pricing"], round(r["per_accelerator_hour"] or 0, 6), r["status"], list(r["rules"]))
        for r in rows
    ]


def test_the_recorded_responses_land_as_accepted_prices_where_our_table_places_them(tmp_path: Path) -> None:
    """The values are the fixtures' own: AWS's PricePerUnit ÷ the instance's accelerators, Oracle's items[].currencyCodeLocalizations PAY_AS_YOU_GO values (USD
    per GPU-hour), SkyPilot's Price ÷ AcceleratorCount, Google's A2 machines as vCPUs × core + GiB × RAM + GPUs ×
    GPU SKU ÷ GPUs, Vast.ai's dph_total ÷ num_gpus."""
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        collect_sources(["aws", "gcp", "oracle", "vastai", "skypilot-lambda", "skypilot-runpod"], settings, load(), client=_fast)
    store = settings.prices_dir
    # AWS's PricePerUnit ÷ the table's count: 21.957642 / 8, 55.04 / 8, 21.5 / 16 Trainium chips
    assert _decided(store, "aws") == [
        (name, region, "on_demand", price, "accepted", [])
        for name, price in (("g6.xlarge", 0.8048), ("p4d.24xlarge", 2.744705), ("p5.48xlarge", 6.88), ("trn1.32xlarge", 1.34375))
        for region in ("us-east-1", "us-west-2")
    ]
    assert _decided(store, "oracle") == [
        ("Compute  - GPU - A10", "", "on_demand", 2.0, "accepted", []),
        ("Compute - GPU - L40S", "", "on_demand", 3.5, "accepted", []),
        ("OCI - Compute - GPU - B200", "", "on_demand", 14.0, "accepted", []),
        ("OCI - Compute - GPU - H100T", "", "on_demand", 10.75, "held", ["unplaced"]),  # what the T means is not written
        ("OCI - Compute - GPU - MI300X", "", "on_demand", 6.0, "accepted", []),
        ("Oracle Cloud Infrastructure - Compute - GPU - H100", "", "on_demand", 10.0, "held", ["unplaced"]),  # SXM or PCIe not written
    ]
    accepted = [r for r in _decided(store, "lambda") if r[4] == "accepted"]
    assert accepted == [
        ("gpu_8x_h100_sxm5", region, "on_demand", 3.99, "accepted", []) for region in ("us-east-1", "us-south-1", "us-west-2")
    ]
    assert [r for r in _decided(store, "runpod") if r[2] == "on_demand"] == [
        ("1x_A100-80GB_SECURE", "CA/CA-MTL-1", "on_demand", 1.39, "accepted", []),
        ("1x_A100-80GB_SECURE", "US/US-TX-1", "on_demand", 1.39, "accepted", []),
        ("2x_A100-80GB_SECURE", "US/US-TX-1", "on_demand", 1.39, "accepted", []),  # 2.78 for two GPUs
    ]
    assert {tuple(r[5]) for r in _decided(store, "runpod") if r[2] == "spot"} == {("spot_equals_on_demand",)}
    # Vast.ai's offers in its own words, placed by data/instances/vast-ai.csv: 1.3867 and 1.9335 are gpu-index's own pins
    assert [(r[0], r[1], r[3], r[4]) for r in _decided(store, "vast-ai")] == [
        ("1x H100 SXM", ", US", 1.386741, "accepted"),
        ("8x H100 SXM", "Japan, JP", 4.394944, "accepted"),
        ("8x H100 SXM", "New Jersey, US", 1.93352, "accepted"),
    ]
    google = _decided(store, "google-cloud")
    regions = ("us-central1", "us-east1", "us-west1")
    assert [r for r in google if r[0] == "Nvidia Tesla A100 GPU"] == [
        ("Nvidia Tesla A100 GPU", region, "on_demand", 2.933908, "held", ["split_bill"]) for region in regions
    ]
    # 12 × 0.031611 + 85 × 0.004237 + 2.933908 = 3.673385, Cyclenerd's a2-highgpu-1g us-central1 hour; ×n for n GPUs
    per_gpu = {"a2-highgpu-1g": 3.673385, "a2-highgpu-2g": 3.673385, "a2-highgpu-4g": 3.673385, "a2-highgpu-8g": 3.673385}
    per_gpu["a2-megagpu-16g"] = 3.483719  # 55.739504 / 16: 96 vCPUs and 1360 GiB for 16 GPUs
    assert [r for r in google if r[0] != "Nvidia Tesla A100 GPU"] == [
        (name, region, "on_demand", price, "accepted", []) for name, price in per_gpu.items() for region in regions
    ]
    basis = Store(store).query("SELECT note FROM latest WHERE instance_type = 'a2-highgpu-1g' AND region = 'us-central1'")[0]["note"]
    assert "12 vCPU × 0.031611 (2922-40C5-B19F) + 85 GiB × 0.004237 (2390-DCAF-DA38) + 1 GPU × 2.933908 (039F-D0DA-4055)" in basis


def test_a_vastai_offer_of_a_count_the_table_has_no_row_for_is_held_unplaced_with_its_name(tmp_path: Path) -> None:
    text = (FIXTURES / "vastai-bundles.json").read_text(encoding="utf-8").replace('"num_gpus": 1,', '"num_gpus": 3,')
    with _loopback() as server:
        server.route("/api/v0/bundles/", Answer(text.encode()))
        settings = _settings(tmp_path, server)
        collect_sources(["vastai"], settings, load(), client=_fast)
    rows = Store(settings.prices_dir).query(
        "SELECT instance_type, status, rules, reasons FROM latest WHERE provider = 'vast-ai' ORDER BY instance_type"
    )
    assert [(r["instance_type"], r["status"], list(r["rules"])) for r in rows] == [
        ("3x H100 SXM", "held", ["unplaced"]),
        ("8x H100 SXM", "accepted", []),
        ("8x H100 SXM", "accepted", []),
    ]
    assert rows[0]["reasons"][0] == "unknown instance type '3x H100 SXM' at provider 'vast-ai'"


SKYPILOT_CLOUDS = [
    # cloud, our provider, an accepted line (instance, region, USD per GPU-hour), a held line (instance, rule) or None
    ("nebius", "nebius", ("gpu-h100-sxm_8gpu-128vcpu-1600gb", "eu-north1", 2.95), ("gpu-b200-sxm_8gpu-160vcpu-1792gb", "unplaced")),
    ("cudo", "cudo", ("sapphire-rapids-h100_1x2v4gb", "no-kristiansand-1", 1.8214), ("intel-broadwell-v100_1x2v4gb", "unplaced")),
    ("hyperbolic", "hyperbolic", ("2x-H100-149-1443", "default", 1.29), None),  # 2.58 for two GPUs; every line is placed
    ("shadeform", "shadeform", ("lambdalabs_H100-sxm5x8", "saltlakecity-usa-1", 3.99), ("excesssupply_H200x8", "unplaced")),
    ("do", "digitalocean", ("gpu-h100x8-640gb", "tor1", 5.95), None),  # 47.60 for eight; both GPU lines are placed
    ("paperspace", "paperspace", ("H100", "East Coast (NY2)", 5.95), ("V100-32G", "unplaced")),
    ("fluidstack", "fluidstack", ("H100_PCIE_80GB::2", "UTAH_USA", 2.89), ("H100_NVLINK_80GB::8", "unplaced")),
]


@pytest.mark.parametrize(("cloud", "provider", "accepted", "held"), SKYPILOT_CLOUDS, ids=[c[0] for c in SKYPILOT_CLOUDS])
def test_each_skypilot_cloud_lands_through_our_instance_table(
    tmp_path: Path, cloud: str, provider: str, accepted: tuple[str, str, float], held: tuple[str, str] | None
) -> None:
    """The fixture's own Price ÷ AcceleratorCount, on the on-demand line placed by our instance table
    (data/instances/); a line our table has no row for is held ``unplaced``, its reason naming it."""
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        collect_sources([f"skypilot-{cloud}"], settings, load(), client=_fast)
    decided = _decided(settings.prices_dir, provider)
    instance, region, per_gpu_hour = accepted
    assert (instance, region, "on_demand", per_gpu_hour, "accepted", []) in decided
    if held is None:
        assert all(r[4] == "accepted" for r in decided)
        return
    name, rule = held
    assert [r[5] for r in decided if r[0] == name] == [[rule]]
    reasons = Store(settings.prices_dir).query("SELECT reasons FROM latest WHERE provider = ? AND instance_type = ?", [provider, name])
    assert list(reasons[0]["reasons"]) == [f"unknown instance type {name!r} at provider {provider!r}"]


def test_scaleways_euro_prices_are_placed_but_held_until_a_sourced_rate_converts_them(tmp_path: Path) -> None:
    """SkyPilot's Scaleway file carries Scaleway's euro prices unlabelled; read as EUR, the placed H100
    lines wait for a dated EUR rate (data/prices/rates.csv has none) instead of passing as dollars."""
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        collect_sources(["skypilot-scaleway"], settings, load(), client=_fast)
    rows = Store(settings.prices_dir).query(
        "SELECT instance_type, region, amount, currency, accelerator, rules FROM latest WHERE provider = 'scaleway' ORDER BY instance_type, region"
    )
    got = [(r["instance_type"], r["region"], r["amount"], r["currency"], r["accelerator"], list(r["rules"])) for r in rows]
    assert got == [
        ("GPU-3070-S", "fr-par/fr-par-2", 0.98, "EUR", "", ["unplaced"]),
        ("H100-1-80G", "fr-par/fr-par-2", 2.52, "EUR", "nvidia-h100-pcie", ["no_rate"]),
        ("H100-2-80G", "fr-par/fr-par-2", 5.04, "EUR", "nvidia-h100-pcie", ["no_rate"]),
        ("RENDER-S", "fr-par/fr-par-1", 1.2426, "EUR", "", ["unplaced"]),
        ("RENDER-S", "fr-par/fr-par-2", 1.2426, "EUR", "", ["unplaced"]),
    ]


def test_a_collected_provider_without_a_record_gets_its_page(tmp_path: Path, make_client: Callable[..., TestClient]) -> None:
    """Shadeform has no provider record (data/providers/): its page says so and shows what its placed
    lines say; the held ones are on no page."""
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        collect_sources(["skypilot-shadeform"], settings, load(), client=_fast)
    client = make_client(load(), settings)
    body = client.get("/api/providers/shadeform").json()
    assert body["recorded"] is False and body["kind"] == "not yet recorded" and body["url"] is None
    assert sorted((o["instance_type"], o["region"]) for o in body["offers"]) == [
        ("lambdalabs_H100-sxm5x2", "austin-usa-1"),
        ("lambdalabs_H100-sxm5x8", "saltlakecity-usa-1"),
    ]
    assert client.get("/cloud/shadeform").status_code == 200


def test_a_skypilot_memory_that_genuinely_disagrees_is_still_held(tmp_path: Path) -> None:
    """The Lambda file with the A10's 24576 MiB written for the H100: 8 × 25.8 GB is not 8 × 80 GB."""
    text = (FIXTURES / "skypilot-lambda-vms.csv").read_text(encoding="utf-8").replace("'SizeInMiB': 81920", "'SizeInMiB': 24576")
    with _loopback() as server:
        server.route("/skypilot-org/skypilot-catalog/master/catalogs/v8/lambda/vms.csv", Answer(text.encode(), content_type="text/csv"))
        settings = _settings(tmp_path, server)
        collect_sources(["skypilot-lambda"], settings, load(), client=_fast)
    rows = Store(settings.prices_dir).query("SELECT rules, reasons FROM latest WHERE instance_type = 'gpu_8x_h100_sxm5'")
    assert len(rows) == 3 and all(list(r["rules"]) == ["memory_mismatch"] for r in rows)
    assert rows[0]["reasons"][0] == "the source states 206.158 GB per instance; 8 × 80 GB = 640 GB"


def test_a_failing_source_stores_nothing_keeps_earlier_runs_and_never_blocks_the_others(tmp_path: Path) -> None:
    catalog = load()
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        first = collect_sources(["oracle"], settings, catalog, client=_fast)
        before = Store(settings.prices_dir).runs()
        server.route(ORACLE, Answer(b"<html>Service Unavailable</html>", 503, "text/html"))
        later = collect_sources(["oracle", "skypilot-lambda"], settings, catalog, client=_fast)
    assert first[0].attempt.result == "imported" and len(before) == 1
    oracle, lambda_ = (o.attempt for o in later)
    assert oracle.result == "failed" and "HTTP 503" in (oracle.error or "") and oracle.run is None
    assert lambda_.result == "imported" and lambda_.accepted + lambda_.held == 4
    after = Store(settings.prices_dir).runs()
    assert len(after) == 2 and before[0] in after  # the earlier Oracle run is still there, as it was
    assert [a.result for a in attempts(settings.prices_dir, "oracle")[0]] == ["failed", "imported"]


FIRST = {
    "aws": ("/offers/v1.0/aws/index.json", "aws-offer-index.json"),
    "azure": ("/api/retail/prices", "azure-page1.json"),
    "gcp": ("/v1/services/6F81-5844-456A/skus", "gcp-page1.json"),
    "oracle": (ORACLE, "oracle-products.json"),
    "vastai": ("/api/v0/bundles/", "vastai-bundles.json"),
    **{f"skypilot-{cloud}": (catalog_path(cloud), f"skypilot-{cloud}-vms.csv") for cloud in CLOUDS},
}
"""Each collector's first request and its recorded answer."""


def _failing(kind: str, fixture: str) -> Answer:
    if kind == "500":
        return Answer(b"Internal Server Error", 500, "text/plain")
    if kind == "timeout":
        return Answer.file(fixture, delay=0.8)
    if kind == "cut":
        return Answer.file(fixture, cut=60)
    text = b"SKU,Price\nX,1\n" if fixture.endswith(".csv") else b'{"unexpected": []}'  # another schema
    return Answer(text, content_type="text/csv" if fixture.endswith(".csv") else "application/json")


@pytest.mark.parametrize("kind", ["500", "timeout", "cut", "schema"])
def test_every_collector_failing_leaves_its_earlier_run_and_current_prices_untouched(tmp_path: Path, kind: str) -> None:
    catalog = load()
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        collect_sources(None, settings, catalog, client=_fast)
        store = Store(settings.prices_dir)
        runs, current = store.runs(), _decided(settings.prices_dir, "google-cloud") + _decided(settings.prices_dir, "vast-ai")
        for path, fixture in FIRST.values():
            server.route(path, _failing(kind, fixture))
        later = collect_sources(None, settings, catalog, client=lambda: http.client(timeout=0.3, attempts=1, backoff=0.01))
    assert {o.attempt.source: o.attempt.result for o in later} == dict.fromkeys(FIRST, "failed")
    assert all(o.attempt.run is None and o.attempt.error for o in later)
    words = {
        "500": "HTTP 500 Internal Server Error",
        "timeout": "timed out (ReadTimeout)",
        "cut": "peer closed connection",
        "schema": "missing",
    }
    assert all(
        (o.attempt.error or "").startswith(f"{o.attempt.source}: http://127.0.0.1:") and words[kind] in (o.attempt.error or "")
        for o in later
    )
    assert Store(settings.prices_dir).runs() == runs and len(runs) == len(SOURCES)
    assert _decided(settings.prices_dir, "google-cloud") + _decided(settings.prices_dir, "vast-ai") == current
    assert ("a2-highgpu-1g", "us-central1", "on_demand", 3.673385, "accepted", []) in current
    assert [a.result for a in attempts(settings.prices_dir, "gcp")[0]] == ["failed", "imported"]


def test_without_an_api_key_gcp_is_skipped_and_says_so(tmp_path: Path) -> None:
    with _loopback() as server:
        outcomes = collect_sources(["gcp"], _settings(tmp_path, server, key=""), load(), client=_fast)
    attempt = outcomes[0].attempt
    assert attempt.result == "skipped" and attempt.reason == "needs the setting COMPUTEATLAS_GCP_API_KEY, which is not set; skipped"
    assert server.hits("/v1/services/6F81-5844-456A/skus") == 0
    assert attempts(tmp_path / "prices", "gcp")[0][0].reason == attempt.reason


def test_the_check_hook_holds_a_run_whole_with_its_reason(tmp_path: Path) -> None:
    seen: list[tuple[str, int]] = []

    def check(source: str, collected: object, store: Store) -> str | None:
        seen.append((source, len(collected.observations)))  # type: ignore[attr-defined]
        return "the median price moved 12× since the previous run"

    with _loopback() as server:
        settings = _settings(tmp_path, server)
        outcomes = collect_sources(["oracle"], settings, load(), client=_fast, check=check)
    attempt = outcomes[0].attempt
    assert seen == [("oracle", 6)]
    assert attempt.result == "held" and attempt.reason == "the median price moved 12× since the previous run" and attempt.held == 6
    held = Store(settings.prices_dir).held()
    assert len(held) == 6 and all(HELD_RULE in row["rules"] for row in held)


@pytest.mark.parametrize(
    ("args", "words"),
    [(["prices", "collect"], "name the collectors to run, or give --all"), (["prices", "collect", "nosuch"], "unknown collector 'nosuch'")],
)
def test_cli_collect_without_a_known_collector_is_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    result = CliRunner().invoke(cli, [*args, "--prices", str(tmp_path / "prices")])
    assert result.exit_code == 2 and words in result.stderr
    assert not (tmp_path / "prices").exists()


def test_cli_collect_names_a_failure_and_exits_1(tmp_path: Path) -> None:
    with serving() as server:
        server.route(ORACLE, Answer(b'{"items": "none"}'))
        env = {"COMPUTEATLAS_COLLECTOR_URLS": json.dumps({"oracle": server.url}), "COLUMNS": "300"}
        result = CliRunner().invoke(cli, ["prices", "collect", "oracle", "--prices", str(tmp_path / "prices")], env=env)
    assert result.exit_code == 1
    assert "oracle failed, nothing stored from it: oracle: http://127.0.0.1:" in result.stderr and "(field 'items')" in result.stderr


def test_after_collect_all_the_status_page_shows_each_sources_state(tmp_path: Path, make_client: Callable[..., TestClient]) -> None:
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        collect_sources(None, settings, load(), client=_fast)
    page = BeautifulSoup(make_client(load(), Settings(prices=settings.prices_dir)).get("/cloud/status").text, "lxml")
    rows = {tr["data-source"]: tr for tr in page.select("#sources tbody tr")}
    assert set(rows) == set(SOURCES) and all(rows[n]["data-schedule"] == "current" for n in SOURCES)
    success = {n: " ".join(rows[n].select_one(".last-success").get_text("").split()) for n in SOURCES}
    assert "imported, 3 rows read, 15 accepted, 3 held · run " in success["gcp"]
    assert "imported, 12 rows read, 3 accepted, 0 held · run " in success["vastai"]
    assert "imported, 16 rows read, 8 accepted, 0 held · run " in success["aws"]
