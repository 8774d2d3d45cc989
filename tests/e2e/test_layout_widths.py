"""What only a browser shows of the app's layout: at a laptop's 1280 px the Compare sweeps
tables need no sideways scrolling.
One ``raidsweep app`` on two small sweeps of the simulated all-flash array, one tab."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.appserver import app_tab, choose, go_to
from tests.support.appwait import rerun
from tests.test_app_robust_pages import CURVES_B, two_flash_sweeps

UI_TIMEOUT_MS = 60_000

#: each table's frame: the width of its content and of its visible part
_TABLE_WIDTHS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].map(t => {
  const s = t.querySelector('.dvn-scroller');
  return [s.scrollWidth, s.clientWidth];
})"""


@pytest.fixture(scope="module")
def tab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("layout-widths")
    store = two_flash_sweeps(folder)
    viewport = {"width": 1280, "height": 1400}
    with app_tab(store.root, folder / "app.log", UI_TIMEOUT_MS, viewport=viewport) as page:
        choose(page, "Sweep", CURVES_B)
        yield page


def test_compare_sweeps_tables_need_no_sideways_scrolling_at_1280(tab: Any) -> None:
    from playwright.sync_api import expect

    tab.set_viewport_size({"width": 1280, "height": 1400})
    go_to(tab, "Compare sweeps")
    with rerun(tab):
        tab.get_by_text("Every cell (not only the significant changes)").click()
    expect(tab.get_by_test_id("stDataFrame").nth(1)).to_be_visible()
    widths = tab.evaluate(_TABLE_WIDTHS)
    assert len(widths) >= 2
    assert all(scroll <= visible + 1 for scroll, visible in widths[:2]), widths
