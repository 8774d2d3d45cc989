"""Compare, Curves, What matters and Run details keep what the user chose across a visit to
another page (a sidebar link, then Back): Streamlit forgets the state of a widget its page
does not draw, so each page keeps its choices apart (``_common.keep``) as Recommendations and
Heatmaps do. Driven headless with Streamlit's AppTest on one small sweep of the simulated
array."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sweeper.store import ParquetStore
from sweeper.units import format_size, parse_size
from tests.support.apptest import open_app
from tests.support.specs import class_measuring, one_cell_sim, write_spec
from tests.support.sweeps import sweep

NAME = "kept"
FIRST, SECOND = "first", "second"


def _spec(folder: Path) -> Path:
    """Three configurations, writes and random reads at two block sizes and two
    concurrencies (a curve each), two repetitions, two classes."""
    spec = one_cell_sim(NAME, ["raid10", "raid5", "raid6"], repetitions=2)
    spec["matrix"] |= {
        "patterns": ["write", "randread"],
        "block_sizes": ["4k", "64k"],
        "concurrency": ["1x1", "1x4"],
    }
    spec["classes"] = [
        class_measuring(folder, spec["matrix"], name=FIRST),
        class_measuring(folder, spec["matrix"], name=SECOND),
    ]
    return write_spec(folder, spec, NAME)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    folder = tmp_path_factory.mktemp("kept-spec")
    made, outcome = sweep(_spec(folder), tmp_path_factory.mktemp("kept-store"))
    assert outcome.complete
    return made


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _page(at: AppTest, name: str) -> AppTest:
    return _ok(at.switch_page(f"app_pages/{name}.py").run())


def _away_and_back(at: AppTest, name: str) -> AppTest:
    """Another page (the heatmaps, by the sidebar), then ``name`` again (Back)."""
    _page(at, "heatmaps")
    return _page(at, name)


def _opened(monkeypatch: pytest.MonkeyPatch, store: ParquetStore, name: str) -> AppTest:
    return _page(open_app(monkeypatch, store.root), name)


def _other(options: list, value: object) -> object:
    """An option that is not ``value``: a choice the page does not open on."""
    return next(o for o in reversed(options) if o != value)


def test_compare_keeps_the_pair_and_the_figure(monkeypatch, store):
    at = _opened(monkeypatch, store, "compare")
    a, b = at.selectbox(key="compare_a"), at.selectbox(key="compare_b")
    chosen_a = _other(a.options, a.value)
    chosen_b = next(o for o in b.options if o not in (chosen_a, b.value))
    _ok(at.selectbox(key="compare_a").set_value(chosen_a).run())
    _ok(at.selectbox(key="compare_b").set_value(chosen_b).run())
    figure = at.radio(key="compare_metric")
    chosen_figure = _other(figure.options, figure.value)
    _ok(figure.set_value(chosen_figure).run())
    _away_and_back(at, "compare")
    assert at.selectbox(key="compare_a").value == chosen_a
    assert at.selectbox(key="compare_b").value == chosen_b
    assert at.radio(key="compare_metric").value == chosen_figure


def test_compare_keeps_a_pair_picked_on_another_page(monkeypatch, store):
    """A ranking's row sent to Compare (its pick) is the pair shown after Heatmaps and Back."""
    at = _opened(monkeypatch, store, "compare")
    shown = (at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value)
    pick = (shown[1], shown[0])
    at.session_state["compare_pick"] = pick
    _page(at, "compare")
    assert (at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value) == pick
    _away_and_back(at, "compare")
    assert (at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value) == pick


def test_curves_keep_the_pattern_and_the_block_size(monkeypatch, store):
    at = _opened(monkeypatch, store, "curves")
    pattern = at.selectbox(key="curve_pattern")
    chosen_pattern = _other(pattern.options, pattern.value)
    _ok(pattern.set_value(chosen_pattern).run())
    size = at.selectbox(key="curve_block_size")  # its options as shown (4k), its value bytes
    chosen_size = _other(size.options, format_size(int(size.value)))
    _ok(size.set_value(parse_size(chosen_size)).run())
    assert format_size(int(at.selectbox(key="curve_block_size").value)) == chosen_size
    _away_and_back(at, "curves")
    assert at.selectbox(key="curve_pattern").value == chosen_pattern
    assert format_size(int(at.selectbox(key="curve_block_size").value)) == chosen_size


def test_what_matters_keeps_the_class(monkeypatch, store):
    at = _opened(monkeypatch, store, "what_matters")
    assert at.selectbox(key="importance_class").value == FIRST
    _ok(at.selectbox(key="importance_class").set_value(SECOND).run())
    _away_and_back(at, "what_matters")
    assert at.selectbox(key="importance_class").value == SECOND


def test_run_details_keeps_the_configuration_cell_and_repetition(monkeypatch, store):
    at = _opened(monkeypatch, store, "run_details")
    for key in ("run_config", "run_cell", "run_repetition"):
        box = at.selectbox(key=key)
        _ok(box.set_value(_other(box.options, box.value)).run())
    chosen = {k: at.selectbox(key=k).value for k in ("run_config", "run_cell", "run_repetition")}
    shown = at.query_params.get("run")
    _away_and_back(at, "run_details")
    assert {k: at.selectbox(key=k).value for k in chosen} == chosen
    assert at.query_params.get("run") == shown


def test_run_details_keeps_a_run_picked_on_another_page(monkeypatch, store):
    """A heatmap cell's run (its pick) is the run shown after another page and Back."""
    run_id = str(store.runs(NAME)["run_id"].iloc[-1])
    at = _opened(monkeypatch, store, "run_details")
    at.session_state["run_pick"] = run_id
    _ok(at.run())
    assert at.query_params.get("run") == run_id
    _away_and_back(at, "run_details")
    assert at.text_input(key="run_id").value == run_id
    assert at.query_params.get("run") == run_id
