"""The HTML report never scrolls sideways on a phone's 390 px window where free text holds a
word longer than the line (a sweep's description, a class's or a configuration's name, a
note): the elements that hold free text break inside such a word, the tables keep their own
scroll box. Checked in the template's style, and in Debian's headless Chromium on the quick
sweep's report with a long word in its description."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from recommender.report import TEMPLATES, write_report
from sweeper.store import ParquetStore
from tests.test_report_width import browser  # noqa: F401  (the fixture)

#: the elements of the templates that hold free text outside a table
FREE_TEXT = ("h1", "h2", "h3", "p", "li", "summary", ".rec", ".chart", ".muted")
LONG_WORD = "a" * 120 + "_with_no_break_" + "b" * 60


def _rules() -> dict[str, str]:
    style = (TEMPLATES / "report.html.j2").read_text().split("<style>")[1].split("</style>")[0]
    style = re.sub(r"/\*.*?\*/", "", style, flags=re.S)
    rules: dict[str, str] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", style):
        for selector in selectors.split(","):
            rules[selector.strip()] = rules.get(selector.strip(), "") + body.replace(" ", "")
    return rules


def test_free_text_breaks_inside_a_long_word() -> None:
    rules = _rules()
    for selector in FREE_TEXT:
        assert "overflow-wrap:anywhere" in rules.get(selector, ""), selector
    # a contents link no longer stays whole on one line whatever its length
    assert "white-space:nowrap" not in rules["nav.toc a"]
    # tables are not made to break their words: they scroll in their own box
    assert "overflow-wrap" not in rules.get("table", "") + rules.get("td", "")


@pytest.mark.integration
def test_a_long_word_in_the_description_does_not_widen_the_page(
    quick_store: ParquetStore,
    browser: object,  # noqa: F811
    tmp_path: Path,
) -> None:
    record = {**quick_store.get_sweep("quick"), "description": f"Sweep {LONG_WORD} here"}
    path = tmp_path / "report.html"
    write_report(quick_store, record, path)
    page = browser.new_page(viewport={"width": 390, "height": 800})  # type: ignore[attr-defined]
    try:
        page.goto(path.as_uri())
        scroll, client = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert LONG_WORD in page.inner_text("p.muted")
    finally:
        page.close()
    assert scroll <= client, (scroll, client)
