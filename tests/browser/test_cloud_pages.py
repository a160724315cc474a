"""The cloud pages in a real browser (Debian chromium, axe-core): no serious or critical
accessibility violation, and the dot plot's dots sit where their prices say."""

from __future__ import annotations

import json

import pytest

CLOUD_PAGES = ["/cloud/prices/nvidia-h100-sxm", "/cloud/coreweave", "/silicon/aws-inferentia-2"]


@pytest.mark.parametrize("path", CLOUD_PAGES)
def test_cloud_pages_have_no_serious_accessibility_violation(serious_violations, path: str) -> None:  # type: ignore[no-untyped-def]
    found = serious_violations(path)
    assert found == [], json.dumps(found, indent=1)


def test_dot_plot_places_dots_by_price_without_scripts(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + "/cloud/prices/nvidia-h100-sxm")
        rows = page.locator("ol.dotplot li")
        lefts = {}
        for i in range(rows.count()):
            row = rows.nth(i)
            track, dot = row.locator(".dot-track").bounding_box(), row.locator(".dot").bounding_box()
            lefts[int(row.get_attribute("data-position"))] = (dot["x"] + dot["width"] / 2 - track["x"]) / track["width"]
    finally:
        context.close()
    assert len(lefts) >= 10
    for position, fraction in lefts.items():  # the centre of each dot is at its percentage of the track
        assert fraction == pytest.approx(position / 100, abs=0.02)
