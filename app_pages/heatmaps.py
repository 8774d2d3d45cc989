"""Heatmaps: one metric per configuration × block size for a pattern and a concurrency."""

from __future__ import annotations

import streamlit as st

from app_pages import _common
from recommender.charts import heatmap
from recommender.data import HEATMAP_METRICS, heatmap_frame

store, record = _common.require_sweep()
sweep_id = record["sweep_id"]
st.header(f"Heatmaps — sweep {sweep_id}")

patterns, concurrencies = _common.matrix_options(record, _common.runs(store, sweep_id))
if not patterns or not concurrencies:
    st.info("No runs are stored for this sweep yet.")
    st.stop()
cols = st.columns(3)
pattern = cols[0].selectbox("Pattern", patterns, key="pattern")
metric_label = cols[1].selectbox("Metric", list(HEATMAP_METRICS), key="metric")
concurrency = cols[2].selectbox("Concurrency", concurrencies, key="concurrency")
metric = HEATMAP_METRICS[metric_label]
ranges = (record["spec"]["matrix"].get("active_range") or []) if record.get("spec") else []
active = (
    st.selectbox("Active range (% of the volume)", ranges, key="active_range") if ranges else None
)


def render() -> None:
    runs = _common.runs(store, sweep_id)
    frame = heatmap_frame(runs, pattern, metric, concurrency, active) if len(runs) else runs
    frame = frame.dropna(subset=["value"]) if "value" in frame else frame.iloc[0:0]
    if frame.empty:
        st.info(f"No {metric_label} values for {pattern} at {concurrency} yet.")
        return
    chart = heatmap(frame, metric_label, higher_is_better="lat" not in metric)
    st.altair_chart(chart)
    st.caption("Mean over repetitions; hover a cell for its standard deviation and count.")
    table = _common.heatmap_table(frame)
    number = st.column_config.NumberColumn(format="%.2f")
    st.dataframe(
        table,
        hide_index=True,
        column_config={c: number for c in table.columns if c != "configuration"},
    )


_common.live(store, sweep_id, render)
