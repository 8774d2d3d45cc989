"""Recommendations: per workload class the decision, the ranking with its trade-offs, the
evidence against the runner-up, the Pareto view and the cost of snapshots / data reduction."""

from __future__ import annotations

import streamlit as st

from app_pages import _frame
from recommender import views
from recommender.charts import tradeoff_chart, tradeoff_points
from recommender.scoring import FORMULA
from recommender.tradeoffs import TRADEOFF_FORMULA
from sweeper.untrusted import markdown_text

page = _frame.open_page("Recommendations")
names = page.class_names(
    "This sweep's spec names no workload classes, so there is nothing to recommend."
)
class_name = st.selectbox("Workload class", names, key="class")
prices = (page.record.get("spec") or {}).get("prices")


def render() -> None:
    recs = page.recommendations()
    page.provisional_banner()
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
    limits = views.class_limits_text(wclass.limits)
    st.caption(f"Class metric: {wclass.metric}; cells (weight): {cells}; limits: {limits}")

    st.subheader("Ranking")
    table = views.recommendation_table(rec.ranked, prices=bool(prices))
    currency = (prices or {}).get("currency", "")
    money = f"%.2f {currency}".strip()
    _frame.table(
        table,
        {
            "score": "%.1f",
            "CV %": "%.2f",
            "usable %": "%.1f",
            "rebuild h": "%.2f",
            "data-loss risk / year": "%.2e",
            "cost per unit": money,
            "cost per usable GB": money,
        },
    )
    st.caption(
        f"{views.RANK_CAPTION}.  \n"
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
                for key, why in zip(broken[views.CONFIGURATION], broken["limits"], strict=True)
            )
        )
    if "cells missing" in table:
        gaps = table.loc[table["cells missing"] != "", [views.CONFIGURATION, "cells missing"]]
        st.warning(
            "Cells missing (scored on the cells measured so far):  \n"
            + "  \n".join(
                f"{key}: {cells}"
                for key, cells in zip(gaps[views.CONFIGURATION], gaps["cells missing"], strict=True)
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
        _frame.table(
            views.evidence_table(rec.evidence),
            {
                "recommended": "%.1f",
                "runner-up": "%.1f",
                "ratio": "%.3f",
                "share of the decision %": "%.1f",
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
        _frame.table(
            views.impact_table(rec.impact),
            {"score off": "%.1f", "score on": "%.1f", "kept %": "%.1f"},
        )


page.live(render)
