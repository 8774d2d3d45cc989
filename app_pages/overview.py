"""Overview: how far the chosen sweep has come, and every configuration with its run counts."""

from __future__ import annotations

import streamlit as st

from app_pages import _common
from recommender import views
from sweeper.units import format_duration

store, record = _common.require_sweep()
sweep_id = record["sweep_id"]
st.header(f"Sweep {sweep_id}")


def render() -> None:
    status = _common.status(store, sweep_id)
    state = status.state
    configs_done, configs_total = status.configurations_done, status.configurations_total
    cols = st.columns(4)
    cols[0].metric("State", state)
    cols[1].metric("Configurations", f"{configs_done} / {configs_total}")
    runs_text = f"{status.runs_done} / {status.runs_total}"
    cols[2].metric(
        "Runs",
        runs_text,
        delta=f"{status.runs_failed} failed" if status.runs_failed else None,
        delta_color="inverse",
    )
    cols[3].metric(
        "Array time",
        f"{format_duration(status.array_s_used)} / {format_duration(status.array_s_total)}",
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
        _common.runs(store, sweep_id, include_failed=True),
        _common.configurations(store, sweep_id),
        per_config,
    )
    st.subheader("Configurations")
    if table.empty:
        st.info("No configuration has been set up yet.")
    else:
        st.dataframe(table, hide_index=True)


_common.live(store, sweep_id, render)
