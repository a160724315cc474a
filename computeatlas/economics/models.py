"""Open-weight language models as records (``data/models/*.toml``, one model per file).

A :class:`ModelRecord` holds what the bound needs from a model card or its ``config.json``:
total and active parameters (they differ for a mixture-of-experts model), layers, hidden
size, attention and key-value heads, head size and context length. Each is a
:class:`ModelFigure`: a number with the source it was read from, or a state in words —
``not_sourced`` (we looked; the note says where) or ``not_applicable`` (the architecture
has no such thing, e.g. key-value heads under DeepSeek's multi-head latent attention).
Nothing is filled from a look-alike model.

``aliases`` is our own table from the names providers publish (per provider id, exact,
case-sensitive) to this model: a market price is placed on a model only through it, never
by a substring (``llama-3.1-70b`` is not ``llama-3.1-405b``; a fine-tune such as Hermes 3
70B is another model).

Units: parameters are counts (not billions), context is in tokens, sizes are counts of
elements (not bytes).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from computeatlas.core.catalog import Problem, RecordKind
from computeatlas.core.claims import Id, Record, Source, today_from
from computeatlas.core.states import State, StateSubset

MIN_PARAMS = 1e6
"""Fewest parameters a model record may state (a million)."""

MAX_PARAMS = 1e14
"""Most parameters a model record may state (a hundred trillion): beyond it, surely a typo."""


FIGURE_STATES: tuple[State, ...] = (State.PUBLISHED, State.NOT_SOURCED, State.NOT_APPLICABLE)
"""The states a model figure may hold in a data file (shown in words, never as a blank or a zero)."""


ModelFigureState = Annotated[State, StateSubset(FIGURE_STATES, "a model figure")]
"""The :class:`~computeatlas.core.states.State` field type of a model figure: one of :data:`FIGURE_STATES`."""


class ModelFigure(Record):
    """One figure of a model: ``value`` (a count) read from ``source`` (a key of the record's
    ``sources``), or a state with a ``note`` saying where we looked or why it does not apply."""

    state: ModelFigureState = State.PUBLISHED
    value: float | None = None
    source: str | None = None
    text: str | None = Field(None, description="the words the source used, when they help (e.g. '70B')")
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ModelFigure:
        if self.state is State.PUBLISHED:
            if self.value is None or self.source is None:
                raise ValueError("a published figure needs a value and a source")
            if not math.isfinite(self.value) or self.value <= 0:
                raise ValueError(f"{self.value!r} is not a positive finite number")
        elif self.value is not None:
            raise ValueError(f"a {self.state.value} figure has no value (found {self.value!r})")
        elif not self.note:
            raise ValueError(f"a {self.state.value} figure needs a note saying where we looked or why")
        return self

    @property
    def known(self) -> bool:
        """True when the figure is a published number."""
        return self.state is State.PUBLISHED and self.value is not None


class Architecture(StrEnum):
    """Dense (every parameter used for every token) or mixture of experts (a subset active)."""

    DENSE = "dense"
    MOE = "moe"


FIGURES = ("total_params", "active_params", "layers", "hidden_size", "attention_heads", "kv_heads", "head_size", "context_length")
"""The figures every model record states (as a number or a state), in display order."""

ATTENTION_FIGURES = ("kv_lora_rank", "qk_rope_head_dim", "sliding_window", "sliding_window_layers")
"""Optional figures for attention whose cache is not ``2 × layers × KV heads × head size`` per token, stated in pairs:
multi-head latent attention (``kv_lora_rank`` and ``qk_rope_head_dim``: the compressed latent and the positional key
cached once per token and layer, for keys and values of every head) and a sliding window (``sliding_window`` tokens,
attended and cached by ``sliding_window_layers`` of the layers; the others attend to the whole context)."""

FIGURE_LABELS = {
    "total_params": "Total parameters", "active_params": "Active parameters per token", "layers": "Layers",
    "hidden_size": "Hidden size", "attention_heads": "Attention (query) heads", "kv_heads": "Key-value heads",
    "head_size": "Head size", "context_length": "Context length (tokens)",
    "kv_lora_rank": "Latent key-value size per layer (MLA)", "qk_rope_head_dim": "Positional key size per layer (MLA)",
    "sliding_window": "Sliding window (tokens)", "sliding_window_layers": "Layers using the sliding window",
}  # fmt: skip
"""Each figure's label on the page and in the CLI."""


class ModelRecord(Record):
    """An open-weight model: its figures, our alias table for it, and its sources.

    Validation: ``total_params`` and ``active_params`` between :data:`MIN_PARAMS` and
    :data:`MAX_PARAMS` and active ≤ total; a dense model's active parameters equal its
    total; every figure's source is defined in ``sources``; aliases are not empty strings;
    the :data:`ATTENTION_FIGURES` come in pairs (both MLA figures or neither, both window
    figures or neither) and no more layers use the window than the model has.
    """

    id: Id
    name: str = Field(min_length=1)
    developer: str = Field(min_length=1)
    architecture: Architecture
    card_url: str = Field(pattern=r"^https?://\S+$", description="the model card on its publisher's hub page")
    total_params: ModelFigure
    active_params: ModelFigure
    layers: ModelFigure
    hidden_size: ModelFigure
    attention_heads: ModelFigure
    kv_heads: ModelFigure
    head_size: ModelFigure
    context_length: ModelFigure
    kv_lora_rank: ModelFigure | None = Field(
        None, description="multi-head latent attention: elements of the compressed key-value latent cached per token and layer"
    )
    qk_rope_head_dim: ModelFigure | None = Field(
        None, description="multi-head latent attention: elements of the positional key cached per token and layer"
    )
    sliding_window: ModelFigure | None = Field(
        None, description="tokens a sliding-window layer attends to, so the most it caches per sequence"
    )
    sliding_window_layers: ModelFigure | None = Field(
        None, description="how many layers use the sliding window; the others attend to the whole context"
    )
    weights_note: str | None = Field(None, description="how the publisher ships the weights (e.g. MXFP4 experts)")
    aliases: dict[Id, list[str]] = Field(default_factory=dict, description="provider id → exact names that provider publishes")
    note: str | None = None
    verified: dt.date
    sources: dict[Id, Source] = Field(min_length=1)

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for provider, names in value.items():
            if any(not n.strip() for n in names):
                raise ValueError(f"an alias of provider {provider!r} is empty")
        return value

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> ModelRecord:
        if self.verified > today_from(info):
            raise ValueError(f"verified date in the future (today is {today_from(info)})")
        for name, fig in self.stated_figures():
            if fig.source is not None and fig.source not in self.sources:
                raise ValueError(f"{name}: source id {fig.source!r} not defined in [sources]")
        for pair in (("kv_lora_rank", "qk_rope_head_dim"), ("sliding_window", "sliding_window_layers")):
            if (getattr(self, pair[0]) is None) != (getattr(self, pair[1]) is None):
                raise ValueError(f"{pair[0]} and {pair[1]} are stated together or not at all")
        window_layers = self.sliding_window_layers
        if (
            window_layers is not None
            and window_layers.known
            and self.layers.known
            and (window_layers.value or 0) > (self.layers.value or 0)
        ):
            raise ValueError(f"sliding_window_layers: {window_layers.value:,.0f} is more than the model's {self.layers.value:,.0f} layers")
        for name in ("total_params", "active_params"):
            fig = getattr(self, name)
            if fig.known and not MIN_PARAMS <= (fig.value or 0) <= MAX_PARAMS:
                raise ValueError(f"{name}: {fig.value:,.0f} is not a plausible parameter count (from {MIN_PARAMS:g} to {MAX_PARAMS:g})")
        if self.total_params.known and self.active_params.known and (self.active_params.value or 0) > (self.total_params.value or 0):
            raise ValueError("active_params exceeds total_params")
        if (
            self.architecture is Architecture.DENSE
            and self.total_params.known
            and self.active_params.known
            and self.active_params.value != self.total_params.value
        ):
            raise ValueError("a dense model's active parameters equal its total")
        return self

    def figure(self, name: str) -> ModelFigure:
        """The figure called ``name`` (one of :data:`FIGURES`, or a stated one of :data:`ATTENTION_FIGURES`);
        ``KeyError`` for another name or an attention figure the record does not state."""
        fig = getattr(self, name) if name in FIGURES or name in ATTENTION_FIGURES else None
        if fig is None:
            raise KeyError(name)
        return fig

    def stated_figures(self) -> Iterator[tuple[str, ModelFigure]]:
        """Every figure the record states, in display order: all of :data:`FIGURES`, then the
        :data:`ATTENTION_FIGURES` it has."""
        for name in FIGURES + ATTENTION_FIGURES:
            fig = getattr(self, name)
            if fig is not None:
                yield name, fig


MODELS = RecordKind("models", ModelRecord, by_name=True)
"""Open-weight language models: ``data/models/<id>.toml``, one per file, ordered by name."""


def cross_check(records: Mapping[str, Mapping[str, Any]], files: Mapping[str, str]) -> Iterator[Problem | None]:
    """An alias claimed by two models of the same provider, an alias of an unknown provider, and a
    claim's ``model_id`` that names no model record."""
    for ident, claim in records.get("claims", {}).items():
        if claim.model_id is not None and claim.model_id not in records.get("models", {}):
            yield Problem(files[f"claims/{ident}"], "model_id", "no such model in data/models/", claim.model_id)
    seen: dict[tuple[str, str], str] = {}
    providers = records.get("providers", {})
    for ident, model in records.get("models", {}).items():
        for provider, names in model.aliases.items():
            if providers and provider not in providers and provider not in MARKET_ONLY_PROVIDERS:
                yield Problem(
                    files[f"models/{ident}"], f"aliases.{provider}", "no such provider in data/providers/ or the market list", provider
                )
            for name in names:
                other = seen.setdefault((provider, name), ident)
                if other != ident:
                    yield Problem(files[f"models/{ident}"], f"aliases.{provider}", f"alias also placed on {other}", name)


MARKET_ONLY_PROVIDERS = {
    "openrouter": "OpenRouter", "deepinfra": "DeepInfra", "novita": "Novita AI", "together": "Together AI",
    "groq": "Groq", "cerebras": "Cerebras", "fireworks": "Fireworks AI", "avian": "Avian", "ovhcloud": "OVHcloud AI Endpoints",
    "sambanova": "SambaNova Cloud", "hyperbolic": "Hyperbolic", "nscale": "Nscale", "lambda-ai": "Lambda Inference API",
    "perplexity": "Perplexity", "friendliai": "FriendliAI", "azure-ai": "Azure AI Foundry (serverless)", "anyscale": "Anyscale Endpoints",
    "mistral": "Mistral AI", "openai": "OpenAI", "doubleword": "Doubleword",
    **{f"huggingface-{p}": f"Hugging Face Inference Providers ({name})" for p, name in (
        ("cerebras", "Cerebras"), ("fireworks-ai", "Fireworks AI"), ("groq", "Groq"), ("hyperbolic", "Hyperbolic"), ("nebius", "Nebius"),
        ("novita", "Novita AI"), ("nscale", "Nscale"), ("ovhcloud", "OVHcloud"), ("sambanova", "SambaNova"), ("together", "Together AI"))},
}  # fmt: skip
"""Providers of per-token prices that need no rental provider record: id → name shown (ids as the token importers
write them: genai-prices' and LiteLLM's provider names with ``_`` written ``-``)."""


__all__ = [
    "ATTENTION_FIGURES",
    "FIGURES",
    "FIGURE_LABELS",
    "FIGURE_STATES",
    "MARKET_ONLY_PROVIDERS",
    "Architecture",
    "ModelFigure",
    "ModelRecord",
]
