"""Recommendations: per workload class the decision, the ranking with its trade-offs, the
evidence against the runner-up, the Pareto view and the cost of snapshots / data reduction."""

from __future__ import annotations

import streamlit as st

from app_pages import _common
from recommender import views
from recommender.charts import tradeoff_chart, tradeoff_points
from recommender.scoring import FORMULA
from recommender.tradeoffs import TRADEOFF_FORMULA
from sweeper.status import provisional
from sweeper.untrusted import markdown_text

store, record = _common.require_sweep()
sweep_id = record["sweep_id"]
st.header(f"Recommendations — sweep {sweep_id}")

names = [rec.name for rec in _common.recommendations(store, record)]
if not names:
    st.info("This sweep's spec names no workload classes, so there is nothing to recommend.")
    st.stop()
class_name = st.selectbox("Workload class", names, key="class")
prices = (record.get("spec") or {}).get("prices")


def render() -> None:
    recs = _common.recommendations(store, record)
    note = provisional(store, record["sweep_id"])
    if note:
        st.warning(note, icon=":material/hourglass_top:")
    rec = views.find_recommendation(recs, class_name)
    if rec is None:
        st.error(f"The class {class_name} could not be loaded for this sweep.")
        return
    wclass = rec.wclass
    if rec.best is None:
        st.info(
            f"No runs of the {class_name} cells are stored yet ({', '.join(wclass.cell_keys)})."
        )
        return
    st.success(rec.sentence(), icon=":material/recommend:")
    st.markdown(f"**{markdown_text(wclass.name)}** — {markdown_text(wclass.description)}")
    cells = ", ".join(f"{c.cell} (×{c.weight:g})" for c in wclass.cells)
    limits = ", ".join(str(lim) for lim in wclass.limits) or "none"
    st.caption(f"Class metric: {wclass.metric}; cells (weight): {cells}; limits: {limits}")

    st.subheader("Ranking")
    table = views.recommendation_table(rec.ranked, prices=bool(prices))
    currency = (prices or {}).get("currency", "")
    money = st.column_config.NumberColumn(format=f"%.2f {currency}".strip())
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "score": st.column_config.NumberColumn(format="%.1f"),
            "CV %": st.column_config.NumberColumn(format="%.2f"),
            "usable %": st.column_config.NumberColumn(format="%.1f"),
            "rebuild h": st.column_config.NumberColumn(format="%.2f"),
            "data-loss risk / year": st.column_config.NumberColumn(format="%.2e"),
            "cost per unit": money,
            "cost per usable GB": money,
        },
    )
    st.caption(
        "Rank '=n': intervals overlap, so these configurations share the rank. "
        f"Repetitions: the complete repetitions behind each score.  \n**Score:** {FORMULA}.  \n"
        f"**Trade-offs:** {TRADEOFF_FORMULA}."
        + (f" Cost per unit: {currency} per {wclass.metric} of the score." if prices else "")
    )
    broken = table[table["limits"] != "ok"]
    if len(broken):
        st.warning(
            "Limits broken (these rank after every configuration that keeps them):  \n"
            + "  \n".join(
                f"{key}: {why}"
                for key, why in zip(broken["configuration"], broken["limits"], strict=True)
            )
        )
    if "cells missing" in table:
        gaps = table.loc[table["cells missing"] != "", ["configuration", "cells missing"]]
        st.warning(
            "Cells missing (scored on the cells measured so far):  \n"
            + "  \n".join(
                f"{key}: {cells}"
                for key, cells in zip(gaps["configuration"], gaps["cells missing"], strict=True)
            )
        )

    st.subheader("Evidence")
    if rec.runner_up is None or rec.evidence.empty:
        st.info("Only one configuration is ranked: there is no runner-up to compare with.")
    else:
        st.markdown(
            f"Recommended **{rec.best['config_key']}** against the runner-up "
            f"**{rec.runner_up['config_key']}**, per cell ({wclass.metric}, mean over "
            "repetitions); the share is how much of the score difference the cell makes."
        )
        number = st.column_config.NumberColumn(format="%.1f")
        st.dataframe(
            views.evidence_table(rec.evidence),
            hide_index=True,
            column_config={
                "recommended": number,
                "runner-up": number,
                "ratio": st.column_config.NumberColumn(format="%.3f"),
                "share of the decision %": number,
            },
        )

    st.subheader("Trade-offs")
    points = tradeoff_points(rec.ranked)
    if points.empty:
        st.info(
            "The sweep's hardware facts lack drive size, RAID groups or rebuild rate, so "
            "usable capacity and rebuild exposure cannot be computed."
        )
    else:
        st.altair_chart(tradeoff_chart(points, wclass.metric))
        front = points.loc[points["front"] == "on the trade-off front", "config_key"]
        st.caption(
            "Performance vs usable capacity vs rebuild exposure (data-loss risk per year). "
            f"On the trade-off front (no other configuration is as good in all three and better "
            f"in one): {', '.join(front) or 'none'}."
        )

    if len(rec.impact):
        st.subheader("Feature impact")
        st.caption("Performance kept with the feature on, as % of the same configuration off.")
        st.dataframe(
            views.impact_table(rec.impact),
            hide_index=True,
            column_config={
                "score off": st.column_config.NumberColumn(format="%.1f"),
                "score on": st.column_config.NumberColumn(format="%.1f"),
                "kept %": st.column_config.NumberColumn(format="%.1f"),
            },
        )


_common.live(store, sweep_id, render)
