"""Heatmaps: configuration × block size for a pattern, configuration × pattern for a block size,
or configuration × every workload cell at once (IOPS, MB/s, p99 latency), or configuration ×
class (score); colour over the grid or per column, rows sorted by key, a class score or any
column, each row marked with its rank in a class and a limit it breaks; a click on a cell lists
its runs. In an optimize-mode sweep the score grid also draws the surrogate's predictions for
configurations not measured, apart from the measurements and without a rank."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages import _charts, _frame, _predictions
from recommender import views
from recommender.data import HEATMAP_METRICS
from recommender.views import predicted
from sweeper.units import format_size

CHART_KEY = "heatmap_chart"
CELL_KEY = "heatmap_cell"
BY_LABELS = {"block size": "block_size", "pattern": "pattern", "all cells": "cell"}
SCALES = ["whole grid", "per column"]

page = _frame.open_page("Heatmaps")
all_runs = page.runs()
patterns, concurrencies = views.matrix_options(page.record, all_runs)
if all_runs.empty or not patterns or not concurrencies:
    st.info("No runs are stored for this sweep yet.")
    st.stop()

top = st.columns([2, 3])
metric_label = top[0].selectbox("Metric", [*HEATMAP_METRICS, views.SCORE_LABEL], key="metric")
pattern = block_size = concurrency = active = None
if metric_label == views.SCORE_LABEL:
    by = "class"
    top[1].caption(
        "Configuration × workload class: each score as % of the class's best; "
        "a cell's runs are the configuration's runs of the class's cells."
    )
else:
    by_label = top[1].radio(
        "Columns", list(BY_LABELS), key="heatmap_by", horizontal=True, help="What the columns are"
    )
    by = BY_LABELS[by_label]
    cols = st.columns(3)
    if by == "cell":
        pass  # the overview: every cell of the sweep, nothing to choose
    elif by == "block_size":
        pattern = cols[0].selectbox("Pattern", patterns, key="pattern")
    else:
        sizes = views.block_sizes(all_runs)
        block_size = cols[0].selectbox(
            "Block size", sizes, format_func=lambda b: format_size(int(b)), key="block_size"
        )
    if by != "cell":
        concurrency = cols[1].selectbox("Concurrency", concurrencies, key="concurrency")
    ranges = ((page.record.get("spec") or {}).get("matrix") or {}).get("active_range") or []
    if ranges and by != "cell":
        active = cols[2].selectbox("Active range (% of the volume)", ranges, key="active_range")


def _where() -> str:
    """What the grid holds to, for its title (`` · randread · qd1x1``)."""
    size = format_size(int(block_size)) if block_size is not None else None
    held = [pattern, size, concurrency, f"ws{active}" if active is not None else None]
    return "".join(f" · {h}" for h in held if h)


def _on_click() -> None:
    """Copy the clicked cell into the cell chooser (runs before the page reruns)."""
    cell = _charts.clicked_cell(st.session_state.get(CHART_KEY))
    if cell is None:
        st.session_state.pop(CELL_KEY, None)  # a double click cleared the selection
    else:
        st.session_state[CELL_KEY] = _charts.cell_label(*cell)


def _grid() -> tuple[pd.DataFrame, list[str], str, bool, dict[str, list[str]] | None]:
    """The grid's cells and column order, the x title, the colour direction, and for the score
    grid each class's cells (the runs behind a score)."""
    if by == "class":
        recs = page.recommendations()
        frame, order = views.score_grid(recs)
        return frame, order, "class", True, {r.name: r.wclass.cell_keys for r in recs}
    metric = HEATMAP_METRICS[metric_label]
    if by == "cell":
        frame, order = views.overview_frame(page.runs(), metric)
        return frame, order, "workload cell", "lat" not in metric, None
    frame, order = views.grid_frame(
        page.runs(),
        metric,
        by=by,
        pattern=pattern,
        block_size=block_size,
        concurrency=concurrency,
        active_pct=active,
    )
    x_title = "block size" if by == "block_size" else "pattern"
    return frame, order, x_title, "lat" not in metric, None


def _row_marks(class_name: str | None) -> tuple[dict[str, str], list[str]]:
    """Per configuration its rank in ``class_name`` (and what limit it breaks), and the
    configurations that break one."""
    rec = views.find_recommendation(page.recommendations(), class_name or "")
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


def _predicted(frame: pd.DataFrame) -> pd.DataFrame:
    """The score grid's predicted cells, unless the engineer hides them (none elsewhere)."""
    if by != "class":
        return pd.DataFrame(columns=predicted.CELL_COLUMNS)
    cells = _predictions.score_cells(page, page.recommendations(), frame)
    if cells.empty:
        return cells
    on = st.toggle(
        "Show predictions for configurations not measured",
        value=True,
        key="heatmap_predicted",
        help="The surrogate's predicted scores (% of the class's best measured score), drawn "
        "italic in dashed violet squares marked ~, with their 95% interval in the tooltip; "
        "never ranked.",
    )
    return cells if on else cells.iloc[:0]


def _tables(frame: pd.DataFrame, order: list[str], rows: list[str], label: str) -> None:
    """The grid's means as tables, rows in the chart's order: narrow enough for a laptop's
    window, so every cell's overview is a table per pattern (and block size), headed by it;
    figures written as the CLI writes the metric's (``views.metric_text``)."""
    table = views.grid_table(frame, order)
    measured = [r for r in rows if r in set(frame["config_key"])]
    table = table.set_index(views.CONFIGURATION).reindex(measured).reset_index()
    metric = HEATMAP_METRICS.get(label, "")
    groups = views.column_groups([c for c in order if c in table], by_key=by == "cell")
    for heading, columns in groups:
        if len(groups) > 1:
            st.markdown(f"**{heading}**")
        headers = {c: views.short_column(c, heading) for c in columns}
        _frame.table(
            table[[views.CONFIGURATION, *columns]],
            {c: st.column_config.Column(h, help=c) for c, h in headers.items()},
            spell=dict.fromkeys(columns, lambda v: views.metric_text(metric, v)),
        )


def render() -> None:
    frame, order, x_title, higher_is_better, class_cells = _grid()
    if frame.empty:
        if by == "cell":
            where = "any cell"
        else:
            where = pattern if by == "block_size" else format_size(int(block_size or 0))
        st.info(f"No {metric_label} values for {where} at {concurrency} yet.")
        return
    recs = page.recommendations()
    class_names = [r.name for r in recs if not r.ranked.empty]
    score_sorts = {f"score in {name}": name for name in class_names}
    controls = st.columns(3)
    scale = controls[0].radio(
        "Colour scale",
        SCALES,
        index=1 if by == "cell" else 0,
        key=f"heatmap_scale_{by}",
        horizontal=True,
        help="Per column: each column from its worst to its best, so a 30% spread inside one "
        "column shows even when another column is ten times larger.",
    )
    sort = controls[1].selectbox(
        "Sort rows by",
        [views.ROW_ORDER_CONFIGURATION, *score_sorts, *order],
        key=f"heatmap_sort_{by}",
        help="By configuration key, by a class's score (best first), or by a column (best first).",
    )
    marked = controls[2].selectbox(
        "Ranks and limits of class",
        class_names or [None],
        key="heatmap_mark_class",
        help="Beside each configuration: its rank in this class (=N: tied with rank N), and "
        "in red with ✕ the limit it breaks.",
    )
    shaded = views.shade(frame, per_column=scale == "per column", higher_is_better=higher_is_better)
    scores = None
    if sort in score_sorts:
        rec = views.find_recommendation(recs, score_sorts[sort])
        scores = (
            dict(zip(rec.ranked["config_key"], rec.ranked["score"], strict=True)) if rec else {}
        )
    rows = views.row_order(shaded, sort, higher_is_better=higher_is_better, scores=scores)
    marks, breakers = _row_marks(marked)
    cells = _predicted(frame)
    if len(cells):
        marks |= predicted.predicted_marks(rows, cells)
        rows = predicted.predicted_rows(rows, cells)
    chart = _charts.grid_heatmap(
        shaded,
        order,
        x_title=x_title,
        metric_label=metric_label,
        higher_is_better=higher_is_better,
        rows=rows,
        per_column=scale == "per column",
        row_marks=marks,
        breakers=breakers,
    )
    chart = _predictions.with_predicted_cells(chart, cells, order, rows, x_title)
    chart = _charts.titled(chart, f"{metric_label}: configuration × {x_title}{_where()}")
    st.altair_chart(
        chart, on_select=_on_click, selection_mode=_charts.CELL_SELECTION, key=CHART_KEY
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
    _tables(frame, order, rows, metric_label)
    _predictions.score_table(cells)

    cells = frame.sort_values("config_key", kind="stable")
    position = {c: i for i, c in enumerate(order)}
    cells = cells.assign(pos=cells["column"].map(position)).sort_values(["config_key", "pos"])
    options = [
        _charts.cell_label(k, c) for k, c in zip(cells["config_key"], cells["column"], strict=True)
    ]
    if st.session_state.get(CELL_KEY) not in options:
        st.session_state.pop(CELL_KEY, None)  # chosen under other settings: not in this grid
    choice = st.selectbox(
        "Runs of a cell",
        options,
        index=None,
        placeholder="Click a cell in the chart, or choose one here",
        key=CELL_KEY,
    )
    if choice is None:
        return
    config_key, column = _charts.parse_cell_label(choice)
    shown = views.cell_runs(
        page.runs(),
        config_key,
        column,
        by=by,
        pattern=pattern,
        block_size=block_size,
        concurrency=concurrency,
        active_pct=active,
        class_cells=class_cells,
    )
    st.markdown(f"**{len(shown)} runs** of **{config_key}** at **{column}**")
    picked = _frame.table(
        shown,
        {"IOPS": "%.1f", "MB/s": "%.2f", "p99 read ms": "%.3f", "p99 write ms": "%.3f"},
        on_select="rerun",
        selection_mode="single-row",
        key="heatmap_cell_runs",
    )
    rows = picked.selection.rows if picked is not None else []
    if rows:
        run_id = str(shown["run id"].iloc[rows[0]])
        st.session_state["run_pick"] = run_id  # read by the Run details page
        st.page_link(
            "app_pages/run_details.py",
            label="Open the selected run in Run details",
            icon=":material/description:",
        )
    else:
        st.caption("Select a row to open that run's disclosure record, job file and fio output.")


page.live(render)
