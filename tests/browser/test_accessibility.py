"""Accessibility of the main pages with axe-core in Debian chromium: no serious or critical
violation. Also a phone-sized screenshot of each page (test-artifacts/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

MAIN_PAGES = [
    "/",
    "/silicon/",
    "/silicon/aws-trainium-3",
    "/charts/memory-bandwidth",
    "/compare/",
    "/cloud/",
    "/energy/",
    "/economics/",
    "/data/",
]


@pytest.mark.parametrize("path", MAIN_PAGES)
def test_no_serious_accessibility_violation(serious_violations, artifacts: Path, path: str) -> None:  # type: ignore[no-untyped-def]
    name = path.strip("/").replace("/", "_") or "home"
    found = serious_violations(path, screenshot=artifacts / f"phone-{name}.png")
    assert found == [], json.dumps(found, indent=1)
