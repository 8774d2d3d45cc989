"""The Compare sweeps page in a real browser: ``streamlit run app.py`` on a store of two short
sweeps of the simulated array (before and after a firmware update, the later one with
acceptance gates), driven by Playwright in Debian's headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from recommender.acceptance_io import sweep_acceptance, verdict_for
from sweeper.store import ParquetStore
from tests.support.appserver import chromium, streamlit_run
from tests.support.appwait import rerun, settled, watch_runs
from tests.support.commissioning import FIRMWARE_GATES, array_sweep

pytestmark = pytest.mark.integration

UI_TIMEOUT_MS = 60_000


def test_the_page_compares_the_sweep_with_another_and_shows_its_verdict(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    path = chromium()
    if path is None:
        pytest.fail("Debian's chromium is not installed: run scripts/test.sh")
    root = array_sweep(tmp_path, "old-array")
    array_sweep(tmp_path, "after-firmware", seed=43, acceptance=FIRMWARE_GATES)
    store = ParquetStore(root)
    record = store.get_sweep("after-firmware")
    acceptance = sweep_acceptance(record)
    assert acceptance is not None
    verdict = verdict_for(store, record, acceptance).verdict
    expect.set_options(timeout=UI_TIMEOUT_MS)
    with streamlit_run(root, tmp_path / "streamlit.log") as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.set_default_timeout(UI_TIMEOUT_MS)
            watch_runs(page)
            page.goto(url)
            settled(page)
            nav = page.get_by_test_id("stSidebarNav")
            with rerun(page):  # the page's run finished: every element of it drawn
                nav.get_by_role("link", name="Compare sweeps").click()
            expect(page.get_by_text("Compare sweeps — sweep after-firmware")).to_be_visible()
            expect(page.get_by_text("A = sweep old-array")).to_be_visible()
            expect(page.get_by_role("heading", name=f"Acceptance: {verdict}")).to_be_visible()
            # per class, per cell
            expect(page.get_by_test_id("stDataFrame").nth(1)).to_be_visible()
            assert not page.get_by_test_id("stException").count()
        finally:
            browser.close()
