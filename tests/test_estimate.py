"""Our estimate: the roofline bounds worked by hand from the records, the not-published
rule, bad input as clear errors, and the same result on the page, the API and the CLI.

Hand-worked figures (small catalog, Acme A1: 80 GB, 3.35 TB/s, FP8 1979 TFLOPS dense):
70e9 parameters in FP8 = 70 GB of weights (fits in 80 GB);
batch 1: 3.35e12 ÷ 70e9 = 47.857 tokens/s;
large batch at 0.5: 1979e12 × 0.5 ÷ (2 × 70e9) = 7067.857 tokens/s;
at 2 USD/h: 2 ÷ (47.857 × 3600) × 1e6 = 11.6086 and 2 ÷ (7067.857 × 3600) × 1e6 = 0.078603 USD per million tokens.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.cli import app as cli_app
from computeatlas.cloud import history
from computeatlas.cloud.offer_words import offer_id
from computeatlas.cloud.offers import current_offers
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.settings import Settings
from computeatlas.core.states import State
from computeatlas.economics.estimate import estimate
from computeatlas.economics.inputs import EstimateError, parse_request
from computeatlas.economics.prices import PriceSource
from computeatlas.pages.cloud_links import offer_page
from computeatlas.web.app import create_app
from tests.conftest import TODAY, CliRunner, fresh_client
from tests.test_energy import OFFERS, write_energy_data
from tests.test_pricing import NOW, import_offers, offer_ids

REAL_NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
"""The moment the bundled store is read at in real-data tests."""

C = offer_ids(list(csv.DictReader(io.StringIO(OFFERS))))  # offer ids by line of the test offers CSV

runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small catalog with the energy layer's records, providers and offers, the offers
    imported into its store (``prices/``; the bundle is rejected there) (read only)."""
    folder = write_energy_data(tmp_path_factory.mktemp("estimate") / "data")
    import_offers(folder, load(folder, today=TODAY))
    return folder


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "utcnow", lambda: NOW)


@pytest.fixture(scope="module")
def cat(data: Path) -> Catalog:
    return load(data, today=TODAY)


@pytest.fixture(scope="module")
def estimate_app(cat: Catalog, data: Path) -> FastAPI:
    return create_app(cat, Settings(data=data))


@pytest.fixture
def web(estimate_app: FastAPI) -> TestClient:
    return fresh_client(estimate_app)


def run(
    catalog: Catalog,
    accelerator: str,
    params: str | None,
    fmt: str,
    utilisation: str = "0.5",
    price: str | None = None,
    offer: str | None = None,  # type: ignore[no-untyped-def]
    store: Store | None = None,
    now: dt.datetime = NOW,
    **settings: str,
):
    source = PriceSource(store or Store(Path(catalog.root) / "prices"), now, link=offer_page)
    return estimate(catalog, parse_request(accelerator, params, fmt, utilisation, price, offer, **settings), source)


def figure(e, key: str):  # type: ignore[no-untyped-def]
    """The result figure ``key`` of an estimate: a bound figure or a cost."""
    return getattr(e.result, key) if key.startswith("cost_") else getattr(e.result.bound, key)


# --- the arithmetic --------------------------------------------------------------------
# acme-a1: 80 GB, 3.35 TB/s, FP8 dense 1979 TFLOPS, BF16 989.5 TFLOPS per chip.


def test_a_parameter_count_alone_is_a_dense_model_without_a_kv_cache(cat: Catalog) -> None:
    e = run(cat, "acme-a1", "70e9", "FP8", "0.5", "2")
    assert e.model is None and e.model_name == "70e9 parameters" and e.params == 70e9
    b = e.result.bound
    assert e.result.state is State.DERIVED and b.accelerators == 1 and b.batch is None  # 70 GB in 80 GB
    assert b.weights.amount == 70e9 and b.kv_per_token.state is State.NOT_COLLECTED
    assert b.memory_need.label == "Memory needed (weights only: the KV-cache figures are not yet sourced)"
    # prefill = N × F × u ÷ (2 × P) = 1 × 1979e12 × 0.5 ÷ 140e9 = 7,067.86 tokens/s
    assert b.prefill.amount == pytest.approx(1979e12 * 0.5 / 140e9) == pytest.approx(7067.857142857)
    # decode: no batch and no KV cache, so compute-bound only
    assert b.decode_memory.state is State.NOT_COLLECTED and b.decode.amount == pytest.approx(7067.857142857)
    assert b.decode.formula == "decode, compute-bound only (the other is not yet collected)"
    # cost = N × price ÷ (tokens/s × 3600) × 1e6 = 2 ÷ (7,067.86 × 3600) × 1e6 = 0.078603 USD
    assert e.result.cost_output.amount == pytest.approx(2 / (7067.857142857 * 3600) * 1e6) == pytest.approx(0.078603, rel=1e-4)
    assert e.result.cost_input.amount == pytest.approx(0.078603, rel=1e-4)
    assert e.label == "estimate at the stated utilisation, not a bound and not a measurement"


def test_a_given_batch_reads_the_weights_every_step(cat: Catalog) -> None:
    e = run(cat, "acme-a1", "70e9", "FP8", "0.5", "2", batch="1")
    # decode, memory-bound = B × N × BW × u ÷ (P × b) = 1 × 1 × 3.35e12 × 0.5 ÷ 70e9 = 23.93 tokens/s
    assert figure(e, "decode_memory").amount == pytest.approx(3.35e12 * 0.5 / 70e9) == pytest.approx(23.928571)
    assert figure(e, "decode").amount == pytest.approx(23.928571)  # the lower of 23.93 and 7,067.86
    assert figure(e, "cost_output").amount == pytest.approx(2 / (23.928571 * 3600) * 1e6) == pytest.approx(23.2172, rel=1e-4)


def test_format_sets_the_weight_bytes(cat: Catalog) -> None:
    e = run(cat, "acme-a1", "35e9", "BF16")  # 35e9 × 16 bits ÷ 8 = 70 GB
    assert figure(e, "weights").amount == 70e9
    # BF16 dense 989.5 TFLOPS × 0.5 ÷ (2 × 35e9) = 7,067.86 tokens/s
    assert figure(e, "prefill").amount == pytest.approx(7067.857142857)


def test_the_fewest_accelerators_that_hold_the_weights(cat: Catalog) -> None:
    assert run(cat, "acme-a1", "80e9", "FP8").result.bound.accelerators == 1  # 80 GB in 80 GB: fits
    assert run(cat, "acme-a1", "81e9", "FP8").result.bound.accelerators == 2
    assert run(cat, "acme-a1", "160e9", "FP8").result.bound.accelerators == 2  # 160 GB ÷ 80 GB = exactly 2, not 3
    assert run(cat, "globex-g1", "70e9", "BF16").result.bound.accelerators == 6  # 140 GB ÷ 24 GB = 5.83 → 6
    two = run(cat, "acme-a1", "81e9", "FP8", price="2")
    # N = 2: prefill = 2 × 1979e12 × 0.5 ÷ (2 × 81e9); cost = 2 × 2 ÷ (tokens/s × 3600) × 1e6
    assert figure(two, "prefill").amount == pytest.approx(2 * 1979e12 * 0.5 / 162e9)
    assert figure(two, "cost_input").amount == pytest.approx(2 * 2 / (2 * 1979e12 * 0.5 / 162e9 * 3600) * 1e6)


def test_too_few_accelerators_does_not_fit(cat: Catalog) -> None:
    e = run(cat, "acme-a1", "81e9", "FP8", accelerators="1")
    assert e.result.state is State.DOES_NOT_FIT and e.result.bound is None
    assert "need 81.0 GB but 1 × 80 GB = 80 GB is available: at least 2 accelerators are needed" in (e.result.reason or "")


def test_a_missing_input_passes_its_state_on(cat: Catalog) -> None:
    e = run(cat, "acme-a1", "7e9", "INT8", price="2", batch="1")  # no INT8 figure collected: never blamed on the vendor
    assert figure(e, "decode_compute").state is State.NOT_COLLECTED and figure(e, "decode_compute").amount is None
    assert figure(e, "cost_input").state is State.NOT_COLLECTED
    # the memory-bound decode needs no compute figure: 3.35e12 × 0.5 ÷ 7e9 = 239.29 tokens/s
    assert figure(e, "decode").amount == pytest.approx(239.2857143)
    alone = run(cat, "acme-a1", "7e9", "INT8", price="2")  # no batch, no KV cache, no compute: nothing to decode with
    assert figure(alone, "decode").state is State.NOT_COLLECTED and figure(alone, "cost_output").state is State.NOT_COLLECTED


def test_not_applicable_format(cat: Catalog) -> None:
    e = run(cat, "globex-g1", "7e9", "FP8", price="1")
    assert e.result.state is State.NOT_APPLICABLE and "has no FP8 (not applicable)" in (e.result.reason or "")


def test_no_price_given_takes_the_cheapest_current_one_and_a_bundle_is_no_offer(cat: Catalog) -> None:
    assert figure(run(cat, "globex-g1", "7e9", "INT8", batch="1"), "cost_output").state is State.NO_PRICE  # no offer observed
    cheapest = run(cat, "acme-a1", "70e9", "FP8").price  # its one current on-demand offer: 40.00 USD ÷ 8
    assert (cheapest.origin, cheapest.per_accelerator_hour, cheapest.offer_id, cheapest.seen) == ("cheapest", 5.0, C[2], "2026-11-01")
    assert cheapest.working and cheapest.working.startswith("cheapest of 1 fresh on-demand USD observation(s) of variant 80gb")
    with pytest.raises(EstimateError) as bundle:  # a bundle price was never stored as a price
        run(cat, "acme-a1", "7e9", "FP8", offer=C[3])
    assert bundle.value.status == 404 and bundle.value.suggestions[0][1] == C[2]


def test_offer_price_per_accelerator_hour(cat: Catalog) -> None:
    e = run(cat, "acme-a1", "70e9", "FP8", offer=C[2])  # 40.00 USD ÷ 8 = 5.00 per accelerator-hour
    assert e.price.per_accelerator_hour == pytest.approx(5.0) and e.price.provider == "CloudCo"
    # 1 × 5 ÷ (7,067.86 × 3600) × 1e6 = 0.1965 USD per million output tokens
    assert figure(e, "cost_output").amount == pytest.approx(5 / (7067.857142857 * 3600) * 1e6) == pytest.approx(0.196507, rel=1e-4)
    assert e.result.price is not None and e.result.price.origin == f"chosen offer {C[2]}"


# The bundled H100 SXM: 80 GB, 3.35 TB/s, FP8 dense 1979 TFLOPS; Llama 3.3 70B: 70e9 parameters,
# 80 layers, 8 KV heads, head size 128. KV cache per token = 2 × 80 × 8 × 128 × 2 B = 327,680 B,
# 335,544,320 B per sequence of 1,024 tokens; N = 1, batch = ⌊(80e9 − 70e9) ÷ 335,544,320⌋ = 29.
KV = 2 * 80 * 8 * 128 * 2
DECODE = 29 * 3.35e12 * 0.5 / (70e9 + 29 * 1024 * KV)  # 609.24 tokens/s
PREFILL = 1979e12 * 0.5 / 140e9  # 7,067.86 tokens/s


def test_the_estimate_and_the_model_page_give_the_same_bound(
    real_catalog: Catalog, real_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    e = run(real_catalog, "nvidia-h100-sxm", None, "FP8", "0.5", model="llama-3-3-70b", store=Store(Path("data/prices")), now=REAL_NOW)
    assert e.price.per_accelerator_hour == 2.69 and e.price.origin == "cheapest"
    b = e.result.bound
    assert figure(e, "kv_per_token").amount == KV == 327_680
    assert (b.accelerators, b.batch) == (1, 29)
    assert figure(e, "decode").amount == pytest.approx(DECODE) == pytest.approx(609.24, abs=0.005)
    assert figure(e, "cost_output").amount == pytest.approx(2.69 / (DECODE * 3600) * 1e6) == pytest.approx(1.2265, abs=5e-5)
    assert figure(e, "cost_input").amount == pytest.approx(2.69 / (PREFILL * 3600) * 1e6) == pytest.approx(0.1057, abs=5e-5)
    blended = (3 * 2.69 / (PREFILL * 3600) * 1e6 + 2.69 / (DECODE * 3600) * 1e6) / 4
    assert figure(e, "cost_blended").amount == pytest.approx(blended) == pytest.approx(0.3859, abs=5e-5)
    monkeypatch.setattr(history, "utcnow", lambda: REAL_NOW)
    real_client.app.state.cache.clear()
    page = real_client.get("/api/economics/models/llama-3-3-70b", params={"utilisation": "0.5"}).json()
    api = real_client.get("/api/estimate", params={"accelerator": "nvidia-h100-sxm", "model": "llama-3-3-70b", "format": "FP8",
                                                   "utilisation": "0.5"}).json()  # fmt: skip
    assert api["model_url"] == "/economics/models/llama-3-3-70b" and api["result"]["accelerator_url"] == "/silicon/nvidia-h100-sxm"
    row = next(r for r in page["bounds"] if r["accelerator"] == "nvidia-h100-sxm")
    assert row["cost_output"]["amount"] == api["result"]["cost_output"]["amount"] == pytest.approx(1.2265, abs=5e-5)
    assert row["bound"]["decode"] == api["result"]["bound"]["decode"]


def test_real_h200_70b_fp8(real_catalog: Catalog) -> None:
    e = run(real_catalog, "nvidia-h200-sxm", None, "FP8", price="3", model="llama-3-3-70b")
    assert e.memory.amount == 141e9 and e.memory_bandwidth.amount == 4.8e12
    # batch = ⌊(141e9 − 70e9) ÷ 335,544,320⌋ = 211; decode = 211 × 4.8e12 × 0.5 ÷ (70e9 + 211 × 335,544,320) = 3,596.6
    assert figure(e, "decode").amount == pytest.approx(211 * 4.8e12 * 0.5 / (70e9 + 211 * 1024 * KV))
    assert figure(e, "cost_output").amount == pytest.approx(3 / (211 * 4.8e12 * 0.5 / (70e9 + 211 * 1024 * KV) * 3600) * 1e6)
    # NVIDIA prints H200 FP8 only with sparsity; the dense figure is itkb.uw.cz's ("FP8 (dense) ~1,979 TFLOPS"), said so
    assert e.compute.amount == 1979e12 and e.compute.value == "1979 TFLOPS (from itkb.uw.cz, not from NVIDIA)"
    assert figure(e, "decode_compute").state is State.DERIVED and figure(e, "cost_input").state is State.DERIVED


def test_an_alias_names_the_part_as_show_reads_it(real_catalog: Catalog, real_client: TestClient) -> None:
    e = run(real_catalog, "H200 SXM", None, "FP8", price="3", model="Llama 3.3 70B")
    assert e.accelerator == "nvidia-h200-sxm" and e.model == "llama-3-3-70b"
    assert e.query["model"] == "llama-3-3-70b" and e.query["accelerator"] == "nvidia-h200-sxm"
    response = real_client.get(
        "/api/estimate", params={"accelerator": "H200 SXM", "params": "70B", "format": "FP8", "utilisation": "0.5", "price": "3"}
    )
    assert response.status_code == 200 and response.json()["accelerator"] == "nvidia-h200-sxm"


def test_real_70b_bf16_needs_two_80gb_parts(real_catalog: Catalog) -> None:
    # 70e9 × 2 B = 140 GB of weights + one sequence's 335.5 MB: ⌈140.34 ÷ 80⌉ = 2
    assert run(real_catalog, "nvidia-h100-sxm", None, "BF16", model="llama-3-3-70b").result.bound.accelerators == 2
    one = run(real_catalog, "nvidia-h100-sxm", None, "BF16", model="llama-3-3-70b", accelerators="1").result
    assert one.state is State.DOES_NOT_FIT and "at least 2 accelerators are needed" in (one.reason or "")


def test_a_setting_out_of_range_for_the_model_names_it(real_catalog: Catalog) -> None:
    with pytest.raises(EstimateError) as exc:
        run(real_catalog, "nvidia-h100-sxm", None, "FP8", model="llama-3-3-70b", context="10000000")
    assert exc.value.param == "context" and "the model's context length" in exc.value.reason
    with pytest.raises(EstimateError) as unknown:
        run(real_catalog, "nvidia-h100-sxm", None, "FP8", model="llama-9")
    assert unknown.value.param == "model" and unknown.value.status == 404


# --- parsing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count"), [("70e9", 70e9), ("70B", 70e9), ("70b", 70e9), ("1.5T", 1.5e12), ("7000000000", 7e9), ("350M", 350e6)]
)
def test_parameter_counts(text: str, count: float) -> None:
    assert parse_request("x", text, "fp8", "1").params == count


def test_utilisation_as_percentage() -> None:
    assert parse_request("x", "7e9", "FP8", "50%").utilisation == 0.5
    assert parse_request("x", "7e9", "bf16", "1").number_format is NumberFormat.BF16


def test_the_model_page_settings_are_read() -> None:
    request = parse_request("x", None, "FP8", "1", model="llama-3-3-70b", context="2048", batch="8", accelerators="2", kv_bits="8",
                            mix="1:1")  # fmt: skip
    assert (request.model, request.context, request.batch, request.accelerators, request.kv_bits) == ("llama-3-3-70b", 2048, 8, 2, 8)
    assert (request.input_tokens, request.output_tokens) == (1.0, 1.0)
    assert request.query() == {"accelerator": "x", "model": "llama-3-3-70b", "format": "FP8", "utilisation": "1", "context": "2048",
                               "batch": "8", "accelerators": "2", "kv_bits": "8", "mix": "1:1"}  # fmt: skip


@pytest.mark.parametrize(
    ("args", "param", "words"),
    [
        (("x", "0", "FP8", "0.5"), "params", "positive"),
        (("x", "-70e9", "FP8", "0.5"), "params", "positive"),
        (("x", "seventy", "FP8", "0.5"), "params", "as a number"),
        (("x", "1e400", "FP8", "0.5"), "params", "finite"),
        (("x", "7e9", "FP9", "0.5"), "format", "unknown number format 'FP9'"),
        (("x", "7e9", "FP8", "0"), "utilisation", "(0, 1]"),
        (("x", "7e9", "FP8", "1.01"), "utilisation", "(0, 1]"),
        (("x", "7e9", "FP8", "nan"), "utilisation", "(0, 1]"),
        (("x", "7e9", "FP8", "0.5", "0"), "price", "positive"),
        (("x", "7e9", "FP8", "0.5", "2", C[2]), "price", "not both"),
        (("", "7e9", "FP8", "0.5"), "accelerator", "required"),
        (("x", None, "FP8", "0.5"), "params", "give a model id or a parameter count"),
        (("x", "7e9", "FP8", "0.5", None, None, "llama-3-3-70b"), "params", "not both"),
        (("x", "7e9", "FP8", "0.5", None, None, None, "long"), "context", "not a whole number"),
        (("x", "7e9", "FP8", "0.5", None, None, None, None, None, None, None, "3-1"), "mix", "input:output"),
    ],
)
def test_bad_input_names_the_parameter(args: tuple, param: str, words: str) -> None:
    with pytest.raises(EstimateError) as exc:
        parse_request(*args)
    assert exc.value.param == param and words in exc.value.reason


def test_unknown_ids(cat: Catalog) -> None:
    with pytest.raises(EstimateError) as acc:
        run(cat, "acme-a3", "7e9", "FP8")
    assert acc.value.status == 404 and ("Acme A1", "acme-a1") in acc.value.suggestions
    with pytest.raises(EstimateError) as offer:
        run(cat, "acme-a1", "7e9", "FP8", offer="no-such-offer")
    assert offer.value.status == 404 and offer.value.param == "offer"
    with pytest.raises(EstimateError) as other:
        run(cat, "acme-a1", "7e9", "FP8", offer=C[4])  # an Acme A2 offer
    assert other.value.status == 400 and "rents acme-a2, not acme-a1" in other.value.reason


# --- the page, the API and the CLI -----------------------------------------------------

QUERY = "accelerator=acme-a1&params=70e9&format=FP8&utilisation=0.5&price=2&offer="


def test_page_shows_result_assumptions_and_formulas(web: TestClient) -> None:
    response = web.get(f"/economics/estimate?{QUERY}&batch=1")
    assert response.status_code == 200
    page = BeautifulSoup(response.text, "lxml")
    form = page.select_one("form.estimate-form")
    assert form["method"] == "get" and form["action"] == "/economics/estimate"
    assert page.select_one('select[name="accelerator"] option[selected]')["value"] == "acme-a1"
    rows = {tr["data-bound"]: tr for tr in page.select("tr[data-bound]")}
    # 1 × 1 × 3.35e12 × 0.5 ÷ 70e9 = 23.93; 1979e12 × 0.5 ÷ 140e9 = 7,068; 2 ÷ (23.93 × 3600) × 1e6 = 23.22
    assert rows["decode_memory"].select_one(".result").get_text(strip=True) == "23.93 tokens/s"
    assert rows["prefill"].select_one(".result").get_text(strip=True) == "7068 tokens/s"
    assert rows["cost_output"].select_one(".result").get_text(strip=True) == "23.22 USD per million tokens"
    assert rows["cost_input"].select_one(".result").get_text(strip=True) == "0.0786 USD per million tokens"
    assert rows["kv_per_token"].select_one(".result").get_text(strip=True) == "not yet collected"
    assert "B × N × BW × u ÷ (P_a × b + B × C × k)" in rows["decode_memory"].get_text()
    assert "estimate at the stated utilisation" in page.select_one("#result").get_text().lower()
    assert page.select_one("#accelerator-count").get_text() == "1" and page.select_one("#batch").get_text() == "1"
    assert page.select_one('tr[data-input="memory_bandwidth"]').get_text(" ", strip=True).startswith("Memory bandwidth 3.35 TB/s per chip")


def test_page_without_inputs_is_the_empty_form(web: TestClient) -> None:
    response = web.get("/economics/estimate")
    page = BeautifulSoup(response.text, "lxml")
    assert response.status_code == 200 and page.select_one("#result") is None and page.select_one("#error") is None
    assert page.select_one('input[name="params"]')["value"] == "" and page.select_one('input[name="context"]')["value"] == "1024"


def test_page_too_few_accelerators(web: TestClient) -> None:
    response = web.get("/economics/estimate?accelerator=acme-a1&params=70e9&format=BF16&utilisation=0.5&accelerators=1")
    assert response.status_code == 200
    said = BeautifulSoup(response.text, "lxml").select_one("#no-bound")
    assert said["data-state"] == "does_not_fit" and "140.0 GB" in said.get_text() and "at least 2" in said.get_text()


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("accelerator=acme-a9&params=7e9&format=FP8&utilisation=0.5", 404, "no accelerator with id 'acme-a9'"),
        ("accelerator=acme-a1&params=-1&format=FP8&utilisation=0.5", 400, "parameter 'params'"),
        ("accelerator=acme-a1&params=7e9&format=FP8&utilisation=2", 400, "parameter 'utilisation'"),
        ("accelerator=acme-a1&params=7e9&format=FP7&utilisation=0.5", 400, "unknown number format"),
        ("accelerator=acme-a1&params=%3Cscript%3Ealert(1)%3C/script%3E&format=FP8&utilisation=0.5", 400, "parameter 'params'"),
        ("accelerator=acme-a1&params=" + "9" * 500 + "&format=FP8&utilisation=0.5", 400, "too long"),
        ("accelerator=acme-a1&params=7e9&format=FP8&utilisation=0.5&kv_bits=5", 400, "parameter 'kv_bits'"),
        ("accelerator=acme-a1&model=nope&format=FP8&utilisation=0.5", 404, "no model with id 'nope'"),
    ],
)
def test_page_bad_input_is_a_clear_4xx(web: TestClient, query: str, status: int, words: str) -> None:
    response = web.get(f"/economics/estimate?{query}")
    assert response.status_code == status
    assert words in BeautifulSoup(response.text, "lxml").select_one("#error").get_text(" ", strip=True)
    assert "<script>alert" not in response.text


def test_page_suggests_close_ids(web: TestClient) -> None:
    page = BeautifulSoup(web.get("/economics/estimate?accelerator=acme-a9&params=7e9&format=FP8&utilisation=0.5").text, "lxml")
    hrefs = [a["href"] for a in page.select("#error a")]
    assert "/economics/estimate?accelerator=acme-a1&params=7e9&format=FP8&utilisation=0.5" in hrefs


def test_api_matches_the_page(web: TestClient) -> None:
    body = web.get(f"/api/estimate?{QUERY}").json()
    assert body["result"]["bound"]["prefill"]["amount"] == pytest.approx(7067.857142857)
    assert body["result"]["cost_output"]["amount"] == pytest.approx(0.078603, rel=1e-4)
    assert body["query"] == {"accelerator": "acme-a1", "params": "70e9", "format": "FP8", "utilisation": "0.5", "price": "2"}
    for gone in ("decode_batch1", "decode_compute_bound", "cost_batch1", "cost_compute_bound", "fits", "weight_bytes"):
        assert gone not in body


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("accelerator=acme-a1&params=70e9&format=BF16&utilisation=0.5&batch=0", 400, "parameter 'batch'"),
        ("accelerator=acme-a1&params=0&format=FP8&utilisation=0.5", 400, "parameter 'params'"),
        ("accelerator=acme-a1&params=7e9&format=FP8&utilisation=1.5", 400, "(0, 1]"),
        ("accelerator=nope&params=7e9&format=FP8&utilisation=0.5", 404, "no accelerator"),
        ("accelerator=acme-a1&params=7e9&format=FP8&utilisation=0.5&offer=no-such-offer", 404, "no offer"),
        ("accelerator=acme-a1&params=7e9&format=FP8", 400, "utilisation"),
        ("accelerator=acme-a1&format=FP8&utilisation=0.5", 400, "give a model id or a parameter count"),
    ],
)
def test_api_bad_input(web: TestClient, query: str, status: int, words: str) -> None:
    response = web.get(f"/api/estimate?{query}")
    assert response.status_code == status
    body = response.json()
    assert body["status"] == status and words in body["detail"]


def test_real_api_h200(real_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "utcnow", lambda: REAL_NOW)
    body = real_client.get("/api/estimate?accelerator=nvidia-h200-sxm&params=70e9&format=FP8&utilisation=0.5&batch=1").json()
    # 1 × 1 × 4.8e12 × 0.5 ÷ 70e9 = 34.29 tokens/s; the dense FP8 is an independent source's, labelled in the API too
    assert body["result"]["bound"]["decode"]["amount"] == pytest.approx(4.8e12 * 0.5 / 70e9)
    assert body["result"]["bound"]["decode_compute"]["state"] == "derived"
    assert body["compute"]["attribution"] == "from itkb.uw.cz, not from NVIDIA"
    price = body["price"]  # no price given: the cheapest fresh on-demand H200 SXM 141 GB observation
    assert (price["origin"], price["per_accelerator_hour"], price["provider"], price["seen"]) == ("cheapest", 4.29, "Crusoe", "2026-09-20")
    # 4.29 ÷ (34.29 × 3600) × 1e6 = 34.75 USD
    assert body["result"]["cost_output"]["amount"] == pytest.approx(4.29 / (4.8e12 * 0.5 / 70e9 * 3600) * 1e6)


def test_cli_estimate(data: Path) -> None:
    result = runner.invoke(cli_app, ["estimate", "acme-a1", "--params", "70e9", "--format", "FP8", "--utilisation", "0.5",
                                     "--offer", C[2], "--batch", "1", "--data", str(data)], env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 0, result.output
    # 3.35e12 × 0.5 ÷ 70e9 = 23.93 tokens/s; 5 ÷ (23.93 × 3600) × 1e6 = 58.04 USD
    assert "23.93 tokens/s" in result.output and "58.04 USD per million tokens" in result.output
    assert "40.00 USD ÷ 8 = 5.00 USD per accelerator-hour" in result.output
    assert "not a measurement" in result.output and "1 × Acme A1, batch 1, context 1024 tokens." in result.output


def test_cli_estimate_json_is_the_api(data: Path, web: TestClient) -> None:
    result = runner.invoke(cli_app, ["estimate", "acme-a1", "--params", "70e9", "--format", "FP8", "--utilisation", "0.5",
                                     "--price", "2", "--json", "--data", str(data)])  # fmt: skip
    assert json.loads(result.output) == web.get(f"/api/estimate?{QUERY}").json()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["acme-a1", "--params", "70e9", "--format", "BF16", "--utilisation", "0.5", "--accelerators", "1"], "at least 2"),
        (["acme-a1", "--params", "-5", "--format", "FP8", "--utilisation", "0.5"], "--params"),
        (["acme-a1", "--params", "7e9", "--format", "FP8", "--utilisation", "1.2"], "--utilisation"),
        (["acme-a3", "--params", "7e9", "--format", "FP8", "--utilisation", "0.5"], "acme-a1"),
        (["acme-a1", "--params", "7e9", "--format", "XF8", "--utilisation", "0.5"], "unknown number format"),
        (["acme-a1", "--params", "7e9", "--format", "FP8", "--utilisation", "0.5", "--kv-bits", "3"], "--kv-bits"),
    ],
)
def test_cli_bad_input_exits_2(data: Path, args: list[str], words: str) -> None:
    result = runner.invoke(cli_app, ["estimate", *args, "--data", str(data)])
    assert result.exit_code == 2 and words in " ".join(result.output.splitlines())  # wrapped at 80 columns


@pytest.mark.parametrize("command", ["estimate", "claims"])
def test_cli_help(command: str) -> None:
    result = runner.invoke(cli_app, [command, "--help"])
    assert result.exit_code == 0 and "Usage" in result.output


def test_cli_claims_shows_interest(data: Path) -> None:
    result = runner.invoke(cli_app, ["claims", "--data", str(data)], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "chip vendor (these parts)" in result.output and "acme-a2-cost" in result.output


# --- ranges, unknown and repeated parameters, offer labels (tester's findings) ----------

BASE = "accelerator=acme-a1&params=70e9&format=FP8&utilisation=0.5"


@pytest.mark.parametrize(
    ("args", "param", "words"),
    [
        (("x", "7e9", "FP8", "0.5", "1e308"), "price", "from 0.0001 to 1e6 USD"),
        (("x", "7e9", "FP8", "0.5", "1000001"), "price", "from 0.0001 to 1e6 USD"),
        (("x", "7e9", "FP8", "0.5", "0.00001"), "price", "from 0.0001 to 1e6 USD"),
        (("x", "7e9", "FP8", "0.5", "1e400"), "price", "finite"),
        (("x", "7e9", "FP8", "0.5", "nan"), "price", "as a number"),
        (("x", "7e9", "FP8", "1e-300"), "utilisation", "at least 0.001"),
        (("x", "7e9", "FP8", "0.0009"), "utilisation", "at least 0.001"),
        (("x", "7e9", "FP8", "inf"), "utilisation", "(0, 1]"),
        (("x", "1.5", "FP8", "0.5"), "params", "fewer than the 1e6"),
        (("x", "999999", "FP8", "0.5"), "params", "fewer than the 1e6"),
        (("x", "2e15", "FP8", "0.5"), "params", "more than the 1e15"),
        (("x", "1000000.5", "FP8", "0.5"), "params", "whole number"),
        (("x", "1e99999999999999999999", "FP8", "0.5"), "params", "finite"),
    ],
)
def test_numbers_out_of_range_name_the_parameter(args: tuple, param: str, words: str) -> None:
    with pytest.raises(EstimateError) as exc:
        parse_request(*args)
    assert exc.value.param == param and exc.value.status == 400 and words in exc.value.reason


def test_the_range_limits_themselves_are_accepted() -> None:
    assert parse_request("x", "1e6", "FP8", "0.001", "0.0001").params == 1e6
    assert parse_request("x", "1e15", "FP8", "1", "1e6").price_per_hour == 1e6
    assert parse_request("x", "1.1M", "FP8", "0.1%").params == 1_100_000  # exact, though 1.1 × 1e6 is not in floats


def test_the_shareable_params_text_keeps_every_digit() -> None:
    request = parse_request("x", "1234567", "FP8", "0.5")
    assert request.query()["params"] == "1.234567e6"
    assert parse_request("x", request.query()["params"], "FP8", "0.5").params == 1234567


def test_huge_price_is_a_400_not_a_500_or_inf(web: TestClient) -> None:
    api = web.get(f"/api/estimate?{BASE}&price=1e308")
    assert api.status_code == 400 and "parameter 'price'" in api.json()["detail"]
    page = web.get(f"/economics/estimate?{BASE}&price=1e308")
    assert page.status_code == 400 and "inf USD" not in page.text
    assert "parameter 'price'" in BeautifulSoup(page.text, "lxml").select_one("#error").get_text(" ", strip=True)
    tiny = web.get(f"/api/estimate?{BASE}&utilisation=1e-300".replace("utilisation=0.5&", ""))
    assert tiny.status_code == 400 and "parameter 'utilisation'" in tiny.json()["detail"]


def test_a_non_finite_result_is_a_400_naming_the_input(cat: Catalog, tmp_path: Path) -> None:
    import datetime as dt

    from computeatlas.cloud.observations import Observation

    day = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    dear = Observation(
        provider="cloudco",
        instance_type="dear",
        pricing="on_demand",
        amount=1.5e308,
        currency="USD",
        unit="hour",
        price_basis="accelerator",
        collected=day,
        accelerator="acme-a1",
        variant="80gb",
        accelerators=1,
        per_accelerator_hour=1.5e308,
        source_url="https://cloudco.example/pricing",
        via="test",
    )  # past any valid price
    store = Store(tmp_path / "data" / "prices")
    store.append([dear], "20261101T000000000000Z-test", {"format": "test"})
    ident = offer_id("cloudco", "dear", "on_demand", "", "", day.date())
    with pytest.raises(EstimateError) as exc:
        run(cat, "acme-a1", "70e9", "FP8", offer=ident, store=store, batch="1")  # 1.5e308 ÷ (23.93 × 3600) × 1e6 = inf
    assert exc.value.param == "offer" and exc.value.status == 400 and "not a finite number" in exc.value.reason
    body = TestClient(create_app(cat, Settings(data=tmp_path / "data"))).get(f"/api/estimate?{BASE}&offer={ident}&batch=1")
    assert body.status_code == 400 and "parameter 'offer'" in body.json()["detail"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("&params=7e9", "parameter 'params': given more than once"),
        ("&utilisation=1e-300", "parameter 'utilisation': given more than once"),
        ("&price=2&price=3", "parameter 'price': given more than once"),
    ],
)
def test_repeated_parameters_are_400s(web: TestClient, extra: str, words: str) -> None:
    api = web.get(f"/api/estimate?{BASE}{extra}")
    assert api.status_code == 400 and words in api.json()["detail"]
    page = web.get(f"/economics/estimate?{BASE}{extra}")
    assert page.status_code == 400
    assert words in BeautifulSoup(page.text, "lxml").select_one("#error").get_text(" ", strip=True)


def test_unknown_parameters_are_ignored(web: TestClient) -> None:
    assert web.get("/economics/estimate?colour=red").content == web.get("/economics/estimate").content
    assert web.get(f"/api/estimate?{BASE}&foo=1").json() == web.get(f"/api/estimate?{BASE}").json()


def test_offer_labels_tell_offers_apart(real_catalog: Catalog, real_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "utcnow", lambda: REAL_NOW)
    real_client.app.state.pages.clear()
    page = BeautifulSoup(real_client.get("/economics/estimate").text, "lxml")
    labels = [o.get_text(strip=True) for o in page.select('select[name="offer"] option') if o["value"]]
    assert len(labels) == 48 and len(set(labels)) == len(
        labels
    )  # the current offers (p4de.24xlarge of the late-2026 input is placed now); no two read alike
    assert "coreweave · NVIDIA HGX B200 (8 GPUs) · on-demand · region not stated · 68.80 USD/h per instance" in labels


def test_unknown_offer_says_how_many_more_there_are(
    real_catalog: Catalog, real_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "utcnow", lambda: REAL_NOW)
    own = [
        o for o in current_offers(real_catalog, Store(Path("data/prices")), REAL_NOW, link=offer_page) if o.accelerator == "nvidia-h100-sxm"
    ]
    assert len(own) == 14
    result = runner.invoke(cli_app, ["estimate", "nvidia-h100-sxm", "--params", "70e9", "--format", "FP8", "--utilisation", "0.5",
                                     "--offer", "nope", "--data", str(real_catalog.root)])  # fmt: skip
    assert result.exit_code == 2
    assert f"(and {len(own) - 8} more; see computeatlas prices nvidia-h100-sxm)." in " ".join(result.output.split())
    body = real_client.get("/api/estimate?accelerator=nvidia-h100-sxm&params=70e9&format=FP8&utilisation=0.5&offer=nope").json()
    assert body["status"] == 404 and f"8 of its {len(own)} offers" in body["detail"]
    assert body["suggestions"][-1]["url"] == "/cloud/prices/nvidia-h100-sxm" and " · " in body["suggestions"][0]["name"]


def test_a_model_too_big_for_one_part_takes_the_fewest(real_client: TestClient) -> None:
    # 405e9 parameters in FP8 = 405 GB of weights; an H100 SXM has 80 GB (NVIDIA's datasheet): N = ⌈405 ÷ 80⌉ = 6
    body = real_client.get("/api/estimate?accelerator=nvidia-h100-sxm&params=405e9&format=FP8&utilisation=0.5").json()
    assert body["result"]["bound"]["accelerators"] == 6
    # prefill = 6 × 1979e12 × 0.5 ÷ (2 × 405e9) = 7,330 tokens/s
    assert body["result"]["bound"]["prefill"]["amount"] == pytest.approx(6 * 1979e12 * 0.5 / 810e9)


def test_the_form_offers_an_example_that_works(real_client: TestClient) -> None:
    page = BeautifulSoup(real_client.get("/economics/estimate").text, "lxml")
    example = page.select_one("#example a")["href"]
    assert example == "/economics/estimate?accelerator=nvidia-h200-sxm&model=llama-3-3-70b&format=FP8&utilisation=0.5&price=3"
    result = BeautifulSoup(real_client.get(example).text, "lxml")
    assert result.select_one("#result")["data-accelerator"] == "nvidia-h200-sxm"
