"""The one tabular reader (computeatlas.core.tabular): header, BOM, quoting, line numbers and
the one error type naming file, line and column, and the readers built on it."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from computeatlas.cli import app as cli
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputFailed
from computeatlas.cloud.rates import COLUMNS as RATE_COLUMNS
from computeatlas.cloud.rates import load_rates
from computeatlas.core.tabular import CellError, TableError, read_table
from computeatlas.economics.token_files import JsonInputError
from tests.conftest import CliRunner
from tests.test_observations_import import HEADER
from tests.test_pricing import OFFERS, problems, write_cloud, write_offers

RATES = ",".join(RATE_COLUMNS) + "\n"


def rows(text: str, required: tuple[str, ...] = ("a", "b")) -> list[tuple[int, dict[str, str] | TableError]]:
    return list(read_table("data/x.csv", required, text=text))


def test_rows_come_with_the_line_they_start_on_across_quoted_newlines_and_blank_lines() -> None:
    text = 'a,b\n1,"two\nlines"\n\n3,"x, ""quoted"""\r\n4,5\r\n'
    assert rows(text) == [
        (2, {"a": "1", "b": "two\nlines"}),
        (5, {"a": "3", "b": 'x, "quoted"'}),
        (6, {"a": "4", "b": "5"}),
    ]


def test_only_cr_and_lf_end_a_line_not_unicode_line_separators_in_a_cell() -> None:
    # str.splitlines would also break at U+2028 and U+0085 (a cp1252 ellipsis read as Latin-1)
    assert rows("a,b\n1,caf\u2028e\n2,z\x85w\n3,\x0c\n") == [
        (2, {"a": "1", "b": "caf\u2028e"}),
        (3, {"a": "2", "b": "z\x85w"}),
        (4, {"a": "3", "b": "\x0c"}),
    ]


def test_a_header_lacking_required_columns_is_one_error_per_column_at_line_1() -> None:
    with pytest.raises(TableError) as caught:
        rows("a,amount\n1,2\n", required=("a", "price", "currency"))
    assert [str(e) for e in caught.value.errors] == [
        "data/x.csv: line 1: column price: missing column (the header must name it)",
        "data/x.csv: line 1: column currency: missing column (the header must name it)",
    ]


def test_a_file_separated_by_semicolons_is_one_error_saying_so() -> None:
    with pytest.raises(TableError) as caught:
        rows("a;price;currency\n1;2;USD\n", required=("a", "price", "currency"))
    assert [str(e) for e in caught.value.errors] == [
        "data/x.csv: line 1: column (header): the header is one column separated by semicolons, not commas: "
        "write the file comma-separated (found 'a;price;currency')"
    ]


def test_other_columns_are_allowed_unless_the_header_must_be_exact() -> None:
    table = read_table("data/x.csv", ("a",), text="b,a\n1,2\n")
    assert table.header == ("b", "a") and list(table) == [(2, {"b": "1", "a": "2"})]
    with pytest.raises(TableError) as caught:
        read_table("data/x.csv", ("a", "b"), exact=True, text="b,a\n")
    assert str(caught.value) == "data/x.csv: line 1: column (header): the columns must be exactly a,b (found 'b,a')"


def test_a_header_naming_a_column_twice_is_an_error() -> None:
    with pytest.raises(TableError, match=r"line 1: column \(header\): the header names a column twice \(found 'a'\)"):
        rows("a,b,a\n1,2,3\n")


def test_a_ragged_row_is_an_error_of_that_row_and_the_next_rows_are_read() -> None:
    found = rows("a,b\n1,2,3\n4\n5,6\n")
    assert [str(r) if isinstance(r, TableError) else r for _, r in found] == [
        "data/x.csv: line 2: column (row): expected 2 cells, found 3",
        "data/x.csv: line 3: column (row): expected 2 cells, found 1",
        {"a": "5", "b": "6"},
    ]
    assert [line for line, _ in found] == [2, 3, 4]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('a,b\n1,2\n3,"x"y\n', "data/x.csv: line 3: column (row): broken CSV: ',' expected after '\"'"),
        ('a,b\n1,2\n3,"never closed\n4,5\n6,7\n', "data/x.csv: line 3: column (row): broken CSV: unexpected end of data"),
        ('a,"b\n', "data/x.csv: line 1: column (header): broken CSV: unexpected end of data"),
    ],
)
def test_bad_quoting_stops_the_file_naming_the_line_where_the_broken_row_starts(text: str, expected: str) -> None:
    with pytest.raises(TableError) as caught:
        rows(text)
    assert str(caught.value) == expected


def test_a_byte_order_mark_is_dropped_from_a_file_and_from_text(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfa,b\r\n1,2\r\n")
    table = read_table(path, ("a", "b"))
    assert table.header == ("a", "b") and table.file == str(path) and list(table) == [(2, {"a": "1", "b": "2"})]
    assert rows("\ufeffa,b\n3,4\n") == [(2, {"a": "3", "b": "4"})]


def test_an_empty_file_is_an_error_when_columns_are_required_and_no_rows_otherwise() -> None:
    with pytest.raises(TableError) as caught:
        rows("")
    assert str(caught.value) == "data/x.csv: line 1: column (header): the file is empty: the header must name a, b"
    empty = read_table("data/x.csv", text="")
    assert empty.header == () and list(empty) == []


def test_a_header_only_file_has_no_rows() -> None:
    table = read_table("data/x.csv", ("a", "b"), text="a,b\n")
    assert table.header == ("a", "b") and list(table) == []


def test_text_that_is_not_utf8_or_is_binary_names_the_line(tmp_path: Path) -> None:
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"a,b\n1,2\n3,caf\xe9\n")
    with pytest.raises(TableError) as caught:
        read_table(latin, ("a", "b"))
    assert str(caught.value) == f"{latin}: line 3: column (file): not UTF-8 text: invalid continuation byte"
    with pytest.raises(TableError) as caught:
        rows("a,b\n1,2\x00\n")
    assert (caught.value.line, caught.value.column, caught.value.message) == (2, "(file)", "not a CSV file (binary content)")
    with pytest.raises(TableError) as caught:
        read_table(tmp_path, ("a",))
    assert caught.value.column == "(file)" and caught.value.message.startswith("cannot read the file: ")


def test_a_cell_error_is_placed_at_its_file_and_line_and_errors_survive_pickling() -> None:
    cell = CellError("price", "not a number", "abc")
    placed = cell.at("data/x.csv", 12)
    assert str(placed) == "data/x.csv: line 12: column price: not a number (found 'abc')"
    assert placed == TableError("data/x.csv", 12, "price", "not a number", "abc") != cell
    for error in (placed, cell, JsonInputError("t.json", "$[3].price", "not a number", "x")):
        again = pickle.loads(pickle.dumps(error))
        assert again == error and str(again) == str(error) and type(again) is type(error)
    assert str(JsonInputError("t.json", "$[3].price", "not a number", "x")) == "t.json: JSON path $[3].price: not a number (found 'x')"


# --- the readers built on it ---------------------------------------------------------


def test_the_rate_table_reports_a_ragged_row_and_non_utf8_text_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "rates.csv"
    path.write_text(RATES + "2026-11-01,EUR,1.08,https://example.org/r,ECB\n2026-11-02,EUR,1.09\n", encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        load_rates(path)
    assert [str(e) for e in caught.value.errors] == [f"{path}: line 3: column (row): expected 5 cells, found 3"]
    path.write_bytes(RATES.encode() + b"2026-11-01,EUR,1.08,https://example.org/r,\xff\n")
    with pytest.raises(InputFailed, match=r"rates.csv: line 2: column \(file\): not UTF-8 text"):
        load_rates(path)


def test_an_instance_table_row_with_a_quoted_newline_is_numbered_by_its_first_line(tmp_path: Path) -> None:
    fixtures = Path(__file__).parent / "fixtures" / "prices" / "instances" / "test.csv"
    header = fixtures.read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "x.csv").write_text(
        header + "\n"
        "runpod,1x_L4_SECURE,nvidia-l4,,1,all_in,24,https://www.runpod.io/pricing,RunPod,2026-11-30,\n"
        'runpod,2x_L4_SECURE,nvidia-l4,,two,all_in,24,https://www.runpod.io/pricing,"Run\nPod",2026-11-30,\n'
        "runpod,4x_L4_SECURE,nvidia-l4,,four,all_in,24,https://www.runpod.io/pricing,RunPod,2026-11-30,\n",
        encoding="utf-8",
    )
    with pytest.raises(InputFailed) as caught:
        load_instances(tmp_path)
    assert [(e.line, e.column, e.text) for e in caught.value.errors] == [(3, "accelerators", "two"), (5, "accelerators", "four")]


def test_a_csv_data_file_with_bad_quoting_is_a_problem_naming_the_row(tmp_path: Path) -> None:
    folder = write_cloud(tmp_path / "data", [])
    path = write_offers(folder, OFFERS[:1])
    path.write_text(path.read_text(encoding="utf-8") + 'alpha,"unclosed\n', encoding="utf-8")
    assert problems(folder) == ["data/offers/offers.csv: row 3: broken CSV: unexpected end of data"]


def test_the_cli_reports_a_broken_import_file_in_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "prices.csv"
    bad.write_text(HEADER + 'lambda,"gpu_1x_h100\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["prices", "import", "atlas", str(bad), "--prices", str(tmp_path / "store")])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"{bad}: line 2: column (row): broken CSV: unexpected end of data" in result.stderr
    assert not (tmp_path / "store").exists()


def test_a_header_only_import_says_nothing_was_imported_and_writes_no_run(tmp_path: Path) -> None:
    source = tmp_path / "header.csv"
    source.write_text(HEADER, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["prices", "import", "atlas", str(source), "--prices", str(tmp_path / "store")], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "Nothing added (atlas): no run written" in " ".join(result.stdout.split())
    assert "warning: the file holds a header and no rows: nothing was imported" in result.stderr
    assert not (tmp_path / "store" / "runs").exists()
