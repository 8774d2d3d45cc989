"""Compare: two configurations side by side — per-class scores, per-cell figures with their
ratio, and the trade-offs."""

from __future__ import annotations

import streamlit as st

from app_pages import _common
from recommender import views

store, record = _common.require_sweep()
sweep_id = record["sweep_id"]
st.header(f"Compare — sweep {sweep_id}")

recs = _common.recommendations(store, record)
configs = sorted(_common.runs(store, sweep_id)["config_key"].unique())
if len(configs) < 2:
    st.info("Two configurations need runs in the store before they can be compared.")
    st.stop()

# By default the first class's recommendation against its runner-up: the comparison people ask.
first = next((r for r in recs if r.best is not None and r.runner_up is not None), None)
default_a = first.best["config_key"] if first is not None else configs[0]
default_b = first.runner_up["config_key"] if first is not None else configs[1]
cols = st.columns(2)
a = cols[0].selectbox("Configuration A", configs, index=configs.index(default_a), key="compare_a")
b = cols[1].selectbox("Configuration B", configs, index=configs.index(default_b), key="compare_b")


def render() -> None:
    if a == b:
        st.warning("Choose two different configurations.")
        return
    st.markdown(f"**A** = `{a}`  \n**B** = `{b}`")
    current = _common.recommendations(store, record)
    st.subheader("Per class")
    st.dataframe(
        views.compare_scores(current, a, b),
        hide_index=True,
        column_config={
            "score A": st.column_config.NumberColumn(format="%.1f"),
            "score B": st.column_config.NumberColumn(format="%.1f"),
            "A / B": st.column_config.NumberColumn(format="%.3f"),
        },
    )

    st.subheader("Per cell")
    label = st.radio("Figure", list(views.COMPARE_METRICS), key="compare_metric", horizontal=True)
    cells = views.compare_cells(_common.runs(store, sweep_id), a, b, views.COMPARE_METRICS[label])
    if cells.empty:
        st.info("The two configurations have no workload cell in common yet.")
    else:
        fmt = "%.2f" if label != "IOPS" else "%.1f"
        st.dataframe(
            cells,
            hide_index=True,
            column_config={
                "A": st.column_config.NumberColumn(f"A {label}", format=fmt),
                "B": st.column_config.NumberColumn(f"B {label}", format=fmt),
                "A / B": st.column_config.NumberColumn(format="%.3f"),
            },
        )
        st.caption("Means over repetitions; repetitions as A/B.")

    st.subheader("Trade-offs")
    trade = views.compare_tradeoffs(current, a, b)
    if trade.empty:
        st.info("The sweep's hardware facts give no trade-off figures.")
    else:
        st.dataframe(
            trade,
            hide_index=True,
            column_config={
                "A": st.column_config.NumberColumn(format="%.4g"),
                "B": st.column_config.NumberColumn(format="%.4g"),
            },
        )


_common.live(store, sweep_id, render)
