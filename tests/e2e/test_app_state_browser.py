"""What the user chose survives moving between pages and a reload, in real headless Chromium
against ``raidsweep app`` at 1280 px: the class and the ranking's row chosen on
Recommendations are there again after Compare and Back, and the address names the sweep
chosen on every page, so that a reload opens that sweep (not the newest) and Run details'
address follows what it shows. One browser session, one server."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sweeper.store import ParquetStore
from tests.support.appserver import app_tab, choose, go_to
from tests.support.appwait import rerun, settled
from tests.support.sweeps import sweep
from tests.test_app_state_kept import NEWER, OLDER, SECOND, _spec

pytestmark = pytest.mark.integration

TIMEOUT_MS = 60_000
ROW_PX = 35  # st.dataframe's row height (and its header's)
#: where the screenshots go, to look at (RAIDSWEEP_SHOTS, else the test's temporary folder)
SHOTS = Path(os.environ.get("RAIDSWEEP_SHOTS") or tempfile.gettempdir())


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    root = tmp_path_factory.mktemp("state-browser")
    for name in (OLDER, NEWER):  # NEWER last: the newest, the one a bare address opens
        made, outcome = sweep(_spec(tmp_path_factory.mktemp(name), name), root)
        assert outcome.complete
    return made


@pytest.fixture(scope="module")
def page(store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    log = tmp_path_factory.mktemp("app") / "app.log"
    with app_tab(store.root, log, TIMEOUT_MS, viewport={"width": 1280, "height": 1400}) as tab:
        yield tab


def test_class_row_and_sweep_survive_pages_and_a_reload(page, store) -> None:
    from playwright.sync_api import expect

    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name=f"Sweep {NEWER}")).to_be_visible()
    choose(page, "Sweep", OLDER)
    go_to(page, "Recommendations")
    expect(main.get_by_role("heading", name=f"Recommendations — sweep {OLDER}")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/recommendations\?(.*&)?sweep={OLDER}(&|$)"))
    choose(page, "Workload class", SECOND)
    decision = page.get_by_test_id("stAlertContentSuccess")
    expect(decision).to_contain_text(f"{SECOND}:")
    grid = page.get_by_test_id("stDataFrame").first
    expect(grid.locator("canvas").first).to_be_visible()
    box = grid.bounding_box()
    with rerun(page):
        page.mouse.click(box["x"] + 15, box["y"] + ROW_PX + ROW_PX / 2)  # the first row
    expect(main).to_contain_text("Selected: ")
    selected = main.get_by_test_id("stMarkdown").filter(has_text="Selected: ").inner_text()
    with rerun(page):
        page.get_by_role("link", name="Compare with the runner-up").click()
    expect(main.get_by_role("heading", name=f"Compare — sweep {OLDER}")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/compare\?(.*&)?sweep={OLDER}(&|$)"))

    with rerun(page):
        page.go_back()
    expect(main.get_by_role("heading", name=f"Recommendations — sweep {OLDER}")).to_be_visible()
    expect(decision).to_contain_text(f"{SECOND}:")
    expect(main.get_by_test_id("stMarkdown").filter(has_text="Selected: ")).to_have_text(selected)
    page.screenshot(path=str(SHOTS / "recommendations-back.png"), full_page=True)

    go_to(page, "Heatmaps")
    expect(main.get_by_role("heading", name=f"Heatmaps — sweep {OLDER}")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/heatmaps\?(.*&)?sweep={OLDER}(&|$)"))
    page.reload()
    settled(page)
    expect(main.get_by_role("heading", name=f"Heatmaps — sweep {OLDER}")).to_be_visible()
    go_to(page, "Recommendations")  # a new session: the sweep from the address, not the newest
    expect(main.get_by_role("heading", name=f"Recommendations — sweep {OLDER}")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/recommendations\?(.*&)?sweep={OLDER}(&|$)"))


def test_run_details_address_follows_a_bad_run_id(page, store) -> None:
    from playwright.sync_api import expect

    go_to(page, "Run details")
    expect(page).to_have_url(re.compile(r"/run_details\?(.*&)?run=[0-9a-f]{24}(&|$)"))
    box = page.get_by_test_id("stTextInput").filter(has_text="Run id").locator("input")
    box.fill("zzz")
    with rerun(page):
        box.press("Enter")
    expect(page.get_by_test_id("stAlertContentError").first).to_contain_text("zzz")
    page.screenshot(path=str(SHOTS / "run-details-bad-id.png"), full_page=True)
    expect(page).to_have_url(re.compile(r"/run_details\?(.*&)?run=zzz(&|$)"))
    page.reload()
    settled(page)
    expect(page.get_by_test_id("stAlertContentError").first).to_contain_text("zzz")
