"""A Hugging Face dataset folder: ``data/silicon.csv`` and a ``README.md`` dataset card.

The card's YAML header declares the licence (``cc-by-nc-4.0``), the data file, and
gated-access questions (``extra_gated_fields``) built from the same field list as the
``/data/`` form (:data:`computeatlas.ledger.request.FORM_FIELDS`), so the Hub asks what
we ask. Values in the header are written as JSON strings, which YAML reads unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

from computeatlas.ledger.request import FORM_FIELDS, FormField
from computeatlas.publish.exports import csv as csv_export
from computeatlas.publish.exports.silicon_table import (
    LICENCE_URL,
    SCHEMA_VERSION,
    STATE_WORDS,
    TITLE,
    SiliconTable,
)

HF_LICENCE = "cc-by-nc-4.0"
DATA_FILE = "data/silicon.csv"
GATED_PROMPT = (
    "The Compute Atlas silicon table is free for research and evaluation under CC-BY-NC-4.0. "
    "Commercial use needs a licence: choose 'commercial' and we will reply. "
    "We use what you enter only to answer this request."
)


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def gated_fields(fields: tuple[FormField, ...] = FORM_FIELDS) -> list[str]:
    """YAML lines of ``extra_gated_fields``: one per form question, in the form's order."""
    lines = ["extra_gated_fields:"]
    for f in fields:
        if f.kind == "select":
            lines += [f"  {_q(f.label)}:", "    type: select", "    options:"]
            lines += [f"      - label: {_q(label)}\n        value: {_q(value)}" for value, label in f.options]
        else:
            lines.append(f"  {_q(f.label)}: {'checkbox' if f.kind == 'checkbox' else 'text'}")
    return lines


def card(table: SiliconTable) -> str:
    """The ``README.md`` dataset card: YAML header, then what the table holds and its terms."""
    header = [
        "---",
        f"license: {HF_LICENCE}",
        f"pretty_name: {_q(TITLE)}",
        "language:",
        "  - en",
        "tags:",
        "  - ai-accelerators",
        "  - hardware",
        "  - gpu",
        "size_categories:",
        "  - n<1K",
        "configs:",
        "  - config_name: default",
        "    data_files:",
        "      - split: train",
        f"        path: {_q(DATA_FILE)}",
        'extra_gated_heading: "Request access to the Compute Atlas silicon table"',
        f"extra_gated_prompt: {_q(GATED_PROMPT)}",
        *gated_fields(),
        'extra_gated_button_content: "Request the data"',
        "---",
    ]
    columns = "\n".join(f"| `{c.name}` | {c.unit or ''} | {c.description} |" for c in table.columns)
    body = f"""
# {TITLE}

One row per AI accelerator, built from the sourced records of Compute Atlas. Schema
version {SCHEMA_VERSION}; data version `{table.data_version}`; {len(table.rows)} accelerators;
newest verification {table.last_verified.isoformat() if table.last_verified else "none"}.

## How to read a cell

A number column holds a plain number in the unit its name carries, or nothing. The
`_state` column beside it says why in one of these words:
{", ".join(f"“{w}”" for w in STATE_WORDS)}. A figure a vendor withholds is never estimated.
The `_stated` columns keep the figure or words as the source wrote them (a memory stated
as 144 GiB stays “144 GiB”, with `memory_bytes` and `memory_gb` beside it).
Compute is dense; the structured-sparsity figure sits in the `_sparse_` column beside it,
with its pattern in `_sparse_pattern`. Only per-accelerator (per chip or per package)
figures are numbers: a figure stated per rack or per superchip reads “not comparable”.
Derived columns are computed from published figures only and carry the state of their
weakest input (a per-watt figure for a part whose power is not published reads “not published”).

Text cells that would start a spreadsheet formula begin with an apostrophe.

## Columns

| column | unit | meaning |
|---|---|---|
{columns}

## Licence

[CC-BY-NC-4.0]({LICENCE_URL}): free for research and evaluation with attribution to
Compute Atlas. Commercial use needs a licence; ask through the access form.
"""
    return "\n".join(header) + "\n" + body


def write(table: SiliconTable, out: Path) -> list[Path]:
    """Write ``data/silicon.csv`` and ``README.md`` into the folder ``out``; return both paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = csv_export.write(table, out / DATA_FILE)
    readme = out / "README.md"
    readme.write_text(card(table), encoding="utf-8")
    return [*written, readme]
