"""Validation: every problem in the data folder is found, named by file, field and text."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from computeatlas.catalog import CatalogError, check, load
from computeatlas.cli import app as cli
from computeatlas.web.app import create_app
from tests.conftest import CliRunner

from .conftest import SMALL_CATALOG, TODAY, make_record, write_data


def problems_for(tmp_path: Path, *records: dict) -> list[str]:
    folder = write_data(tmp_path / "data", records)
    _, problems = check(folder, today=TODAY)
    return [str(p) for p in problems]


def test_small_catalog_is_valid(catalog) -> None:
    assert list(catalog.accelerators) == ["acme-a1", "acme-a2", "globex-g1"]


def test_broken_toml_names_the_file_and_line(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", SMALL_CATALOG)
    (folder / "accelerators" / "broken.toml").write_text('id = "broken\nname = 1\n')
    _, problems = check(folder, today=TODAY)
    assert [(p.file, p.field) for p in problems] == [("data/accelerators/broken.toml", "(file)")]
    assert "broken TOML" in problems[0].message and "line 1" in problems[0].message


def test_unknown_field(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-x", colour="red"))
    assert found == ["data/accelerators/acme-x.toml: colour: unknown field 'colour' (found 'red')"]


def test_wrong_unit_dimension_names_field_and_text(tmp_path: Path) -> None:
    bad = {"state": "published", "value": "4.9 TB", "basis": "chip", "source": "sheet"}
    found = problems_for(tmp_path, make_record("acme-x", specs__memory_bandwidth=bad))
    assert len(found) == 1
    assert found[0].startswith("data/accelerators/acme-x.toml: specs.memory_bandwidth.value: '4.9 TB' is not a bandwidth")


@pytest.mark.parametrize("value", ["0 W", "-700 W"])
def test_zero_or_negative_figure(tmp_path: Path, value: str) -> None:
    bad = {"state": "published", "value": value, "basis": "chip", "source": "sheet"}
    found = problems_for(tmp_path, make_record("acme-x", specs__power=bad))
    assert found == [f"data/accelerators/acme-x.toml: specs.power.value: '{value}' must be a positive figure"]


def test_core_spec_left_unresearched(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-x", specs__power=None))
    assert len(found) == 1 and "specs.power: core spec 'power' not researched" in found[0]


def test_required_compute_format_missing(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-x", specs__compute__BF16=None))
    assert len(found) == 1 and "compute.BF16 not researched" in found[0]


def test_duplicate_id(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", [make_record("acme-x")])
    (folder / "accelerators" / "acme-y.toml").write_text((folder / "accelerators" / "acme-x.toml").read_text())
    _, problems = check(folder, today=TODAY)
    messages = [str(p) for p in problems]
    assert "data/accelerators/acme-y.toml: id: id must equal the file name 'acme-y' (found 'acme-x')" in messages
    assert "data/accelerators/acme-y.toml: id: duplicate id, also defined in data/accelerators/acme-x.toml" in messages


def test_reference_to_missing_records(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-x", vendor="initech", predecessor="acme-zero"))
    assert found == [
        "data/accelerators/acme-x.toml: vendor: no such vendor in data/vendors/ (found 'initech')",
        "data/accelerators/acme-x.toml: predecessor: no such accelerator in data/accelerators/ (found 'acme-zero')",
    ]


def test_undefined_source_id(tmp_path: Path) -> None:
    bad = {"state": "published", "value": "700 W", "basis": "chip", "source": "keynote"}
    found = problems_for(tmp_path, make_record("acme-x", specs__power=bad))
    assert found == ["data/accelerators/acme-x.toml: (record): source id(s) 'keynote' not defined in [sources]"]


def test_verified_date_in_the_future(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-x", verified="2026-12-25"))
    assert found == ["data/accelerators/acme-x.toml: (record): verified date 2026-12-25 is in the future (today is 2026-11-30)"]


def test_sparse_figure_stored_as_dense_is_caught(tmp_path: Path) -> None:
    swapped = {
        "state": "published",
        "value": "3958 TFLOPS",
        "sparsity": "dense",
        "sparse": "1979 TFLOPS",
        "sparse_pattern": "2:4",
        "basis": "chip",
        "source": "sheet",
    }
    found = problems_for(tmp_path, make_record("acme-x", specs__compute__FP8=swapped))
    assert len(found) == 1 and "is a sparse figure stored as dense?" in found[0]


def test_per_rack_figure_cannot_be_published_per_chip(tmp_path: Path) -> None:
    rack = {"state": "published", "value": "13.4 TB", "basis": "rack", "source": "sheet"}
    found = problems_for(tmp_path, make_record("acme-x", specs__memory=rack))
    assert len(found) == 1 and "not a per-accelerator figure" in found[0]


def test_not_published_may_not_carry_a_value(tmp_path: Path) -> None:
    bad = {"state": "not_published", "value": "700 W"}
    found = problems_for(tmp_path, make_record("acme-x", specs__power=bad))
    assert len(found) == 1 and "must not carry a value" in found[0]


def test_every_problem_is_listed_not_only_the_first(tmp_path: Path) -> None:
    bad_bw = {"state": "published", "value": "4.9 TB", "basis": "chip", "source": "sheet"}
    found = problems_for(
        tmp_path,
        make_record("acme-x", colour="red"),
        make_record("acme-y", specs__memory_bandwidth=bad_bw, specs__software=None),
        make_record("acme-z", vendor="initech"),
    )
    assert len(found) == 4
    assert {line.split(":")[0] for line in found} == {
        "data/accelerators/acme-x.toml",
        "data/accelerators/acme-y.toml",
        "data/accelerators/acme-z.toml",
    }


def test_load_raises_with_every_problem(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", [make_record("acme-x", colour="red"), make_record("acme-y", vendor="initech")])
    with pytest.raises(CatalogError) as info:
        load(folder, today=TODAY)
    assert len(info.value.problems) == 2
    assert "2 problem(s)" in str(info.value)


def test_site_refuses_to_start_on_invalid_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_data(tmp_path / "data", [make_record("acme-x", colour="red")])
    monkeypatch.setenv("COMPUTEATLAS_DATA", str(folder))
    with pytest.raises(CatalogError, match="unknown field 'colour'"):
        create_app()


def test_cli_validate_lists_problems_and_exits_nonzero(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", [make_record("acme-x", colour="red"), make_record("acme-y", vendor="initech")])
    result = CliRunner().invoke(cli, ["validate", "--data", str(folder)])
    assert result.exit_code == 1
    assert "acme-x.toml: colour: unknown field 'colour'" in result.output
    assert "acme-y.toml: vendor: no such vendor" in result.output


def test_cli_validate_ok(data_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["validate", "--data", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert "OK: 2 vendors, 3 accelerators" in result.output


def test_today_defaults_to_the_real_date(tmp_path: Path) -> None:
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    found = problems_for(tmp_path, make_record("acme-x", verified=tomorrow))
    # problems_for pins today to 2026-11-30; check() without today uses the real date
    folder = write_data(tmp_path / "data2", [make_record("acme-x", verified=tomorrow)])
    _, problems = check(folder)
    assert any("in the future" in str(p) for p in problems)
    assert found  # and the pinned date rejects it too


def test_not_sourced_needs_a_note_and_no_value(tmp_path: Path) -> None:
    bare = {"state": "not_sourced"}
    found = problems_for(tmp_path, make_record("acme-x", specs__power=bare))
    assert len(found) == 1 and "not_sourced spec needs a note saying where we looked" in found[0]
    ok = {"state": "not_sourced", "note": "The datasheet was not available to us."}
    assert problems_for(tmp_path / "ok", make_record("acme-x", specs__power=ok)) == []


def test_an_empty_or_wrong_data_folder_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _, problems = check(tmp_path / "empty", today=TODAY)
    assert [str(p) for p in problems] == ["empty/accelerators: (folder): no accelerator files (*.toml): is this the data folder?"]


def test_one_broken_file_is_not_also_reported_as_missing_everywhere(tmp_path: Path) -> None:
    bad = {"state": "published", "value": "4.9 TB", "basis": "chip", "source": "sheet"}
    found = problems_for(
        tmp_path,
        make_record("acme-a1", specs__memory_bandwidth=bad),
        make_record("acme-a2", predecessor="acme-a1"),
    )
    assert len(found) == 1 and "acme-a1.toml: specs.memory_bandwidth.value" in found[0]


def test_data_version_does_not_depend_on_the_folder_name(tmp_path: Path) -> None:
    one = write_data(tmp_path / "data", SMALL_CATALOG)
    two = write_data(tmp_path / "copy-of-data", SMALL_CATALOG)
    assert load(one, today=TODAY).version == load(two, today=TODAY).version
    (two / "accelerators" / "acme-a1.toml").write_text((two / "accelerators" / "acme-a1.toml").read_text().replace("80 GB", "96 GB"))
    assert load(one, today=TODAY).version != load(two, today=TODAY).version


def test_announced_date_in_the_future(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-x", announced="2099-01-01"))
    assert found == ["data/accelerators/acme-x.toml: (record): announced date 2099-01-01 is in the future (today is 2026-11-30)"]


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", SMALL_CATALOG)
    path = folder / "accelerators" / "acme-a1.toml"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert check(folder, today=TODAY)[1] == []


def test_devices_need_a_defined_source_and_at_least_two(tmp_path: Path) -> None:
    found = problems_for(tmp_path, make_record("acme-x", devices={"count": 2, "name": "die", "source": "keynote"}))
    assert found == ["data/accelerators/acme-x.toml: (record): source id(s) 'keynote' not defined in [sources]"]
    found = problems_for(tmp_path / "one", make_record("acme-y", devices={"count": 1, "name": "die", "source": "sheet"}))
    assert found == ["data/accelerators/acme-y.toml: devices.count: Input should be greater than or equal to 2 (found '1')"]


@pytest.mark.parametrize("state", ["derived", "published_as_text", "not yet sourced", "bogus"])
def test_a_state_a_record_may_not_hold_names_the_allowed_ones(tmp_path: Path, state: str) -> None:
    """A data file holds one of the five record states; a shown-only state ("derived") is refused by name."""
    bad = {"state": state, "note": "looked in the datasheet"}
    found = problems_for(tmp_path, make_record("acme-x", specs__power=bad))
    assert len(found) == 1
    assert found[0].startswith(f"data/accelerators/acme-x.toml: specs.power.state: state {state!r} is not one a record may hold")
    assert "'published', 'not_published', 'not_applicable', 'not_comparable', 'not_sourced'" in found[0]
