"""The schedule in deploy/: the systemd service and timer pass `systemd-analyze verify`, both the
timer and the cron line run at 00:00, 06:00, 12:00 and 18:00, every variable they set is a
setting, and the README's copies equal the files."""

from __future__ import annotations

import datetime as dt
import re
import shlex
import subprocess
from pathlib import Path

from croniter import croniter

from computeatlas.core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
SERVICE, TIMER, CRON, ENV = (
    DEPLOY / name
    for name in ("computeatlas-collect.service", "computeatlas-collect.timer", "computeatlas-collect.cron", "computeatlas.env")
)
EXECUTABLE = "/opt/computeatlas/.venv/bin/computeatlas"
BASE = dt.datetime(2026, 12, 4, 7, 0, tzinfo=dt.UTC)
EVERY_SIX_HOURS = ["2026-12-04 12:00", "2026-12-04 18:00", "2026-12-05 00:00", "2026-12-05 06:00"]


def _setting(path: Path, section: str, key: str) -> str:
    """The one value of ``key`` in ``[section]`` of a unit file."""
    values, current = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            current = line.strip("[]")
        elif current == section and line.split("=", 1)[0] == key:
            values.append(line.split("=", 1)[1])
    assert len(values) == 1, (path.name, section, key, values)
    return values[0]


def test_systemd_analyze_verifies_the_service_and_the_timer(tmp_path: Path) -> None:
    # verify checks that ExecStart's program exists: the copies point it at a stand-in, every other line as in deploy/
    stand_in = tmp_path / "computeatlas"
    stand_in.write_text("#!/bin/sh\n", encoding="utf-8")
    stand_in.chmod(0o755)
    service = SERVICE.read_text(encoding="utf-8")
    assert service.count(f"ExecStart={EXECUTABLE} ") == 1
    (tmp_path / SERVICE.name).write_text(service.replace(f"ExecStart={EXECUTABLE} ", f"ExecStart={stand_in} "), encoding="utf-8")
    (tmp_path / TIMER.name).write_text(TIMER.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", str(tmp_path / SERVICE.name), str(tmp_path / TIMER.name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", (done.stdout, done.stderr)  # no unknown key, no warning
    # a mistake is caught: verify is not a check that cannot fail
    (tmp_path / TIMER.name).write_text(TIMER.read_text(encoding="utf-8").replace("OnCalendar=", "OnCalender="), encoding="utf-8")
    wrong = subprocess.run(["systemd-analyze", "verify", str(tmp_path / TIMER.name)], capture_output=True, text=True, timeout=60)
    assert "Unknown key 'OnCalender'" in wrong.stderr


def test_the_service_collects_every_source_and_the_timer_starts_it_every_six_hours() -> None:
    assert shlex.split(_setting(SERVICE, "Service", "ExecStart")) == [EXECUTABLE, "prices", "collect", "--all"]
    assert _setting(SERVICE, "Service", "Type") == "oneshot" and _setting(SERVICE, "Service", "EnvironmentFile") == "/etc/computeatlas/env"
    assert _setting(TIMER, "Install", "WantedBy") == "timers.target" and _setting(TIMER, "Timer", "Persistent") == "true"
    calendar = _setting(TIMER, "Timer", "OnCalendar")
    shown = subprocess.run(
        ["systemd-analyze", "calendar", "--iterations=4", f"--base-time={BASE:%Y-%m-%d %H:%M:%S} UTC", calendar],
        capture_output=True,
        text=True,
        timeout=60,
        env={"TZ": "UTC", "PATH": "/usr/bin:/bin"},
    )
    assert shown.returncode == 0, shown.stderr
    runs = re.findall(r"(?:Next elapse|Iter\. #\d): \w{3} (\d{4}-\d{2}-\d{2} \d{2}:\d{2}):00 UTC", shown.stdout)
    assert runs == EVERY_SIX_HOURS, shown.stdout
    assert Settings().collection_schedule_hours == 6.0  # the status page's schedule is the timer's


def test_the_cron_line_runs_the_same_command_every_six_hours() -> None:
    lines = [line for line in CRON.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    variables = dict(line.split("=", 1) for line in lines if re.match(r"^[A-Z_]+=", line))
    (job,) = [line for line in lines if not re.match(r"^[A-Z_]+=", line)]
    fields = job.split(maxsplit=6)
    schedule, user, command = " ".join(fields[:5]), fields[5], fields[6]
    assert croniter.is_valid(schedule) and user == "computeatlas"
    runs = croniter(schedule, BASE.replace(tzinfo=None))
    assert [runs.get_next(dt.datetime).strftime("%Y-%m-%d %H:%M") for _ in EVERY_SIX_HOURS] == EVERY_SIX_HOURS
    assert shlex.split(command)[:4] == shlex.split(_setting(SERVICE, "Service", "ExecStart"))  # the service's command, logged
    assert CRON.read_text(encoding="utf-8").endswith("\n")  # cron ignores a last line without its newline
    Settings.check_environment(variables)  # every COMPUTEATLAS_ variable is a setting
    assert variables["COMPUTEATLAS_PRICES"] == "/var/lib/computeatlas/prices"


def test_the_environment_file_sets_only_settings_and_the_store_the_service_may_write() -> None:
    pairs = dict(
        line.split("=", 1) for line in ENV.read_text(encoding="utf-8").splitlines() if line.strip() and not line.lstrip().startswith("#")
    )
    assert all(name.startswith("COMPUTEATLAS_") for name in pairs)
    Settings.check_environment(pairs)
    settings = Settings(**{name.removeprefix("COMPUTEATLAS_").lower(): value for name, value in pairs.items()})
    assert settings.prices_dir == Path("/var/lib/computeatlas/prices")
    assert settings.prices_dir.is_relative_to(
        Path(_setting(SERVICE, "Service", "ReadWritePaths"))
    )  # ProtectSystem=strict lets it write there


def test_the_readme_shows_each_file_as_it_is() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in (ENV, SERVICE, TIMER, CRON):
        found = re.search(rf"`deploy/{re.escape(path.name)}`:\n\n```\w+\n(.*?)```\n", readme, re.S)
        assert found is not None, path.name
        assert found.group(1) == path.read_text(encoding="utf-8"), path.name
    (target,) = re.findall(r"deploy/computeatlas-collect\.cron (/etc/cron\.d/\S+)\n", readme)
    assert "." not in target.rsplit("/", 1)[1]  # cron skips a file in /etc/cron.d whose name has a dot
