"""Curves: IOPS against latency as the I/Os in flight grow, per configuration, pattern and
block size, with the Speed, Optimum and Maximum points marked."""

from __future__ import annotations

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
    summary = views.curve_summary(sel)
    formats = {" IOPS": "%.0f", " ms": "%.3f", " in flight": "%d"}
    _frame.table(
        summary,
        {c: fmt for c in summary.columns for end, fmt in formats.items() if c.endswith(end)},
    )
    runs = page.runs()
    mine = runs[
        runs["config_key"].isin(sel["config_key"])
        & (runs["pattern"] == pattern)
        & (runs["block_size"] == block_size)
    ]
    st.markdown(f"**The curves' {len(mine)} runs**, each with a link to its details")
    _frame.table(
        run_list(mine.sort_values(["config_key", "cell_key", "repetition"])),
        {
            "IOPS": "%.1f",
            "MB/s": "%.2f",
            "p99 read ms": "%.3f",
            "p99 write ms": "%.3f",
            "details": st.column_config.LinkColumn("details", display_text="open"),
        },
    )


page.live(render)
