"""Compare sweeps: the sweep chosen in the sidebar (B) against another (A) of this store or of
another store — the new array against the old, after a firmware update against before, a
rehearsal against the simulated array; per class and per cell, each change with its interval
and whether it is significantly better or worse. The acceptance verdict of B's gates beside.
While either sweep runs, the comparison is drawn again every few seconds, the choices kept."""

from __future__ import annotations

import errno
import math
import os
import stat
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from app_pages import _common, _frame
from app_pages._charts import key_lines
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
from recommender.views.runs import quoted_typed
from sweeper.errors import InputError, StoreError
from sweeper.store import ParquetStore, open_store
from sweeper.untrusted import control_problem, markdown_code, markdown_prose, template_problem

#: the tables' columns: short headers with their words as tooltips, narrow figures, so that
#: the scores, the change and its interval fit a laptop's window beside the sidebar; the
#: columns of ``*_TABLE_EXTRA`` hidden (the table's column menu shows them, the CSV has them)
_PAIR_HELP = (
    "The configuration compared in both sweeps; 'A's → B's' where they differ (each whole "
    f"in the hidden columns configuration A and B). {RECOMMENDED_MARK.strip()}: what the "
    "sweeps recommend for the class."
)
_COLUMNS: dict[str, dict[str, Any]] = {
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


#: what the visible columns may take together: the page's column at a 1280 px window (818 px)
#: beside the sidebar, less a margin
_BUDGET_PX = 798
#: a cell's padding left and right, and the room a header needs beside its words (sort mark)
_PAD_PX, _HEADER_PX = 18, 26
#: the height of a line of a wrapped cell, and a row's padding; Streamlit wraps a cell's text
#: (and breaks it at a newline) only in rows taller than 64 px
_LINE_PX, _ROW_PAD_PX, _WRAPPING_ROW_PX = 20, 12, 65
#: a configuration key's line in a cell: broken only after a '/' (``_charts.key_lines``)
_KEY_LINE_CHARS = 24
#: the width of a character of the table's 14 px Source Sans, generously: digits 7 px, narrow
#: marks 4, wide letters 12, symbols 14, the rest 7.4
_NARROW, _WIDE, _SYMBOLS = set("ijlft.,:;|!'/()[] -"), set("mwMW%@"), set("…★→")


def _text_px(text: str) -> int:
    """How wide ``text`` is drawn in one of the tables' cells, an estimate on the safe side."""
    width = 0.0
    for ch in text:
        if ch.isdigit():
            width += 7.2
        elif ch in _NARROW:
            width += 4.2
        elif ch in _WIDE or ch.isupper():
            width += 12.0 if ch in _WIDE else 9.0
        elif ch in _SYMBOLS or ord(ch) > 0x2000:
            width += 14.0
        else:
            width += 7.4
    return math.ceil(width)


def _pair_lines(pair: str) -> str:
    """A configuration cell ("★ A's → B's" or one key) in lines broken only after a '/' or
    after the arrow, so that each key reads whole in a narrow column."""
    mark = RECOMMENDED_MARK if pair.startswith(RECOMMENDED_MARK) else ""
    keys = pair.removeprefix(mark).split(" → ")
    lines: list[str] = []
    for i, key in enumerate(keys):
        parts = key_lines(key, _KEY_LINE_CHARS)
        if i < len(keys) - 1:
            parts[-1] += " →"
        lines += parts
    lines[0] = mark + lines[0]
    return "\n".join(lines)


def _change_lines(change: str) -> str:
    """A change with its interval in two lines: the change, then the interval."""
    head, sep, rest = change.partition(" (")
    return f"{head}\n({rest}" if sep else change


def _class_lines(name: str) -> str:
    """A class and its unit in two lines."""
    head, sep, rest = name.rpartition(" (")
    return f"{head}\n({rest}" if sep and head else name


#: per column, how its cells are written in lines where the table is too wide in one
_IN_LINES = {
    "configuration": _pair_lines,
    "change % (95% CI)": _change_lines,
    "class": _class_lines,
}


#: the columns that may wrap further, each with the least width its longest word needs
_WRAPS = {"cell": 110, "configuration": 170, "change % (95% CI)": 100}


def _widths(shown: pd.DataFrame, columns: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Each column as wide as its header and its longest line (never narrower: a cell cut at
    its start reads as another figure)."""
    out = {}
    for c in columns:
        label = str(columns[c].get("label") or c)
        lines = [line for v in shown[c] for line in str(v).split("\n")]
        out[c] = max([_text_px(label) + _HEADER_PX] + [_text_px(x) + _PAD_PX for x in lines])
    return out


def _fitted(shown: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int], int | None]:
    """The table's text, each visible column's width and the rows' height (None: one line):
    every value whole, in one line where the columns fit the page so, else the configuration,
    the change and the class in lines."""
    columns = {c: v for c, v in _COLUMNS.items() if c in shown.columns}
    widths = _widths(shown, columns)
    if sum(widths.values()) <= _BUDGET_PX:
        return shown, widths, None
    shown = shown.copy()
    for c, spell in _IN_LINES.items():
        if c in shown.columns:
            shown[c] = [spell(str(v)) for v in shown[c]]
    widths = _widths(shown, columns)
    # still too wide: the columns that wrap between words (and after a '/') give up the rest,
    # down to the width of their longest word
    for c, least in _WRAPS.items():
        over = sum(widths.values()) - _BUDGET_PX
        if c in widths and over > 0:
            widths[c] = max(least, widths[c] - over)
    lines = max(str(v).count("\n") + 1 for c in columns for v in shown[c]) if len(shown) else 1
    return shown, widths, max(_WRAPPING_ROW_PX, lines * _LINE_PX + _ROW_PAD_PX)


def _narrow(shown: pd.DataFrame, extra: list[str]) -> None:
    """A comparison's table, its columns as ``_COLUMNS`` sets them but each as wide as its
    content (in lines where one line would not fit the page), those of ``extra`` hidden."""
    shown, widths, row_height = _fitted(shown)
    columns = {c: dict(v) | {"width": widths[c]} for c, v in _COLUMNS.items() if c in shown.columns}
    options = {} if row_height is None else {"row_height": row_height}
    _frame.table(shown, columns | _hidden(extra), **options)


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


def _say_damaged(what: str, lines: list[str]) -> None:
    """``what`` (Markdown), then each of ``lines`` (a damaged file, named), as a warning."""
    if lines:
        st.warning(f"{what}:  \n" + _common.named_files(lines), icon=":material/report:")


#: what a path that is there but no folder is, by its kind (``stat``)
_NOT_FOLDERS = (
    (stat.S_ISREG, "a file"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def _typed_problem(typed: str) -> str | None:
    """Why the text typed cannot name a store (template syntax, a control character), or
    None: Markdown, the text quoted as the address's values are (``quoted_typed``)."""
    problem = template_problem(typed) or control_problem(typed)
    return None if problem is None else f"{quoted_typed(typed)} {markdown_prose(problem)}"


def folder_problem(root: Path) -> str | None:
    """Why ``root`` is no folder a store can be read from, or None: there is no such path, it
    is a file, a device or another thing than a folder, a folder that cannot be looked into,
    or too long a name for the system. Markdown naming the path as a typed text is quoted
    (``quoted_typed``: one of thousands of characters cut, its length said)."""
    place = quoted_typed(str(root))
    try:
        mode = root.stat().st_mode
    except FileNotFoundError:
        return f"There is no folder {place}"
    except NotADirectoryError:
        return f"There is no folder {place} (a folder on its way is a file)"
    except PermissionError:
        return f"{place} cannot be reached (a folder on its way cannot be looked into)"
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return f"{place} is too long a path (it, or a name in it, is longer than allowed)"
        return f"{place} cannot be read ({markdown_prose(exc.strerror or type(exc).__name__)})"
    for kind, what in _NOT_FOLDERS:
        if kind(mode):
            return f"{place} is {what}, not a store's folder"
    if not stat.S_ISDIR(mode):
        return f"{place} is not a folder"
    try:
        with os.scandir(root):
            pass
    except PermissionError:
        return f"{place} is a folder that cannot be looked into (no permission to list it)"
    except OSError as exc:
        reason = markdown_prose(exc.strerror or type(exc).__name__)
        return f"{place} is a folder that cannot be read ({reason})"
    return None


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
    problem = _typed_problem(other.strip())
    if problem is not None:
        st.error(f"Store of sweep A: {problem}")
        st.stop()
    store_a = open_store(other.strip())
    not_folder = folder_problem(store_a.root)
    if not_folder is not None:
        st.info(f"{not_folder}: check the path of sweep A's store.")
        st.stop()
    try:
        records = store_a.list_sweeps()
    except StoreError as exc:
        st.error(f"Store of sweep A: {markdown_prose(str(exc))}")
        st.stop()
    except OSError as exc:  # the path's own words, never the whole path again
        reason = markdown_prose(exc.strerror or type(exc).__name__)
        st.error(f"Store of sweep A: {quoted_typed(str(store_a.root))} cannot be read: {reason}")
        st.stop()
    # its sweeps whose records are damaged (the sidebar names only this store's): named
    _say_damaged("In the store of sweep A, what cannot be read is not offered", store_a.damaged)
else:
    records = store_a.list_sweeps()
same_store = store_a is page.store or _same_folder(store_a.root, page.store.root)
# newest first, as the sidebar lists them: the sweep just before this one is the usual A
ids = [i for i in _common.sweep_ids(records) if not (same_store and i == page.sweep_id)]
if not ids:
    st.info("No other sweep to compare with: name another store, or run a second sweep.")
    st.stop()
# The choice remembered from an earlier run survives a run that stopped before drawing the
# selector (a store without sweeps): one this store does not hold is dropped, one it holds is
# set again, so that the selector, drawn anew for a new list, shows the sweep the figures are
# of (left alone, it drew its first option while the page computed the remembered one).
remembered = st.session_state.get("compare_sweeps_a")
if remembered in ids:
    st.session_state["compare_sweeps_a"] = remembered
else:
    st.session_state.pop("compare_sweeps_a", None)
sweep_a = st.selectbox("Sweep A", ids, key="compare_sweeps_a")
show_all = st.toggle("Every cell (not only the significant changes)", key="compare_sweeps_all")


def render() -> None:
    record_a = store_a.get_sweep(sweep_a) or {}
    runs_a, runs_b = store_a.runs(sweep_a), page.runs()
    # sweep A's run files the read left out (B's are said at the top of the page)
    left_out = [line for line in store_a.damaged if line.endswith("left out")]
    _say_damaged(
        f"Files of sweep A ({markdown_code(sweep_a)}) cannot be read; the comparison is of the "
        "rest",
        left_out,
    )
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
