"""The silicon table and its exports: the frozen schema, the literal CSV of the small catalog,
formula neutralisation, JSON, Parquet, SQLite, the Frictionless data package, the Hugging Face
card, and ``computeatlas export``."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from computeatlas.catalog import Catalog, load
from computeatlas.cli import app
from computeatlas.ledger.request import FORM_FIELDS
from computeatlas.publish.exports import (
    FOLDER_FORMATS,
    build,
    huggingface,
    silicon_table,
)
from computeatlas.publish.exports import csv as csv_export
from computeatlas.publish.exports import json as json_export
from computeatlas.publish.exports.datapackage import descriptor
from tests.conftest import TODAY, CliRunner, make_record, write_data


def _figure_columns(name: str, stated: str | None = None) -> list[str]:
    return [name, f"{name}_state", *([stated] if stated else [])]


def _frozen_columns() -> list[str]:
    """Schema 3.0.0, written out rule by rule (the rules are the schema's documentation)."""
    formats = [("int4", "tops"), ("fp4", "tflops"), ("fp6", "tflops"), ("int8", "tops"), ("fp8", "tflops"),
               ("bf16", "tflops"), ("fp16", "tflops"), ("tf32", "tflops"), ("fp32", "tflops"), ("fp64", "tflops")]  # fmt: skip
    compute = [
        c
        for f, unit in formats
        for c in (
            *_figure_columns(f"{f}_dense_{unit}", f"{f}_dense_stated"),
            *_figure_columns(f"{f}_sparse_{unit}", f"{f}_sparse_stated"),
            f"{f}_sparse_pattern",
        )
    ]
    derived = [
        "ridge_point_fp4_flop_per_byte",
        "ridge_point_fp8_flop_per_byte",
        "ridge_point_bf16_flop_per_byte",
        "memory_sweeps_per_s",
        "fp4_dense_tflops_per_w",
        "fp8_dense_tflops_per_w",
        "bf16_dense_tflops_per_w",
        "largest_model_fp4_billion_params",
        "largest_model_fp8_billion_params",
        "largest_model_bf16_billion_params",
    ]
    return [
        "id", "name", "vendor", "vendor_id", "family", "form_factor", "workload", "availability",
        *_figure_columns("memory_gb", "memory_stated"), "memory_bytes", "memory_type",
        *_figure_columns("memory_bandwidth_tbps", "memory_bandwidth_stated"),
        *compute,
        *_figure_columns("power_w", "power_stated"), "interconnect", "interconnect_direction",
        *_figure_columns("interconnect_per_direction_gbps"), *_figure_columns("interconnect_bidirectional_gbps"),
        *_figure_columns("interconnect_direction_not_stated_gbps", "interconnect_bandwidth_stated"), "software", "audience", "catch",
        *(c for d in derived for c in _figure_columns(d)),
        "disputed_specs", "verified", "sources",
    ]  # fmt: skip


FROZEN_COLUMNS_3_0_0 = ",".join(_frozen_columns())

NYC = "not yet collected"
DERIVED = "derived from published figures"
SOURCE = "Acme datasheet — Acme [vendor] https://acme.example/sheet.pdf"
_NOT_LISTED = ("int4_dense_tops", "int4_sparse_tops", "fp4_dense_tflops", "fp4_sparse_tflops", "fp6_dense_tflops",
               "fp6_sparse_tflops", "int8_dense_tops", "int8_sparse_tops", "fp16_dense_tflops", "fp16_sparse_tflops",
               "tf32_dense_tflops", "tf32_sparse_tflops", "fp32_dense_tflops", "fp32_sparse_tflops", "fp64_dense_tflops",
               "fp64_sparse_tflops")  # fmt: skip


def _row(**cells: str) -> dict[str, str]:
    """Every cell of a row; cells not named are empty, formats the record does not list are not yet collected."""
    row = dict.fromkeys(FROZEN_COLUMNS_3_0_0.split(","), "")
    row.update({f"{c}_state": NYC for c in _NOT_LISTED})
    common = {"vendor": "Acme Silicon", "vendor_id": "acme", "family": "Test", "form_factor": "PCIe card", "workload": "both",
              "availability": "buy", "interconnect": "AcmeLink", "interconnect_direction": "bidirectional",
              "interconnect_bidirectional_gbps": "900", "interconnect_bidirectional_gbps_state": "published",
              "interconnect_per_direction_gbps_state": "not comparable",
              "interconnect_direction_not_stated_gbps_state": "not comparable", "interconnect_bandwidth_stated": "900 GB/s",
              "software": "AcmeSDK", "audience": "Testers.", "catch": "None known.", "disputed_specs": "none",
              "verified": "2026-11-01", "sources": SOURCE, "ridge_point_fp4_flop_per_byte_state": NYC,
              "fp4_dense_tflops_per_w_state": NYC}  # fmt: skip
    for key, value in {**common, **cells}.items():
        assert key in row, key
        row[key] = value
    return row


def _published(name: str, number: str, stated: str | None) -> dict[str, str]:
    out = {name: number, f"{name}_state": "published"}
    if stated:
        out[
            {"memory_gb": "memory_stated", "memory_bandwidth_tbps": "memory_bandwidth_stated", "power_w": "power_stated"}.get(
                name, name.rsplit("_", 1)[0] + "_stated"
            )
        ] = stated
    return out


def _derived(**numbers: str) -> dict[str, str]:
    out = {}
    for name, value in numbers.items():
        out.update({name: value, f"{name}_state": DERIVED} if value[0].isdigit() else {f"{name}_state": value})
    return out


_ACME_COMPUTE = {
    **_published("fp8_dense_tflops", "1979", "1979 TFLOPS"), **_published("fp8_sparse_tflops", "3958", "3958 TFLOPS"),
    "fp8_sparse_pattern": "2:4 structured",
    **_published("bf16_dense_tflops", "989.5", "989.5 TFLOPS"), **_published("bf16_sparse_tflops", "1979", "1979 TFLOPS"),
    "bf16_sparse_pattern": "2:4 structured",
}  # fmt: skip

# Hand-worked from the records in conftest.SMALL_CATALOG:
# acme-a1: 80 GB, 3.35 TB/s, FP8 1979 / 3958 sparse, BF16 989.5 / 1979, 700 W, AcmeLink 900 GB/s
#   ridge FP8 1979e12 / 3.35e12 = 590.746268657; ridge BF16 989.5 / 3.35 = 295.373134328
#   sweeps 3.35e12 / 80e9 = 41.875; FP8/W 1979 / 700 = 2.82714285714; BF16/W 989.5 / 700 = 1.41357142857
#   largest model 80 GB x 8 bits: FP4 160, FP8 80, BF16 40 billion parameters
# acme-a2: 144 GB, 4.9 TB/s, power not published -> every per-watt figure "not published"
#   ridge FP8 1979 / 4.9 = 403.87755102; BF16 989.5 / 4.9 = 201.93877551; sweeps 4.9e12 / 144e9 = 34.0277777778
# globex-g1: 24 GB, 0.3 TB/s, no FP8 units -> FP8 cells and FP8-derived figures "not applicable"
#   ridge BF16 989.5 / 0.3 = 3298.33333333; sweeps 0.3e12 / 24e9 = 12.5; BF16/W 989.5 / 72 = 13.7430555556
EXPECTED_ROWS = [
    _row(
        id="acme-a1",
        name="Acme A1",
        **_published("memory_gb", "80", "80 GB"),
        memory_bytes="80000000000",
        memory_type="HBM3",
        **_published("memory_bandwidth_tbps", "3.35", "3.35 TB/s"),
        **_ACME_COMPUTE,
        **_published("power_w", "700", "700 W"),
        **_derived(
            ridge_point_fp8_flop_per_byte="590.746268657",
            ridge_point_bf16_flop_per_byte="295.373134328",
            memory_sweeps_per_s="41.875",
            fp8_dense_tflops_per_w="2.82714285714",
            bf16_dense_tflops_per_w="1.41357142857",
            largest_model_fp4_billion_params="160",
            largest_model_fp8_billion_params="80",
            largest_model_bf16_billion_params="40",
        ),
    ),
    _row(
        id="acme-a2",
        name="Acme A2",
        availability="cloud-only",
        **_published("memory_gb", "144", "144 GB"),
        memory_bytes="144000000000",
        memory_type="HBM3e",
        **_published("memory_bandwidth_tbps", "4.9", "4.9 TB/s"),
        **_ACME_COMPUTE,
        power_w_state="not published",
        **_derived(
            ridge_point_fp8_flop_per_byte="403.87755102",
            ridge_point_bf16_flop_per_byte="201.93877551",
            memory_sweeps_per_s="34.0277777778",
            fp4_dense_tflops_per_w="not published",
            fp8_dense_tflops_per_w="not published",
            bf16_dense_tflops_per_w="not published",
            largest_model_fp4_billion_params="288",
            largest_model_fp8_billion_params="144",
            largest_model_bf16_billion_params="72",
        ),
    ),
    _row(
        id="globex-g1",
        name="Globex G1",
        vendor="Globex",
        vendor_id="globex",
        workload="inference",
        **_published("memory_gb", "24", "24 GB"),
        memory_bytes="24000000000",
        memory_type="GDDR6",
        **_published("memory_bandwidth_tbps", "0.3", "300 GB/s"),
        sources="Acme datasheet — Acme [vendor] https://globex.example/sheet.pdf",
        fp8_dense_tflops_state="not applicable",
        fp8_sparse_tflops_state="not applicable",
        **_published("bf16_dense_tflops", "989.5", "989.5 TFLOPS"),
        **_published("bf16_sparse_tflops", "1979", "1979 TFLOPS"),
        bf16_sparse_pattern="2:4 structured",
        **_published("power_w", "72", "72 W"),
        **_derived(
            ridge_point_fp8_flop_per_byte="not applicable",
            ridge_point_bf16_flop_per_byte="3298.33333333",
            memory_sweeps_per_s="12.5",
            fp8_dense_tflops_per_w="not applicable",
            bf16_dense_tflops_per_w="13.7430555556",
            largest_model_fp4_billion_params="48",
            largest_model_fp8_billion_params="not applicable",
            largest_model_bf16_billion_params="12",
        ),
    ),
]


def _csv(rows: list[dict[str, str]]) -> str:
    def quote(cell: str) -> str:
        return f'"{cell}"' if any(ch in cell for ch in ',"\r\n') else cell

    return "".join(",".join(quote(c) for c in row.values()) + "\r\n" for row in rows)


EXPECTED_CSV = FROZEN_COLUMNS_3_0_0 + "\r\n" + _csv(EXPECTED_ROWS)


def test_schema_is_frozen_for_its_version() -> None:
    # A change of columns must raise SCHEMA_VERSION and add to SCHEMA_CHANGES (then update this test).
    assert silicon_table.SCHEMA_VERSION == "3.1.0"
    assert ",".join(c.name for c in silicon_table.COLUMNS) == FROZEN_COLUMNS_3_0_0
    assert silicon_table.SCHEMA_CHANGES[-1][0] == silicon_table.SCHEMA_VERSION
    units = {c.name: c.unit for c in silicon_table.COLUMNS}
    assert units["memory_gb"] == "GB (10^9 bytes)" and units["memory_bytes"] == "bytes"
    assert units["fp8_dense_tflops"] == "TFLOPS (10^12 FLOP/s)"
    assert units["int8_dense_tops"] == "TOPS (10^12 OP/s)"
    assert all(c.description for c in silicon_table.COLUMNS)


def test_csv_of_the_small_catalog_is_exactly_this(catalog: Catalog) -> None:
    assert csv_export.to_text(build(catalog)) == EXPECTED_CSV


def test_csv_reads_back_with_numbers_and_states_beside_them(catalog: Catalog) -> None:
    rows = list(csv.DictReader(io.StringIO(csv_export.to_text(build(catalog)), newline="")))
    by_id = {r["id"]: r for r in rows}
    assert (by_id["acme-a2"]["power_w"], by_id["acme-a2"]["power_w_state"]) == ("", "not published")
    assert (by_id["globex-g1"]["fp8_dense_tflops"], by_id["globex-g1"]["fp8_dense_tflops_state"]) == ("", "not applicable")
    assert by_id["acme-a1"]["fp4_dense_tflops_state"] == "not yet collected"
    numbers = [c.name for c in silicon_table.COLUMNS if c.kind == "number"]
    for row in rows:  # a number column holds a number or nothing, and its state never is blank
        for name in numbers:
            assert row[name] == "" or float(row[name]) >= 0, (name, row[name])
            if name != "memory_bytes":
                assert row[f"{name}_state"], name


def test_pandas_reads_every_number_column_as_numbers(tmp_path: Path, real_catalog: Catalog) -> None:
    pandas = pytest.importorskip("pandas")
    path = csv_export.write(build(real_catalog), tmp_path / "silicon.csv")[0]
    frame = pandas.read_csv(path)
    for column in silicon_table.COLUMNS:
        if column.kind == "number":
            assert pandas.api.types.is_numeric_dtype(frame[column.name]), (column.name, frame[column.name].dtype)
    assert frame.loc[frame["id"] == "aws-trainium-3", "memory_stated"].item() == "144 GiB"
    assert frame.loc[frame["id"] == "aws-trainium-3", "memory_bytes"].item() == 144 * 2**30


def test_the_csv_opens_right_in_excel_pandas_and_pythons_csv(tmp_path: Path, real_catalog: Catalog) -> None:
    """Excel on Windows reads a CSV as UTF-8 only with the byte-order mark; pandas drops it;
    Python's csv reads the first header clean with ``utf-8-sig`` (which reads files without one too)."""
    pandas = pytest.importorskip("pandas")
    path = csv_export.write(build(real_catalog), tmp_path / "silicon.csv")[0]
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfid,name,")
    assert list(pandas.read_csv(path).columns)[:2] == ["id", "name"]
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0])[:2] == ["id", "name"]
    # every line ends CRLF; no cell is a bare pattern a spreadsheet turns into a time (2:4 → 02:04)
    assert raw.count(b"\r\n") == raw.count(b"\n")
    h100 = next(r for r in rows if r["id"] == "nvidia-h100-sxm")
    assert h100["fp8_sparse_pattern"] == "2:4 structured"  # NVIDIA's H100 datasheet: FP8 3,958 TFLOPS with sparsity
    assert not any(re.fullmatch(r"\d+:\d+", cell) for r in rows for cell in r.values())


def test_a_per_superchip_figure_is_not_comparable_and_never_a_number(tmp_path: Path) -> None:
    record = make_record(
        "acme-s1",
        specs__memory={"state": "not_comparable", "published_text": "384 GB per superchip", "basis": "superchip", "source": "sheet"},
        specs__compute__FP8={"state": "not_comparable", "published_text": "20 PFLOPS sparse only", "basis": "chip", "source": "sheet"},
    )
    table = build(load(write_data(tmp_path / "d", [record]), today=TODAY))
    row = next(table.records())
    assert (row["memory_gb"], row["memory_gb_state"], row["memory_stated"]) == (None, "not comparable", "384 GB per superchip")
    assert row["fp8_dense_tflops"] is None and row["fp8_dense_tflops_state"] == "not comparable"
    assert row["fp8_sparse_tflops_state"] == "not comparable"
    assert row["memory_sweeps_per_s_state"] == "not comparable"  # derived: the state of its weakest input
    assert row["largest_model_fp8_billion_params_state"] == "not comparable"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+SUM(A1:A9)", "'+SUM(A1:A9)"),
        ("-2+3", "'-2+3"),
        ("@cmd", "'@cmd"),
        ("\tindent", "'\tindent"),
        ("\rreturn", "'\rreturn"),
        ("-3.5", "-3.5"),  # a real negative number stays a number
        ("-7", "-7"),
        ("plain", "plain"),
        ("a=b", "a=b"),
    ],
)
def test_neutralise(text: str, expected: str) -> None:
    assert csv_export.neutralise(text) == expected


def test_numbers_stay_numbers_and_text_is_neutralised_in_a_written_row() -> None:
    buffer = io.StringIO(newline="")
    csv_export.write_rows(buffer, ["a", "b", "c", "d", "e"], [[-3.5, -12, 0.00001, "=1+1", "-1"]])
    assert buffer.getvalue() == "a,b,c,d,e\r\n-3.5,-12,0.00001,'=1+1,-1\r\n"


@given(st.text(max_size=40))
def test_no_neutralised_cell_starts_a_formula(text: str) -> None:
    out = csv_export.neutralise(text)
    if out.startswith(csv_export.FORMULA_START):
        float(out)  # only a plain negative number may start with "-"
        assert out.startswith("-")


def test_hostile_record_text_is_neutralised_in_the_csv(tmp_path: Path) -> None:
    record = make_record(
        "evil-x1",
        name='=HYPERLINK("http://evil.example","click")',
        family="+cmd|' /C calc'!A0",
        audience="@SUM(1+1)",
        catch="-2+3",
        form_factor="\tPCIe card",
    )
    text = csv_export.to_text(build(load(write_data(tmp_path / "d", [record]), today=TODAY)))
    row = next(csv.DictReader(io.StringIO(text, newline="")))
    assert row["name"] == '\'=HYPERLINK("http://evil.example","click")'
    assert row["family"] == "'+cmd|' /C calc'!A0"
    assert row["audience"] == "'@SUM(1+1)"
    assert row["catch"] == "'-2+3"
    assert row["form_factor"] == "'\tPCIe card"
    assert row["memory_gb"] == "80"


def test_download_file_name_is_dated() -> None:
    import datetime as dt

    assert csv_export.filename(dt.date(2026, 11, 30)) == "compute-atlas-silicon-2026-11-30.csv"


def test_json_document_has_numbers_and_words(catalog: Catalog) -> None:
    doc = json.loads(json_export.to_text(build(catalog)))
    assert doc["licence"] == "CC-BY-NC-4.0"
    assert doc["data_version"] == catalog.version
    rows = {r["id"]: r for r in doc["rows"]}
    assert rows["acme-a1"]["memory_bandwidth_tbps"] == 3.35
    assert rows["acme-a1"]["fp8_sparse_tflops"] == 3958
    assert (rows["acme-a2"]["power_w"], rows["acme-a2"]["power_w_state"]) == (None, "not published")
    assert [c["name"] for c in doc["columns"]] == FROZEN_COLUMNS_3_0_0.split(",")
    assert doc["schema_version"] == "3.1.0"


def test_parquet_keeps_numbers_typed_and_states_beside_them(catalog: Catalog, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="the optional 'parquet' extra (pyarrow) is not installed")
    from computeatlas.publish.exports import parquet

    path = parquet.write(build(catalog), tmp_path / "silicon.parquet")[0]
    table = pq.read_table(path)
    rows = {r["id"]: r for r in table.to_pylist()}
    assert rows["acme-a1"]["memory_gb"] == 80.0 and rows["acme-a1"]["memory_gb_state"] == "published"
    assert rows["acme-a2"]["power_w"] is None and rows["acme-a2"]["power_w_state"] == "not published"
    assert str(rows["acme-a1"]["verified"]) == "2026-11-01"
    assert table.schema.metadata[b"schema_version"] == b"3.1.0"
    assert str(table.schema.field("power_w").type) == "double" and str(table.schema.field("power_w_state").type) == "string"


def test_sqlite_has_primary_keys_and_keeps_states(catalog: Catalog, tmp_path: Path) -> None:
    from computeatlas.publish.exports import sqlite as sqlite_export

    path = sqlite_export.write(build(catalog), tmp_path / "silicon.db")[0]
    db = sqlite3.connect(path)
    try:
        for table, keys in (
            ("accelerators", ["id"]),
            ("sources", ["accelerator_id", "key"]),
            ("columns", ["name"]),
            ("dataset_info", ["key"]),
        ):
            info = db.execute(f"PRAGMA table_info({table})").fetchall()
            assert [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]] == keys, table
        assert db.execute("SELECT memory_gb, typeof(memory_gb) FROM accelerators WHERE id = 'acme-a2'").fetchone() == (144.0, "real")
        assert db.execute("SELECT power_w, power_w_state FROM accelerators WHERE id = 'acme-a2'").fetchone() == (None, "not published")
        assert db.execute("SELECT count(*) FROM accelerators WHERE typeof(power_w) NOT IN ('real', 'null')").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM sources").fetchone() == (3,)
        assert db.execute("SELECT value FROM dataset_info WHERE key = 'licence'").fetchone() == ("CC-BY-NC-4.0",)
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        db.close()


def test_datapackage_validates_with_frictionless(catalog: Catalog, tmp_path: Path) -> None:
    frictionless = pytest.importorskip("frictionless")
    from computeatlas.publish.exports import datapackage

    written = datapackage.write(build(catalog), tmp_path / "pkg")
    assert [p.name for p in written] == ["silicon.csv", "datapackage.json"]
    report = frictionless.validate(str(tmp_path / "pkg" / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])
    resource = descriptor(build(catalog))["resources"][0]
    assert resource["schema"]["primaryKey"] == ["id"]
    assert resource["schema"]["missingValues"] == [""]
    fields = {f["name"]: f for f in resource["schema"]["fields"]}
    assert fields["memory_gb"]["type"] == "number" and fields["verified"]["type"] == "date"
    assert "not published" in fields["power_w_state"]["constraints"]["enum"]
    assert fields["memory_stated"]["type"] == "string"


def test_datapackage_validation_catches_a_broken_csv(catalog: Catalog, tmp_path: Path) -> None:
    frictionless = pytest.importorskip("frictionless")
    from computeatlas.publish.exports import datapackage

    datapackage.write(build(catalog), tmp_path / "pkg")
    csv_path = tmp_path / "pkg" / "silicon.csv"
    csv_path.write_text(csv_path.read_text(encoding="utf-8").replace(",80,published,80 GB,", ",eighty,published,80 GB,"), encoding="utf-8")
    assert not frictionless.validate(str(tmp_path / "pkg" / "datapackage.json")).valid


def test_huggingface_card_header_declares_licence_and_our_form(catalog: Catalog, tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    written = huggingface.write(build(catalog), tmp_path / "hf")
    assert sorted(p.relative_to(tmp_path / "hf").as_posix() for p in written) == ["README.md", "data/silicon.csv"]
    text = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["license"] == "cc-by-nc-4.0"
    assert header["configs"][0]["data_files"][0]["path"] == "data/silicon.csv"
    fields = header["extra_gated_fields"]
    assert (
        list(fields)
        == [f.label for f in FORM_FIELDS]
        == [
            "Name",
            "Email",
            "Organisation",
            "Intended use",
            "I accept the CC-BY-NC-4.0 licence",
        ]
    )
    assert fields["Name"] == "text" and fields["I accept the CC-BY-NC-4.0 licence"] == "checkbox"
    assert fields["Intended use"]["type"] == "select"
    assert [o["value"] for o in fields["Intended use"]["options"]] == ["research", "evaluation", "commercial"]
    assert (tmp_path / "hf" / "data" / "silicon.csv").read_bytes() == csv_export.to_bytes(build(catalog))


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("csv", "t.csv"), ("json", "t.json"), ("sqlite", "t.db"), ("parquet", "t.parquet"), ("datapackage", "pkg"), ("huggingface", "hf")],
)
def test_cli_export_writes_each_format(data_dir: Path, tmp_path: Path, fmt: str, name: str) -> None:
    if fmt == "parquet":
        pytest.importorskip("pyarrow", reason="the optional 'parquet' extra (pyarrow) is not installed")
    out = tmp_path / "out" / name
    result = CliRunner().invoke(app, ["export", "--format", fmt, "--out", str(out), "--data", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in " ".join(result.output.split())  # a long path stands alone on its line, whole
    assert out.is_dir() if fmt in FOLDER_FORMATS else out.is_file()
    if fmt == "csv":
        assert out.read_bytes().decode("utf-8-sig").split("\r\n")[0] == FROZEN_COLUMNS_3_0_0


def test_cli_export_rejects_a_bad_format_and_a_file_for_a_folder(data_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["export", "--format", "xlsx", "--out", str(tmp_path / "x"), "--data", str(data_dir)])
    assert bad.exit_code == 2 and "xlsx" in bad.output
    file = tmp_path / "f.txt"
    file.write_text("x")
    clash = runner.invoke(app, ["export", "--format", "huggingface", "--out", str(file), "--data", str(data_dir)])
    assert clash.exit_code == 2 and "writes a folder" in clash.output


def test_real_data_exports_every_accelerator_with_a_state_for_every_number(real_catalog: Catalog) -> None:
    table = build(real_catalog)
    assert len(table.rows) == len(real_catalog.accelerators)
    rows = {r["id"]: r for r in table.records()}
    numbers = [c.name for c in table.columns if c.kind == "number" and c.name != "memory_bytes"]
    assert all(row[f"{n}_state"] for row in rows.values() for n in numbers)
    h100 = rows["nvidia-h100-sxm"]
    assert (h100["memory_gb"], h100["memory_bandwidth_tbps"], h100["power_w"]) == (80, 3.35, 700)
    assert (h100["fp8_dense_tflops"], h100["fp8_sparse_tflops"]) == (1979, 3958)
    assert h100["ridge_point_fp8_flop_per_byte"] == 590.746268657  # 1979e12 / 3.35e12
    assert rows["nvidia-a100-sxm-80gb"]["fp8_dense_tflops_state"] == "not applicable"
    mi300x = rows["amd-instinct-mi300x"]  # AMD's CDNA 3 white paper: 2,614.9 dense, 5,229.8 with sparsity
    assert (mi300x["fp8_dense_tflops"], mi300x["fp8_sparse_tflops"], mi300x["fp8_sparse_tflops_state"]) == (2614.9, 5229.8, "published")
    mi350x = rows["amd-instinct-mi350x"]  # AMD's ROCm MI350 Series table: 4.6 PF dense, 9.2 PF with sparsity
    assert (mi350x["fp8_dense_tflops"], mi350x["fp8_sparse_tflops"], mi350x["fp8_sparse_tflops_state"]) == (4600, 9200, "published")
    mi455x = rows["amd-instinct-mi455x"]  # AMD's CDNA 5 feature summary lists no sparsity figure
    assert (mi455x["fp8_dense_tflops"], mi455x["fp8_sparse_tflops"]) == (20130, None)
    assert mi455x["fp8_sparse_tflops_state"] == "not yet collected"
    trn2 = rows["aws-trainium-2"]
    assert trn2["fp8_sparse_pattern"] == "M:N structured (AWS: up to 4:16)"


def test_parquet_without_pyarrow_is_a_clear_message_not_a_traceback(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)
    result = CliRunner().invoke(app, ["export", "--format", "parquet", "--out", str(tmp_path / "t.parquet"), "--data", str(data_dir)])
    assert result.exit_code == 2
    assert "Parquet needs pyarrow: install the extra with  pip install 'computeatlas[parquet]'" in " ".join(result.output.splitlines())
    assert not (tmp_path / "t.parquet").exists()


def test_cli_export_to_a_folder_path_is_a_clear_error_not_a_file(data_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "exports"
    result = CliRunner().invoke(app, ["export", "--format", "csv", "--out", f"{target}/", "--data", str(data_dir)])
    assert result.exit_code == 2
    assert " ".join(result.stderr.split()) == (  # wrapped at 80 columns
        f"--out {target}/: csv writes a file, and a path ending in '/' names a folder; "
        f"give a file name, e.g. {target}/compute-atlas-silicon.csv."
    )
    assert not target.exists()  # nothing written under the folder's name
    folder = CliRunner().invoke(app, ["export", "--format", "datapackage", "--out", f"{target}/", "--data", str(data_dir)])
    assert folder.exit_code == 0 and (target / "datapackage.json").is_file()
