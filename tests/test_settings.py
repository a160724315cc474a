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
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "setting trusted_proxies (COMPUTEATLAS_TRUSTED_PROXIES): cannot be read" in done.stderr


def test_a_database_without_a_driver_is_a_clear_ledger_error() -> None:
    from computeatlas.ledger import Ledger, LedgerUnavailable

    with pytest.raises(LedgerUnavailable, match=r"no driver for this database \(MySQLdb\)"):
        Ledger.open("mysql://atlas@db.internal/atlas")


def test_a_misspelled_variable_is_an_error_naming_it_and_the_nearest_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from computeatlas.core.settings import Settings, UnknownSetting

    monkeypatch.setenv("COMPUTEATLAS_FRESHNES_DAYS", "30")
    with pytest.raises(UnknownSetting) as raised:
        Settings.from_env()
    assert str(raised.value) == "COMPUTEATLAS_FRESHNES_DAYS names no setting; did you mean COMPUTEATLAS_FRESHNESS_DAYS?"
    assert raised.value.nearest == "COMPUTEATLAS_FRESHNESS_DAYS"


def test_a_variable_near_no_setting_points_to_the_list() -> None:
    from computeatlas.core.settings import Settings, UnknownSetting

    with pytest.raises(UnknownSetting, match=r"^COMPUTEATLAS_ZZZQQ names no setting; the README's 'Settings and serving' lists them$"):
        Settings.check_environment({"COMPUTEATLAS_ZZZQQ": "1", "HOME": "/root"})


def test_the_test_suites_own_variables_and_every_setting_pass() -> None:
    from computeatlas.core.settings import Settings

    every = {f"COMPUTEATLAS_{name.upper()}": "x" for name in Settings.model_fields}
    Settings.check_environment({**every, "COMPUTEATLAS_TEST_POSTGRES_URL": "postgresql://", "computeatlas_data": "/d"})


def test_a_freshness_window_beyond_a_century_is_refused_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from computeatlas.core.settings import Settings

    assert Settings(freshness_days=36_500).freshness_days == 36_500
    monkeypatch.setenv("COMPUTEATLAS_FRESHNESS_DAYS", "800000")  # before: every price page answered 500 (dates before year 1)
    with pytest.raises(ValidationError, match="less than or equal to 36500"):
        Settings.from_env()


def test_the_cli_says_so_in_one_message_and_exits_2() -> None:
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "from computeatlas.cli import main; main(['prices', 'status'])"],
        env={**os.environ, "COMPUTEATLAS_PRICE_BAND_LOWW": "0.2"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        " ".join(done.stderr.split()) == "setting COMPUTEATLAS_PRICE_BAND_LOWW names no setting; did you mean COMPUTEATLAS_PRICE_BAND_LOW?"
    )


def test_a_rate_limit_that_is_not_one_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from computeatlas.cli import app
    from computeatlas.core.settings import Settings
    from tests.conftest import CliRunner

    monkeypatch.setenv("COMPUTEATLAS_RATE_LIMIT", "ten a minute")
    with pytest.raises(ValidationError, match=r"'ten a minute' is not a rate limit"):
        Settings.from_env()
    result = CliRunner().invoke(app, ["serve", "--port", "1"])
    assert result.exit_code == 2
    assert "setting rate_limit (COMPUTEATLAS_RATE_LIMIT): 'ten a minute' is not a rate limit" in result.output.replace("\n", " ")
    assert Settings(rate_limit="5/minute;50/day").rate_limit == "5/minute;50/day"
