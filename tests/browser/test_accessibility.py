"""Accessibility of the main pages with axe-core in Debian chromium at phone width: no
serious or critical violation. (test_glance.py saves phone and desktop screenshots of the
main pages in test-artifacts/.)"""

from __future__ import annotations

import json

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
def test_no_serious_accessibility_violation(serious_violations, path: str) -> None:  # type: ignore[no-untyped-def]
    found = serious_violations(path)
    assert found == [], json.dumps(found, indent=1)
