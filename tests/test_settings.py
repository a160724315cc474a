"""One settings object: only Settings.from_env reads the environment."""

from __future__ import annotations

import re
from pathlib import Path

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
