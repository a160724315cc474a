"""One settings object: only Settings.from_env reads the environment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import computeatlas

PACKAGE = Path(computeatlas.__file__).resolve().parent


def test_nothing_but_settings_reads_the_environment() -> None:
    readers = re.compile(r"os\.environ|os\.getenv|getenv\(|environ\[|environ\.get")
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "core" / "settings.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if readers.search(line)
    ]
    assert found == []


def test_a_setting_that_cannot_be_decoded_is_one_line_not_a_traceback() -> None:
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "from computeatlas.cli import main; main(['show', 'Trn3'])"],
        env={**os.environ, "COMPUTEATLAS_TRUSTED_PROXIES": "not json"},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "setting trusted_proxies (COMPUTEATLAS_TRUSTED_PROXIES): cannot be read" in done.stderr


def test_a_database_without_a_driver_is_a_clear_ledger_error() -> None:
    from computeatlas.ledger import Ledger, LedgerUnavailable

    with pytest.raises(LedgerUnavailable, match=r"no driver for this database \(MySQLdb\)"):
        Ledger.open("mysql://atlas@db.internal/atlas")
