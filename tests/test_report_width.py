"""No table of the HTML report is cut off: each sits in a ``div.table-scroll`` that scrolls
sideways when the table is wider than the page's column (the page itself never does), and the
cell names in a ranking's key cell, worst latency and limits wrap between their parts, so that
a ranking fits a 1280 px window beside its vertical scroll bar (the redo_log ranking was 1,267
px wide there, its last column, "limits", out of view). Checked in the templates, and in
Debian's headless Chromium on the quick sweep's report at 1280 and 800 px, the window's scroll
bar shown as a desktop browser shows it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recommender.report import TEMPLATES, breakable_text, write_report
from sweeper.store import ParquetStore
from tests.support.appserver import chromium

WRAPPER = '<div class="table-scroll">'


def _templates() -> list[Path]:
    found = sorted(TEMPLATES.glob("*.html.j2"))
    assert any(p.name == "report.html.j2" for p in found)
    return found


@pytest.mark.parametrize("template", _templates(), ids=lambda p: p.name)
def test_every_table_sits_in_a_scrolling_wrapper(template: Path) -> None:
    text = template.read_text()
    opens = [m.start() for m in re.finditer(r"<table\b", text)]
    closes = [m.end() for m in re.finditer(r"</table>", text)]
    assert len(opens) == len(closes)
    for at in opens:
        assert text[:at].endswith(WRAPPER), f"{template.name}: {text[at : at + 80]!r}"
    for at in closes:
        assert text[at:].startswith("</div>"), f"{template.name}: {text[at - 80 : at]!r}"


def test_the_wrapper_scrolls_sideways_and_the_table_stays_a_table() -> None:
    style = (TEMPLATES / "report.html.j2").read_text().split("<style>")[1].split("</style>")[0]
    style = re.sub(r"/\*.*?\*/", "", style, flags=re.S)  # no comments
    rules = {k.strip(): v for k, v in re.findall(r"([^{}]+)\{([^}]*)\}", style)}
    wrapper = rules[".table-scroll"].replace(" ", "")
    assert "overflow-x:auto" in wrapper and "max-width:100%" in wrapper
    assert "display" not in rules["table"]  # display: block would drop a table's semantics


def test_a_cell_name_wraps_between_its_parts() -> None:
    assert breakable_text("write/4k/qd1x1/dsync") == "write/<wbr>4k/<wbr>qd1x1/<wbr>dsync"
    assert breakable_text("<b>a/b</b>") == "&lt;b&gt;a/<wbr>b&lt;/<wbr>b&gt;"  # escaped


# In Chromium ----------------------------------------------------------------------------------
#: per table: its right edge, its wrapper's, and whether the wrapper scrolls sideways
MEASURE = """() => ({
  page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
  tables: [...document.querySelectorAll('table')].map(t => {
    const box = t.parentElement, style = getComputedStyle(box);
    return {
      head: t.querySelector('th').innerText,
      wrapped: box.matches('div.table-scroll') && ['auto', 'scroll'].includes(style.overflowX),
      right: t.getBoundingClientRect().right,
      visible: box.getBoundingClientRect().right,
      scrolls: box.scrollWidth > box.clientWidth,
    };
  }),
})"""


@pytest.fixture(scope="module")
def report_html(quick_store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_report(quick_store, quick_store.get_sweep("quick"), path)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = chromium()
    if path is None:
        pytest.fail("Debian's chromium is not installed: run scripts/test.sh or install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        # Playwright hides the scroll bars of a headless browser: shown, the window's vertical
        # one takes its width from the page as in a desktop browser.
        found = pw.chromium.launch(
            executable_path=path, headless=True, ignore_default_args=["--hide-scrollbars"]
        )
        try:
            yield found
        finally:
            found.close()


@pytest.mark.integration
@pytest.mark.parametrize("width", [1280, 800])
def test_no_table_is_cut_off_in_chromium(report_html: Path, browser: Any, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(report_html.as_uri())
        seen = page.evaluate(MEASURE)
    finally:
        page.close()
    scroll_width, window = seen["page"]
    assert scroll_width <= window, seen["page"]  # the page never scrolls sideways
    tables = seen["tables"]
    assert len(tables) >= 10
    for t in tables:
        assert t["wrapped"], t
        assert t["visible"] <= window + 0.5, t  # the wrapper ends inside the window
        assert t["right"] <= t["visible"] + 0.5 or t["scrolls"], t  # fits, or scrolls
    rankings = [t for t in tables if t["head"] == "rank"]
    assert rankings
    if width == 1280:  # each ranking fits beside the scroll bar: "limits" in view unscrolled
        assert all(t["right"] <= t["visible"] + 0.5 and not t["scrolls"] for t in rankings), [
            round(t["right"]) for t in rankings
        ]
