"""Rankings: configurations ranked per workload class, with intervals, spread and limits."""

from __future__ import annotations

import streamlit as st

from app_pages import _common
from recommender.scoring import FORMULA

store, record = _common.require_sweep()
sweep_id = record["sweep_id"]
st.header(f"Rankings — sweep {sweep_id}")

class_names = [str(c) for c in record.get("spec", {}).get("classes", [])]
if not class_names:
    st.info("This sweep's spec names no workload classes, so there is nothing to rank.")
    st.stop()
class_name = st.selectbox("Workload class", class_names, key="class")
st.caption(FORMULA)


def render() -> None:
    ranked, classes = _common.rankings(store, record)
    wclass = next((c for c in classes if c.name == class_name), None)
    if wclass is not None:
        st.markdown(f"**{wclass.name}** — {wclass.description}")
        limits = ", ".join(f"{lim.metric} ≤ {lim.max}" for lim in wclass.limits) or "none"
        st.caption(f"Class metric: {wclass.metric}; limits: {limits}")
    table = _common.rankings_table(ranked, class_name)
    if table.empty:
        st.info(f"No runs of the {class_name} cells are stored yet.")
        return
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "score": st.column_config.NumberColumn(format="%.1f"),
            "CV %": st.column_config.NumberColumn(format="%.2f"),
        },
    )
    importance = _common.importances(ranked, class_name)
    if not importance.empty:
        st.subheader("What matters")
        st.caption(
            "Share of the score's variance each dimension explains (Optuna's fANOVA over the "
            "configurations ranked); dimensions that always change together are one row."
        )
        st.bar_chart(importance.set_index("dimension")["importance"], horizontal=True)
    if "cells missing" in table:
        gaps = table.loc[table["cells missing"] != "", ["configuration", "cells missing"]]
        st.warning(
            "Cells missing (scored on the cells measured so far):  \n"
            + "  \n".join(
                f"{key}: {cells}"
                for key, cells in zip(gaps["configuration"], gaps["cells missing"], strict=True)
            )
        )


_common.live(store, sweep_id, render)
