"""What matters: per workload class, how much of the score's variance each dimension of the
config space explains (Optuna's fANOVA over the ranked configurations)."""

from __future__ import annotations

import streamlit as st

from app_pages import _charts, _frame
from recommender.importance import MIN_CONFIGURATIONS

page = _frame.open_page("What matters")
names = page.class_names(
    "This sweep's spec names no workload classes, so there is nothing to weigh."
)
class_name = st.selectbox("Workload class", names, key="importance_class")
st.caption(
    "Share of the score's variance each dimension explains on its own (Optuna's fANOVA over "
    "the configurations ranked); dimensions that always change together in the sweep cannot "
    "be told apart and are one row (e.g. `layout + stripe`); dimensions that never vary are "
    "left out."
)


def render() -> None:
    table = page.importances()
    mine = table[table["class"] == class_name].sort_values("importance", ascending=False)
    if mine.empty:
        st.info(
            f"Too few configurations are ranked for {class_name} to weigh the dimensions "
            f"(at least {MIN_CONFIGURATIONS}, differing in at least one dimension)."
        )
        return
    best = mine.iloc[0]
    st.markdown(
        f"For **{class_name}**, **{best['dimension']}** matters most: "
        f"{100 * best['importance']:.0f}% of the score's variance."
    )
    share = mine.assign(share=100 * mine["importance"])[["dimension", "share"]]
    bars = _charts.share_bars(share, "share of the score's variance (%)")
    st.altair_chart(_charts.titled(bars, f"{class_name}: what each dimension explains"))
    st.subheader("Every class")
    wide = table.pivot_table(index="dimension", columns="class", values="importance")
    wide = (100 * wide).reindex(columns=[n for n in names if n in wide.columns])
    _frame.table(wide.reset_index(), dict.fromkeys(wide.columns, "%.0f %%"))


page.live(render)
