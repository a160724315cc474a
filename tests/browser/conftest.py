"""Browser-test fixtures: the real server in a subprocess, Debian's chromium driven by Playwright,
and axe-core (from the npm registry) for the accessibility check.

- ``server``: ``computeatlas serve`` on a free loopback port, with the bundled data and a
  throw-away ledger folder; stopped at the end of the session.
- ``browser``: headless ``/usr/bin/chromium`` (``make test`` installs it with apt when missing).
- ``axe_script``: the path of ``axe.min.js``, installed once with npm into ``.cache/axe/``
  (gitignored).
- A missing chromium, playwright or axe-core fails these tests under ``make test`` and CI
  (``BROWSER_TESTS=required`` or ``CI`` set), so a green run cannot hide them; a bare
  ``pytest`` elsewhere skips them, saying why. A page that does not answer 200 always fails.
- Screenshots go to ``test-artifacts/`` (gitignored): the first screen of each page, the
  part a person looks at (the checks measure the page; they do not read the images).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serving import free_port, running

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
AXE_DIR = ROOT / ".cache" / "axe"
AXE_VERSION = "4.10"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing(reason: str) -> None:
    """Skip, or fail where the browser tests must run (``make test``, CI)."""
    if os.environ.get("CI") or os.environ.get("BROWSER_TESTS") == "required":
        pytest.fail(reason + " (make test and CI must run the browser tests: make test installs chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT``) of the real server over the bundled data. Every
    test that loads its pages uses the browser too, so chromium is launched while it boots."""
    port = free_port()
    var = tmp_path_factory.mktemp("browser-var")
    env = {k: v for k, v in os.environ.items() if k not in ("COMPUTEATLAS_DATA", "COMPUTEATLAS_DATABASE_URL")}
    env["COMPUTEATLAS_VAR"] = str(var)
    env.pop("COMPUTEATLAS_FORM_MIN_SECONDS", None)  # the default minimum (1 s): the journey sends the form as autofill would
    command = ["serve", "--host", "127.0.0.1", "--port", str(port)]
    with running(command, port, env, var / "server.log", cwd=ROOT, meanwhile=lambda: request.getfixturevalue("browser")) as served:
        yield served.url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Headless Debian chromium under Playwright."""
    if not CHROMIUM.exists():
        _missing(f"{CHROMIUM} is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def _page_in_context(browser: object, timeout_ms: int, init_script: Path | None = None, **options: object) -> Iterator[object]:
    """A page in a new browser context (own cookies) made with ``options``; the context is
    closed afterwards. ``init_script`` runs in every document the page opens."""
    context = browser.new_context(**options)  # type: ignore[attr-defined]
    if init_script is not None:
        context.add_init_script(path=str(init_script))
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh page (own cookies), 1280×900, the site's CSP in force."""
    with _page_in_context(browser, 15_000, viewport={"width": 1280, "height": 900}, accept_downloads=True) as fresh:
        yield fresh


def screenshot(target: object, folder: Path, name: str) -> None:
    """Save a screenshot of ``target`` (a page: its first screen; a locator: that element) as
    ``folder/name.jpg``. JPEG at quality 90: about half the time of a PNG (chromium encodes
    it), and sharp enough for a person looking at the layout."""
    target.screenshot(path=str(folder / f"{name}.jpg"), type="jpeg", quality=90)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The screenshot folder (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe-core's browser bundle, installed from the npm registry on first use."""
    script = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        if npm is None:
            _missing("npm is not installed, so axe-core cannot be fetched")
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(AXE_DIR), "--no-audit", "--no-fund", "--no-save", "--silent", f"axe-core@{AXE_VERSION}"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or not script.is_file():
            _missing(f"npm could not install axe-core: {done.stderr.strip()[-500:]}")
    return script


@pytest.fixture(scope="session")
def axe_page(browser: object, axe_script: Path) -> Iterator[object]:
    """One phone-sized page (390×844) kept for every axe-core check of the session, with
    axe-core added to each document it opens as an init script (which the site's CSP, in
    force here, does not block). A new page per check would cost a context and a renderer
    each time and find the same things: the checked pages are read-only GETs."""
    with _page_in_context(browser, 30_000, axe_script, viewport={"width": 390, "height": 844}) as phone:
        yield phone


AXE_RUN = """async (targets) => {
  const found = await axe.run(document, {resultTypes: ['violations'], selectors: targets});
  return found.violations.filter(v => v.impact === 'serious' || v.impact === 'critical');
}"""


@pytest.fixture(scope="session")
def serious_violations(server: str, axe_page: object):  # type: ignore[no-untyped-def]
    """A function ``(path) -> list`` that opens ``path`` at phone width, runs axe-core on it
    (every rule) and returns its serious and critical violations (id, impact, help, the first
    five nodes). A page that does not answer 200 fails the test. (``server`` is asked for
    first, so chromium is launched while it boots.)

    axe-core runs without building a CSS selector for every node it reports (``selectors:
    false``: an output option; the rules and their checks are the same). Only when a
    serious or critical violation is found does it run again with selectors, to name the
    nodes."""

    def run(path: str) -> list[dict[str, object]]:
        page = axe_page
        response = page.goto(server + path)  # type: ignore[attr-defined]
        assert response is not None and response.status == 200, f"{path} answered {response and response.status}"
        found = page.evaluate(AXE_RUN, False)  # type: ignore[attr-defined]
        if found:
            found = page.evaluate(AXE_RUN, True)  # type: ignore[attr-defined]
        return [{"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"][:5]]} for v in found]

    return run
