"""Curves: IOPS against latency as the I/Os in flight grow, per configuration, pattern and
block size, with the Speed, Optimum and Maximum points marked."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages import _charts, _frame
from recommender import views
from recommender.charts import curve_chart
from recommender.views.runs import run_list
from sweeper.units import format_size

page = _frame.open_page("Curves")
table = page.curves()
if table.empty:
    st.info(
        "No concurrency curves yet: a curve needs one configuration, pattern and block size "
        "measured at two or more concurrencies (matrix.concurrency: [1x1, 1x4, 1x16, …])."
    )
    st.stop()

configs = sorted(table["config_key"].unique())
patterns = sorted(table["pattern"].unique())
cols = st.columns([3, 1, 1])
chosen = cols[0].multiselect(
    "Configurations", configs, default=configs[: min(3, len(configs))], key="curve_configs"
)
pattern = cols[1].selectbox("Pattern", patterns, key="curve_pattern")
sizes = sorted(table.loc[table["pattern"] == pattern, "block_size"].unique())
block_size = cols[2].selectbox(
    "Block size", sizes, format_func=lambda b: format_size(int(b)), key="curve_block_size"
)


def render() -> None:
    current = page.curves()
    sel = current[
        current["config_key"].isin(chosen)
        & (current["pattern"] == pattern)
        & (current["block_size"] == block_size)
    ]
    if not chosen:
        st.info("Choose one or more configurations.")
        return
    if sel.empty:
        st.info(
            f"None of the chosen configurations has a {pattern}/{format_size(int(block_size))} "
            "curve."
        )
        return
    if len(sel) > views.MAX_CURVES:
        st.warning(f"{len(sel)} curves: showing the first {views.MAX_CURVES}.")
        sel = sel.iloc[: views.MAX_CURVES]
    where = f"{pattern}/{format_size(int(block_size))}"
    title = f"IOPS against mean latency as I/Os in flight grow: {where}"
    st.altair_chart(_charts.titled(curve_chart(views.curve_points(sel)), title))
    st.caption(
        "Diamonds mark the Speed (fewest I/Os in flight), the Optimum (the knee: Kneedle on "
        "log2 IOPS vs log2 I/Os in flight) and the Maximum (highest IOPS); hover for which."
    )
    st.markdown(f"**Speed, Optimum and Maximum of each curve** ({where})")
    summary = views.curve_summary(sel, in_one_cell=True)
    _frame.table(summary, SUMMARY_COLUMNS, column_order=_in_view(summary, SUMMARY_SPARE))
    st.caption(
        "IOPS and mean latency (ms) at each point; the Optimum's I/Os in flight. More columns "
        "(the Speed's and the Maximum's I/Os in flight, how the optimum was found, why a curve "
        "stopped) in the table's column menu."
    )
    runs = page.runs()
    mine = runs[
        runs["config_key"].isin(sel["config_key"])
        & (runs["pattern"] == pattern)
        & (runs["block_size"] == block_size)
    ]
    st.markdown(f"**The curves' {len(mine)} runs**, each with a link to its details")
    listed = run_list(mine.sort_values(["config_key", "cell_key", "repetition"]))
    # a latency no run of the curves has (a read pattern's writes) is no column to show
    empty = {c for c in LATENCIES if c in listed and listed[c].isna().all()}
    _frame.table(listed, RUN_COLUMNS, column_order=_in_view(listed, RUN_SPARE | empty))
    st.caption("More columns (MB/s, steady, telemetry flag) in the table's column menu.")


#: the summary's columns: short headers with their units (the full name in the tooltip) and
#: narrow figures, so that the table fits a laptop's 1280 px window beside the sidebar
SUMMARY_COLUMNS: dict[str, object] = {
    "curve": st.column_config.TextColumn(
        "configuration", help="the curve's configuration (and working set, if it has one)"
    ),
    "Speed in flight": _frame.number(
        "Speed in flight", "%d", "I/Os in flight at the Speed point (the fewest)", 64
    ),
    "Speed IOPS": _frame.number("Speed IOPS", "%,.0f", "IOPS at the Speed point", 80),
    "Speed ms": _frame.number("Speed ms", "%.3f", "mean latency at the Speed point, ms", 72),
    "Optimum in flight": _frame.number(
        "Opt. in flight", "%d", "I/Os in flight at the Optimum (the knee)", 84
    ),
    "Optimum IOPS": _frame.number("Opt. IOPS", "%,.0f", "IOPS at the Optimum", 74),
    "Optimum ms": _frame.number("Opt. ms", "%.3f", "mean latency at the Optimum, ms", 64),
    "Maximum in flight": _frame.number(
        "Max. in flight", "%d", "I/Os in flight at the Maximum (the highest IOPS)", 84
    ),
    "Maximum IOPS": _frame.number("Max. IOPS", "%,.0f", "IOPS at the Maximum", 74),
    "Maximum ms": _frame.number("Max. ms", "%.3f", "mean latency at the Maximum, ms", 64),
}
#: the summary's columns out of view at first (one click away in the column menu)
SUMMARY_SPARE = {"Speed in flight", "Maximum in flight", "how the optimum was found", "stopped"}
#: the run list's columns, narrowed as the summary's
RUN_COLUMNS: dict[str, object] = {
    "repetition": _frame.number("rep", "%d", "repetition", 42),
    "IOPS": _frame.number("IOPS", "%,.1f", "I/Os a second", 72),
    "MB/s": _frame.number("MB/s", "%.2f", "MB/s (10⁶ bytes a second)", 64),
    "p99 read ms": _frame.number("p99 read ms", "%.3f", "99th percentile read latency, ms", 92),
    "p99 write ms": _frame.number("p99 write ms", "%.3f", "99th percentile write latency, ms", 96),
    "details": st.column_config.LinkColumn("details", display_text="open", width=56),
}
#: the run list's columns out of view at first (MB/s: the IOPS times the one block size)
RUN_SPARE = {"MB/s", "steady", "telemetry flag"}
#: the run list's latencies, each out of view where no run has it
LATENCIES = ("p99 read ms", "p99 write ms")


def _in_view(table: pd.DataFrame, spare: set[str]) -> list[str]:
    """A table's columns shown at first (the rest: the table's column menu)."""
    return [c for c in table.columns if c not in spare]


page.live(render)
