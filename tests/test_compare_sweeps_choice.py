"""Compare sweeps: the Sweep A selector and the figures name the same sweep. A choice kept
from an earlier run must not outlive a store that does not hold it, nor leave the selector,
drawn anew for another store's list, showing its first option while the figures are of the
remembered sweep.

Two small sweeps of the simulated all-flash array (``tests.test_app_robust_pages``), an empty
store, and a copy of the store (both sweeps, under another folder)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sweeper.store import ParquetStore
from tests.support.apptest import open_app
from tests.test_app_robust_pages import CURVES_A, CURVES_B, _page, two_flash_sweeps


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[ParquetStore, Path, Path]:
    folder = tmp_path_factory.mktemp("compare-choice")
    store = two_flash_sweeps(folder)
    empty = folder / "empty"
    empty.mkdir()
    copy = folder / "copy"
    shutil.copytree(store.root, copy)
    return store, empty, copy


def _shown(at: AppTest) -> str:
    """The option the browser draws in the Sweep A selector: the value the app sent it, else
    the selector's default (a selector drawn anew, for another list, starts there)."""
    box = at.selectbox(key="compare_sweeps_a")
    if box.proto.set_value:
        return str(box.proto.raw_value)
    return str(box.options[box.proto.default])


def _figures_of(at: AppTest) -> str:
    """The sweep A the page's figures are of ("**A** = sweep `x`")."""
    for block in at.markdown:
        found = re.search(r"\*\*A\*\* = sweep `([^`]+)`", block.value)
        if found:
            return found.group(1)
    raise AssertionError([m.value for m in at.markdown])


def _store_a(at: AppTest, folder: Path | str) -> AppTest:
    at.text_input(key="compare_sweeps_store").set_value(str(folder)).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_selector_shows_the_sweep_the_figures_are_of_after_an_empty_store(
    monkeypatch: pytest.MonkeyPatch, stores: tuple[ParquetStore, Path, Path]
) -> None:
    store, empty, copy = stores
    at = _page(open_app(monkeypatch, store.root), "compare_sweeps", CURVES_B)
    at.selectbox(key="compare_sweeps_a").set_value(CURVES_A).run()
    assert _figures_of(at) == CURVES_A
    _store_a(at, empty)
    # no sweep to choose: the page stops before the selector
    assert not [b for b in at.selectbox if b.key == "compare_sweeps_a"]
    _store_a(at, copy)
    box = at.selectbox(key="compare_sweeps_a")
    assert box.options == [CURVES_B, CURVES_A]  # newest first; the remembered one is second
    assert _shown(at) == box.value == _figures_of(at)
    # again through the empty store, to a store that does not hold the choice
    _store_a(at, empty)
    _store_a(at, "")
    assert at.selectbox(key="compare_sweeps_a").options == [CURVES_A]
    assert _shown(at) == at.selectbox(key="compare_sweeps_a").value == _figures_of(at)


def test_a_choice_the_store_does_not_hold_is_dropped(
    monkeypatch: pytest.MonkeyPatch, stores: tuple[ParquetStore, Path, Path]
) -> None:
    """From the copy (B chosen as A) to the store itself, where B is no A: the first option,
    shown and computed."""
    store, empty, copy = stores
    at = _page(open_app(monkeypatch, store.root), "compare_sweeps", CURVES_B)
    _store_a(at, copy)
    at.selectbox(key="compare_sweeps_a").set_value(CURVES_B).run()
    assert _figures_of(at) == CURVES_B
    _store_a(at, empty)
    _store_a(at, "")
    box = at.selectbox(key="compare_sweeps_a")
    assert box.options == [CURVES_A]
    assert _shown(at) == box.value == _figures_of(at) == CURVES_A
