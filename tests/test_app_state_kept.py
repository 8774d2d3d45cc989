"""The app keeps what the user chose: the sweep in the address on every page (a reload or a
shared link opens that sweep; an unknown one is said to be so), the class and the heatmap's
choices across a visit to another page, a heatmap that opens on a pattern having its metric
(and says why a pattern cannot have it), and Run details' address in step with what it shows.
Driven headless with Streamlit's AppTest on two small sweeps of the simulated array."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sweeper.store import ParquetStore
from tests.support.apptest import open_app
from tests.support.specs import class_measuring, one_cell_sim, write_spec
from tests.support.sweeps import sweep

OLDER, NEWER = "older", "newer"
FIRST, SECOND = "first", "second"
CELL_KEY = "heatmap_cell"  # the heatmap's chooser of a cell whose runs it lists


def _spec(folder: Path, name: str) -> Path:
    """Two configurations, writes and random reads at two block sizes, two classes."""
    spec = one_cell_sim(name, ["raid10", "raid5"])
    spec["matrix"] |= {
        "patterns": ["write", "randread"],
        "block_sizes": ["4k", "64k"],
        "concurrency": ["1x1"],
    }
    spec["classes"] = [
        class_measuring(folder, spec["matrix"], name=FIRST),
        class_measuring(folder, spec["matrix"], name=SECOND),
    ]
    return write_spec(folder, spec, name)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    root = tmp_path_factory.mktemp("state-store")
    for name in (OLDER, NEWER):  # NEWER last: the newest, the one a bare address opens
        folder = tmp_path_factory.mktemp(name)
        made, outcome = sweep(_spec(folder, name), root)
        assert outcome.complete
    return made


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]
    return at


def _page(at: AppTest, name: str) -> AppTest:
    return _ok(at.switch_page(f"app_pages/{name}.py").run())


def _older(monkeypatch: pytest.MonkeyPatch, store: ParquetStore) -> AppTest:
    at = open_app(monkeypatch, store.root)
    at.selectbox(key="sweep").set_value(OLDER).run()
    return _ok(at)


def test_the_address_names_the_sweep_on_every_page(monkeypatch, store):
    at = _older(monkeypatch, store)
    for name in ("recommendations", "heatmaps", "curves", "overview", "what_matters"):
        _page(at, name)
        assert at.query_params.get("sweep") == OLDER, name


def test_a_reload_opens_the_sweep_the_address_names(monkeypatch, store):
    monkeypatch.setenv("RAIDSWEEP_STORE", str(store.root))
    at = AppTest.from_file(str(Path(__file__).parents[1] / "app.py"), default_timeout=60)
    at.query_params["sweep"] = OLDER
    at.switch_page("app_pages/recommendations.py")
    _ok(at.run())
    assert at.selectbox(key="sweep").value == OLDER
    assert at.header[0].value.endswith(f"sweep {OLDER}")


def test_an_unknown_sweep_in_the_address_is_said_not_replaced(monkeypatch, store):
    monkeypatch.setenv("RAIDSWEEP_STORE", str(store.root))
    at = AppTest.from_file(str(Path(__file__).parents[1] / "app.py"), default_timeout=60)
    at.query_params["sweep"] = "gone"
    at.switch_page("app_pages/recommendations.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert [e.value for e in at.error] and "gone" in at.error[0].value
    assert "not in the store" in at.error[0].value
    assert not any(f"sweep {NEWER}" in h.value for h in at.header)  # no other sweep shown
    assert at.query_params.get("sweep") == "gone"
    at.selectbox(key="sweep").set_value(NEWER).run()  # chosen in the sidebar: shown
    _ok(at)
    assert at.header[0].value.endswith(f"sweep {NEWER}")
    assert at.query_params.get("sweep") == NEWER


def test_the_class_is_kept_across_pages(monkeypatch, store):
    at = _page(_older(monkeypatch, store), "recommendations")
    assert at.selectbox(key="class").value == FIRST
    _ok(at.selectbox(key="class").set_value(SECOND).run())
    _page(at, "compare")
    _page(at, "recommendations")
    assert at.selectbox(key="class").value == SECOND
    assert f"{SECOND}:" in at.success[0].value


def test_the_heatmaps_choices_are_kept_across_pages(monkeypatch, store):
    at = _page(_older(monkeypatch, store), "heatmaps")
    _ok(at.selectbox(key="metric").set_value("MB/s").run())
    _ok(at.selectbox(key="pattern").set_value("randread").run())
    cell = at.selectbox(key=CELL_KEY)
    chosen = cell.options[1]
    _ok(cell.set_value(chosen).run())
    assert any(" runs** of **" in m.value for m in at.markdown)
    _page(at, "curves")
    _page(at, "heatmaps")
    assert at.selectbox(key="metric").value == "MB/s"
    assert at.selectbox(key="pattern").value == "randread"
    assert at.selectbox(key=CELL_KEY).value == chosen
    assert any(" runs** of **" in m.value for m in at.markdown)


def test_a_read_latency_opens_on_a_pattern_that_reads(monkeypatch, store):
    at = _page(_older(monkeypatch, store), "heatmaps")
    assert at.selectbox(key="pattern").value == "write"  # the matrix's first
    _ok(at.selectbox(key="metric").set_value("p99 read latency (ms)").run())
    assert at.selectbox(key="pattern").value == "randread"
    assert not [i.value for i in at.info]
    # chosen anyway, a write says why it has none, and no "yet" on a finished sweep
    _ok(at.selectbox(key="pattern").set_value("write").run())
    notes = [i.value for i in at.info]
    assert notes and "makes no reads" in notes[0], notes
    assert "yet" not in notes[0] and "randread" in notes[0]


def test_a_bad_run_id_leaves_no_other_run_in_the_address(monkeypatch, store):
    at = _page(_older(monkeypatch, store), "run_details")
    shown = at.query_params.get("run")
    assert shown and len(shown) == 24  # the run the page opened on
    at.text_input(key="run_id").input("zzz").run()
    assert [e.value for e in at.error]
    assert at.query_params.get("run") in (None, "zzz")
    unknown = "0" * 24
    at.text_input(key="run_id").input(unknown).run()
    assert any(unknown in e.value for e in at.error)
    assert at.query_params.get("run") == unknown
