"""The silicon table as a SQLite database that opens as it is in Datasette or ``sqlite3``.

Tables (every one with a primary key):

- ``accelerators`` — the silicon table, ``id`` the primary key. Number columns are
  declared ``REAL`` and hold numbers only (NULL where there is none); the ``_state``
  column beside each says why in words.
- ``sources`` — one row per accelerator and source (``accelerator_id``, ``key``), with a
  foreign key to ``accelerators``.
- ``columns`` — the documented schema (name, type, unit, description).
- ``dataset_info`` — schema version, data version, licence, last verified date.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from computeatlas.publish.exports.silicon_table import (
    SOURCE_COLUMNS,
    SiliconTable,
)

_TYPES = {"text": "TEXT", "number": "REAL", "date": "TEXT", "state": "TEXT"}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def write(table: SiliconTable, out: Path) -> list[Path]:
    """Write the database file ``out`` (replacing any file there); return ``[out]``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        with db:
            fields = ", ".join(f"{_quote(c.name)} {_TYPES[c.kind]}" for c in table.columns)
            db.execute(f"CREATE TABLE accelerators ({fields}, PRIMARY KEY (id))")
            marks = ", ".join("?" for _ in table.columns)
            db.executemany(f"INSERT INTO accelerators VALUES ({marks})", table.rows)
            db.execute(
                "CREATE TABLE sources (accelerator_id TEXT NOT NULL REFERENCES accelerators(id), key TEXT NOT NULL, "
                "title TEXT, url TEXT, publisher TEXT, kind TEXT, accessed TEXT, read_from TEXT, read_at TEXT, copy_form TEXT, copy_of TEXT, "
                "PRIMARY KEY (accelerator_id, key))"
            )
            db.executemany(f"INSERT INTO sources VALUES ({', '.join('?' for _ in SOURCE_COLUMNS)})", table.sources)
            db.execute("CREATE TABLE columns (name TEXT PRIMARY KEY, type TEXT NOT NULL, unit TEXT, description TEXT NOT NULL)")
            db.executemany("INSERT INTO columns VALUES (?, ?, ?, ?)", [(c.name, c.kind, c.unit, c.description) for c in table.columns])
            db.execute("CREATE TABLE dataset_info (key TEXT PRIMARY KEY, value TEXT)")
            db.executemany("INSERT INTO dataset_info VALUES (?, ?)", list(table.about().items()))
    finally:
        db.close()
    tmp.replace(out)
    return [out]
