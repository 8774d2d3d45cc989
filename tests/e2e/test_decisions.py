"""The decision an engineer reads, in real headless Chromium against ``raidsweep app``: on a
sweep built so that its class has a tie and a limit breach (``tests.e2e.verdict``), the
decision box names the tied configurations and the class's tie-break, the configurations that
break the limit stand apart in the ranking with what broke and as breaking in the trade-off
chart, a configuration leads to Compare, the glossary explains its key, the HTML report
downloads under the sweep's name, and the heatmap sorts its rows and colours per column.
One browser session, one server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recommender.recommendations import ClassRecommendation
from sweeper.store import ParquetStore
from tests.e2e.verdict import CLASS, SWEEP, verdict_store
from tests.support.appserver import app_tab, choose, go_to
from tests.support.appwait import rerun
from tests.support.sweeps import recommendation

pytestmark = pytest.mark.integration

TIMEOUT_MS = 60_000
ROW_PX = 35  # st.dataframe's row height (and its header's)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return verdict_store(tmp_path_factory.mktemp("verdict"))


@pytest.fixture(scope="module")
def rec(store: ParquetStore) -> ClassRecommendation:
    found = recommendation(store, SWEEP, CLASS)
    # By construction: a tie at the top, and configurations that break the limit.
    assert found.tied_set, found.ranked
    assert not found.ranked["meets_limits"].all(), found.ranked
    return found


@pytest.fixture(scope="module")
def page(store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    log = tmp_path_factory.mktemp("app") / "app.log"
    with app_tab(
        store.root, log, TIMEOUT_MS, viewport={"width": 1440, "height": 1800}, accept_downloads=True
    ) as tab:
        yield tab


def test_decision_ranking_chart_links_and_downloads(page, rec, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    go_to(page, "Recommendations")
    best = str(rec.best["config_key"])
    decision = page.get_by_test_id("stAlertContentSuccess")
    expect(decision).to_contain_text(f"{CLASS}: {best} —")
    for key in rec.tied_set:
        expect(decision).to_contain_text(key)
    expect(decision).to_contain_text("tie broken by data-loss risk per year (lower)")
    expect(decision).to_contain_text("Margin to each limit")
    expect(decision).to_contain_text(f"{rec.margins['margin ms'].iloc[0]:.2f} ms")

    # Breakers stand apart, with the full text of what broke.
    breakers = rec.ranked[~rec.ranked["meets_limits"].astype(bool)]
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name=f"Breaking a limit ({len(breakers)})")).to_be_visible()
    broke = page.get_by_test_id("stAlertContentWarning").filter(has_text="What broke")
    for key, why in zip(breakers["config_key"], breakers["violations"], strict=True):
        expect(broke).to_contain_text(f"{key} — {why}")
    # ... and in the trade-off chart as breaking a limit, not as dominated.
    marks = page.locator(
        '[data-testid="stVegaLiteChart"] path[aria-roledescription="point"]'
        '[aria-label*="trade-off: breaks a limit"]'
    )
    expect(marks).to_have_count(len(breakers))

    # The glossary explains the recommended key.
    page.get_by_test_id("stMarkdown").filter(has_text="Recommended configuration").get_by_test_id(
        "stTooltipIcon"
    ).hover()
    tip = page.get_by_test_id("stTooltipContent")
    expect(tip).to_contain_text("write-back cache, read-ahead on")
    expect(tip).to_contain_text("RAID groups (ranks)")
    page.mouse.move(0, 0)

    # The HTML report downloads under the sweep's name.
    with rerun(page), page.expect_download() as info:  # the button reruns the script
        page.get_by_role("button", name="Download the HTML report").click()
    download = info.value
    assert download.suggested_filename == f"raidsweep-{SWEEP}-report.html"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    html = saved.read_text()
    assert "<html" in html and best in html

    # A configuration of the ranking leads to Compare, against the recommended one.
    keepers = rec.ranked[rec.ranked["meets_limits"].astype(bool)].reset_index(drop=True)
    row = next(i for i, k in enumerate(keepers["config_key"]) if k != best)
    other = str(keepers["config_key"].iloc[row])
    grid = page.get_by_test_id("stDataFrame").first
    box = grid.bounding_box()
    with rerun(page):
        page.mouse.click(box["x"] + 15, box["y"] + ROW_PX * (row + 1) + ROW_PX / 2)
    # The keys are named above the links (a link's label never wraps); its tooltip says both.
    expect(page.get_by_test_id("stMain")).to_contain_text(f"Selected: {other}")
    link = page.get_by_role("link", name="Compare with the recommended one")
    with rerun(page):
        link.click()
    expect(page.get_by_role("heading", name=f"Compare — sweep {SWEEP}")).to_be_visible()
    expect(page.get_by_test_id("stMain")).to_contain_text(f"A = {other}")
    expect(page.get_by_test_id("stMain")).to_contain_text(f"B = {best}")


def test_heatmap_sorts_rows_and_colours_per_column(page, rec) -> None:
    from playwright.sync_api import expect

    go_to(page, "Heatmaps")
    chart = page.get_by_test_id("stVegaLiteChart").first
    expect(chart.locator('path[aria-roledescription="rect mark"]').first).to_be_visible()
    radio = page.get_by_test_id("stRadio").filter(has_text="Colour scale")
    with rerun(page):
        radio.get_by_text("per column").click()
    expect(chart).to_contain_text("place in its column")

    choose(page, "Sort rows by", f"score in {CLASS}")
    ranked = rec.ranked.sort_values("score", ascending=False, kind="stable")
    expected = [str(k) for k in ranked["config_key"]]
    y_axis = chart.locator('g[aria-roledescription="axis"][aria-label^="Y-axis"] text')
    # Vega draws the new order after the run, in its own time: the axis in that order
    rows = re.compile(r"^(" + "|".join(re.escape(k) for k in expected) + r")( |$)")
    expect(y_axis.filter(has_text=rows)).to_have_text(
        [re.compile(rf"^{re.escape(k)}( |$)") for k in expected]
    )
    texts = y_axis.evaluate_all("nodes => nodes.map(n => n.textContent)")
    labels = [t for t in texts if "/" in t]
    assert [t.split()[0] for t in labels] == expected, labels
    # Each row carries its rank in the class, and a breaker what it breaks.
    for text, (_, row) in zip(labels, ranked.iterrows(), strict=True):
        assert ("✕ breaks" in text) == (not bool(row["meets_limits"])), text
