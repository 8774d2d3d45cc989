"""Compare sweeps: the sweep chosen in the sidebar (B) against another (A) of this store or of
another store — the new array against the old, after a firmware update against before, a
rehearsal against the simulated array; per class and per cell, each change with its interval
and whether it is significantly better or worse. The acceptance verdict of B's gates beside.
While either sweep runs, the comparison is drawn again every few seconds, the choices kept."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from app_pages import _common, _frame
from recommender.acceptance_io import check_rows, sweep_acceptance, verdict_for
from recommender.data import sweep_classes
from recommender.sweepcompare import (
    CELL_TABLE_EXTRA,
    CHANGE_NOTE,
    CLASS_TABLE_EXTRA,
    NOTHING_IN_COMMON,
    RECOMMENDED_MARK,
    cell_table,
    class_table,
    compare_sweeps,
)
from sweeper.errors import InputError, StoreError
from sweeper.store import ParquetStore, open_store
from sweeper.untrusted import markdown_code, markdown_prose, path_problem

#: the tables' columns: short headers with their words as tooltips, narrow figures, so that
#: the scores, the change and its interval fit a laptop's window beside the sidebar; the
#: columns of ``*_TABLE_EXTRA`` hidden (the table's column menu shows them, the CSV has them)
_PAIR_HELP = (
    "The configuration compared in both sweeps; 'A's → B's' where they differ (each whole "
    f"in the hidden columns configuration A and B). {RECOMMENDED_MARK.strip()}: what the "
    "sweeps recommend for the class."
)
_COLUMNS: dict[str, object] = {
    "class": st.column_config.TextColumn("class", width=120, help="The class and its unit"),
    "configuration": st.column_config.TextColumn("configuration", width=262, help=_PAIR_HELP),
    "cell": st.column_config.TextColumn("cell", width=132),
    "figure": st.column_config.TextColumn("figure", width=84),
    "A": st.column_config.TextColumn("A", width=58, help="Sweep A's mean", alignment="right"),
    "B": st.column_config.TextColumn("B", width=58, help="Sweep B's mean", alignment="right"),
    "change % (95% CI)": st.column_config.TextColumn(
        "change %",
        width=132,
        help="B / A − 1 in %, with its 95% interval",
        alignment="right",
    ),
    "verdict": st.column_config.TextColumn(
        "verdict",
        width=64,
        help="better / worse: the 95% interval of the change excludes no change; n.s.: it "
        "does not (no significant change); unknown: fewer than two repetitions on a side",
    ),
}


def _hidden(columns: list[str]) -> dict[str, object]:
    """The column configs of ``columns``: hidden until the table's column menu shows them."""
    return {
        c: st.column_config.TextColumn(c, help=_EXTRA_HELP.get(c)) | {"hidden": True}
        for c in columns
    }


def _narrow(shown: pd.DataFrame, extra: list[str]) -> None:
    """A comparison's table, its columns as ``_COLUMNS`` sets them, those of ``extra``
    hidden."""
    columns = {c: v for c, v in _COLUMNS.items() if c in shown.columns}
    _frame.table(shown, columns | _hidden(extra))


_EXTRA_HELP = {
    "A (95% CI)": "Sweep A's mean with its 95% interval",
    "B (95% CI)": "Sweep B's mean with its 95% interval",
    "paired as": "Why the pair was compared: each sweep's recommendation, the same configuration",
}


def _same_folder(a: Path, b: Path) -> bool:
    """Whether two store paths name one folder (a sweep is never compared with itself)."""
    try:
        return a.resolve() == b.resolve() or a.samefile(b)
    except OSError:
        return False


page = _frame.open_page("Compare sweeps")
st.caption(
    "B is the sweep chosen in the sidebar; A the sweep it is compared with (the old array, the "
    "firmware before, the simulated array). Changes are B / A − 1 with their 95% interval."
)
other = st.text_input(
    "Store of sweep A",
    value="",
    placeholder="this store (or the folder of another store)",
    key="compare_sweeps_store",
)
store_a: ParquetStore = page.store
if other.strip():
    problem = path_problem(other.strip())
    if problem is not None:
        st.error(f"Store of sweep A: {markdown_prose(problem)}")
        st.stop()
    try:
        store_a = open_store(other.strip())
        records = store_a.list_sweeps()
    except (StoreError, OSError) as exc:
        st.error(f"Store of sweep A: {markdown_prose(str(exc))}")
        st.stop()
else:
    records = store_a.list_sweeps()
same_store = store_a is page.store or _same_folder(store_a.root, page.store.root)
# newest first, as the sidebar lists them: the sweep just before this one is the usual A
ids = [i for i in _common.sweep_ids(records) if not (same_store and i == page.sweep_id)]
if not ids:
    if other.strip() and not store_a.root.is_dir():
        st.info(
            f"There is no folder {markdown_code(str(store_a.root))}: "
            "check the path of sweep A's store."
        )
        st.stop()
    st.info("No other sweep to compare with: name another store, or run a second sweep.")
    st.stop()
sweep_a = st.selectbox("Sweep A", ids, key="compare_sweeps_a")
show_all = st.toggle("Every cell (not only the significant changes)", key="compare_sweeps_all")


def render() -> None:
    record_a = store_a.get_sweep(sweep_a) or {}
    runs_a, runs_b = store_a.runs(sweep_a), page.runs()
    if runs_a.empty or runs_b.empty:
        st.info("Both sweeps need runs before they can be compared.")
        return
    try:
        classes = sweep_classes(record_a)
        names = {c.name for c in classes}
        classes += [c for c in sweep_classes(page.record) if c.name not in names]
    except InputError as exc:
        st.error(markdown_prose(str(exc)))
        return
    comparison = compare_sweeps(runs_a, runs_b, classes)
    a, b = markdown_code(sweep_a), markdown_code(page.sweep_id)
    st.markdown(f"**A** = sweep {a}  \n**B** = sweep {b}")
    if comparison.classes.empty and comparison.cells.empty:
        st.info(f"{NOTHING_IN_COMMON[0].upper()}{NOTHING_IN_COMMON[1:]}.")
        return
    st.subheader("Per class")
    _narrow(class_table(comparison.classes), CLASS_TABLE_EXTRA)
    st.subheader("Per cell")
    cells = comparison.cells
    if not show_all:
        cells = cells[cells["verdict"].isin(["better", "worse"])]
    st.caption(f"{len(cells)} of {len(comparison.cells)} cell figures shown.")
    if len(cells):
        _narrow(cell_table(cells), CELL_TABLE_EXTRA)
    st.caption(f"Changes in %. {CHANGE_NOTE[0].upper()}{CHANGE_NOTE[1:]}.")
    _acceptance(store_a)


def _acceptance(store_a: ParquetStore) -> None:
    """B's acceptance gates, when its spec has some (the baseline from A's store when it
    holds it, else from B's)."""
    try:
        acceptance = sweep_acceptance(page.record)
        if acceptance is None:
            return
        named = acceptance.baseline.sweep if acceptance.baseline else None
        holds = named is not None and store_a.get_sweep(named) is not None
        verdict = verdict_for(page.store, page.record, acceptance, store_a if holds else None)
    except (InputError, StoreError) as exc:
        st.subheader("Acceptance")
        st.error(markdown_prose(str(exc)))
        return
    st.subheader(f"Acceptance: {verdict.verdict}")
    _frame.table(pd.DataFrame(check_rows(verdict)))


# live while either sweep runs: A's runs, as they land, change the comparison as B's do
page.live(render, (store_a, sweep_a))
