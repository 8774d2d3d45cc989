"""The Run details and Compare sweeps pages, driven headless with Streamlit's AppTest: the
store's and the user's words shown as text (a run id typed, a run's status), and Compare
sweeps following either of its sweeps while it runs, the choices made kept.

The store: two small sweeps on the simulated all-flash array (the pages' own fixture, built
here again for this module)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from recommender import views
from sweeper.store import ParquetStore
from tests.support.apptest import open_app
from tests.test_app_robust_pages import (
    CURVES_A,
    CURVES_B,
    _is_live,
    _page,
    running_copy,
    two_flash_sweeps,
)

#: a status no run has today: Markdown, LaTeX, a link, an icon and HTML
STATUS = "**ok** $a$ and $b$ [click](http://192.0.2.1/) :material/warning: :red[x] <b>b</b>"


@pytest.fixture(scope="module")
def two_sweeps(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return two_flash_sweeps(tmp_path_factory.mktemp("typed-status-compare"))


def _markdown_text(markdown: str) -> str:
    """What Markdown shows of ``markdown``, which must be text alone (no emphasis, link,
    code, HTML): its characters, the invisible word joiners left out."""
    tokens = MarkdownIt("commonmark").enable("strikethrough").parse(markdown)
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], markdown
    children = tokens[1].children or []
    assert {c.type for c in children} <= {"text"}, (markdown, [c.type for c in children])
    return "".join(c.content for c in children).replace("\u2060", "")


# Run details -----------------------------------------------------------------------------------
def test_a_typed_run_id_is_said_as_the_views_say_it(
    monkeypatch: pytest.MonkeyPatch, two_sweeps: ParquetStore
) -> None:
    """The page shows ``views.run_id_problem``'s own words: the typed text in them is quoted
    as itself there, with no patching of the page's."""
    at = _page(open_app(monkeypatch, two_sweeps.root), "run_details", CURVES_A)
    typed = "`**x**` $a$ [click](http://192.0.2.1/)"
    at.text_input(key="run_id").set_value(typed).run()
    assert [e.value for e in at.error] == [views.run_id_problem(typed)]


def test_the_status_of_a_run_is_shown_as_text(
    monkeypatch: pytest.MonkeyPatch, two_sweeps: ParquetStore
) -> None:
    """Whatever the store says a run's status is, the metric shows its characters: never
    bold, a formula, a link or an icon (st.metric reads its value as Markdown)."""
    run_detail = ParquetStore.run_detail

    def with_status(self: ParquetStore, run_id: str, **options: Any) -> dict[str, Any] | None:
        detail = run_detail(self, run_id, **options)
        return None if detail is None else detail | {"status": STATUS}

    monkeypatch.setattr(ParquetStore, "run_detail", with_status)
    at = _page(open_app(monkeypatch, two_sweeps.root), "run_details", CURVES_A)
    at.session_state["run_pick"] = two_sweeps.runs(CURVES_A)["run_id"].iloc[0]
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    (status,) = [m.value for m in at.metric if m.label == "Status"]
    assert _markdown_text(status) == STATUS, status


# Compare sweeps --------------------------------------------------------------------------------
def _compared(at: AppTest) -> bool:
    """Whether the page shows the comparison (the tables per class and per cell)."""
    return any(m.value.startswith("**A** = sweep") for m in at.markdown) and bool(at.dataframe)


@pytest.mark.parametrize("runs", [CURVES_A, CURVES_B], ids=["sweep A runs", "sweep B runs"])
def test_compare_sweeps_follows_a_sweep_that_runs(
    monkeypatch: pytest.MonkeyPatch, two_sweeps: ParquetStore, tmp_path: Path, runs: str
) -> None:
    """B is the sidebar's sweep, A the one chosen on the page: while either runs, the page
    refreshes, the runs that land are compared, and the choices made stay as they were."""
    other = CURVES_B if runs == CURVES_A else CURVES_A
    root, held = running_copy(two_sweeps, tmp_path, runs, other)
    at = _page(open_app(monkeypatch, root), "compare_sweeps", CURVES_B)
    assert at.selectbox(key="compare_sweeps_a").value == CURVES_A
    at.toggle(key="compare_sweeps_all").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    assert [i.value for i in at.info] == ["Both sweeps need runs before they can be compared."]
    assert _is_live(at) and not _compared(at)

    shutil.move(held, root / runs / "runs")  # the runs land
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert _is_live(at) and _compared(at)
    assert at.selectbox(key="compare_sweeps_a").value == CURVES_A
    assert at.toggle(key="compare_sweeps_all").value is True

    progress = ParquetStore(root).read_progress(runs) or {}
    ParquetStore(root).write_progress(runs, progress | {"state": "finished"})
    at.run()  # the sweep ended: drawn once more, without the timer
    assert not at.exception, [e.message for e in at.exception]
    assert not _is_live(at) and _compared(at)
