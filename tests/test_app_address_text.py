"""What the app says of a text it was given shows that text as it is: a bidirectional control
or a control character in the address (?sweep=, ?run=) is written as its escape, so it
cannot reorder the rest of the message; a path typed as the store of sweep A that is very
long is cut as the address's values are, and one that is no store's folder is said to be
what it is (a file, a device, nothing). With Run details' words on its job file and a cell's
runs written as every page writes a figure. Driven headless with Streamlit's AppTest on one
small sweep of the simulated array."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from recommender import views
from recommender.figures import figure
from recommender.views.runs import QUOTED_MAX, quoted_typed
from sweeper.store import ParquetStore
from tests.support.apptest import open_page
from tests.support.sweeps import one_cell_two_levels
from tests.test_app_readable import _shown

NAME = "told"
#: a right-to-left override and a line break: each would show the message otherwise than it is
OVERRIDE = "\u202eevil"
HOSTILE = f"{OVERRIDE}\nand\x1b[31mred\u2066"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return one_cell_two_levels(tmp_path_factory, NAME)


def _opened(monkeypatch: pytest.MonkeyPatch, root: Path, page: str, **query: str) -> AppTest:
    return open_page(monkeypatch, root, page, 60, **query)


def _escaped(said: str) -> None:
    """``said`` holds HOSTILE's escapes and none of its controls."""
    for char, escape in (("\u202e", "\\u202e"), ("\x1b", "\\x1b"), ("\u2066", "\\u2066")):
        assert char not in said and escape in said, said
    assert "\\nand" in said, said


def test_a_quoted_text_shows_each_control_as_its_escape() -> None:
    assert quoted_typed(HOSTILE) == "`\\u202eevil\\nand\\x1b[31mred\\u2066`"
    assert quoted_typed("\u200e\u200f\u061c\x9b\t") == "`\\u200e\\u200f\\u061c\\x9b\\t`"
    long = "\u202e" * (QUOTED_MAX + 50)  # cut first, as typed: its length is the typed one's
    assert quoted_typed(long).endswith(f"… ({QUOTED_MAX + 50:,} characters)")
    assert "\u202e" not in quoted_typed(long)
    _escaped(views.run_id_problem(HOSTILE) or "")


def test_a_bidi_override_in_the_sweep_of_the_address_is_shown_escaped(monkeypatch, store):
    at = _opened(monkeypatch, store.root, "recommendations", sweep=HOSTILE)
    errors = [e.value for e in at.error]
    assert errors and "not in the store" in errors[0], errors
    _escaped(errors[0])


def test_a_bidi_override_in_the_run_of_the_address_is_shown_escaped(monkeypatch, store):
    at = _opened(monkeypatch, store.root, "run_details", sweep=NAME, run=HOSTILE)
    errors = [e.value for e in at.error]
    assert errors and "is not a run id" in errors[0], errors
    _escaped(errors[0])


def _store_a(monkeypatch: pytest.MonkeyPatch, store: ParquetStore, typed: str) -> list[str]:
    """What Compare sweeps says with ``typed`` as the store of sweep A: its errors and notes."""
    at = _opened(monkeypatch, store.root, "compare_sweeps", sweep=NAME)
    at.text_input(key="compare_sweeps_store").set_value(typed).run()
    assert not at.exception, [e.message for e in at.exception]
    return [e.value for e in at.error] + [i.value for i in at.info]


def test_a_very_long_store_path_is_cut_and_said_too_long(monkeypatch, store):
    typed = "/" + "a" * 2999
    said = _store_a(monkeypatch, store, typed)
    assert len(said) == 1 and "too long" in said[0], said
    assert "3,000 characters" in said[0] and len(said[0]) < 600, said
    assert "Errno" not in said[0]


def test_a_device_given_as_store_is_said_to_be_a_device(monkeypatch, store):
    said = _store_a(monkeypatch, store, "/dev/zero")
    assert said == [
        "`/dev/zero` is a device, not a store's folder: check the path of sweep A's store."
    ], said


def test_a_file_and_no_path_given_as_store_are_told_apart(monkeypatch, store, tmp_path):
    a_file = tmp_path / "results"
    a_file.write_text("mine\n")
    (said,) = _store_a(monkeypatch, store, str(a_file))
    assert "is a file, not a store's folder" in said, said
    (said,) = _store_a(monkeypatch, store, str(a_file / "below"))
    assert said.startswith("There is no folder") and "is a file)" in said, said
    (said,) = _store_a(monkeypatch, store, str(tmp_path / "gone"))
    assert said.startswith("There is no folder") and "(" not in said, said
    assert a_file.read_text() == "mine\n" and not (tmp_path / "gone").exists()


def test_the_job_file_is_run_by_hand_as_raidsweep_runs_it(monkeypatch, store):
    at = _opened(monkeypatch, store.root, "run_details", sweep=NAME)
    captions = [c.value for c in at.caption if "Run it by hand" in c.value]
    assert captions == [
        "Run it by hand with `fio --output-format=json+ FILE`, as raidsweep runs it."
    ], captions
    job = at.code[0].value
    assert "fio --output-format=json+" in job, job


def test_a_cells_runs_write_their_figures_as_every_page_does(monkeypatch, store):
    """IOPS grouped in thousands (3,027, never 3027.4), as the grid above them writes them."""
    at = _opened(monkeypatch, store.root, "heatmaps", sweep=NAME)
    at.selectbox(key="metric").set_value("IOPS").run()
    cell = at.selectbox(key="heatmap_cell")
    cell.set_value(cell.options[0]).run()
    assert not at.exception, [e.message for e in at.exception]
    shown = _shown(at, -1)
    runs = store.runs(NAME).set_index("run_id")
    assert len(shown) == 2
    for run_id, iops, mbps in zip(shown["run id"], shown["IOPS"], shown["MB/s"], strict=True):
        assert iops == figure(runs.loc[run_id, "iops"]) and "," in iops, iops
        assert mbps == figure(runs.loc[run_id, "mbps"]), mbps
