"""The frame every page of the app stands in: the sweep chosen in the sidebar and the page's
header naming it (or how to start a sweep, and nothing else), the sweep's cached reads, the
provisional banner, the class chooser, the live refresh, what a page says without good runs,
and a table with its number formats (its rows selectable under a key of their own).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _common, _widths
from recommender.figures import score_decimals
from recommender.recommendations import ClassRecommendation
from sweeper.status import SweepStatus, provisional
from sweeper.store import ParquetStore


@dataclass(frozen=True)
class SweepPage:
    """The sweep a page shows, and what the page reads of it (cached on the store's
    signature: see ``_common``)."""

    store: ParquetStore
    record: dict[str, Any]

    @property
    def sweep_id(self) -> str:
        return str(self.record["sweep_id"])

    def runs(self, *, include_failed: bool = False) -> pd.DataFrame:
        """The good runs (or every attempt): shared, never to be modified."""
        return _common.runs(self.store, self.sweep_id, include_failed=include_failed)

    def configurations(self) -> pd.DataFrame:
        return _common.configurations(self.store, self.sweep_id)

    def recommendations(self) -> list[ClassRecommendation]:
        return _common.recommendations(self.store, self.record)

    def rank_ahead(self) -> None:
        """Rank the sweep in the background once it is finished (``_common.rank_ahead``)."""
        _common.rank_ahead(self.store, self.record)

    def importances(self) -> pd.DataFrame:
        return _common.importances(self.store, self.record)

    def curves(self) -> pd.DataFrame:
        return _common.curves(self.store, self.record)

    def status(self) -> SweepStatus:
        return _common.status(self.store, self.sweep_id)

    def class_names(self, none: str) -> list[str]:
        """The names of the sweep's workload classes; without any, say ``none`` and stop."""
        names = [rec.name for rec in self.recommendations()]
        if not names:
            st.info(none)
            st.stop()
        return names

    def no_runs_note(self, cells: Collection[str] | None = None, *, of: str = "") -> str:
        """What a page says where it has no good run to show (of the class's ``cells``, named
        ``of``, or of the whole sweep): that every run failed, how many, and where to read
        why, or else that none is stored yet. A sweep whose runs all failed must not read as
        one that has not started."""
        what = f"the {of} cells" if of else "this sweep"
        failed = self.failed_runs(cells)
        if not failed:
            return f"No runs of {what} are stored yet."
        runs = "the one run stored" if failed == 1 else f"all {failed} runs stored"
        return (
            f"No good run of {what} is stored: {runs} failed. Run details shows each failed "
            f"run with its error, and `raidsweep status {self.sweep_id}` counts them."
        )

    def failed_runs(self, cells: Collection[str] | None = None) -> int:
        """How many run attempts failed (of ``cells`` alone, when given: a class's cells,
        which name the whole working set without ``/ws100``, as the ranking reads them)."""
        every = self.runs(include_failed=True)
        if every.empty:
            return 0
        failed = every[every["status"] == "failed"]
        if cells is not None:
            bare = failed["cell_key"].str.replace(r"/ws100$", "", regex=True)
            failed = failed[bare.isin(set(cells))]
        return len(failed)

    def provisional_banner(self) -> None:
        """Say so when the figures are provisional (the sweep has not finished)."""
        note = provisional(self.store, self.sweep_id)
        if note:
            st.warning(note, icon=":material/hourglass_top:")

    def live(self, render: Callable[[], None], *others: tuple[ParquetStore, str]) -> None:
        """Render the page's figures; while the sweep runs (or one of ``others``, the
        (store, sweep) pairs of other sweeps the page shows), again every few seconds."""
        _common.live(self.store, self.sweep_id, render, *others)


def open_page(title: str | None = None) -> SweepPage:
    """Every page's prologue: the sweep chosen in the sidebar (otherwise how to start one, and
    stop) and the header, ``<title> — sweep <id>`` (``Sweep <id>`` without a title)."""
    store, record = _common.require_sweep()
    page = SweepPage(store, record)
    st.header(f"{title} — sweep {page.sweep_id}" if title else f"Sweep {page.sweep_id}")
    return page


def selection_key(name: str, *rows_of: object) -> str:
    """The key of a table whose rows can be selected: ``name`` and a digest of what defines
    its rows (the sweep, the class, the rows themselves). Streamlit keeps a selection under
    its key as row numbers: under one key for every sweep, class or cell, a row chosen in one
    table would select the row of that number in the next (or fail past its end)."""
    text = "\x1f".join(str(part) for part in rows_of)
    return f"{name}-{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}"


def picked_row(event: object, rows: int) -> int | None:
    """The row selected in a table of ``rows`` rows (``table``'s answer with ``on_select``),
    or None: none is, or the one kept is not a row of it."""
    picked = getattr(getattr(event, "selection", None), "rows", None) or []
    return picked[0] if picked and 0 <= picked[0] < rows else None


def latest_pick(memory_key: str, picks: Mapping[str, str | None]) -> str | None:
    """Of the rows picked in several tables of one page (``picks``: per table, its pick or
    None), the one picked last: a table whose pick changed in this run, else the one that
    was last before if its pick still stands, else any still picked. A click in one table
    does not clear another's selection, so without this the table drawn last would always
    win. What each table held is kept under ``memory_key``."""
    before = st.session_state.get(memory_key) or {}
    held: Mapping[str, str | None] = before.get("picks", {})
    changed = [name for name, pick in picks.items() if pick is not None and held.get(name) != pick]
    standing = [name for name, pick in picks.items() if pick is not None]
    last = before.get("last")
    if changed:
        last = changed[-1]
    elif last not in standing:
        last = standing[-1] if standing else None
    st.session_state[memory_key] = {"picks": dict(picks), "last": last}
    return None if last is None else picks[last]


#: what a missing figure is shown as, in every table
MISSING = "—"
#: the background of a row that breaks a limit (a light red that dark text reads on)
BROKEN_ROW = "background-color: #fde2e2"


#: a printf conversion with sprintf-js's "," flag (thousands grouped), which Python's % lacks
_GROUPED = re.compile(r"%,([0-9.]*[dfeg])")


def _printf(fmt: str) -> Callable[[Any], str]:
    """The text Streamlit's printf ``fmt`` gives a value (``%,d``/``%,.0f`` grouped)."""
    grouped = _GROUPED.search(fmt)
    if grouped is not None:
        spec = "," + grouped.group(1).replace("d", ".0f")
        head, tail = fmt[: grouped.start()], fmt[grouped.end() :]
        return lambda v: MISSING if v is None or pd.isna(v) else head + format(v, spec) + tail
    return lambda v: MISSING if v is None or pd.isna(v) else fmt % v


def score_format(values: pd.Series) -> str:
    """The printf format of a class's scores, with the precision every surface gives them
    (``recommender.figures.score_decimals``: whole from 100, else three digits of the
    largest), thousands grouped."""
    return f"%,.{score_decimals(values)}f"


def number(label: str, fmt: str | None, words: str, width: int = 56) -> Any:
    """A figure's column for ``table``'s ``formats``: a short header (``label``, with its
    unit), ``words`` its tooltip, in ``fmt``, ``width`` px wide (narrow: tables must fit a
    laptop's window beside the sidebar), or as wide as its header is whole where that is
    wider (``_widths.header_px``); ``fmt`` None: written by ``table``'s ``spell``."""
    wide = _widths.header_px(label, width)
    return st.column_config.NumberColumn(label, format=fmt, help=words, width=wide)


def _or_missing(words: Callable[[Any], str]) -> Callable[[Any], str]:
    """``words``, or MISSING for a value that is not there."""
    return lambda v: MISSING if v is None or pd.isna(v) else words(v)


def _text_figures(config: Any) -> Any:
    """A number column's config for its figures written as text: no longer a number column
    (Streamlit would flag each text cell of one as invalid), still right-aligned."""
    if not isinstance(config, dict) or (config.get("type_config") or {}).get("type") != "number":
        return config
    kept = {k: v for k, v in config.items() if k != "type_config"}
    return kept | {"alignment": config.get("alignment") or "right"}


def _as_text(value: Any) -> str:
    if value is None or (not isinstance(value, str | list | tuple) and pd.isna(value)):
        return MISSING
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _distinct_columns(frame: pd.DataFrame) -> None:
    """Refuse a table with two columns of one name: the page built it from names the user
    gave (a class, a dimension) beside its own without ``views.distinct_labels``."""
    twice = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if twice:
        raise ValueError(f"a table's columns must be distinct; named twice: {', '.join(twice)}")


def table(
    frame: pd.DataFrame,
    formats: Mapping[str, Any] | None = None,
    *,
    broken: Sequence[bool] | None = None,
    help: Mapping[str, str] | None = None,  # noqa: A002 - Streamlit's own word for a tooltip
    spell: Mapping[str, Callable[[Any], str]] | None = None,
    **options: Any,
) -> Any:
    """``st.dataframe`` without the index; each column named in ``formats`` a number in its
    printf format (or shown by the column config given instead), a missing value shown as
    MISSING; rows where ``broken`` is true on a red background; ``help``: a tooltip per
    column header; ``spell``: per column the function that writes its figures as the CLI
    and the report do (the numbers are kept: the column still sorts by value)."""
    column_config: dict[str, Any] = {}
    printf = {column: _or_missing(words) for column, words in (spell or {}).items()}
    shown = frame.reset_index(drop=True)
    _distinct_columns(shown)
    flags = np.asarray(list(broken) if broken is not None else [], dtype=bool)
    # Nothing missing and nothing to colour: Streamlit formats the numbers itself, without
    # a Styler, which costs a Python call per cell (a second for a ranking of 800 rows).
    plain = not flags.any() and not printf and not shown.isna().to_numpy().any()
    plain = plain and all(
        pd.api.types.is_numeric_dtype(shown[c])
        for c, fmt in (formats or {}).items()
        if isinstance(fmt, str) and c in shown
    )
    for column, fmt in (formats or {}).items():
        if not isinstance(fmt, str):
            column_config[column] = fmt
            inner = (fmt.get("type_config") or {}).get("format") if isinstance(fmt, dict) else None
            if inner:
                printf[column] = _printf(inner)
        elif plain:
            column_config[column] = st.column_config.NumberColumn(format=fmt)
        else:
            printf[column] = _printf(fmt)
    for column, words in (help or {}).items():
        column_config.setdefault(column, {})
        column_config[column] = dict(column_config[column]) | {"help": words}
    if column_config:
        options["column_config"] = column_config
    if plain:
        return st.dataframe(shown, hide_index=True, **options)
    # A column given no format that lacks a value shows MISSING there too (not "None"), its
    # numbers to 4 significant digits.
    for column in shown.columns:
        if column not in printf and column not in column_config and shown[column].isna().any():
            printf[column] = _as_text
    # Streamlit draws an empty cell as its own grey "None" whatever the Styler's na_rep says:
    # a column with a gap goes as its text (sorting it then sorts the text).
    for column in [c for c in printf if c in shown and shown[c].isna().any()]:
        spell = printf.pop(column)
        shown[column] = [spell(v) for v in shown[column]]
        if column in column_config:
            column_config[column] = _text_figures(column_config[column])
    styler = shown.style.format({c: f for c, f in printf.items() if c in shown}, na_rep=MISSING)
    if flags.any():
        # One call for the whole table, not one per row.
        styler = styler.apply(
            lambda d: pd.DataFrame(
                np.where(np.tile(flags[:, None], d.shape[1]), BROKEN_ROW, ""),
                index=d.index,
                columns=d.columns,
            ),
            axis=None,
        )
    return st.dataframe(styler, hide_index=True, **options)
