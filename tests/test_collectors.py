"""Each collector against recorded responses served over a real loopback socket (tests/loopback.py):
the happy path, pagination, a 429 then success, a 500 every time, a timeout, a body cut short,
a changed schema, the row bound. The fixtures' provenance is tests/fixtures/collectors/README.md."""

from __future__ import annotations

import csv
import datetime as dt
import json
import urllib.parse

import httpx
import pytest

from computeatlas.catalog import load
from computeatlas.cloud.collectors import http
from computeatlas.cloud.collectors.aws import Aws
from computeatlas.cloud.collectors.azure import Azure
from computeatlas.cloud.collectors.base import CollectorError
from computeatlas.cloud.collectors.gcp import Gcp, machines
from computeatlas.cloud.collectors.oracle import Oracle
from computeatlas.cloud.collectors.skypilot import SkyPilot, catalog_path
from computeatlas.cloud.collectors.vastai import VastAi, gpu_names
from computeatlas.cloud.importers.skypilot import stated_memory_gb
from computeatlas.cloud.instances import instance_table
from tests.loopback import FIXTURES, Answer, serving

NOW = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.UTC)
ORACLE = "/pls/apex/cetools/api/v1/products/"
AZURE = "/api/retail/prices"
GCP = "/v1/services/6F81-5844-456A/skus"
LAMBDA = "/skypilot-org/skypilot-catalog/master/catalogs/v8/lambda/vms.csv"
NEBIUS = "/skypilot-org/skypilot-catalog/master/catalogs/v8/nebius/vms.csv"
VAST = "/api/v0/bundles/"


def _client(timeout: float = 2.0) -> httpx.Client:
    return http.client("https://atlas.example.org", timeout=timeout, attempts=3, backoff=0.01)


def _aws_routes(server: object) -> None:
    route = server.route  # type: ignore[attr-defined]
    route("/offers/v1.0/aws/index.json", Answer.file("aws-offer-index.json"))
    route("/offers/v1.0/aws/AmazonEC2/current/region_index.json", Answer.file("aws-region-index.json"))
    route("/offers/v1.0/aws/AmazonEC2/20250912225308/ap-northeast-1/index.csv", Answer.file("aws-ap-northeast-1.csv"))
    route("/offers/v1.0/aws/AmazonEC2/20250912225308/ca-central-1/index.csv", Answer.file("aws-ca-central-1.csv"))
    route("/offers/v1.0/aws/AmazonEC2/20260910195514/us-east-1/index.csv", Answer.file("aws-us-east-1.csv"))
    route("/offers/v1.0/aws/AmazonEC2/20260910195514/us-west-2/index.csv", Answer.file("aws-us-west-2.csv"))


def test_azure_follows_next_page_links_on_its_own_host_and_maps_the_meters() -> None:
    with serving() as server, _client() as client:
        server.route(AZURE, Answer.file("azure-page1.json"), Answer.file("azure-page2.json"))
        got = Azure(server.url, now=lambda: NOW, instance_types=["Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5"]).collect(client)
    assert server.hits(AZURE) == 2 and got.pages == 2 and got.rows_read == 7
    assert "$skip=4" in server.seen[1][0]  # the NextPageLink's query, asked of the loopback host
    assert server.seen[0][1]["User-Agent"].startswith("computeatlas/") and "(+https://atlas.example.org)" in server.seen[0][1]["User-Agent"]
    by = {(o.instance_type, o.region, o.pricing.value): o.amount for o in got.observations}
    assert by[("Standard_ND96isr_H100_v5", "eastus", "on_demand")] == 98.32
    assert by[("Standard_ND96isr_H100_v5", "eastus", "spot")] == 18.169536
    assert by[("Standard_ND96isr_H100_v5 (Windows)", "eastus", "on_demand")] == 102.736
    assert by[("Standard_ND96isr_H200_v5", "swedencentral", "on_demand")] == 110.272
    assert got.skipped == {}


AWS_TYPES = ["c6i.large", "m6id.2xlarge", "g6.xlarge", "p4d.24xlarge", "p5.48xlarge", "trn1.32xlarge"]


def test_aws_reads_the_offer_index_the_region_index_and_each_regional_file_streamed() -> None:
    with serving() as server, _client() as client:
        _aws_routes(server)
        got = Aws(server.url, now=lambda: NOW, instance_types=AWS_TYPES).collect(client)
    assert got.pages == 6 and got.rows_read == 16
    # Tokyo's and Canada's lines are Windows with SQL Server or dedicated tenancy; the p5 Capacity Block line's 0.00 is no
    # on-demand price; g4dn.xlarge is not one of the types asked
    assert got.skipped == {
        "tenancy 'Dedicated' (only shared tenancy is read)": 3,
        "pre-installed software in the price": 3,
        "market option 'CapacityBlock' (not an on-demand or reserved instance's price)": 1,
    }
    rows = [(o.instance_type, o.region, o.pricing.value, o.amount, o.currency, o.price_basis.value) for o in got.observations]
    assert rows == [
        ("g6.xlarge", "us-east-1", "on_demand", 0.8048, "USD", "instance"),
        ("p4d.24xlarge", "us-east-1", "on_demand", 21.957642, "USD", "instance"),
        ("p5.48xlarge", "us-east-1", "on_demand", 55.04, "USD", "instance"),
        ("trn1.32xlarge", "us-east-1", "on_demand", 21.5, "USD", "instance"),
        ("g6.xlarge", "us-west-2", "on_demand", 0.8048, "USD", "instance"),
        ("p4d.24xlarge", "us-west-2", "on_demand", 21.95764, "USD", "instance"),  # not us-east-1's 21.957642
        ("p5.48xlarge", "us-west-2", "on_demand", 55.04, "USD", "instance"),
        ("trn1.32xlarge", "us-west-2", "on_demand", 21.5, "USD", "instance"),
    ]
    extra = json.loads(got.observations[1].raw_extra)
    assert extra == {
        "Publication Date": "2026-09-10T19:55:14Z",
        "PriceDescription": "$21.957642 per On Demand Linux p4d.24xlarge Instance Hour",
        "SKU": "H7NGEAC6UEHNTKSJ",
    }
    assert got.observations[1].source_url.endswith("/offers/v1.0/aws/AmazonEC2/20260910195514/us-east-1/index.csv")


def test_aws_stops_at_the_row_bound_with_a_warning() -> None:
    with serving() as server, _client() as client:
        _aws_routes(server)
        got = Aws(server.url, now=lambda: NOW, instance_types=["c6i.large"], max_rows=2).collect(client)
    assert got.rows_read == 2 and len(got.warnings) == 1 and "row bound (2 rows read)" in got.warnings[0]
    assert server.hits("/offers/v1.0/aws/AmazonEC2/20250912225308/ca-central-1/index.csv") == 0
    assert server.hits("/offers/v1.0/aws/AmazonEC2/20260910195514/us-east-1/index.csv") == 0


def test_aws_a_file_without_a_column_it_reads_names_the_column() -> None:
    text = (FIXTURES / "aws-ap-northeast-1.csv").read_text(encoding="utf-8").replace('"PricePerUnit"', '"Price"')
    with serving() as server, _client() as client:
        _aws_routes(server)
        server.route("/offers/v1.0/aws/AmazonEC2/20250912225308/ap-northeast-1/index.csv", Answer(text.encode(), content_type="text/csv"))
        with pytest.raises(
            CollectorError, match=r"^aws: http://127.0.0.1:\d+/offers/.*/ap-northeast-1/index.csv \(field 'PricePerUnit'\): missing"
        ):
            Aws(server.url, instance_types=["c6i.large"]).collect(client)


def test_oracle_reads_gpu_hour_prices_and_skips_licences_appliances_and_other_metrics() -> None:
    with serving() as server, _client() as client:
        server.route(ORACLE, Answer.file("oracle-products.json"))
        got = Oracle(server.url, now=lambda: NOW).collect(client)
    assert "currencyCode=USD" in server.seen[0][0]
    prices = {o.instance_type: o.amount for o in got.observations}
    assert prices == {
        "Compute - GPU - L40S": 3.5,
        "OCI - Compute - GPU - H100T": 10.75,
        "OCI - Compute - GPU - MI300X": 6.0,
        "OCI - Compute - GPU - B200": 14.0,
        "Compute  - GPU - A10": 2.0,
        "Oracle Cloud Infrastructure - Compute - GPU - H100": 10.0,
    }
    assert {o.price_basis.value for o in got.observations} == {"accelerator"}
    assert json.loads(got.observations[0].raw_extra)["partNumber"] == "B109479"
    assert got.skipped == {
        "not priced per GPU-hour": 2,
        "a GPU-hour item outside Oracle's public GPU compute (a licence or an appliance)": 2,
    }


def test_a_429_is_retried_and_then_read() -> None:
    with serving() as server, _client() as client:
        server.route(ORACLE, Answer(b'{"message": "Too Many Requests"}', 429), Answer.file("oracle-products.json"))
        got = Oracle(server.url).collect(client)
    assert server.hits(ORACLE) == 2 and len(got.observations) == 6


def test_a_500_every_time_is_an_error_naming_the_source_and_url_after_the_bounded_retries() -> None:
    with serving() as server, _client() as client:
        server.route(ORACLE, Answer(b"<html>busy</html>", 500, "text/html"))
        with pytest.raises(
            CollectorError, match=r"^oracle: http://127.0.0.1:\d+/pls/apex/cetools/api/v1/products/\?currencyCode=USD: HTTP 500"
        ):
            Oracle(server.url).collect(client)
    assert server.hits(ORACLE) == 3  # the first attempt and two retries, no more


def test_a_timeout_is_an_error_saying_so() -> None:
    with serving() as server, _client(timeout=0.2) as client:
        server.route(ORACLE, Answer.file("oracle-products.json", delay=1.0))
        with pytest.raises(CollectorError, match=r"^oracle: .*: timed out \(ReadTimeout\)"):
            Oracle(server.url).collect(client)
    assert server.hits(ORACLE) == 3


def test_a_body_cut_short_is_an_error_and_gives_nothing() -> None:
    with serving() as server, _client() as client:
        server.route(ORACLE, Answer.file("oracle-products.json", cut=200))
        server.route(LAMBDA, Answer.file("skypilot-lambda-vms.csv", cut=300))
        with pytest.raises(CollectorError, match=r"^oracle: .*RemoteProtocolError"):
            Oracle(server.url).collect(client)
        with pytest.raises(CollectorError, match=r"^skypilot-lambda: .*vms.csv: the body could not be read whole \(RemoteProtocolError"):
            SkyPilot(server.url, cloud="lambda").collect(client)


@pytest.mark.parametrize(
    ("body", "kind", "words"),
    [
        (b"<!DOCTYPE html><html><body>Maintenance</body></html>", "text/html", r": not JSON \(text/html, starting '<!DOCTYPE html>"),
        (b'{"lastUpdated": "2026-08-14T09:09:55.872Z", "products": []}', "application/json", r" \(field 'items'\): missing"),
        (
            (FIXTURES / "oracle-products.json").read_bytes().replace(b'"value": 3.5', b'"value": "3.5"'),
            "application/json",
            r" \(field 'items\[2\].currencyCodeLocalizations.prices.value'\): a price must be a number, got str '3.5'",
        ),
    ],
)
def test_a_changed_schema_is_an_error_naming_the_field(body: bytes, kind: str, words: str) -> None:
    with serving() as server, _client() as client:
        server.route(ORACLE, Answer(body, content_type=kind))
        with pytest.raises(
            CollectorError, match=r"^oracle: http://127.0.0.1:\d+/pls/apex/cetools/api/v1/products/\?currencyCode=USD" + words
        ):
            Oracle(server.url).collect(client)


def test_gcp_without_a_key_says_it_is_skipped_and_asks_nothing() -> None:
    assert Gcp().missing() == "needs the setting COMPUTEATLAS_GCP_API_KEY, which is not set; skipped"
    assert Gcp(settings={"gcp_api_key": "k"}).missing() is None


def test_gcp_follows_page_tokens_and_prices_each_gpu_sku_per_region_per_accelerator_hour() -> None:
    with serving() as server, _client() as client:
        server.route(GCP, Answer.file("gcp-page1.json"), Answer.file("gcp-page2.json"))
        got = Gcp(server.url, settings={"gcp_api_key": "test-key"}, now=lambda: NOW).collect(client)
    assert server.hits(GCP) == 2 and "key=test-key" in server.seen[0][0] and "pageToken=APKCS1HVa0Yp" in server.seen[1][0]
    assert got.skipped == {"not a GPU or TPU SKU, nor a core or RAM SKU of a machine of ours": 2}  # no machines given
    assert [(o.instance_type, o.region, o.amount, o.price_basis.value) for o in got.observations] == [
        ("Nvidia Tesla A100 GPU", region, 2.933908, "accelerator") for region in ("us-central1", "us-east1", "us-west1")
    ]
    assert all("test-key" not in o.source_url for o in got.observations)


GOOGLE = [r for r in instance_table(load()).rows if r.provider == "google-cloud"]


def test_gcp_machines_are_the_instance_rows_with_a_host_shape_and_a_gpu_sku_of_their_accelerator() -> None:
    found = {m.instance_type: (m.series, m.vcpus, m.memory_gib, m.accelerators, sorted(m.gpu_skus)) for m in machines(GOOGLE)}
    assert found == {
        "a2-highgpu-1g": ("A2", 12, 85, 1, ["Nvidia Tesla A100 GPU"]),
        "a2-highgpu-2g": ("A2", 24, 170, 2, ["Nvidia Tesla A100 GPU"]),
        "a2-highgpu-4g": ("A2", 48, 340, 4, ["Nvidia Tesla A100 GPU"]),
        "a2-highgpu-8g": ("A2", 96, 680, 8, ["Nvidia Tesla A100 GPU"]),
        "a2-megagpu-16g": ("A2", 96, 1360, 16, ["Nvidia Tesla A100 GPU"]),
    }


def test_gcp_joins_an_a2_machine_from_its_core_ram_and_gpu_skus_into_one_instance_price() -> None:
    """12 × 0.031611 + 85 × 0.004237 + 2.933908 = 3.673385 USD an hour: a2-highgpu-1g on demand, the
    figure Cyclenerd's pricing.yml gives for us-central1 (../shared/prices/cyclenerd-gcp-2026-07)."""
    with serving() as server, _client() as client:
        server.route(GCP, Answer.file("gcp-page1.json"), Answer.file("gcp-page2.json"))
        got = Gcp(server.url, settings={"gcp_api_key": "k"}, now=lambda: NOW, **Gcp.table_options(GOOGLE)).collect(client)
    assert got.skipped == {}
    joined = {(o.instance_type, o.region): (o.amount, o.price_basis.value, o.stated_accelerators) for o in got.observations}
    for region in ("us-central1", "us-east1", "us-west1"):
        assert joined[("Nvidia Tesla A100 GPU", region)] == (2.933908, "accelerator", None)  # still read: held split_bill on import
        assert joined[("a2-highgpu-1g", region)] == (3.673385, "instance", 1)
        assert joined[("a2-highgpu-8g", region)] == (29.38708, "instance", 8)
        assert joined[("a2-megagpu-16g", region)] == (55.739504, "instance", 16)
    assert len(got.observations) == 3 + 5 * 3
    one = next(o for o in got.observations if o.instance_type == "a2-highgpu-1g")
    basis = "12 vCPU × 0.031611 (2922-40C5-B19F) + 85 GiB × 0.004237 (2390-DCAF-DA38) + 1 GPU × 2.933908 (039F-D0DA-4055) = 3.673385 USD per hour"
    assert json.loads(one.raw_extra)["basis"] == basis and one.note.endswith(basis)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(one.source_url).query)  # the page of the GPU SKU, its key hidden
    assert query["key"] == ["<key>"] and query["pageToken"][0].startswith("APKCS1HVa0Yp") and one.source_url.startswith(server.url + GCP)


def test_gcp_a_machine_whose_ram_sku_is_not_priced_is_not_joined() -> None:
    """Only page 2 (the GPU SKU): no core or RAM price, so no machine reading, never a GPU-only machine price."""
    with serving() as server, _client() as client:
        server.route(GCP, Answer.file("gcp-page2.json"))
        got = Gcp(server.url, settings={"gcp_api_key": "k"}, now=lambda: NOW, **Gcp.table_options(GOOGLE)).collect(client)
    assert {o.instance_type for o in got.observations} == {"Nvidia Tesla A100 GPU"}


def test_gcp_a_missing_field_names_it_and_never_shows_the_key() -> None:
    with serving() as server, _client() as client:
        server.route(GCP, Answer(b'{"services": []}'))
        with pytest.raises(CollectorError) as caught:
            Gcp(server.url, settings={"gcp_api_key": "secret-key-123"}).collect(client)
    assert "(field 'skus'): missing" in str(caught.value) and "secret-key-123" not in str(caught.value) and "key=<key>" in str(caught.value)


def test_skypilot_reads_a_clouds_vms_csv_through_the_importer_marked_as_an_aggregator() -> None:
    with serving() as server, _client() as client:
        server.route(LAMBDA, Answer.file("skypilot-lambda-vms.csv"))
        got = SkyPilot(server.url, cloud="lambda", now=lambda: NOW).collect(client)
    assert got.rows_read == 5 and got.skipped == {"no accelerator (a CPU-only shape)": 1}
    rows = [(o.provider, o.instance_type, o.region, o.pricing.value, o.amount) for o in got.observations]
    assert ("lambda", "gpu_8x_h100_sxm5", "us-east-1", "on_demand", 31.92) in rows and len(rows) == 4
    assert {o.via for o in got.observations} == {"aggregator: SkyPilot catalog (skypilot-lambda)"}
    assert got.observations[0].source_url == server.url + LAMBDA


def _gpu_info(name: str, line: int) -> str:
    with (FIXTURES / name).open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))[line]["GpuInfo"]


def test_skypilot_gpu_memory_is_read_as_each_clouds_fetcher_writes_it() -> None:
    """Lambda's TotalGpuMemoryInMiB is one GPU's 81920 MiB for eight; RunPod's SizeInMiB 80 is its
    memoryInGb unconverted; RunPod's later files, and every other cloud, mean what the names say."""
    lambda_h100 = _gpu_info("skypilot-lambda-vms.csv", 2)
    assert "'TotalGpuMemoryInMiB': 81920" in lambda_h100
    assert stated_memory_gb(lambda_h100, 8, "lambda") == 687.195  # 8 × 81920 MiB
    assert stated_memory_gb(lambda_h100, 8, "aws") == 85.899  # elsewhere the total is read as written
    runpod_2x = _gpu_info("skypilot-runpod-vms.csv", 2)
    assert "'SizeInMiB': 80}" in runpod_2x and "'TotalGpuMemoryInMiB': 160" in runpod_2x
    assert stated_memory_gb(runpod_2x, 2, "runpod") == 160.0  # 2 × 80 GB
    later = runpod_2x.replace("'SizeInMiB': 80}", "'SizeInMiB': 81920}").replace("160}", "163840}")
    assert stated_memory_gb(later, 2, "runpod") == 171.799  # 2 × 81920 MiB
    assert stated_memory_gb("", 2, "runpod") is None and stated_memory_gb("{'Gpus': []}", 1, "lambda") is None
    shadeform_8x = _gpu_info("skypilot-shadeform-vms.csv", 3)  # lambdalabs_H100-sxm5x8
    assert "'SizeInMiB': 80}, 'TotalGpuMemoryInMiB': 640}]" in shadeform_8x  # the total inside Gpus[0]
    assert stated_memory_gb(shadeform_8x, 8, "shadeform") == 640.0  # 8 × 80 GB (vram_per_gpu_in_gb)
    assert stated_memory_gb(shadeform_8x, 8, "aws") == 0.671  # read by its names, 8 × 80 MiB
    assert stated_memory_gb(_gpu_info("skypilot-nebius-vms.csv", 2), 8, "nebius") == 687.195  # 655360 MiB as written
    # DigitalOcean's keys are lower-case ('totalgpumemoryinmib': 81559 for eight GPUs) and Paperspace's cell is a bare name:
    assert stated_memory_gb(_gpu_info("skypilot-do-vms.csv", 2), 8, "digitalocean") is None
    assert stated_memory_gb(_gpu_info("skypilot-paperspace-vms.csv", 0), 1, "paperspace") is None


def test_skypilot_reads_each_cloud_from_its_schema_folder() -> None:
    """DigitalOcean's, Paperspace's and Fluidstack's files are read from catalogs/v6/, the others' from v8."""
    assert catalog_path("do") == "/skypilot-org/skypilot-catalog/master/catalogs/v6/do/vms.csv"
    assert catalog_path("fluidstack") == "/skypilot-org/skypilot-catalog/master/catalogs/v6/fluidstack/vms.csv"
    assert catalog_path("nebius") == "/skypilot-org/skypilot-catalog/master/catalogs/v8/nebius/vms.csv" == NEBIUS
    assert SkyPilot("https://raw.example.org", cloud="do").provider == "digitalocean"
    with pytest.raises(ValueError, match=r"unknown SkyPilot cloud 'vast'; known: lambda, runpod, nebius"):
        SkyPilot("https://raw.example.org", cloud="vast")


def test_skypilot_scaleway_prices_are_read_as_the_euros_its_fetcher_copies() -> None:
    """Scaleway's file (catalogs/v6/, AvailabilityZone first) names no currency; its Price is Scaleway's
    API hourly_price, in euros: 2.52 EUR an hour for H100-1-80G, never 2.52 USD."""
    with serving() as server, _client() as client:
        server.route(catalog_path("scaleway"), Answer.file("skypilot-scaleway-vms.csv"))
        got = SkyPilot(server.url, cloud="scaleway", now=lambda: NOW).collect(client)
    by = {(o.instance_type, o.region): (o.amount, o.currency) for o in got.observations}
    assert by[("H100-1-80G", "fr-par/fr-par-2")] == (2.52, "EUR") and by[("RENDER-S", "fr-par/fr-par-1")] == (1.2426, "EUR")
    assert {o.currency for o in got.observations} == {"EUR"} and len(got.observations) == 5
    with serving() as server, _client() as client:
        server.route(LAMBDA, Answer.file("skypilot-lambda-vms.csv"))
        lambda_currencies = {o.currency for o in SkyPilot(server.url, cloud="lambda", now=lambda: NOW).collect(client).observations}
    assert lambda_currencies == {"USD"}


def test_skypilot_an_older_schema_folder_with_its_columns_in_another_order_reads_the_same() -> None:
    """Paperspace's v6 file puts GpuInfo before Region and Price last: the importer reads columns by name."""
    with serving() as server, _client() as client:
        server.route(catalog_path("paperspace"), Answer.file("skypilot-paperspace-vms.csv"))
        got = SkyPilot(server.url, cloud="paperspace", now=lambda: NOW).collect(client)
    assert got.rows_read == 5 and got.skipped == {"no accelerator (a CPU-only shape)": 1}
    by = {o.instance_type: (o.region, o.amount, o.stated_accelerators) for o in got.observations}
    assert by["H100x8"] == ("East Coast (NY2)", 47.60, 8) and by["A100-80G"] == ("East Coast (NY2)", 3.18, 1)
    assert got.observations[0].source_url == server.url + "/skypilot-org/skypilot-catalog/master/catalogs/v6/paperspace/vms.csv"


def test_skypilot_a_price_as_text_names_the_line_and_the_column() -> None:
    text = (FIXTURES / "skypilot-lambda-vms.csv").read_text(encoding="utf-8").replace(",31.92,us-west-2,", ",call us,us-west-2,")
    with serving() as server, _client() as client:
        server.route(LAMBDA, Answer(text.encode(), content_type="text/csv"))
        with pytest.raises(CollectorError, match=r"^skypilot-lambda: .*vms.csv \(field 'Price'\): line 5: "):
            SkyPilot(server.url, cloud="lambda").collect(client)


def test_vastai_asks_each_gpu_name_of_the_table_and_prices_each_offer_whole_per_hour() -> None:
    """The recorded offers' own dph_total (dph_base + storage_total_cost), for num_gpus GPUs, named in
    Vast's own words (``<num_gpus>x <gpu_name>``); the host's cpu_cores (null on one) only in raw_extra."""
    assert gpu_names(frozenset({"8x-H100_SXM-32-65536", "1x-H100_SXM-32-65536", "4x-L40S-32-65536", "odd"})) == ["H100 SXM", "L40S"]
    assert gpu_names(frozenset({"8x H100 SXM", "2x RTX 4090", "4x-L40S-32-65536", "x H100"})) == ["H100 SXM", "L40S", "RTX 4090"]
    with serving() as server, _client() as client:
        server.route(VAST, Answer.file("vastai-bundles.json"))
        got = VastAi(server.url, now=lambda: NOW, instance_types=["8x-H100_SXM-32-65536"]).collect(client)
    assert server.hits(VAST) == 1 and got.rows_read == 3
    asked = json.loads(urllib.parse.parse_qs(urllib.parse.urlsplit(server.seen[0][0]).query)["q"][0])
    assert asked == {
        "gpu_name": {"eq": "H100 SXM"},
        "rentable": {"eq": True},
        "type": "on-demand",
        "order": [["dph_total", "asc"]],
        "limit": 64,
    }
    rows = [
        (o.provider, o.instance_type, o.region, o.pricing.value, o.amount, o.price_basis.value, o.stated_accelerators)
        for o in got.observations
    ]
    assert rows == [
        ("vast-ai", "1x H100 SXM", ", US", "on_demand", 1.3867407407407408, "instance", 1),
        ("vast-ai", "8x H100 SXM", "Japan, JP", "on_demand", 35.159555555555556, "instance", 8),
        ("vast-ai", "8x H100 SXM", "New Jersey, US", "on_demand", 15.468158814814817, "instance", 8),
    ]
    assert got.skipped == {}
    extra = [json.loads(o.raw_extra) for o in got.observations]
    assert [(e["id"], e["cpu_cores"], e["cpu_ram"]) for e in extra] == [
        (48285735, 26, 226489),
        (47905648, 224, 2063854),
        (48370130, None, 1572864),
    ]
    assert extra[1]["dph_base"] == 35.157333333333334
    assert got.observations[0].source_url.startswith(server.url + VAST + "?q=")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"bundles": []}', r" \(field 'offers'\): missing"),
        (
            (FIXTURES / "vastai-bundles.json").read_bytes().replace(b'"dph_total": 35.159555555555556', b'"dph_total": "35.16"'),
            r" \(field 'offers\[1\].dph_total'\): a price must be a number, got str '35.16'",
        ),
        (
            (FIXTURES / "vastai-bundles.json").read_bytes().replace(b'"num_gpus": 1,', b'"gpus": 1,'),
            r" \(field 'offers\[0\].num_gpus'\): missing",
        ),
    ],
)
def test_vastai_a_changed_schema_is_an_error_naming_the_field(body: bytes, words: str) -> None:
    with serving() as server, _client() as client:
        server.route(VAST, Answer(body))
        with pytest.raises(CollectorError, match=r"^vastai: http://127.0.0.1:\d+/api/v0/bundles/\?q=\S+" + words):
            VastAi(server.url, instance_types=["1x-H100_SXM-32-65536"]).collect(client)
