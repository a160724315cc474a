"""The price charts in a real browser at 390 px (a phone): the narrow picture is chosen and
shown at about its own size, so its 11-pixel text stays readable, and nothing scrolls sideways."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import screenshot

PAGE = "/cloud/prices/nvidia-h100-sxm"


IMG = "#chart-price-history-nvidia-h100-sxm picture img"


def _chart_on(browser, server: str, width: int, height: int, artifacts: Path | None = None) -> tuple[list, int, list[str]]:  # type: ignore[no-untyped-def]
    """The price page at ``width`` × ``height`` px, no script: the chart picture the browser chose
    (its source, natural width, shown width, right edge), the page's width and its section ids."""
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + PAGE)
        img = page.locator(IMG)
        img.scroll_into_view_if_needed()
        page.wait_for_function(f"document.querySelector('{IMG}').complete")
        chosen = img.evaluate("i => [i.currentSrc, i.naturalWidth, i.getBoundingClientRect().width, i.getBoundingClientRect().right]")
        if artifacts is not None:
            screenshot(img, artifacts, "phone-price-history-chart")
        return (
            chosen,
            page.evaluate("document.documentElement.scrollWidth"),
            page.evaluate("[...document.querySelectorAll('article section[id]')].map(s => s.id)"),
        )
    finally:
        context.close()


def test_the_price_chart_is_drawn_for_the_phone_at_390_px(browser, server: str, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    (source, natural, shown, right), page_width, first = _chart_on(browser, server, 390, 844, artifacts)
    assert source.endswith("/charts/price-history/nvidia-h100-sxm.narrow.svg")
    assert natural <= 390 and shown >= 0.9 * natural  # drawn at about its own size: 11 px text stays about 11 px
    assert right <= 390 and page_width <= 390
    assert first[0] == "price-charts"  # the page opens with the chart


def test_the_wide_picture_on_a_desktop(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    (source, *_), _, _ = _chart_on(browser, server, 1280, 900)
    assert source.endswith("/charts/price-history/nvidia-h100-sxm.svg")
