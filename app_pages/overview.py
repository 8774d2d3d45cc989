"""Overview: how far the chosen sweep has come, and every configuration with its run counts."""

from __future__ import annotations

import streamlit as st

from app_pages import _frame
from recommender import views
from sweeper.units import format_duration

page = _frame.open_page()


def render() -> None:
    status = page.status()
    state = status.state
    configs_done, configs_total = status.configurations_done, status.configurations_total
    # Each figure as wide as it reads, the row wrapping where the window is narrow: a
    # figure is never cut off.
    figures = st.container(horizontal=True, gap="large")
    figures.metric("State", state, width="content")
    figures.metric("Configurations", f"{configs_done} / {configs_total}", width="content")
    runs_text = f"{status.runs_done} / {status.runs_total}"
    figures.metric(
        "Runs",
        runs_text,
        delta=f"{status.runs_failed} failed" if status.runs_failed else None,
        delta_color="inverse",
        width="content",
    )
    figures.metric(
        "Array time",
        f"{format_duration(status.array_s_used)} / {format_duration(status.array_s_total)}",
        width="content",
    )
    if status.runs_total:
        done = min(1.0, status.runs_done / status.runs_total)
        st.progress(done, text=f"{done:.0%} of the planned runs")
    if state == "interrupted":
        st.warning(
            "The sweep stopped before it finished. Run the same command again to resume it: "
            "runs already stored are kept."
        )

    per_config = status.runs_total // status.configurations_total if configs_total else 0
    table = views.configuration_table(
        page.runs(include_failed=True), page.configurations(), per_config
    )
    st.subheader("Configurations")
    if table.empty:
        st.info("No configuration has been set up yet.")
    else:
        _frame.table(table)


page.live(render)
page.rank_ahead()  # what a person opens next: Recommendations, then ready sooner
