"""What tokens cost on the bound: cost per million tokens at a price per accelerator-hour, and a blend of input and output.

Formula 6 of :mod:`computeatlas.economics.bound`: cost per million tokens
``= N × price ÷ (tokens/s × 3600) × 10⁶`` [USD]; blended for ``i`` input per ``o`` output tokens
``(i × cost_in + o × cost_out) ÷ (i + o)``. A cost that cannot be computed carries the state of
what stops it (the speed's state, or *no price given*).
"""

from __future__ import annotations

from computeatlas.core.states import State
from computeatlas.economics.bound import Figure


def cost(speed: Figure, accelerators: int, price_per_hour: float | None, key: str, label: str) -> Figure:
    """Cost per million tokens ``N × price ÷ (tokens/s × 3600) × 10⁶`` [USD], or the state of
    whatever stops it (the speed's state, or 'no price')."""
    formula = "N × price per accelerator-hour ÷ (tokens/s × 3600) × 1,000,000"
    if not speed.computed:
        return Figure(key=key, label=label, unit="USD per million tokens", formula=formula, state=speed.state, reason=speed.reason)
    if price_per_hour is None:
        return Figure(
            key=key, label=label, unit="USD per million tokens", formula=formula, state=State.NO_PRICE, reason="no fresh on-demand price"
        )
    value = accelerators * price_per_hour / ((speed.amount or 1) * 3600) * 1e6
    return Figure(
        key=key,
        label=label,
        amount=value,
        unit="USD per million tokens",
        formula=formula,
        working=f"{accelerators} × {price_per_hour:.4g} ÷ ({speed.amount:,.0f} × 3600) × 1,000,000 = {value:.4g} USD",
    )


def blended(cost_in: Figure, cost_out: Figure, input_tokens: float, output_tokens: float) -> Figure:
    """``(i × cost_in + o × cost_out) ÷ (i + o)`` [USD per million tokens of the stated mix]."""
    formula = f"({input_tokens:g} × input cost + {output_tokens:g} × output cost) ÷ {input_tokens + output_tokens:g}"
    label = f"Blended cost ({input_tokens:g} input : {output_tokens:g} output tokens)"
    needed = ([cost_in] if input_tokens else []) + ([cost_out] if output_tokens else [])
    stop = next((f for f in needed if not f.computed), None)
    if stop is not None:
        return Figure(key="cost_blended", label=label, unit="USD per million tokens", formula=formula, state=stop.state, reason=stop.reason)
    value = (input_tokens * (cost_in.amount or 0) + output_tokens * (cost_out.amount or 0)) / (input_tokens + output_tokens)
    return Figure(key="cost_blended", label=label, amount=value, unit="USD per million tokens", formula=formula,
                  working=f"({input_tokens:g} × {cost_in.amount or 0:.4g} + {output_tokens:g} × {cost_out.amount or 0:.4g}) ÷ "
                          f"{input_tokens + output_tokens:g} = {value:.4g} USD")  # fmt: skip


__all__ = ["blended", "cost"]
