"""The presentation rule, end to end: awkward records through every output.

Each case is one awkward record (power published as words only, no sparse figure
recorded, FP4 on a Hopper-like part that lists no FP4, memory stated in GiB, a disputed
bandwidth). Each output (page HTML, API JSON, the /silicon/ table page, CSV, Parquet,
SQLite, JSON export, chart data, comparison, derived figures) is read back the way a
person or a program would read it, and compared with the exact value and state that
person should see: hand-written below, not taken from another output.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.core.claims import NumberFormat
from computeatlas.core.links import LinkDirection
from computeatlas.core.numbers import compute_unit, plain, plain_text, tera_unit
from computeatlas.core.presentation import present, present_derived, present_link, present_sparse, weakest
from computeatlas.core.states import State
from computeatlas.publish.exports import build
from computeatlas.publish.exports import csv as csv_export
from computeatlas.publish.exports import json as json_export
from computeatlas.publish.exports import sqlite as sqlite_export
from computeatlas.web.app import create_app
from tests.conftest import TODAY, make_record, write_data

PRESS = {"title": "Launch coverage", "url": "https://press.example/launch", "publisher": "Press", "kind": "press", "accessed": "2026-11-01"}


def _published(value: str, **extra: Any) -> dict[str, Any]:
    return {"state": "published", "value": value, "basis": "chip", "source": "sheet", **extra}


RECORDS = [
    # the partner every comparison is made against: it has an FP4 figure
    make_record("acme-b1", name="Acme B1", specs__compute__FP4=_published("4500 TFLOPS", sparsity="dense")),
    make_record(
        "acme-text",
        name="Acme Text",
        specs__power={"state": "published", "text": "Up to 700 W (board)", "basis": "chip", "source": "sheet"},
    ),
    make_record("acme-nosparse", name="Acme Nosparse", specs__compute__FP8=_published("1979 TFLOPS", sparsity="dense")),
    make_record("acme-hopperish", name="Acme Hopperish", family="Hopper"),  # lists FP8 and BF16, no FP4
    make_record(
        "acme-gib",
        name="Acme Gib",
        specs__memory=_published("144 GiB", memory_type="HBM3e"),
        specs__compute__FP4=_published("4 PFLOPS", sparsity="dense"),
    ),
    make_record(
        "acme-disputed",
        name="Acme Disputed",
        sources={**make_record("x")["sources"], "press": PRESS},
        specs__memory_bandwidth=_published(
            "3.35 TB/s",
            primary_reason="The datasheet is the formal specification.",
            other_claims=[{"value": "3 TB/s", "source": "press", "note": "Rounded at launch."}],
        ),
    ),
]


@dataclass
class Outputs:
    """Every output of one small catalog, produced once."""

    catalog: Catalog
    client: TestClient
    csv_rows: dict[str, dict[str, str]]
    parquet_rows: dict[str, dict[str, Any]] | None
    sqlite_rows: dict[str, dict[str, Any]]
    json_rows: dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    folder = tmp_path_factory.mktemp("presentation")
    catalog = load(write_data(folder / "data", RECORDS), today=TODAY)
    table = build(catalog)
    csv_rows = {r["id"]: r for r in csv.DictReader(io.StringIO(csv_export.to_text(table), newline=""))}
    db_path = sqlite_export.write(table, folder / "silicon.db")[0]
    db = sqlite3.connect(db_path)
    db.row_factory = sqlite3.Row
    try:
        sqlite_rows = {r["id"]: dict(r) for r in db.execute("SELECT * FROM accelerators")}
    finally:
        db.close()
    json_rows = {r["id"]: r for r in json.loads(json_export.to_text(table))["rows"]}
    try:
        import pyarrow.parquet as pq

        from computeatlas.publish.exports import parquet

        parquet_rows = {r["id"]: r for r in pq.read_table(parquet.write(table, folder / "silicon.parquet")[0]).to_pylist()}
    except ImportError:
        parquet_rows = None
    return Outputs(catalog, TestClient(create_app(catalog)), csv_rows, parquet_rows, sqlite_rows, json_rows)


# --- how each output is read ----------------------------------------------------------

SPEC_KEY = {"power": "power", "memory": "memory", "bandwidth": "memory_bandwidth", "sparse": "compute.FP8", "fp4": "compute.FP4"}
"""Each case's field, as the spec key of the page, the API and the comparison."""

EXPORT_COLUMNS = {
    "power": ("power_w", "power_w_state", "power_stated"),
    "memory": ("memory_gb", "memory_gb_state", "memory_stated", "memory_bytes"),
    "bandwidth": ("memory_bandwidth_tbps", "memory_bandwidth_tbps_state", "memory_bandwidth_stated", "disputed_specs"),
    "sparse": ("fp8_sparse_tflops", "fp8_sparse_tflops_state", "fp8_sparse_stated", "fp8_sparse_pattern", "fp8_dense_tflops"),
    "fp4": ("fp4_dense_tflops", "fp4_dense_tflops_state", "fp4_sparse_tflops_state"),
}
TABLE_KEY = {"power": "power", "memory": "memory", "bandwidth": "memory_bandwidth", "sparse": "fp8", "fp4": "fp4"}
"""The /silicon/ page has no sparse column: the FP8 cell shows the dense figure."""

CHART = {
    "power": ("/api/charts/compute-power/FP8", "x"),
    "memory": ("/api/charts/memory-bandwidth", "x"),
    "bandwidth": ("/api/charts/memory-bandwidth", "y"),
    "sparse": ("/api/charts/compute-power/FP8", "y"),
    "fp4": ("/api/charts/compute-power/FP4", "y"),
}
DERIVED_KEY = {
    "power": "compute_per_watt.FP8",
    "memory": "largest_model.BF16",
    "bandwidth": "ridge_point.FP8",
    "sparse": "ridge_point.FP8",
    "fp4": "ridge_point.FP4",
}


def _text(node: Any) -> str | None:
    return " ".join(node.get_text(" ", strip=True).split()) if node is not None else None


def read_page(out: Outputs, ident: str, field: str) -> dict[str, Any] | None:
    page = BeautifulSoup(out.client.get(f"/silicon/{ident}").text, "lxml")
    spec = page.select_one(f'[data-spec="{SPEC_KEY[field]}"]')
    if spec is None:
        return None
    figure = spec.select_one(".figure") or spec.select_one("q.published-text")
    return {
        "state": spec["data-state"],
        "figure": _text(figure),
        "badge": _text(spec.select_one(".state")),
        "sparse": _text(spec.select_one(".sparse")),
        "disputed": _text(spec.select_one(".dispute li")),
    }


def read_api(out: Outputs, ident: str, field: str) -> dict[str, Any] | None:
    specs = {s["key"]: s for s in out.client.get(f"/api/accelerators/{ident}").json()["specs"]}
    spec = specs.get(SPEC_KEY[field])
    if spec is None:
        return None
    return {
        "state": spec["state"],
        "display": spec["primary"]["display"],
        "amount": spec["primary"]["amount"],
        "unit": spec["primary"]["unit"],
        "sparse": spec["sparse"]["display"] if spec["sparse"] else None,
        "others": [o["value"] for o in spec["other_claims"]],
    }


def read_table_page(out: Outputs, ident: str, field: str) -> dict[str, Any]:
    page = BeautifulSoup(out.client.get("/silicon/").text, "lxml")
    cell = page.select_one(f'tr[data-id="{ident}"] td[data-key="{TABLE_KEY[field]}"]')
    state = cell.select_one(".state")
    number = cell.select_one(".num")
    return {
        "text": _text(cell),
        "state": next((c.removeprefix("state-") for c in state["class"] if c.startswith("state-")), None) if state else None,
        "stated": number.get("title") if number is not None else None,
    }


def _export(rows: dict[str, dict[str, Any]] | None, ident: str, field: str) -> dict[str, Any]:
    if rows is None:
        pytest.skip("the optional 'parquet' extra (pyarrow) is not installed")
    return {c: rows[ident][c] for c in EXPORT_COLUMNS[field]}


def read_chart(out: Outputs, ident: str, field: str) -> dict[str, Any]:
    url, axis = CHART[field]
    view = out.client.get(url).json()
    for point in view["points"]:
        if point["id"] == ident:
            return {"plotted": point[axis], "text": point[f"{axis}_text"], "disputed": point["disputed"]}
    return {"excluded": next(e["reason"] for e in view["excluded"] if e["id"] == ident)}


def read_comparison(out: Outputs, ident: str, field: str) -> dict[str, Any] | None:
    view = out.client.get(f"/api/compare?ids={ident},acme-b1").json()
    row = next((r for r in view["rows"] if r["key"] == SPEC_KEY[field]), None)
    if row is None:
        return None
    cell = next(c for c in row["cells"] if c["id"] == ident)
    return {
        "state": cell["state"],
        "display": cell["display"],
        "amount": cell["amount"],
        "sparse": cell["sparse"],
        "disputed": cell["disputed"],
    }


def read_derived(out: Outputs, ident: str, field: str) -> dict[str, Any]:
    derived = {d["key"]: d for d in out.client.get(f"/api/accelerators/{ident}").json()["derived"]}
    figure = derived.get(DERIVED_KEY[field])
    if figure is None:  # the page derives only at the record's own formats: ask the module for the rest
        from computeatlas.silicon import derive

        acc = out.catalog.accelerators[ident]
        figure = derive.ridge_point(acc, NumberFormat.FP4).model_dump(mode="json")
    return {
        "state": figure["state"],
        "display": figure["display"],
        "value": plain(figure["value"]) if figure["value"] else None,
        "reason": figure["reason"],
    }


READERS = {
    "page": read_page,
    "api": read_api,
    "table_page": read_table_page,
    "csv": lambda out, i, f: _export(out.csv_rows, i, f),
    "parquet": lambda out, i, f: _export(out.parquet_rows, i, f),
    "sqlite": lambda out, i, f: _export(out.sqlite_rows, i, f),
    "json": lambda out, i, f: _export(out.json_rows, i, f),
    "chart": read_chart,
    "comparison": read_comparison,
    "derived": read_derived,
}

# --- what a person should see ---------------------------------------------------------

TEXT = "Up to 700 W (board)"
GIB = 144 * 2**30  # 154,618,822,656 bytes
EXPECTED: dict[tuple[str, str], dict[str, dict[str, Any] | None]] = {
    ("acme-text", "power"): {
        "page": {"state": "published_as_text", "figure": TEXT, "badge": "published as text", "sparse": None, "disputed": None},
        "api": {"state": "published_as_text", "display": TEXT, "amount": None, "unit": None, "sparse": None, "others": []},
        "table_page": {"text": TEXT, "state": "published_as_text", "stated": None},
        "csv": {"power_w": "", "power_w_state": "published as text", "power_stated": TEXT},
        "parquet": {"power_w": None, "power_w_state": "published as text", "power_stated": TEXT},
        "sqlite": {"power_w": None, "power_w_state": "published as text", "power_stated": TEXT},
        "json": {"power_w": None, "power_w_state": "published as text", "power_stated": TEXT},
        "chart": {"excluded": f"power: published as text (“{TEXT}”)"},
        "comparison": {"state": "published_as_text", "display": TEXT, "amount": None, "sparse": None, "disputed": False},
        "derived": {"state": "published_as_text", "display": "published as text", "value": None,
                    "reason": f"power: published as text (“{TEXT}”)"},
    },
    ("acme-nosparse", "sparse"): {
        "page": {"state": "published", "figure": "1,979 TFLOPS", "badge": None, "sparse": None, "disputed": None},
        "api": {"state": "published", "display": "1,979 TFLOPS", "amount": 1979e12, "unit": "FLOP/s", "sparse": None, "others": []},
        "table_page": {"text": "1,979", "state": None, "stated": None},  # the dense figure; the page has no sparse column
        "csv": {"fp8_sparse_tflops": "", "fp8_sparse_tflops_state": "not yet collected", "fp8_sparse_stated": "",
                "fp8_sparse_pattern": "", "fp8_dense_tflops": "1979"},
        "parquet": {"fp8_sparse_tflops": None, "fp8_sparse_tflops_state": "not yet collected", "fp8_sparse_stated": "",
                    "fp8_sparse_pattern": "", "fp8_dense_tflops": 1979.0},
        "sqlite": {"fp8_sparse_tflops": None, "fp8_sparse_tflops_state": "not yet collected", "fp8_sparse_stated": "",
                   "fp8_sparse_pattern": "", "fp8_dense_tflops": 1979.0},
        "json": {"fp8_sparse_tflops": None, "fp8_sparse_tflops_state": "not yet collected", "fp8_sparse_stated": "",
                 "fp8_sparse_pattern": "", "fp8_dense_tflops": 1979},
        "chart": {"plotted": 1979.0, "text": "1979 TFLOPS", "disputed": False},  # the dense figure, never the sparse one
        "comparison": {"state": "published", "display": "1,979 TFLOPS", "amount": 1979e12, "sparse": None, "disputed": False},
        "derived": {"state": "derived", "display": "591 FLOP/byte", "value": 590.746268657, "reason": None},  # 1979e12 / 3.35e12
    },
    ("acme-hopperish", "fp4"): {
        "page": None,  # the page lists the record's formats only: no FP4 row
        "api": None,
        "table_page": {"text": "not yet collected", "state": "not_collected", "stated": None},
        "csv": {"fp4_dense_tflops": "", "fp4_dense_tflops_state": "not yet collected", "fp4_sparse_tflops_state": "not yet collected"},
        "parquet": {"fp4_dense_tflops": None, "fp4_dense_tflops_state": "not yet collected", "fp4_sparse_tflops_state": "not yet collected"},
        "sqlite": {"fp4_dense_tflops": None, "fp4_dense_tflops_state": "not yet collected", "fp4_sparse_tflops_state": "not yet collected"},
        "json": {"fp4_dense_tflops": None, "fp4_dense_tflops_state": "not yet collected", "fp4_sparse_tflops_state": "not yet collected"},
        "chart": {"excluded": "FP4 compute: not yet collected"},
        "comparison": {"state": "not_collected", "display": "not yet collected", "amount": None, "sparse": None, "disputed": False},
        "derived": {"state": "not_collected", "display": "not yet collected", "value": None, "reason": "FP4 dense compute: not yet collected"},
    },
    ("acme-gib", "memory"): {
        "page": {"state": "published", "figure": "144 GiB", "badge": None, "sparse": None, "disputed": None},
        "api": {"state": "published", "display": "144 GiB", "amount": GIB, "unit": "B", "sparse": None, "others": []},
        # as stated first; the conversion (154.618822656 GB) beside it at three significant figures
        "table_page": {"text": "144 GiB = 155 GB", "state": None, "stated": None},
        "csv": {"memory_gb": "154.618822656", "memory_gb_state": "published", "memory_stated": "144 GiB", "memory_bytes": "154618822656"},
        "parquet": {"memory_gb": 154.618822656, "memory_gb_state": "published", "memory_stated": "144 GiB", "memory_bytes": float(GIB)},
        "sqlite": {"memory_gb": 154.618822656, "memory_gb_state": "published", "memory_stated": "144 GiB", "memory_bytes": float(GIB)},
        "json": {"memory_gb": 154.618822656, "memory_gb_state": "published", "memory_stated": "144 GiB", "memory_bytes": GIB},
        "chart": {"plotted": 154.618822656, "text": "144 GiB", "disputed": False},
        "comparison": {"state": "published", "display": "144 GiB", "amount": GIB, "sparse": None, "disputed": False},
        "derived": {"state": "derived", "display": "77.3 billion parameters", "value": 77309411328, "reason": None},  # GIB × 8 ÷ 16
    },
    ("acme-disputed", "bandwidth"): {
        "page": {"state": "published", "figure": "3.35 TB/s", "badge": None, "sparse": None, "disputed": "3 TB/s — Press : Rounded at launch."},
        "api": {"state": "published", "display": "3.35 TB/s", "amount": 3.35e12, "unit": "B/s", "sparse": None, "others": ["3 TB/s"]},
        # a press figure against the maker's own: a note on the record page, no badge in the table
        "table_page": {"text": "3.35", "state": None, "stated": None},
        "csv": {"memory_bandwidth_tbps": "3.35", "memory_bandwidth_tbps_state": "published", "memory_bandwidth_stated": "3.35 TB/s", "disputed_specs": "memory_bandwidth"},
        "parquet": {"memory_bandwidth_tbps": 3.35, "memory_bandwidth_tbps_state": "published", "memory_bandwidth_stated": "3.35 TB/s", "disputed_specs": "memory_bandwidth"},
        "sqlite": {"memory_bandwidth_tbps": 3.35, "memory_bandwidth_tbps_state": "published", "memory_bandwidth_stated": "3.35 TB/s", "disputed_specs": "memory_bandwidth"},
        "json": {"memory_bandwidth_tbps": 3.35, "memory_bandwidth_tbps_state": "published", "memory_bandwidth_stated": "3.35 TB/s", "disputed_specs": "memory_bandwidth"},
        "chart": {"plotted": 3.35, "text": "3.35 TB/s", "disputed": True},
        "comparison": {"state": "published", "display": "3.35 TB/s", "amount": 3.35e12, "sparse": None, "disputed": True},
        "derived": {"state": "derived", "display": "591 FLOP/byte", "value": 590.746268657, "reason": None},
    },
}  # fmt: skip


@pytest.mark.parametrize("output", list(READERS))
@pytest.mark.parametrize(("ident", "field"), list(EXPECTED))
def test_every_output_shows_what_a_person_should_see(outputs: Outputs, ident: str, field: str, output: str) -> None:
    seen = READERS[output](outputs, ident, field)
    expected = EXPECTED[(ident, field)][output]
    if isinstance(seen, dict) and isinstance(expected, dict):
        seen = {k: pytest.approx(v) if isinstance(v, float) else v for k, v in seen.items()}
    assert seen == expected


def test_every_case_is_read_from_every_output() -> None:
    assert all(set(outputs) == set(READERS) for outputs in EXPECTED.values())


def test_the_compare_page_shows_the_words_of_a_text_only_figure(outputs: Outputs) -> None:
    page = BeautifulSoup(outputs.client.get("/compare/acme-b1-vs-acme-text").text, "lxml")
    row = page.select_one('tr[data-key="power"]') or next(
        tr for tr in page.select("tr") if tr.select_one("th") and tr.select_one("th").get_text(strip=True).startswith("Power")
    )
    assert TEXT in row.get_text(" ") and "published as text" in row.get_text(" ")


# --- the rule itself ------------------------------------------------------------------


def test_flop_and_op_are_decided_once() -> None:
    assert (compute_unit(NumberFormat.INT8), tera_unit(NumberFormat.INT8)) == ("OP/s", "TOPS")
    assert (compute_unit(NumberFormat.FP8), tera_unit(NumberFormat.FP8)) == ("FLOP/s", "TFLOPS")


def test_rounding_is_decided_once() -> None:
    assert plain(1979e12 / 1e12) == 1979 and isinstance(plain(80.0), int)
    assert plain(3.35e12 / 1e12) == 3.35 and plain_text(plain(0.1 + 0.2)) == "0.3"


def test_weakest_input_decides_a_derived_state() -> None:
    assert weakest([State.NOT_COLLECTED, State.NOT_PUBLISHED]) is State.NOT_PUBLISHED
    assert weakest([State.NOT_PUBLISHED, State.NOT_APPLICABLE]) is State.NOT_APPLICABLE
    assert weakest([State.NOT_SOURCED, State.PUBLISHED_AS_TEXT]) is State.PUBLISHED_AS_TEXT
    text = present(None, what="power")
    derived = present_derived([text], None, "FLOP/s per W")
    assert (derived.state, derived.label, derived.derived) == (State.NOT_COLLECTED, "not yet collected", True)
    assert present_derived([], 2.5, "1/s").label == "derived from published figures"


def test_every_record_state_keeps_its_words(outputs: Outputs) -> None:
    acc = outputs.catalog.accelerators["acme-b1"]
    assert present(acc.specs.software).state is State.PUBLISHED  # the words are the spec
    assert present(acc.specs.interconnect, figure=True).display == "900 GB/s (bidirectional)"
    assert present_sparse(acc.compute(NumberFormat.FP4)).state is State.NOT_COLLECTED
    assert all(State(s.value).label == s.label for s in State)  # the five record states keep their words


def test_derived_columns_of_the_exports_carry_the_weakest_input_state(outputs: Outputs) -> None:
    text = outputs.csv_rows["acme-text"]
    assert (text["fp8_dense_tflops_per_w"], text["fp8_dense_tflops_per_w_state"]) == ("", "published as text")
    hopper = outputs.json_rows["acme-hopperish"]
    assert (hopper["ridge_point_fp4_flop_per_byte"], hopper["ridge_point_fp4_flop_per_byte_state"]) == (None, "not yet collected")
    gib = outputs.sqlite_rows["acme-gib"]
    assert (gib["largest_model_bf16_billion_params"], gib["largest_model_bf16_billion_params_state"]) == (
        pytest.approx(77.309411328),
        "derived from published figures",
    )


def test_a_link_bandwidth_sits_only_in_the_column_of_its_counting_convention(outputs: Outputs) -> None:
    link = outputs.catalog.accelerators["acme-b1"].specs.interconnect  # 900 GB/s, bidirectional
    both = present_link(link, LinkDirection.BIDIRECTIONAL)
    assert (both.state, both.amount, both.stated) == (State.PUBLISHED, 900e9, "900 GB/s")
    one_way = present_link(link, LinkDirection.PER_DIRECTION)
    assert (one_way.state, one_way.amount) == (State.NOT_COMPARABLE, None)
    assert one_way.reason == "interconnect bandwidth: not comparable (the source counts it bidirectional, not per direction)"
    assert present_link(None, LinkDirection.NOT_STATED).state is State.NOT_COLLECTED
