"""Bad request parameters as one kind of answer, whichever page or endpoint reads them.

FastAPI checks each declared parameter (a length, a range, a kind of number, one of a few
words) before a handler runs; :func:`input_error` turns the first problem it finds into the
app's one 400 (:class:`~computeatlas.core.errors.ParamError`) naming the parameter, the value
given and what is allowed, in words (``query parameter 'limit': '0' is below 1, the least
allowed``), never pydantic's own sentence. A name several accelerators share in a filter
(:class:`~computeatlas.cloud.queries.AmbiguousParam`) is answered by :func:`with_choices`: the
300 links the same request once per candidate, the value replaced by its id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.exceptions import RequestValidationError

from computeatlas.cloud.queries import AmbiguousParam
from computeatlas.core.errors import Ambiguous, ParamError
from computeatlas.web.page import urls_of

SHOWN = 40
"""At most this many characters of a bad value are repeated in the message."""


def _shown(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "…")


def _allowed(kind: str, ctx: Mapping[str, Any]) -> str | None:
    """What is allowed, in words, for pydantic's error ``kind`` with its context ``ctx``; None when unknown."""
    words = {
        "string_too_long": f"is longer than {ctx.get('max_length')} characters, the most allowed",
        "string_too_short": f"is shorter than {ctx.get('min_length')} characters, the least allowed",
        "greater_than_equal": f"is below {ctx.get('ge')}, the least allowed",
        "greater_than": f"is not above {ctx.get('gt')}",
        "less_than_equal": f"is above {ctx.get('le')}, the most allowed",
        "less_than": f"is not below {ctx.get('lt')}",
        "int_parsing": "is not a whole number",
        "int_from_float": "is not a whole number",
        "float_parsing": "is not a number",
        "finite_number": "is not a finite number",
        "bool_parsing": "is not true or false",
        "enum": f"is not one of {ctx.get('expected', '').replace(chr(39), '')}",
        "literal_error": f"is not one of {ctx.get('expected', '').replace(chr(39), '')}",
        "date_parsing": "is not a date (write YYYY-MM-DD)",
        "date_from_datetime_parsing": "is not a date (write YYYY-MM-DD)",
        "date_from_datetime_inexact": "is not a date (write YYYY-MM-DD)",
        "datetime_parsing": "is not a date and time (write YYYY-MM-DDTHH:MM:SSZ)",
    }
    return words.get(kind)


def input_error(exc: RequestValidationError) -> ParamError:
    """FastAPI's validation error as our one input error: the first problem, naming its
    parameter, the value given and what is allowed (a missing one: "is required and was not given"; a reason
    a validator of ours gave, as written)."""
    errors = exc.errors()
    first = errors[0] if errors else {"loc": ("query", "request"), "msg": "invalid", "type": ""}
    loc = [str(p) for p in first.get("loc", ())]
    where = loc[0] if loc and loc[0] in ("query", "path", "body", "header", "cookie") else "query"
    name = ".".join(p for p in loc[1:] if p) if len(loc) > 1 else (loc[0] if loc else "request")
    kind, value = str(first.get("type", "")), first.get("input")
    ctx = first.get("ctx")
    allowed = _allowed(kind, ctx if isinstance(ctx, Mapping) else {})
    if kind == "missing":
        reason = "is required and was not given"
    elif allowed is not None and isinstance(value, str | int | float):
        reason = f"{_shown(value)} {allowed}"
    else:  # a validator of ours (its message names what is wrong), or a shape we have no words for
        reason = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return ParamError(name or "request", reason, "form" if where == "body" else where)


def with_choices(request: Request, exc: AmbiguousParam) -> Ambiguous:
    """``exc`` with one suggestion per candidate: the same request with the shared name replaced
    by the candidate's id (the other values of a comma-separated list kept)."""
    query, urls = request.query_params, urls_of(request)
    path = urls.site(request.url.path)
    given = [v.strip() for v in (query.get(exc.param) or "").split(",")]
    suggestions = []
    for c in exc.candidates:
        values = [c.id if v.casefold() == exc.name.casefold() else v for v in given if v]
        params = {k: (",".join(values) if k == exc.param else v) for k, v in query.items()}
        suggestions.append((f"{c.name} ({c.id})", urls.link(f"{path}?{urlencode(params)}")))
    return Ambiguous(exc.title, exc.detail, suggestions)


__all__ = ["input_error", "with_choices"]
