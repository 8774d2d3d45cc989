"""Heatmaps: configuration × block size for a pattern, configuration × pattern for a block size,
or configuration × every workload cell at once (IOPS, MB/s, p99 latency), or configuration ×
class (score); colour over the grid or per column, rows sorted by key, a class score or any
column, each row marked with its rank in a class and a limit it breaks; a click on a cell lists
its runs. In an optimize-mode sweep the score grid also draws the surrogate's predictions for
configurations not measured, apart from the measurements and without a rank.

Everything below the header is drawn by ``render``, which ``page.live`` draws again every few
seconds while the sweep runs: the choices too, since their options come from the runs (a
pattern, a block size, a cell that lands appears), and the note of a sweep with no runs yet,
which then gives way to the grid as soon as runs land."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from app_pages import _charts, _common, _frame, _predictions, _widths
from recommender import views
from recommender.data import HEATMAP_METRICS
from recommender.figures import figure
from recommender.recommendations import ClassRecommendation
from recommender.views import predicted
from recommender.views.labels import latency_text
from sweeper.units import format_size
from sweeper.workload import Pattern

CHART_KEY = "heatmap_chart"
CELL_KEY = "heatmap_cell"
BY_LABELS = {"block size": "block_size", "pattern": "pattern", "all cells": "cell"}
#: what the columns are, as the chart's x axis is titled
X_TITLES = {
    "block_size": "block size",
    "pattern": "pattern",
    "cell": "workload cell",
    "class": "class",
}
SCALES = ["whole grid", "per column"]
#: the latency metrics a pattern has only if it reads (writes): what it does, in words
NEEDS = {"read_lat_p99_ms": ("reads", "reads"), "write_lat_p99_ms": ("writes", "writes")}
#: how a cell's runs write their figures: as every page writes a measured one
#: (``recommender.figures.figure``: 3,617 or 433.5) and a latency (``latency_text``: 2.30, 0.104)
RUN_FORMATS: dict[str, Callable[[Any], str]] = {
    "IOPS": figure,
    "MB/s": figure,
    "p99 read ms": latency_text,
    "p99 write ms": latency_text,
}

page = _frame.open_page("Heatmaps")


@dataclass(frozen=True)
class View:
    """What the grid shows: the metric, what its columns are (``by``: block_size, pattern,
    cell, or class for the score) and the choices that hold the rest of the matrix."""

    metric_label: str
    by: str
    pattern: str | None = None
    block_size: int | None = None
    concurrency: str | None = None
    active: int | None = None

    @property
    def x_title(self) -> str:
        return X_TITLES[self.by]

    @property
    def higher_is_better(self) -> bool:
        """More is better but for a latency (the score's metric is none of them)."""
        return "lat" not in HEATMAP_METRICS.get(self.metric_label, "")

    def held(self) -> dict[str, Any]:
        """The choices as ``views.grid_frame`` and ``views.cell_runs`` take them."""
        return {
            "pattern": self.pattern,
            "block_size": self.block_size,
            "concurrency": self.concurrency,
            "active_pct": self.active,
        }

    def where(self) -> str:
        """What the grid holds to, for its title (`` · randread · qd1x1``)."""
        size = format_size(int(self.block_size)) if self.block_size is not None else None
        active = f"ws{self.active}" if self.active is not None else None
        held = [self.pattern, size, self.concurrency, active]
        return "".join(f" · {h}" for h in held if h)


def _kept(widget: Callable[..., Any], label: str, options: list[Any], key: str, **kw: Any) -> Any:
    """The choice made in ``widget`` (a selectbox or a radio), kept for the next visit of the
    page (``_common.keep``) and drawn with it then: Streamlit forgets the state of a widget
    its page does not draw, so Curves and back would open on the first of every choice."""
    default = kw.pop("index", 0)
    # the widget's own state, where Streamlit holds it, wins over any index (and one set by
    # the page must not meet an index of its own: Streamlit would warn of the two)
    index = default if key in st.session_state else _common.kept_index(key, options, default)
    return _common.keep(key, widget(label, options, index=index, key=key, **kw))


def _choice(row: Any, label: str, options: list[Any], key: str, **kw: Any) -> Any:
    """A select box of ``row`` (``_kept``) as wide as its ``label`` and the widest of its
    options as it writes them (its ``format_func``, else ``str``)."""
    shown = kw.get("format_func", str)
    width = _widths.choice_px(label, [shown(o) for o in options])
    return _kept(row.selectbox, label, options, key=key, width=width, **kw)


def _choose(runs: pd.DataFrame, patterns: list[str], concurrencies: list[str]) -> View:
    """The grid's choices. The score is offered only for a sweep that names classes: without
    any there is no score to draw."""
    classes = [r.name for r in page.recommendations()]
    # each box as wide as its longest choice, the boxes of a row side by side where the window
    # holds them: in columns of a narrow window a choice was cut off
    top = st.container(horizontal=True)
    before = _common.kept("metric")
    metrics = [*HEATMAP_METRICS, *([views.SCORE_LABEL] if classes else [])]
    metric_label = _kept(
        top.selectbox,
        "Metric",
        metrics,
        key="metric",
        help=None if classes else "No score: this sweep's spec names no workload classes.",
        width=_widths.choice_px("Metric", metrics, help_icon=not classes),
    )
    if metric_label == views.SCORE_LABEL:
        top.caption(
            "Configuration × workload class: each score as % of the class's best; "
            "a cell's runs are the configuration's runs of the class's cells."
        )
        return View(metric_label, "class")
    by_label = _kept(
        top.radio,
        "Columns",
        list(BY_LABELS),
        key="heatmap_by",
        horizontal=True,
        help="What the columns are",
    )
    by = BY_LABELS[by_label]
    if by == "cell":
        return View(metric_label, by)  # the overview: every cell of the sweep, nothing to choose
    return _held(metric_label, by, runs, patterns, concurrencies, metric_label != before)


def _measured(runs: pd.DataFrame, metric_label: str, patterns: list[str]) -> list[str]:
    """The patterns with a value of the metric (a write never has a read latency), in order."""
    metric = HEATMAP_METRICS[metric_label]
    have = set(runs.loc[runs[metric].notna(), "pattern"]) if metric in runs else set()
    return [p for p in patterns if p in have]


def _held(
    metric_label: str,
    by: str,
    runs: pd.DataFrame,
    patterns: list[str],
    concurrencies: list[str],
    new_metric: bool,
) -> View:
    """The choices that hold the rest of the matrix: the pattern (columns by block size) or
    the block size (columns by pattern), the concurrency and the active range. The pattern
    opens (and moves, on a change of the metric) on one that has the metric: a latency of
    reads on a pattern that reads."""
    row = st.container(horizontal=True)
    pattern = block_size = active = None
    if by == "block_size":
        measured = _measured(runs, metric_label, patterns) or patterns
        chosen = st.session_state.get("pattern", _common.kept("pattern"))
        if chosen not in patterns or (new_metric and chosen not in measured):
            # set as the widget's state: the browser shows it (an index alone it would not)
            st.session_state["pattern"] = measured[0]
        pattern = _choice(row, "Pattern", patterns, key="pattern")
    else:
        sizes = views.block_sizes(runs)
        block_size = _choice(
            row,
            "Block size",
            sizes,
            key="block_size",
            format_func=lambda b: format_size(int(b)),
        )
    concurrency = _choice(row, "Concurrency", concurrencies, key="concurrency")
    ranges = ((page.record.get("spec") or {}).get("matrix") or {}).get("active_range") or []
    if ranges:
        label = "Active range (% of the volume)"
        active = _choice(row, label, ranges, key="active_range")
    return View(metric_label, by, pattern, block_size, concurrency, active)


def _on_click() -> None:
    """Copy the clicked cell into the cell chooser (runs before the page reruns)."""
    cell = _charts.clicked_cell(st.session_state.get(CHART_KEY))
    if cell is None:
        st.session_state.pop(CELL_KEY, None)  # a double click cleared the selection
        _common.keep(CELL_KEY, None)
    else:
        st.session_state[CELL_KEY] = _charts.cell_label(*cell)


def _grid(
    view: View, recs: list[ClassRecommendation], runs: pd.DataFrame
) -> tuple[pd.DataFrame, list[str], dict[str, list[str]] | None]:
    """The grid's cells and column order, and for the score grid each class's cells (the runs
    behind a score)."""
    if view.by == "class":
        frame, order = views.score_grid(recs)
        return frame, order, {r.name: r.wclass.cell_keys for r in recs}
    metric = HEATMAP_METRICS[view.metric_label]
    if view.by == "cell":
        frame, order = views.overview_frame(runs, metric)
        return frame, order, None
    frame, order = views.grid_frame(runs, metric, by=view.by, **view.held())
    return frame, order, None


def _empty_note(view: View, runs: pd.DataFrame, patterns: list[str]) -> str:
    """What the page says where the grid has no cell: why, where the pattern cannot have the
    metric (a write has no read latency), with the patterns that have it; "yet" only while
    the sweep runs."""
    if view.by == "class":
        return "No configuration is ranked in any class yet, so there is no score to show."
    metric = HEATMAP_METRICS[view.metric_label]
    if view.pattern is not None and metric in NEEDS:
        try:
            does = getattr(Pattern.parse(view.pattern), NEEDS[metric][0])
        except ValueError:  # a pattern the runs name that raidsweep does not parse
            does = True
        if not does:
            have = _measured(runs, view.metric_label, patterns)
            other = f" ({', '.join(have)})" if have else ""
            return (
                f"The {view.pattern} pattern makes no {NEEDS[metric][1]}, so it has no "
                f"{view.metric_label}: choose a pattern that {NEEDS[metric][1][:-1]}s{other}."
            )
    held = view.where().removeprefix(" · ") or "any cell"
    if _common.is_running(page.store, page.sweep_id):
        return f"No {view.metric_label} values for {held} yet."
    return f"No {view.metric_label} values for {held}: this sweep stored no good run of it."


def _row_marks(
    recs: list[ClassRecommendation], class_name: str | None
) -> tuple[dict[str, str], list[str]]:
    """Per configuration its rank in ``class_name`` (and what limit it breaks), and the
    configurations that break one."""
    rec = views.find_recommendation(recs, class_name or "")
    if rec is None or rec.ranked.empty:
        return {}, []
    marks, breakers = {}, []
    for _, row in rec.ranked.iterrows():
        label = f"   {views.rank_label(row['rank'], row['tied'])}"
        if not bool(row["meets_limits"]):
            label += "  ✕ breaks a limit"
            breakers.append(str(row["config_key"]))
        marks[str(row["config_key"])] = label
    return marks, breakers


def _sorts(view: View, order: list[str], class_names: list[str]) -> dict[str, tuple[str, str]]:
    """The row orders to choose from, each under a label of its own: (``key``, ""), (``score``,
    a class) or (``column``, a grid column). A column is labelled by its name, marked with what
    it is where another order has that label: a class named ``configuration`` in the score
    grid is not the order by key."""
    sorts = {views.ROW_ORDER_CONFIGURATION: ("key", "")}
    sorts |= {f"score in {name}": ("score", name) for name in class_names}
    labels = views.distinct_labels(order, sorts, view.x_title)
    return sorts | {labels[c]: ("column", c) for c in order}


def _row_order(
    view: View, shaded: pd.DataFrame, sort: tuple[str, str], recs: list[ClassRecommendation]
) -> list[str]:
    """The configurations in the order ``sort`` (from ``_sorts``) puts them."""
    kind, name = sort
    if kind == "column":
        return views.column_order(shaded, name, higher_is_better=view.higher_is_better)
    if kind == "key":
        return views.row_order(shaded, views.ROW_ORDER_CONFIGURATION, higher_is_better=True)
    rec = views.find_recommendation(recs, name)
    scores = dict(zip(rec.ranked["config_key"], rec.ranked["score"], strict=True)) if rec else {}
    return views.row_order(shaded, f"score in {name}", higher_is_better=True, scores=scores)


def _predicted(view: View, recs: list[ClassRecommendation], frame: pd.DataFrame) -> pd.DataFrame:
    """The score grid's predicted cells, unless the engineer hides them (none elsewhere)."""
    if view.by != "class":
        return pd.DataFrame(columns=predicted.CELL_COLUMNS)
    cells = _predictions.score_cells(page, recs, frame)
    if cells.empty:
        return cells
    on = st.toggle(
        "Show predictions for configurations not measured",
        value=_common.kept("heatmap_predicted", True),
        key="heatmap_predicted",
        help="The surrogate's predicted scores (% of the class's best measured score), drawn "
        "italic in dashed violet squares marked ~, with their 95% interval in the tooltip; "
        "never ranked.",
    )
    return cells if _common.keep("heatmap_predicted", on) else cells.iloc[:0]


def _tables(view: View, frame: pd.DataFrame, order: list[str], rows: list[str]) -> None:
    """The grid's means as tables, rows in the chart's order: narrow enough for a laptop's
    window, so every cell's overview is a table per pattern (and block size), headed by it;
    figures written as the CLI writes the metric's (``views.metric_text``). A column is headed
    by ``views.grid_labels``: never the configuration column's own name."""
    labels = views.grid_labels(order, view.x_title)
    table = views.grid_table(frame, order, view.x_title)
    place = {key: i for i, key in enumerate(table[views.CONFIGURATION])}
    table = table.iloc[[place[r] for r in rows if r in place]]  # the measured rows alone
    metric = HEATMAP_METRICS.get(view.metric_label, "")
    present = [c for c in order if labels[c] in table]
    groups = views.column_groups(present, by_key=view.by == "cell")
    for heading, columns in groups:
        if len(groups) > 1:
            st.markdown(f"**{heading}**")
        headers = {labels[c]: views.short_column(labels[c], heading) for c in columns}
        _frame.table(
            table[[views.CONFIGURATION, *headers]],
            {c: st.column_config.Column(h, help=c) for c, h in headers.items()},
            spell=dict.fromkeys(headers, lambda v: views.metric_text(metric, v)),
        )


def _draw(
    view: View, frame: pd.DataFrame, order: list[str], recs: list[ClassRecommendation]
) -> tuple[list[str], pd.DataFrame]:
    """The chart with its controls (colour scale, row order, the class whose ranks mark the
    rows) and its caption; the rows in the order shown."""
    class_names = [r.name for r in recs if not r.ranked.empty]
    sorts = _sorts(view, order, class_names)
    controls = st.container(horizontal=True)
    scale = _kept(
        controls.radio,
        "Colour scale",
        SCALES,
        index=1 if view.by == "cell" else 0,
        key=f"heatmap_scale_{view.by}",
        horizontal=True,
        help="Per column: each column from its worst to its best, so a 30% spread inside one "
        "column shows even when another column is ten times larger.",
    )
    sort = _kept(
        controls.selectbox,
        "Sort rows by",
        list(sorts),
        key=f"heatmap_sort_{view.by}",
        help="By configuration key, by a class's score (best first), or by a column (best first).",
        width=_widths.choice_px("Sort rows by", sorts, help_icon=True),
    )
    marked = _kept(
        controls.selectbox,
        "Ranks and limits of class",
        class_names or [None],
        key="heatmap_mark_class",
        help="Beside each configuration: its rank in this class (=N: tied with rank N), and "
        "in red with ✕ the limit it breaks.",
        width=_widths.choice_px(
            "Ranks and limits of class", class_names or ["None"], help_icon=True
        ),
    )
    per_column = scale == "per column"
    shaded = views.shade(frame, per_column=per_column, higher_is_better=view.higher_is_better)
    rows = _row_order(view, shaded, sorts[sort], recs)
    marks, breakers = _row_marks(recs, marked)
    cells = _predicted(view, recs, frame)
    if len(cells):
        marks |= predicted.predicted_marks(rows, cells)
        rows = predicted.predicted_rows(rows, cells)
    chart = _charts.grid_heatmap(
        shaded,
        order,
        x_title=view.x_title,
        metric_label=view.metric_label,
        higher_is_better=view.higher_is_better,
        rows=rows,
        per_column=per_column,
        row_marks=marks,
        breakers=breakers,
    )
    chart = _predictions.with_predicted_cells(chart, cells, order, rows, view.x_title)
    title = f"{view.metric_label}: configuration × {view.x_title}{view.where()}"
    st.altair_chart(
        _charts.titled(chart, title),
        on_select=_on_click,
        selection_mode=_charts.CELL_SELECTION,
        key=CHART_KEY,
    )
    st.caption(
        "Mean over repetitions; '=' before a figure: its 95% interval overlaps the column's "
        "best. Hover a cell for its standard deviation and count, click it to list its runs "
        "(double-click clears)."
        + (
            f" Dashed violet squares, italic and marked {predicted.MARK}: "
            f"{predicted.PREDICTED} (no rank)."
            if len(cells)
            else ""
        )
    )
    return rows, cells


def _chosen_cell(frame: pd.DataFrame, order: list[str]) -> tuple[str, str] | None:
    """The cell whose runs to list, chosen here or by a click on the chart: (configuration,
    column). Each choice's label is looked up, never split: a column is named by the user."""
    cells = frame.sort_values("config_key", kind="stable")
    position = {c: i for i, c in enumerate(order)}
    cells = cells.assign(pos=cells["column"].map(position)).sort_values(["config_key", "pos"])
    choices = {
        _charts.cell_label(k, c): (str(k), str(c))
        for k, c in zip(cells["config_key"], cells["column"], strict=True)
    }
    if st.session_state.get(CELL_KEY) not in choices:
        st.session_state.pop(CELL_KEY, None)  # chosen under other settings: not in this grid
    if CELL_KEY not in st.session_state and _common.kept(CELL_KEY) in choices:
        # the cell chosen before the page was left (given back as the click gives it: the
        # selectbox's state, since a click sets that state before the selectbox is drawn)
        st.session_state[CELL_KEY] = _common.kept(CELL_KEY)
    choice = _common.keep(
        CELL_KEY,
        st.selectbox(
            "Runs of a cell",
            list(choices),
            index=None,
            placeholder="Click a cell in the chart, or choose one here",
            key=CELL_KEY,
        ),
    )
    return None if choice is None else choices[choice]


def _cell_runs(
    view: View,
    runs: pd.DataFrame,
    cell: tuple[str, str],
    class_cells: dict[str, list[str]] | None,
) -> None:
    """The runs of one cell; a row selected leads to its Run details. The table's key names
    its runs: a row selected in one cell's runs is never taken for the row of that number in
    another's."""
    config_key, column = cell
    shown = views.cell_runs(
        runs, config_key, column, by=view.by, class_cells=class_cells, **view.held()
    )
    st.markdown(f"**{len(shown)} runs** of **{config_key}** at **{column}**")
    picked = _frame.table(
        shown,
        spell=RUN_FORMATS,
        on_select="rerun",
        selection_mode="single-row",
        key=_frame.selection_key("heatmap_cell_runs", page.sweep_id, *shown["run id"]),
    )
    row = _frame.picked_row(picked, len(shown))
    if row is None:
        st.caption("Select a row to open that run's disclosure record, job file and fio output.")
        return
    st.session_state["run_pick"] = str(shown["run id"].iloc[row])  # read by Run details
    _common.page_link(
        st,
        "app_pages/run_details.py",
        label="Open the selected run in Run details",
        icon=":material/description:",
    )


def render() -> None:
    runs = page.runs()
    patterns, concurrencies = views.matrix_options(page.record, runs)
    if runs.empty or not patterns or not concurrencies:
        st.info(page.no_runs_note())
        return
    view = _choose(runs, patterns, concurrencies)
    recs = page.recommendations()
    frame, order, class_cells = _grid(view, recs, runs)
    if frame.empty:
        st.info(_empty_note(view, runs, patterns))
        return
    rows, cells = _draw(view, frame, order, recs)
    _tables(view, frame, order, rows)
    _predictions.score_table(cells)
    cell = _chosen_cell(frame, order)
    if cell is not None:
        _cell_runs(view, runs, cell, class_cells)


page.live(render)
