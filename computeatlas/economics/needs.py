"""What a model needs to be served, from its record: weight bytes, active parameters and the KV cache.

The formulas are those of :mod:`computeatlas.economics.bound` (items 1 and 2 of its docstring):
weights ``W = P_t × b`` [B]; KV cache per token ``k = 2 × L × H_kv × d × b_kv`` [B] for plain
attention, ``L × (r + p) × b_kv`` for multi-head latent attention, and for a sliding window the
layers that use it hold at most ``w`` tokens per sequence. A figure the record does not state
as a number leaves what needs it None, with that figure's state and its words.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from computeatlas.core.claims import NumberFormat
from computeatlas.core.presentation import weakest
from computeatlas.core.states import State
from computeatlas.economics.models import ModelRecord


class ModelNeeds(BaseModel):
    """What a model needs, from its record: weight bytes and KV-cache bytes.

    ``kv_bytes_per_token`` [B] is held for every token of the context (all layers, or the
    layers without a sliding window); ``kv_window_bytes_per_token`` [B] for at most
    ``kv_window`` tokens per sequence (the sliding-window layers; 0 without a window)."""

    weight_bytes: float | None
    active_params: float | None
    kv_bytes_per_token: float | None
    kv_window_bytes_per_token: float = 0.0
    kv_window: int | None = None
    kv_formula: str
    kv_working: str | None
    why: list[str]
    states: list[State] = Field(default_factory=list, description="the state of each figure named in why, in its order")

    @property
    def stop(self) -> State:
        """The state a figure built on the missing inputs takes (the weakest of :attr:`states`)."""
        return weakest(self.states) if self.states else State.NOT_COLLECTED

    def per_sequence(self, context: int) -> float | None:
        """Cache bytes one sequence of ``context`` tokens holds:
        ``context × kv_bytes_per_token + min(context, kv_window) × kv_window_bytes_per_token``
        [B]; None when the cache is not known."""
        if self.kv_bytes_per_token is None:
            return None
        return context * self.kv_bytes_per_token + min(context, self.kv_window or 0) * self.kv_window_bytes_per_token


def needs_of(model: ModelRecord, fmt: NumberFormat, kv_bits: int) -> ModelNeeds:
    """``W = P_t × b`` and the KV cache of ``model`` (plain, multi-head latent or sliding-window
    attention, whichever the record states; see the module docstring); None (with the reason)
    where a figure it needs is not a published number."""
    why, states = [], []
    weight = model.total_params.value * fmt.bits / 8 if model.total_params.known and model.total_params.value is not None else None
    if weight is None:
        why.append(f"total parameters: {model.total_params.state.label}")
        states.append(model.total_params.state)
    active = model.active_params.value if model.active_params.known else None
    if active is None:
        why.append(f"active parameters: {model.active_params.state.label}")
        states.append(model.active_params.state)
    b = kv_bits / 8
    b_text = f"{kv_bits // 8 if kv_bits >= 8 else b:g} B"
    out: dict[str, Any] = {"weight_bytes": weight, "active_params": active, "kv_bytes_per_token": None, "kv_working": None}
    if model.kv_lora_rank is not None and model.qk_rope_head_dim is not None:
        formula = f"layers × (latent kv_lora_rank + positional key qk_rope_head_dim) × {b_text}"
        parts = {"layers": model.layers, "latent size": model.kv_lora_rank, "positional key size": model.qk_rope_head_dim}
    elif model.sliding_window is not None and model.sliding_window_layers is not None:
        formula = (
            f"2 × KV heads × head size × {b_text} × ((layers − window layers) × C + window layers × min(C, window))"
            " ÷ C, per token at context C"
        )
        parts = {
            "layers": model.layers,
            "KV heads": model.kv_heads,
            "head size": model.head_size,
            "sliding window": model.sliding_window,
            "sliding-window layers": model.sliding_window_layers,
        }
    else:
        formula = f"2 × layers × KV heads × head size × {b_text}"
        parts = {"layers": model.layers, "KV heads": model.kv_heads, "head size": model.head_size}
    missing = [(name, fig.state) for name, fig in parts.items() if not fig.known]
    if missing:
        return ModelNeeds(
            **out, kv_formula=formula, why=why + [f"{n}: {st.label}" for n, st in missing], states=states + [st for _, st in missing]
        )
    n = {name: int(fig.value or 0) for name, fig in parts.items()}
    if "latent size" in n:
        L, r, p = n["layers"], n["latent size"], n["positional key size"]
        k = L * (r + p) * b
        out |= {"kv_bytes_per_token": k, "kv_working": f"{L} × ({r} + {p}) × {b:g} B = {k:,.0f} B per token"}
    elif "sliding window" in n:
        L, H, d, w, Lw = n["layers"], n["KV heads"], n["head size"], n["sliding window"], n["sliding-window layers"]
        per_layer = 2 * H * d * b
        out |= {
            "kv_bytes_per_token": (L - Lw) * per_layer,
            "kv_window_bytes_per_token": Lw * per_layer,
            "kv_window": w,
            "kv_working": f"2 × {H} × {d} × {b:g} B = {per_layer:,.0f} B per token and layer; {L - Lw} layers hold every token, "
            f"{Lw} hold at most {w:,}",
        }
    else:
        L, H, d = n["layers"], n["KV heads"], n["head size"]
        k = 2 * L * H * d * b
        out |= {"kv_bytes_per_token": k, "kv_working": f"2 × {L} × {H} × {d} × {b:g} B = {k:,.0f} B per token"}
    return ModelNeeds(**out, kv_formula=formula, why=why, states=states)


__all__ = ["ModelNeeds", "needs_of"]
