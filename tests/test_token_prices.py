"""Market prices per million tokens: the unit of each source, placement by our alias table, rules."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from computeatlas.cloud.observations import Status
from computeatlas.core.tabular import CellError, TableError
from computeatlas.economics.token_import import import_token_files
from computeatlas.economics.token_prices import (
    alias_table,
    decide,
    observations_of,
    per_million,
    read,
    token_store,
)

SNAPSHOT_HEADER = (
    "snapshot_date,snapshot_ts,source,provider,instance_type,instance_family,gpu_name,gpu_variant,gpu_memory_gb,gpu_count,"
    "gpu_interconnect,vcpus,ram_gb,storage_desc,network_desc,region,zone,country,geo_group,pricing_type,commitment_period,"
    "price_per_hour,price_per_gpu_hour,currency,price_unit,available,available_count,os,tenancy,pre_installed_sw,raw_extra"
)
BUNDLED = Path(__file__).resolve().parent.parent / "data" / "tokens"


def _row(ts: str, source: str, product: str, extra: dict) -> str:
    quoted = json.dumps(extra).replace('"', '""')
    return f'{ts[:10]},{ts},{source},{source},{product},,,,,,,,,,,,,,,inference,,0,0,USD,token,True,,,,,"{quoted}"'


# Real rows of the OpenComputePrices 2026-03 snapshot (raw_extra as collected), hand-converted:
OPENROUTER_LLAMA = {
    "model_id": "meta-llama/llama-3.3-70b-instruct",
    "prompt_price_per_token": "0.0000001",
    "completion_price_per_token": "0.00000032",
}  # 1e-7 USD/token × 1e6 = 0.10; 3.2e-7 × 1e6 = 0.32 USD per million
DEEPINFRA_LLAMA = {
    "model_name": "meta-llama/Llama-3.3-70B-Instruct",
    "cents_per_input_token": 2.3e-05,
    "cents_per_output_token": 4e-05,
}  # 2.3e-5 cents = 2.3e-7 USD/token → 0.23; 4e-5 cents → 0.40 USD per million


def test_openrouter_is_usd_per_token() -> None:
    assert per_million("openrouter", OPENROUTER_LLAMA)[:2] == (0.1, 0.32)


def test_deepinfra_is_cents_per_token_not_dollars() -> None:
    inp, out, pub_in, pub_out, unit = per_million("deepinfra", DEEPINFRA_LLAMA)
    assert (inp, out) == (0.23, 0.4)  # read as dollars it would be 23 and 40: the hundredfold slip this guards against
    assert (pub_in, pub_out, unit) == ("2.3e-05", "4e-05", "US cents per token")


def test_novita_and_together_are_already_per_million() -> None:
    assert per_million("novita", {"input_price": "$0.135 /Mt", "output_price": "$0.4 /Mt"})[:2] == (0.135, 0.4)
    assert per_million("together", {"input": "$0.30$0.06&nbsp;(cached)", "output": "$1.20"})[:2] == (0.3, 1.2)


@pytest.mark.parametrize(
    ("source", "extra", "column"),
    [
        ("openrouter", {"prompt_price_per_token": "NaN", "completion_price_per_token": "0.000001"}, "raw_extra.prompt_price_per_token"),
        ("openrouter", {"prompt_price_per_token": "-0.1", "completion_price_per_token": "0.000001"}, "raw_extra.prompt_price_per_token"),
        ("deepinfra", {"cents_per_input_token": 1e-05}, "raw_extra.cents_per_output_token"),
        ("novita", {"input_price": "-", "output_price": "$0.4 /Mt"}, "raw_extra.input_price"),
        ("acme", {}, "source"),
    ],
)
def test_a_bad_price_names_its_column(source: str, extra: dict, column: str) -> None:
    with pytest.raises(CellError) as caught:
        per_million(source, extra)
    assert caught.value.column == column


def test_placement_is_exact_never_by_substring(real_catalog, tmp_path: Path) -> None:
    path = tmp_path / "openrouter.csv"
    path.write_text(
        "\n".join(
            [
                SNAPSHOT_HEADER,
                _row("2026-03-21T06:19:24Z", "openrouter", "meta-llama/llama-3.3-70b-instruct", OPENROUTER_LLAMA),
                _row(
                    "2026-03-21T06:19:24Z",
                    "openrouter",
                    "nousresearch/hermes-3-llama-3.1-70b",
                    {"prompt_price_per_token": "0.0000003", "completion_price_per_token": "0.0000003"},
                ),
                _row(
                    "2026-03-21T06:19:24Z",
                    "openrouter",
                    "meta-llama/llama-3.1-405b",
                    {"prompt_price_per_token": "0.000004", "completion_price_per_token": "0.000004"},
                ),
                _row(
                    "2026-03-21T06:19:24Z",
                    "openrouter",
                    "meta-llama/llama-3.1-8b-instruct",
                    {"prompt_price_per_token": "0", "completion_price_per_token": "0.00000005"},
                ),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    store = token_store(tmp_path / "tokens")
    summary = import_token_files([path], store, real_catalog.models.values(), now=dt.datetime(2026, 12, 1, tzinfo=dt.UTC))
    assert (summary.read, summary.accepted, summary.held) == (4, 2, 2)
    rows = {r["product"]: r for r in store.query("SELECT * FROM latest")}
    assert rows["meta-llama/llama-3.3-70b-instruct"]["model"] == "llama-3-3-70b"
    assert rows["meta-llama/llama-3.3-70b-instruct"]["output_per_million"] == pytest.approx(0.32)
    assert rows["nousresearch/hermes-3-llama-3.1-70b"]["model"] == ""  # a fine-tune is not Llama 3.1 70B
    assert list(rows["nousresearch/hermes-3-llama-3.1-70b"]["rules"]) == ["unplaced"]
    assert rows["meta-llama/llama-3.1-405b"]["model"] == "llama-3-1-405b"  # not 70B, not 8B
    assert list(rows["meta-llama/llama-3.1-8b-instruct"]["rules"]) == ["zero_price"]
    again = import_token_files([path], store, real_catalog.models.values(), now=dt.datetime(2026, 12, 1, 1, tzinfo=dt.UTC))
    assert (again.accepted, again.held, again.already_stored) == (0, 0, 4)


def test_an_implausible_price_is_held(real_catalog) -> None:
    from computeatlas.economics.token_prices import TokenObservation

    obs = TokenObservation(
        provider="deepinfra",
        product="meta-llama/Llama-3.3-70B-Instruct",
        input_per_million=2300,
        output_per_million=4000,
        published_input="0.23",
        published_output="0.4",
        published_unit="USD per token",
        collected=dt.datetime(2026, 3, 22, tzinfo=dt.UTC),
    )
    decided = decide(obs, alias_table(real_catalog.models.values()))
    assert decided.status is Status.HELD and decided.rules == ("outside_band", "outside_band")


def test_the_bundled_march_2026_prices_of_llama_3_3_70b() -> None:
    seen = {
        (o.provider, o.product, o.collected.date().isoformat()): (o.input_per_million, o.output_per_million)
        for o in observations_of(token_store(BUNDLED), "llama-3-3-70b")
    }
    assert seen[("openrouter", "meta-llama/llama-3.3-70b-instruct", "2026-03-21")] == (0.1, 0.32)
    assert seen[("deepinfra", "meta-llama/Llama-3.3-70B-Instruct", "2026-03-22")] == (0.23, 0.4)
    assert seen[("novita", "meta-llama/llama-3.3-70b-instruct", "2026-03-22")] == (0.135, 0.4)
    assert seen[("together", "Llama 3.3 70B", "2026-03-23")] == (0.88, 0.88)
    # March 2026 (OpenComputePrices): OpenRouter on three days, DeepInfra twice (plain and Turbo), Novita, Together
    march = {k for k in seen if k[2].startswith("2026-03-2") and k[2] <= "2026-03-23"}
    assert len(march) == 7
    # the history from genai-prices and LiteLLM: Together's own Turbo at 0.88 on 2025-06-23
    assert seen[("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "2025-06-23")] == (0.88, 0.88)
    assert min(k[2] for k in seen) == "2025-01-14"  # LiteLLM's first table that lists Llama 3.3 70B (released 2024-12)


def test_prices_import_tokens_from_the_cli(tmp_path: Path) -> None:
    from computeatlas.cli import app as cli
    from tests.conftest import CliRunner

    data = Path(__file__).resolve().parent.parent / "data"
    path = tmp_path / "together.csv"
    path.write_text(
        "\n".join(
            [
                SNAPSHOT_HEADER,
                _row("2026-03-23T00:27:20Z", "together", "Llama 3.3 70B", {"model": "Llama 3.3 70B", "input": "$0.88", "output": "$0.88"}),
                _row("2026-03-23T00:27:20Z", "together", "Llama 4 Maverick", {"input": "$0.27", "output": "$0.85"}),
                _row("2026-03-23T00:27:20Z", "together", "Broken", {"input": "-", "output": "$0.85"}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        cli, ["prices", "import", "tokens", str(path), "--tokens", str(tmp_path / "tokens"), "--json", "--data", str(data)]
    )
    assert result.exit_code == 1  # one row rejected, named by line and column; the others imported
    assert '"accepted": 1' in result.output and '"held": 1' in result.output and "line 4: column raw_extra.input" in result.output
    rows = token_store(tmp_path / "tokens").query("SELECT product, model, output_per_million FROM latest WHERE status = 'accepted'")
    assert rows == [{"product": "Llama 3.3 70B", "model": "llama-3-3-70b", "output_per_million": 0.88}]


@pytest.mark.parametrize("currency", ["EUR", "XYZ", "usd", ""])
def test_a_row_in_another_currency_is_refused_naming_the_column(tmp_path: Path, currency: str) -> None:
    # The per-token prices are read as US dollars (or US cents for DeepInfra): a row stating another currency is
    # not converted by us, it is refused with its line and column.
    path = tmp_path / "openrouter.csv"
    row = _row("2026-03-21T00:00:00Z", "openrouter", "meta-llama/llama-3.3-70b-instruct", OPENROUTER_LLAMA).replace(
        ",USD,token,", f",{currency},token,"
    )
    path.write_text(SNAPSHOT_HEADER + "\n" + row + "\n", encoding="utf-8")
    [(line, result)] = list(read(path))
    assert line == 2 and isinstance(result, TableError) and "column currency" in str(result) and "USD only" in str(result)
