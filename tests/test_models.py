"""Model records (data/models/): the real figures as read, and every bad file named."""

from __future__ import annotations

import shutil
from pathlib import Path

from computeatlas.catalog import check
from computeatlas.core.states import State

from .conftest import SMALL_CATALOG, TODAY, write_data

REAL = Path(__file__).resolve().parent.parent / "data" / "models"


def test_llama_3_3_70b_as_read(real_catalog) -> None:
    m = real_catalog.models["llama-3-3-70b"]
    # Oumi's table: 80 layers, hidden 8192, 64 heads, 8 KV heads, 131,072 tokens; Meta's code: head_dim = dim // n_heads
    assert (m.layers.value, m.hidden_size.value, m.attention_heads.value, m.kv_heads.value) == (80, 8192, 64, 8)
    assert m.head_size.value == 128 and m.head_size.source == "llama-models-ref"
    assert m.context_length.value == 131072 and m.total_params.value == m.active_params.value == 70e9
    assert m.sources["llama-models-ref"].url == "https://github.com/meta-llama/llama-models/blob/main/models/llama3/model.py"
    assert m.aliases["deepinfra"] == [
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/Llama-3.3-70B-Instruct-Turbo",  # DeepInfra's own names,
        "deepinfra/meta-llama/Llama-3.3-70B-Instruct",
        "deepinfra/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    ]  # LiteLLM's


def test_mixture_of_experts_records_keep_total_and_active_apart(real_catalog) -> None:
    v3 = real_catalog.models["deepseek-v3"]
    assert (v3.total_params.value, v3.active_params.value) == (671e9, 37e9)
    assert v3.kv_heads.state is State.NOT_APPLICABLE  # multi-head latent attention: no per-head cache
    oss = real_catalog.models["gpt-oss-120b"]
    assert (oss.total_params.value, oss.active_params.value, oss.layers.value) == (116.8e9, 5.1e9, 36)
    q = real_catalog.models["qwen3-235b-a22b"]
    assert (q.total_params.value, q.active_params.value, q.kv_heads.value) == (235e9, 22e9, 4)


def test_attention_sizes_as_read(real_catalog) -> None:
    v3 = real_catalog.models["deepseek-v3"]  # DeepSeek's config_671B.json: "kv_lora_rank": 512, "qk_rope_head_dim": 64
    assert (v3.kv_lora_rank.value, v3.qk_rope_head_dim.value, v3.head_size.state) == (512, 64, State.NOT_APPLICABLE)
    assert v3.sources["deepseek-v3-model-code"].kind == "vendor"
    oss = real_catalog.models["gpt-oss-120b"]  # OpenAI's model.py: head_dim 64, sliding_window 128 on layer_idx % 2 == 0
    assert (oss.hidden_size.value, oss.head_size.value, oss.sliding_window.value, oss.sliding_window_layers.value) == (2880, 64, 128, 18)
    assert oss.sources[oss.sliding_window.source].url.startswith("https://github.com/openai/gpt-oss/")
    mixtral = real_catalog.models["mixtral-8x7b"]  # Mistral AI's config.json
    assert (mixtral.layers.value, mixtral.hidden_size.value, mixtral.attention_heads.value, mixtral.kv_heads.value) == (32, 4096, 32, 8)
    assert mixtral.sources[mixtral.layers.source].kind == "vendor" and mixtral.head_size.value == 128
    small = real_catalog.models["mistral-small-24b"]  # head_dim 128 is stated: not 5,120 ÷ 32
    assert (small.layers.value, small.hidden_size.value, small.kv_heads.value, small.head_size.value) == (40, 5120, 8, 128)
    assert [real_catalog.models[m].head_size.value for m in ("qwen-2-5-72b", "qwen3-32b", "qwen3-235b-a22b")] == [128, 128, 128]
    assert real_catalog.models["llama-3-3-70b"].kv_lora_rank is None  # plain attention states none of them
    assert [n for n, _ in oss.stated_figures()][-2:] == ["sliding_window", "sliding_window_layers"]


def test_attention_figures_come_in_pairs(tmp_path: Path) -> None:
    window = '[sliding_window]\nvalue = 128\nsource = "oumi-llama33"\n\n[aliases]'
    found = _problems(tmp_path, "llama-w", lambda t: t.replace("[aliases]", window, 1))
    assert any("llama-w.toml" in p and "sliding_window and sliding_window_layers are stated together" in p for p in found), found
    too_many = window.replace("[aliases]", '[sliding_window_layers]\nvalue = 81\nsource = "oumi-llama33"\n\n[aliases]')
    found = _problems(tmp_path / "second", "llama-v", lambda t: t.replace("[aliases]", too_many, 1))
    assert any("llama-v.toml" in p and "more than the model's 80 layers" in p for p in found), found


def test_every_issue_model_is_present(real_catalog) -> None:
    wanted = {
        "llama-2-70b",
        "llama-3-1-8b",
        "llama-3-1-70b",
        "llama-3-1-405b",
        "llama-3-3-70b",
        "deepseek-v3",
        "deepseek-r1",
        "qwen-2-5-72b",
        "qwen3-32b",
        "qwen3-235b-a22b",
        "mixtral-8x7b",
        "gpt-oss-20b",
        "gpt-oss-120b",
        "mistral-small-24b",
    }
    assert wanted <= set(real_catalog.models)


def _problems(tmp_path: Path, name: str, edit) -> list[str]:
    folder = write_data(tmp_path / "data", SMALL_CATALOG)
    (folder / "models").mkdir()
    text = (REAL / "llama-3-3-70b.toml").read_text(encoding="utf-8")
    (folder / "models" / f"{name}.toml").write_text(edit(text).replace('id = "llama-3-3-70b"', f'id = "{name}"'), encoding="utf-8")
    _, problems = check(folder, today=TODAY.replace(year=2027))
    return [str(p) for p in problems]


def test_absurd_parameter_count_is_named(tmp_path: Path) -> None:
    found = _problems(tmp_path, "llama-x", lambda t: t.replace("[total_params]\nvalue = 70000000000", "[total_params]\nvalue = 7e20", 1))
    assert any("llama-x.toml" in p and "not a plausible parameter count" in p for p in found), found


def test_a_published_figure_needs_a_source(tmp_path: Path) -> None:
    found = _problems(tmp_path, "llama-y", lambda t: t.replace('value = 80\nsource = "oumi-llama33"', "value = 80", 1))
    assert any("llama-y.toml: layers" in p and "needs a value and a source" in p for p in found), found


def test_one_provider_name_placed_on_two_models_is_a_problem(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", SMALL_CATALOG)
    (folder / "models").mkdir()
    shutil.copy(REAL / "llama-3-3-70b.toml", folder / "models")
    text = (REAL / "llama-3-3-70b.toml").read_text(encoding="utf-8").replace('id = "llama-3-3-70b"', 'id = "llama-copy"')
    (folder / "models" / "llama-copy.toml").write_text(text, encoding="utf-8")
    _, problems = check(folder, today=TODAY.replace(year=2027))
    assert any(p.field == "aliases.openrouter" and "alias also placed on" in p.message for p in problems), [str(p) for p in problems]


def test_a_model_figure_state_is_read_as_the_one_state_type_and_a_bad_one_is_named(tmp_path: Path, real_catalog) -> None:
    assert real_catalog.models["llama-3-3-70b"].layers.state is State.PUBLISHED  # state = "published" (or none) still loads
    bad = '[head_size]\nstate = "derived"\nnote = "worked out"\n'
    found = _problems(tmp_path, "llama-z", lambda t: t.replace('[head_size]\nvalue = 128\nsource = "llama-models-ref"\n', bad, 1))
    assert any(
        "llama-z.toml" in p
        and "head_size" in p
        and "state 'derived' is not one a model figure may hold: use one of 'published', 'not_sourced', 'not_applicable'" in p
        for p in found
    ), found
