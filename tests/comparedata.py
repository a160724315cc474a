"""A small catalog for the comparison tests: the conftest parts plus aliases, a part with no
dense per-accelerator compute, a part with unpublished memory, and one curated pair."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomli_w
from fastapi import FastAPI
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.web.app import create_app
from tests.conftest import SMALL_CATALOG, TODAY, fresh_client, make_record, write_data

ALIASES = {"acme-a1": ["A1", "Acme One"], "acme-a2": ["A2"], "globex-g1": ["G1"]}
FAMILY_ALIASES = {"acme-a1": ["Acme"], "acme-a2": ["Acme"]}  # one word for several parts: ambiguous

EXTRA = [
    make_record(
        "initech-i1",
        name="Initech I1",
        family="Initech",
        aliases=["I1"],
        specs__compute__FP8={
            "state": "not_comparable",
            "published_text": "up to 4 PFLOPS of FP8",
            "basis": "chip",
            "source": "sheet",
            "note": "Sparsity not stated.",
        },
        specs__compute__BF16={"state": "not_published", "source": "sheet", "note": "Not stated."},
    ),
    make_record(
        "hooli-h1",
        name="Hooli H1",
        family="Test",
        availability="rent",
        specs__memory={"state": "not_published", "source": "sheet", "note": "Withheld."},
    ),
]

CURATED = {
    "id": "acme-a1-vs-acme-a2",
    "parts": ["acme-a2", "acme-a1"],
    "framing": "Acme's newer part against its first one.",
    "verdict": "The A2 has more memory and bandwidth. Its power is not published.",
    "verified": "2026-11-01",
    "sources": {
        "review": {
            "title": "A review",
            "url": "https://review.example/a2",
            "publisher": "Review Weekly",
            "kind": "press",
            "accessed": "2026-11-01",
        }
    },
}


def write_compare_data(folder: Path) -> Path:
    """Write the comparison test catalog under ``folder``; return it."""
    records = [dict(r, aliases=ALIASES.get(r["id"], []), family_aliases=FAMILY_ALIASES.get(r["id"], [])) for r in SMALL_CATALOG] + EXTRA
    write_data(folder, records)
    (folder / "comparisons").mkdir(exist_ok=True)
    (folder / "comparisons" / f"{CURATED['id']}.toml").write_text(tomli_w.dumps(CURATED), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def compare_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The comparison test data folder, written once (read only)."""
    return write_compare_data(tmp_path_factory.mktemp("compare") / "data")


@pytest.fixture(scope="session")
def compare_catalog(compare_data: Path) -> Catalog:
    """The comparison test catalog, validated as of 2026-11-30."""
    return load(compare_data, today=TODAY)


@pytest.fixture(scope="session")
def compare_app(compare_catalog: Catalog) -> FastAPI:
    """The app serving the comparison test catalog, built once."""
    return create_app(compare_catalog)


@pytest.fixture
def compare_client(compare_app: FastAPI) -> TestClient:
    """A client over the comparison test catalog that does not follow redirects (empty page cache)."""
    return fresh_client(compare_app, follow_redirects=False)
