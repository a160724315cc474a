"""The test suite against an earlier commit's, run by hand (never in CI): the same test files,
in back-to-back pairs, on this machine.

A pair is the earlier commit's ``make test`` (run as it ran then: ``pytest`` serially, its
own checkout on ``PYTHONPATH``, ``PYTHONDONTWRITEBYTECODE=1`` as this machine sets it),
then this checkout's ``make test`` (``-n 2 --dist loadgroup``, bytecode written), both
over the test files the earlier commit had and this one still has, both beside a
throwaway PostgreSQL (``scripts/with-postgres.sh``) with the browser tests required.
pytest's temporary folder (``/tmp/pytest-of-$USER``) is emptied before every run, as on
a fresh CI machine, so neither run pays for deleting the other's old folders. Only pairs
compare: this machine's speed drifts by a fifth within a day.

    .venv/bin/python benchmarks/suite_pairs.py --before 3c54700 --pairs 4

``--like-now`` runs the earlier commit the way this checkout runs (``-n 2 --dist loadgroup``,
bytecode written, both trees' packages compiled first), for an earlier commit whose
``make test`` already ran so; with the same commit on both sides it measures the pairs' own
noise. The two runs of a pair take turns going first (before, now; now, before; …), so a
drift in the machine's speed during a session touches both sides alike.

The earlier commit is checked out once into a git worktree beside this checkout (removed
at the end): its tests read reference data beside the checkout (``../shared/``) and
skip without it. This checkout's axe-core (``.cache/axe``, gitignored) is copied in, so the
earlier commit does not fetch it again. Prints each pair (pytest's own "passed in" times,
and the load average after it) and the ratio of the totals; a run that fails or skips a
test stops it (exit 1): its time would not be the same test set's.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
SUMMARY = re.compile(r"^(?P<counts>\d+ passed.*?) in (?P<seconds>[\d.]+)s")


def same_files(before: Path) -> list[str]:
    """Test files (paths relative to a checkout) present in ``before`` and in this checkout."""
    found = sorted(p.relative_to(before).as_posix() for p in (before / "tests").rglob("test_*.py"))
    return [f for f in found if (ROOT / f).is_file()]


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[str, float]:
    """Run ``command`` beside a throwaway PostgreSQL; (pytest's counts, e.g. "645 passed",
    and its seconds). Raises ``SystemExit`` when the run fails."""
    shutil.rmtree(Path(tempfile.gettempdir()) / f"pytest-of-{getpass.getuser()}", ignore_errors=True)
    done = subprocess.run(["bash", "scripts/with-postgres.sh", *command], cwd=cwd, env=env, capture_output=True, text=True)
    found = SUMMARY.search(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "")
    if done.returncode != 0 or found is None or "skipped" in found.group("counts"):
        sys.exit(f"the run in {cwd} failed or skipped tests (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    return found.group("counts"), float(found.group("seconds"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the earlier commit (any git revision)")
    parser.add_argument("--pairs", type=int, default=4, help="back-to-back pairs to run (default 4)")
    parser.add_argument("--like-now", action="store_true", help="run the earlier commit as this checkout runs (-n 2 --dist loadgroup)")
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    base["BROWSER_TESTS"] = "required"
    before = ROOT.parent / f".suite-pairs-{secrets.token_hex(4)}"
    subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before], cwd=ROOT, check=True, capture_output=True)
    try:
        if (ROOT / ".cache" / "axe").is_dir():
            shutil.copytree(ROOT / ".cache" / "axe", before / ".cache" / "axe")
        files = same_files(before)
        print(f"{len(files)} test files of {args.before} that this checkout still has")
        serial = [str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        new = [*serial, "-n", "2", "--dist", "loadgroup", *files]
        old = new if args.like_now else [*serial, *files]
        old_env = {**base, "PYTHONPATH": str(before), "PYTHONDONTWRITEBYTECODE": "" if args.like_now else "1"}
        if args.like_now:
            for tree in (before, ROOT):
                subprocess.run([str(PYTHON), "-m", "compileall", "-q", "computeatlas"], cwd=tree, check=True, capture_output=True)
        totals = [0.0, 0.0]
        for pair in range(1, args.pairs + 1):
            if pair % 2:
                n_old, t_old = timed(old, before, old_env)
                n_new, t_new = timed(new, ROOT, {**base, "PYTHONDONTWRITEBYTECODE": ""})
            else:
                n_new, t_new = timed(new, ROOT, {**base, "PYTHONDONTWRITEBYTECODE": ""})
                n_old, t_old = timed(old, before, old_env)
            totals[0] += t_old
            totals[1] += t_new
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            print(
                f"pair {pair}: before {t_old:.2f} s ({n_old}), now {t_new:.2f} s ({n_new}): {t_new / t_old:.3f}× (load {load})", flush=True
            )
        print(f"in all: {totals[0]:.1f} s → {totals[1]:.1f} s = {totals[1] / totals[0]:.3f}×")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)


if __name__ == "__main__":
    main()
