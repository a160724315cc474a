"""Every state an economics view or record carries is the one state type, and the API carries its code."""

from __future__ import annotations

import inspect
import typing

import pydantic
import pytest

from computeatlas.core.states import State
from computeatlas.economics import bound, costs, estimate, model_view, models, price_input, rental_price

STATE_FIELDS = ("state", "outcome", "fits")
"""The field names that hold a figure's state in the economics views."""


def _state_fields() -> list[tuple[str, str, object]]:
    found = []
    for module in (bound, costs, estimate, model_view, models, price_input, rental_price):
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, pydantic.BaseModel) and cls.__module__ == module.__name__:
                found += [(f"{name}.{f}", f, info.annotation) for f, info in cls.model_fields.items() if f in STATE_FIELDS]
    return found


def test_every_state_field_of_an_economics_view_is_the_one_state_type() -> None:
    fields = _state_fields()
    names = {where for where, _, _ in fields}
    assert {"Figure.state", "AcceleratorBound.state", "FigureRow.state", "InputFigure.state", "PriceInput.outcome",
            "ModelFigure.state"} <= names, fields  # fmt: skip
    for where, _, annotation in fields:
        args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
        assert all(a is State for a in args), f"{where} is {annotation!r}, not State"


@pytest.mark.parametrize("path", ["/api/economics/models/llama-3-3-70b"])
def test_the_model_api_carries_state_codes(real_client, path: str) -> None:
    body = real_client.get(path).json()
    states = {b["state"] for b in body["bounds"]}
    assert states <= {s.value for s in State} and "derived" in states, states
    decode = [b["bound"]["decode"]["state"] for b in body["bounds"] if b["bound"]]
    assert set(decode) <= {s.value for s in State}, decode
    assert {f["state"] for f in body["figures"]} == {"published"}


def test_the_economics_layer_builds_no_url_and_the_pages_layer_links_its_ids(real_client) -> None:
    import ast
    from pathlib import Path

    folder = Path(bound.__file__).parent
    for path in folder.glob("*.py"):
        imported = {n.module for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.ImportFrom)}
        assert "computeatlas.core.urls" not in imported, path.name
    body = real_client.get("/api/economics/models/llama-3-3-70b").json()
    assert body["bounds"][0]["accelerator_url"] == f"/silicon/{body['bounds'][0]['accelerator']}"
    assert all(r["url"] == f"/silicon/{r['accelerator']}" for r in body["left_out"])
    missing = real_client.get("/api/economics/models/llama-3-3-7")
    assert missing.status_code == 404
    assert {"name": "Llama 3.3 70B Instruct", "url": "/economics/models/llama-3-3-70b"} in missing.json()["suggestions"]
