"""JSON Schema for the data files, generated from the pydantic records.

Editors use ``schema/*.schema.json`` to check TOML files as they are typed; a test
regenerates the schemas and fails when the committed copies drift from the records.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from computeatlas.cloud.records import Provider
from computeatlas.economics.claims import EconomicsClaim
from computeatlas.economics.models import ModelRecord
from computeatlas.energy.records import EnergyTopic
from computeatlas.silicon.curated import Comparison
from computeatlas.silicon.records import Accelerator, Vendor
from computeatlas.silicon.systems import System
from computeatlas.silicon.targets import CoverageFile

SCHEMAS: dict[str, type[BaseModel]] = {
    "accelerator": Accelerator,
    "vendor": Vendor,
    "comparison": Comparison,
    "provider": Provider,
    "system": System,
    "energy-topic": EnergyTopic,
    "economics-claim": EconomicsClaim,
    "model": ModelRecord,
    "coverage": CoverageFile,
}
"""File stem → record type, for each schema written (one per TOML data folder)."""


def schema_text(model: type[BaseModel]) -> str:
    """The JSON Schema (draft 2020-12) of ``model``'s input form, as stable, indented text."""
    schema = model.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(out_dir: Path) -> list[Path]:
    """Write one ``{name}.schema.json`` per record type into ``out_dir``; return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, model in SCHEMAS.items():
        path = out_dir / f"{name}.schema.json"
        path.write_text(schema_text(model), encoding="utf-8")
        paths.append(path)
    return paths
