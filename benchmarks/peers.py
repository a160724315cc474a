"""The peers the benchmarks measure against, installed on demand and never project dependencies.

- Datasette (and the profiler py-spy) in a throwaway virtual environment
  ``benchmarks/.peers/venv`` (gitignored), made with this interpreter and pip from PyPI;
- nginx and wrk, Debian packages, installed with apt-get when missing and we are root.

``ensure()`` returns a :class:`Peers` with the paths (``None`` for a peer that could not
be had; the benchmark then says so instead of failing).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEERS_DIR = HERE / ".peers"
VENV = PEERS_DIR / "venv"
PIP_PACKAGES = ("datasette==0.65.5", "py-spy==0.4.3")
"""Pinned so that a re-run measures the same peer; raise them deliberately."""
DEBIAN = {"nginx": "nginx-light", "wrk": "wrk"}


@dataclass(frozen=True)
class Peers:
    datasette: Path | None
    py_spy: Path | None
    nginx: Path | None
    wrk: Path | None


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _venv() -> None:
    stamp = VENV / ".installed"
    wanted = "\n".join(PIP_PACKAGES)
    if stamp.is_file() and stamp.read_text() == wanted:
        return
    log(f"installing {', '.join(PIP_PACKAGES)} into {VENV.relative_to(HERE.parent)} (not a project dependency)")
    if not (VENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *PIP_PACKAGES], check=True)
    stamp.write_text(wanted)


def _debian(command: str) -> Path | None:
    found = shutil.which(command) or (f"/usr/sbin/{command}" if os.path.exists(f"/usr/sbin/{command}") else None)
    if found:
        return Path(found)
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        log(f"{command} missing and not root: run 'apt-get install {DEBIAN[command]}'")
        return None
    log(f"installing Debian's {DEBIAN[command]}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    if subprocess.run(["apt-get", "install", "-y", "-qq", DEBIAN[command]], **quiet).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], **quiet)
        subprocess.run(["apt-get", "install", "-y", "-qq", DEBIAN[command]], **quiet)
    found = shutil.which(command) or (f"/usr/sbin/{command}" if os.path.exists(f"/usr/sbin/{command}") else None)
    return Path(found) if found else None


def ensure() -> Peers:
    """Install what is missing; return the paths of the peers and tools."""
    PEERS_DIR.mkdir(exist_ok=True)
    try:
        _venv()
        datasette, py_spy = VENV / "bin" / "datasette", VENV / "bin" / "py-spy"
    except subprocess.CalledProcessError as exc:
        log(f"could not install the peers venv: {exc}")
        datasette = py_spy = None  # type: ignore[assignment]
    return Peers(
        datasette=datasette if datasette and datasette.exists() else None,
        py_spy=py_spy if py_spy and py_spy.exists() else None,
        nginx=_debian("nginx"),
        wrk=_debian("wrk"),
    )


def version(argv: list[str]) -> str:
    """First line a ``--version``-style command prints (stdout or stderr), or 'not found'."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return "not found"
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[0].strip() if text else "unknown"
