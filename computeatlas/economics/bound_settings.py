"""The bound's settings as text: read from a page's query or the CLI's options, and written back as URL parameters.

Number format, context (tokens per sequence), the input:output mix of the blended cost,
utilisation, bits per cached element, batch and the number of accelerators
(:class:`~computeatlas.economics.bound.BoundRequest`); a bad one is a
:class:`~computeatlas.economics.bound.BoundInputError` naming the parameter.
"""

from __future__ import annotations

from computeatlas.core.claims import NumberFormat
from computeatlas.economics.bound import BoundInputError, BoundRequest


def settings_of(request: BoundRequest) -> dict[str, str]:
    """The bound's settings as URL parameters of the model page."""
    return {"format": request.number_format.value, "context": str(request.context),
            "mix": f"{request.input_tokens:g}:{request.output_tokens:g}", "utilisation": f"{request.utilisation:g}",
            "kv_bits": str(request.kv_bits), "batch": "" if request.batch is None else str(request.batch),
            "accelerators": "" if request.accelerators is None else str(request.accelerators)}  # fmt: skip


def parse_mix(text: str) -> tuple[float, float]:
    """``"3:1"`` → (3.0, 1.0); :class:`BoundInputError` (param ``mix``) for anything else."""
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise BoundInputError("mix", f"{text!r} is not input:output tokens, e.g. 3:1") from None


def request_from(
    fmt: str | None = None,
    context: str | None = None,
    mix: str | None = None,
    utilisation: str | None = None,
    kv_bits: str | None = None,
    batch: str | None = None,
    accelerators: str | None = None,
) -> BoundRequest:
    """A :class:`BoundRequest` from text parameters (page query or CLI), each checked; :class:`BoundInputError` names a bad one."""
    values: dict[str, object] = {}
    if fmt:
        try:
            values["number_format"] = NumberFormat(fmt.strip().upper())
        except ValueError:
            raise BoundInputError("format", f"{fmt!r} is not a number format ({', '.join(f.value for f in NumberFormat)})") from None
    for name, text, kind in (
        ("context", context, int),
        ("kv_bits", kv_bits, int),
        ("utilisation", utilisation, float),
        ("batch", batch, int),
        ("accelerators", accelerators, int),
    ):
        if text:
            try:
                values[name] = kind(text)
            except ValueError:
                raise BoundInputError(name, f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
    if mix:
        values["input_tokens"], values["output_tokens"] = parse_mix(mix)
    return BoundRequest(**values)


__all__ = ["parse_mix", "request_from", "settings_of"]
