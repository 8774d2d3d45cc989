"""The app on a hostile address and a damaged store: what a page says is a message naming the
place and the problem, never a traceback, never a wrong one. An empty or very long
``?sweep=``, an address naming a sweep whose record is damaged (and a store whose only sweep is
damaged), and run files the app's reads left out, named on every page as the commands warn.
Driven headless with Streamlit's AppTest on a small sweep of the simulated array."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sweeper.store import ParquetStore
from tests.support.apptest import open_page
from tests.support.sweeps import copy_store, one_cell_two_levels

NAME = "hostile"
#: the pages that read the sweep's runs (each says what its reads left out)
READING_PAGES = ("overview", "recommendations", "heatmaps", "curves", "run_details")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return one_cell_two_levels(tmp_path_factory, NAME)


def _opened(monkeypatch: pytest.MonkeyPatch, root: Path, page: str, **query: str) -> AppTest:
    return open_page(monkeypatch, root, page, 90, **query)


def test_an_empty_sweep_in_the_address_is_said_to_name_none(monkeypatch, store):
    at = _opened(monkeypatch, store.root, "recommendations", sweep="")
    errors = [e.value for e in at.error]
    assert errors and "names no sweep" in errors[0], errors
    assert "the sweep ," not in errors[0]  # never a name left out of its sentence


def test_a_very_long_name_in_the_address_is_quoted_cut_with_its_length(monkeypatch, store):
    at = _opened(monkeypatch, store.root, "overview", sweep="x" * 5000)
    errors = [e.value for e in at.error]
    assert errors and "not in the store" in errors[0], errors
    assert "5,000 characters" in errors[0]
    assert len(errors[0]) < 500, len(errors[0])


def _damaged_record(store: ParquetStore, tmp_path: Path) -> Path:
    """A copy of ``store`` whose sweep's record is cut in half (not JSON)."""
    root = copy_store(store.root, tmp_path)
    record = root / NAME / "sweep.json"
    text = record.read_text()
    record.write_text(text[: len(text) // 2])
    return root


def test_an_address_naming_a_damaged_sweep_says_it_is_damaged(monkeypatch, store, tmp_path):
    """The store's only sweep has a damaged record: a link to it says so, naming the file,
    never that the store holds no sweep (start one) or that it is not in the store."""
    root = _damaged_record(store, tmp_path)
    at = _opened(monkeypatch, root, "recommendations", sweep=NAME)
    errors = [e.value for e in at.error]
    assert errors, [i.value for i in at.info]
    assert "damaged" in errors[0] and f"{NAME}/sweep.json" in errors[0], errors
    assert not any("No sweeps" in i.value for i in at.info), [i.value for i in at.info]
    assert at.query_params.get("sweep") == NAME


def test_a_store_whose_only_sweep_is_damaged_is_not_said_to_be_empty(monkeypatch, store, tmp_path):
    root = _damaged_record(store, tmp_path)
    at = _opened(monkeypatch, root, "overview")
    infos = [i.value for i in at.info]
    assert infos and "damaged" in infos[0], infos
    assert not any("No sweeps" in i for i in infos), infos


def test_run_files_the_app_left_out_are_named_on_every_page(monkeypatch, store, tmp_path):
    """A run file cut short is left out of what the pages read (as the commands leave it
    out): each page that reads the runs names it at its top, as the commands warn."""
    root = copy_store(store.root, tmp_path)
    damaged = sorted((root / NAME / "runs").glob("*/*.parquet"))[0]
    data = damaged.read_bytes()
    damaged.write_bytes(data[: len(data) // 2])
    for page in READING_PAGES:
        at = _opened(monkeypatch, root, page, sweep=NAME)
        warnings = [w.value for w in at.warning]
        assert any(damaged.name in w and "cannot be read" in w for w in warnings), (
            page,
            warnings,
        )


def test_a_whole_store_names_no_file_left_out(monkeypatch, store):
    for page in READING_PAGES:
        at = _opened(monkeypatch, store.root, page, sweep=NAME)
        assert not at.warning, (page, [w.value for w in at.warning])
        assert not at.error, (page, [e.value for e in at.error])


def test_a_very_long_run_id_in_the_address_is_quoted_cut_with_its_length(monkeypatch, store):
    at = _opened(monkeypatch, store.root, "run_details", sweep=NAME, run="f" * 5000)
    errors = [e.value for e in at.error]
    assert errors and "is not a run id" in errors[0], errors
    assert "5,000 characters" in errors[0]
    assert len(errors[0]) < 500, len(errors[0])


def _compared_with(monkeypatch: pytest.MonkeyPatch, store: ParquetStore, other: Path) -> AppTest:
    """Compare sweeps, the sweep of ``store`` (B) against the store at ``other`` (A)."""
    at = _opened(monkeypatch, store.root, "compare_sweeps", sweep=NAME)
    at.text_input(key="compare_sweeps_store").set_value(str(other)).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_a_file_given_as_sweep_a_store_is_said_to_be_a_file(monkeypatch, store, tmp_path):
    a_file = tmp_path / "results.parquet"
    a_file.write_bytes(b"PAR1")
    at = _compared_with(monkeypatch, store, a_file)
    infos = [i.value for i in at.info]
    assert infos and "is a file, not a store's folder" in infos[0], infos


def test_sweep_a_store_whose_sweep_is_damaged_names_it(monkeypatch, store, tmp_path):
    """Sweep A's store holds only a sweep with a damaged record: named, never only 'no other
    sweep' (the sidebar names the damage of B's store alone)."""
    at = _compared_with(monkeypatch, store, _damaged_record(store, tmp_path))
    warnings = [w.value for w in at.warning]
    assert any(f"{NAME}/sweep.json" in w and "damaged" in w for w in warnings), warnings


def test_sweep_a_run_files_left_out_are_named(monkeypatch, store, tmp_path):
    root = copy_store(store.root, tmp_path)
    damaged = sorted((root / NAME / "runs").glob("*/*.parquet"))[0]
    damaged.write_bytes(damaged.read_bytes()[:100])
    at = _compared_with(monkeypatch, store, root)
    warnings = [w.value for w in at.warning]
    assert any(damaged.name in w and "cannot be read" in w for w in warnings), warnings
    assert [s.value for s in at.subheader][:2] == ["Per class", "Per cell"]  # the rest compared
