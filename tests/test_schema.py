"""The JSON Schema for editors: generated from the records, committed, and never drifting."""

from __future__ import annotations

import datetime as dt
import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from computeatlas.catalog import DEFAULT_DATA
from computeatlas.publish.schema import SCHEMAS, schema_text

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_the_records(name: str) -> None:
    committed = (ROOT / "schema" / f"{name}.schema.json").read_text(encoding="utf-8")
    assert committed == schema_text(SCHEMAS[name]), "schema drifted: run `make schema` and commit"


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("accelerator", "accelerators"),
        ("vendor", "vendors"),
        ("comparison", "comparisons"),
        ("provider", "providers"),
        ("system", "systems"),
        ("energy-topic", "energy"),
        ("economics-claim", "claims"),
    ],
)
def test_every_data_file_passes_the_schema(name: str, folder: str) -> None:
    schema = json.loads((ROOT / "schema" / f"{name}.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    check = validator(schema)  # built once for every file, as jsonschema.validate would per file
    files = sorted((DEFAULT_DATA / folder).glob("*.toml"))
    assert files
    for path in files:
        check.validate(_jsonable(tomllib.loads(path.read_text(encoding="utf-8"))))


def test_schema_catches_an_unknown_state() -> None:
    schema = json.loads((ROOT / "schema" / "accelerator.schema.json").read_text(encoding="utf-8"))
    power = schema["$defs"]["PowerSpec"]["properties"]["state"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate("estimated", {"$defs": schema["$defs"], **power})
