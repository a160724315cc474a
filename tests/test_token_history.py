"""Token prices with history: genai-prices and LiteLLM (via tokencost) into the token store,
from real excerpts (tests/fixtures/tokens/, README and licences there)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from computeatlas.cloud.importers.cells import Skip
from computeatlas.cloud.observations import InputFailed, Status
from computeatlas.economics import genai_prices, litellm_prices
from computeatlas.economics.token_import import import_token_files
from computeatlas.economics.token_prices import observations_of, token_store

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tokens"
GENAI = sorted((FIXTURES / "genai-prices").glob("*.json"))
LITELLM = sorted((FIXTURES / "litellm").glob("*.json"))
NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def _read(reader, path: Path) -> list:  # type: ignore[no-untyped-def]
    return [r for _, r in reader(path)]


def _by(results: list, provider: str, product: str):  # type: ignore[no-untyped-def]
    return [r for r in results if not isinstance(r, Skip) and r.provider == provider and r.product == product]


def test_genai_prices_together_llama_3_1_70b_on_2025_06_23() -> None:
    [obs] = _by(
        _read(genai_prices.read, FIXTURES / "genai-prices" / "data-v1-2025-06-23.json"),
        "together",
        "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo",
    )
    assert (obs.input_per_million, obs.output_per_million) == (0.88, 0.88)  # "input_mtok": 0.88, "output_mtok": 0.88
    assert obs.published_unit == "USD per million tokens" and obs.collected == dt.datetime(2025, 6, 23, tzinfo=dt.UTC)
    assert obs.via == "pydantic/genai-prices prices/data.json (v1), published by 2025-06-23 (commit c56491a)"
    assert obs.source_url == "https://github.com/pydantic/genai-prices/blob/c56491a9/prices/data.json"
    assert json.loads(obs.raw_extra)["pricing_urls"] == ["https://www.together.ai/pricing"]  # the 2025-06 file's pricing_url


def test_genai_prices_keeps_the_provider_apart() -> None:
    results = _read(genai_prices.read, FIXTURES / "genai-prices" / "data-v2-2026-08-21.json")
    [aws] = _by(results, "aws", "meta.llama3-1-70b-instruct-v1:0")
    [together] = _by(results, "together", "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo")
    assert (aws.input_per_million, aws.output_per_million, together.output_per_million) == (0.72, 0.72, 0.88)
    assert "(v2)" in aws.via and "commit 47df840" in aws.via
    assert _by(results, "huggingface-nebius", "meta-llama/Llama-3.1-8B-Instruct")[0].output_per_million == 0.09  # huggingface_nebius


def test_a_start_date_is_the_better_date_and_a_future_one_is_held() -> None:
    results = _read(genai_prices.read, FIXTURES / "genai-prices" / "data-v1-2026-07-25.json")
    [opus] = _by(results, "anthropic", "claude-opus-4-6")  # base tiered 5/25; from 2026-03-13 (before the commit) 5/25 untiered
    assert opus.collected == dt.datetime(2026, 3, 13, tzinfo=dt.UTC) and "in effect from 2026-03-13" in opus.via
    now, later = _by(results, "anthropic", "claude-sonnet-5")
    assert (now.input_per_million, now.output_per_million, now.status) == (2.0, 10.0, Status.ACCEPTED)
    assert now.collected == dt.datetime(2026, 7, 25, tzinfo=dt.UTC)
    assert (later.input_per_million, later.output_per_million, later.rules) == (3.0, 15.0, ("future_dated",))
    assert later.collected == dt.datetime(2026, 9, 1, tzinfo=dt.UTC) and "after the file's commit of 2026-07-25" in later.reasons[0]


def test_tiers_are_not_flattened_the_base_is_taken_and_said() -> None:
    [sonnet] = _by(_read(genai_prices.read, FIXTURES / "genai-prices" / "data-v1-2026-07-25.json"), "anthropic", "claude-sonnet-4-5")
    assert (sonnet.input_per_million, sonnet.output_per_million) == (3.0, 15.0)
    assert sonnet.published_input == "3 (base; 6 from 200,000 input tokens)"
    assert sonnet.published_output == "15 (base; 22.5 from 200,000 input tokens)"
    assert json.loads(sonnet.raw_extra)["tiers"]["input"] == [{"start": 200000, "price": 6}]


def test_a_time_of_day_price_is_held_and_an_embedding_skipped() -> None:
    results = _read(genai_prices.read, FIXTURES / "genai-prices" / "data-v1-2026-07-25.json")
    [chat] = _by(results, "deepseek", "deepseek-chat")
    assert chat.rules == ("conditional_price",) and "00:30:00Z–16:30:00Z" in chat.reasons[0]
    assert any(isinstance(r, Skip) and "embedding" in r.reason for r in results)  # openai text-embedding-3-small: input only


def test_litellm_is_per_token_times_a_million() -> None:
    results = _read(litellm_prices.read, FIXTURES / "litellm" / "model_prices-2024-10-14.json")
    [bedrock] = _by(results, "aws", "meta.llama3-1-8b-instruct-v1:0")  # litellm_provider "bedrock" is AWS Bedrock
    assert (bedrock.input_per_million, bedrock.output_per_million) == (0.22, 0.22)  # 2.2e-07 USD per token × 1,000,000
    assert (bedrock.published_input, bedrock.published_unit) == ("2.2e-07", "USD per token")
    [groq] = _by(results, "groq", "groq/llama-3.1-70b-versatile")
    assert (groq.input_per_million, groq.output_per_million) == (0.59, 0.79)
    assert groq.via.endswith("published by 2024-10-14 (commit 74a4d56)")
    assert (
        groq.source_url
        == "https://github.com/AgentOps-AI/tokencost/blob/74a4d5604d1ae948ec024cd7a2f0951ca7b0f53b/tokencost/model_prices.json"
    )
    [gemini] = _by(results, "vertex-ai-language-models", "gemini-1.5-pro")
    assert gemini.published_input == "5e-06 (base; 1e-05 above 128k tokens)" and gemini.input_per_million == 5.0
    assert any(isinstance(r, Skip) and r.reason.startswith("sample_spec") for r in results)


def test_litellm_without_a_provider_is_skipped_with_the_reason() -> None:
    results = _read(litellm_prices.read, FIXTURES / "litellm" / "model_prices-2024-01-31.json")
    assert [r.reason for r in results] == ["no litellm_provider (tokencost's early format): no provider to place the price on"] * 2


def test_both_sources_import_into_one_history(real_catalog, tmp_path: Path) -> None:
    store = token_store(tmp_path / "tokens")
    first = import_token_files(GENAI, store, real_catalog.models.values(), now=NOW, fmt="genai-prices")
    second = import_token_files(LITELLM, store, real_catalog.models.values(), now=NOW, fmt="litellm")
    assert (first.rejected, second.rejected) == (0, 0)
    history = {
        (o.provider, o.collected.date().isoformat()): (o.input_per_million, o.output_per_million)
        for o in observations_of(store, "llama-3-1-70b")
    }
    assert history[("aws", "2024-10-14")] == (0.99, 0.99)  # LiteLLM: 9.9e-07 per token
    assert history[("aws", "2026-07-25")] == (0.72, 0.72)  # genai-prices, a year later
    assert history[("groq", "2024-10-14")] == (0.59, 0.79) and history[("deepinfra", "2025-09-01")] == (0.23, 0.4)
    assert ("openrouter", "2025-06-23") not in history  # nousresearch/hermes-3-llama-3.1-70b is a fine-tune: unplaced
    held = {r["product"]: list(r["rules"]) for r in store.query("SELECT product, rules FROM latest WHERE status = 'held'")}
    assert held["nousresearch/hermes-3-llama-3.1-70b"] == ["unplaced"]
    assert held["ollama/llama3.1"] == ["unplaced", "zero_price", "zero_price"]
    assert held["bedrock/us-east-1/mistral.mixtral-8x7b-instruct-v0:1"] == ["unplaced"]  # a regional product is not the bare one
    again = import_token_files(GENAI, store, real_catalog.models.values(), now=NOW + dt.timedelta(hours=1), fmt="genai-prices")
    again_l = import_token_files(LITELLM, store, real_catalog.models.values(), now=NOW + dt.timedelta(hours=1), fmt="litellm")
    assert (again.accepted, again.held, again_l.accepted, again_l.held) == (0, 0, 0, 0)
    assert again.already_stored == first.accepted + first.held and len(store.runs()) == 2


def test_a_150_usd_per_million_llama_3_1_8b_is_held_by_the_band(real_catalog, tmp_path: Path) -> None:
    store = token_store(tmp_path / "tokens")
    import_token_files(GENAI, store, real_catalog.models.values(), now=NOW, fmt="genai-prices")
    import_token_files(LITELLM, store, real_catalog.models.values(), now=NOW, fmt="litellm")
    real = sorted(o.output_per_million for o in observations_of(store, "llama-3-1-8b"))
    assert real[0] == 0.03 and real[-1] == 0.79  # OpenRouter 0.03 … Groq 0.79 (LiteLLM 2024-10-14; 0.08 in 2025-09-01)
    made_up = tmp_path / "slip.json"  # a LiteLLM row whose per-token price was written as per million: 1.5e-04 USD per token
    made_up.write_text(
        json.dumps(
            {
                "groq/llama-3.1-8b-instant": {
                    "input_cost_per_token": 0.00015,
                    "output_cost_per_token": 0.00015,
                    "litellm_provider": "groq",
                    "mode": "chat",
                }
            }
        ),
        encoding="utf-8",
    )
    summary = import_token_files(
        [made_up],
        store,
        real_catalog.models.values(),
        now=NOW,
        fmt="litellm",
        commit="0123abc",
        published=dt.datetime(2025, 10, 1, tzinfo=dt.UTC),
    )
    assert (summary.accepted, summary.held, dict(summary.held_by_rule)) == (0, 1, {"far_from_median": 1})
    [row] = store.query("SELECT * FROM latest WHERE collected = ?", [dt.datetime(2025, 10, 1, tzinfo=dt.UTC)])
    assert row["input_per_million"] == 150.0 and list(row["rules"]) == ["far_from_median", "far_from_median"]  # under the 1,000 ceiling
    assert "more than 1,000× from the median" in row["reasons"][0] and "providers' medians for llama-3-1-8b" in row["reasons"][0]


@pytest.mark.parametrize(
    ("edit", "path", "says"),
    [
        (lambda d: d[0]["models"][0]["prices"].update(input_mtok="0.45"), "$[0].models[0].prices.input_mtok", "must be a number"),
        (lambda d: d[0]["models"][0]["prices"].update(output_mtok=-1), "$[0].models[0].prices.output_mtok", "non-negative"),
        (
            lambda d: d[0]["models"][0].update(prices=[{"constraint": {"start_date": "2025-13-01"}, "prices": {}}]),
            "$[0].models[0].prices[0].constraint.start_date",
            "not a date",
        ),
        (
            lambda d: d[0]["models"][0].update(prices=[{"constraint": {"region": "eu"}, "prices": {}}]),
            "$[0].models[0].prices[0].constraint",
            "unknown constraint",
        ),
    ],
)
def test_a_bad_genai_value_is_refused_naming_file_and_json_path(real_catalog, tmp_path: Path, edit, path: str, says: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads((FIXTURES / "genai-prices" / "data-v1-2025-06-23.json").read_text(encoding="utf-8"))
    edit(data)
    bad = tmp_path / "data-v1-2025-06-23.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    store = token_store(tmp_path / "tokens")
    summary = import_token_files([bad], store, real_catalog.models.values(), now=NOW, fmt="genai-prices")
    [error] = summary.errors
    assert summary.rejected == 1 and str(error).startswith(f"{bad}: JSON path {path}: ") and says in str(error)


def test_a_bad_litellm_value_names_its_json_path(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "litellm" / "model_prices-2025-09-01.json").read_text(encoding="utf-8"))
    data["groq/llama-3.1-8b-instant"]["output_cost_per_token"] = "8e-08"
    bad = tmp_path / "model_prices-2025-09-01.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    [error] = [r for _, r in litellm_prices.read(bad) if not isinstance(r, Skip) and not hasattr(r, "provider")]
    assert (
        str(error)
        == f'{bad}: JSON path $["groq/llama-3.1-8b-instant"].output_cost_per_token: a price must be a number (USD per token) (found \'"8e-08"\')'
    )


def test_a_changed_schema_or_unknown_file_stores_nothing(real_catalog, tmp_path: Path) -> None:
    store = token_store(tmp_path / "tokens")
    changed = tmp_path / "data-v1-2025-06-23.json"
    changed.write_text(json.dumps({"providers": []}), encoding="utf-8")
    with pytest.raises(InputFailed, match=r"JSON path \$: expected a list of providers"):
        import_token_files([changed], store, real_catalog.models.values(), now=NOW, fmt="genai-prices")
    renamed = tmp_path / "prices.json"
    shutil.copy(GENAI[0], renamed)
    with pytest.raises(InputFailed, match="no commit is known for a file of this name"):
        import_token_files([renamed], store, real_catalog.models.values(), now=NOW, fmt="genai-prices")
    assert store.runs() == []


def test_prices_import_genai_prices_and_litellm_from_the_cli(tmp_path: Path) -> None:
    from computeatlas.cli import app as cli
    from tests.conftest import CliRunner

    data = Path(__file__).resolve().parent.parent / "data"
    runner = CliRunner()
    result = runner.invoke(
        cli, ["prices", "import", "genai-prices", *map(str, GENAI), "--tokens", str(tmp_path / "t"), "--json", "--data", str(data)]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["held_by_rule"] == {"unplaced": 5, "future_dated": 1, "conditional_price": 1} and doc["accepted_by_provider"]["aws"] == 4
    result = runner.invoke(cli, ["prices", "import", "litellm", *map(str, LITELLM), "--tokens", str(tmp_path / "t"), "--data", str(data)])
    assert result.exit_code == 0 and "skipped by reason" in result.output
    bad = runner.invoke(
        cli, ["prices", "import", "litellm", str(LITELLM[0]), "--commit", "abc1234", "--tokens", str(tmp_path / "t"), "--data", str(data)]
    )
    assert bad.exit_code == 2 and "--commit and --collected together" in bad.output
