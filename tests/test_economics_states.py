"""The economics API carries the one state type's codes, and the pages layer links its ids
(tests/test_states.py checks every economics ``state`` field is a State)."""

from __future__ import annotations

import pytest

from computeatlas.core.states import State
from computeatlas.economics import bound


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
