"""The surrogate's predictions in the app (optimize-mode sweeps): under a class's ranking its
configurations predicted, not measured, and in the score heatmap their predicted cells. Each is
drawn apart from the measurements — italic, violet, dashed, marked ``~`` with "predicted" and
its 95% interval — and holds no rank (``recommender.views.predicted``)."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from app_pages._frame import SweepPage
from app_pages._live import working
from recommender.predictions import (
    COLUMNS,
    TOP,
    annotate,
    fitted_on,
    nearest,
    sweep_surrogate,
)
from recommender.recommendations import ClassRecommendation
from recommender.views import CONFIGURATION, ranked_all
from recommender.views import predicted as shown
from recommender.views.markdown import interval_text
from sweeper.untrusted import markdown_text

#: how a prediction looks wherever the app shows one: italic violet on a pale violet ground
INK = "#6a1b9a"
GROUND = "#f3e5f5"
STYLE = {"font-style": "italic", "color": INK, "background-color": GROUND}
CAPTION = (
    "Predicted by the surrogate (a Gaussian process over the measured class scores, the model "
    "that decides when the sweep stops) for configurations not measured on every cell of the "
    "class; listed where the 95% interval reaches the recommended configuration's score. "
    "Predictions hold no rank and no limit is predicted: the ranking holds measurements only."
)


# no spinner of its own: Streamlit draws it over the page (``_common.working`` says why)
@st.cache_data(max_entries=8, show_spinner=False)
def _surrogate(
    root: str,
    sweep_id: str,
    created_at: str,
    fitted: tuple,
    _record: dict[str, Any],
    _ranked: pd.DataFrame,
) -> pd.DataFrame:
    return sweep_surrogate(_record, _ranked)


def found(page: SweepPage) -> pd.DataFrame:
    """Every prediction of the sweep (``recommender.predictions.annotate``); none for a
    sweep not in optimize mode (a grid measures every configuration it is given). The
    surrogate is fitted again only when a configuration has been measured on all of a
    class's cells, not on every run a sweep writes."""
    study = (page.record.get("spec") or {}).get("study") or {}
    if study.get("mode") != "optimize":
        return pd.DataFrame(columns=COLUMNS)
    ranked = ranked_all(page.recommendations())
    created = str(page.record.get("created_at", ""))
    with working(page.store, page.sweep_id, "Predicting the configurations not measured…"):
        raw = _surrogate(
            str(page.store.root), page.sweep_id, created, fitted_on(ranked), page.record, ranked
        )
    return annotate(raw, ranked)


def ranking_section(page: SweepPage, rec: ClassRecommendation) -> None:
    """Under the class's ranking: its configurations predicted, not measured, and a warning
    naming any predicted above the recommended one."""
    near = nearest(found(page), TOP)
    rows = shown.predicted_table(near, rec.name)
    if rows.empty:
        return
    st.subheader(f"Predicted, not measured ({len(rows)})")
    best = shown.predicted_best(near, rec.name)
    if best:
        pick = markdown_text(str(rec.best["config_key"])) if rec.best is not None else "the pick"
        st.warning(
            f"**{shown.PREDICTED_BEST.capitalize()}:** "
            + ", ".join(markdown_text(k) for k in best)
            + f" — predicted above the recommended {pick}. Measure it before you take the "
            "recommendation.",
            icon=":material/help:",
        )
    table = rows.assign(**{CONFIGURATION: [markdown_text(k) for k in rows[CONFIGURATION]]})
    st.table(table.style.set_properties(**STYLE), hide_index=True)
    st.caption(CAPTION)


def score_cells(
    page: SweepPage, recs: list[ClassRecommendation], grid: pd.DataFrame
) -> pd.DataFrame:
    """The score heatmap's predicted cells (``views.predicted.predicted_cells``), none where
    ``grid`` has a measured cell."""
    measured = set(zip(grid["column"], grid["config_key"], strict=True))
    return shown.predicted_cells(found(page), ranked_all(recs), top=TOP, shown=measured)


def with_predicted_cells(
    chart: alt.LayerChart, cells: pd.DataFrame, order: list[str], rows: list[str], x_title: str
) -> alt.LayerChart:
    """``chart`` (``_charts.grid_heatmap``) with the predicted cells drawn on the same axes:
    a pale violet square with a dashed violet outline, its label italic ``~`` and the
    prediction; the tooltip says "predicted, not measured" and gives the interval."""
    if cells.empty:
        return chart
    data = cells.assign(
        interval=[interval_text(lo, hi) for lo, hi in zip(cells["lo"], cells["hi"], strict=True)]
    )
    base = alt.Chart(data).encode(
        x=alt.X("column:O", sort=order, title=x_title),
        y=alt.Y("config_key:N", sort=rows, title=None),
    )
    square = base.mark_rect(
        fill=GROUND, stroke=INK, strokeDash=[4, 3], strokeWidth=1.5, opacity=1
    ).encode(
        tooltip=[
            alt.Tooltip("config_key:N", title="configuration"),
            alt.Tooltip("column:O", title=x_title),
            alt.Tooltip("status:N", title="kind"),
            alt.Tooltip("value:Q", title="predicted, % of the best measured", format=",.1f"),
            alt.Tooltip("interval:N", title="95% interval, %"),
            alt.Tooltip("measured:N", title="measured"),
        ]
    )
    label = base.mark_text(fontSize=10, fontStyle="italic", color=INK).encode(text="label:N")
    return alt.layer(*chart.layer, square, label, data=chart.data, params=chart.params).properties(
        height=chart.height, width=chart.width
    )


def score_table(cells: pd.DataFrame) -> None:
    """The predicted cells as a table under the grid's measured one."""
    if cells.empty:
        return
    table = pd.DataFrame(
        {
            CONFIGURATION: [markdown_text(k) for k in cells["config_key"]],
            "class": [markdown_text(c) for c in cells["column"]],
            "predicted, % of the best measured": [f"{v}" for v in cells["label"]],
            "95% interval, %": [
                interval_text(lo, hi) for lo, hi in zip(cells["lo"], cells["hi"], strict=True)
            ],
            "measured": cells["measured"].to_numpy(),
            "status": cells["status"].to_numpy(),
        }
    )
    st.markdown(f"**Predicted, not measured ({len(cells)} cells)**")
    st.table(table.style.set_properties(**STYLE), hide_index=True)
    st.caption(CAPTION)
