"""What matters: per workload class, how much of the score's variance each dimension of the
config space explains (Optuna's fANOVA over the ranked configurations)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages import _charts, _common, _frame
from recommender import views
from recommender.importance import MIN_CONFIGURATIONS

#: the first column of the table of every class: the dimension (or dimensions told apart
#: together) each row weighs
DIMENSION = "dimension"

page = _frame.open_page("What matters")
names = page.class_names(
    "This sweep's spec names no workload classes, so there is nothing to weigh."
)
#: the class chosen, kept apart from the widget (``_common.keep``): Streamlit forgets a widget's
#: state while its page is not shown, and a visit to another page must not lose it
CLASS_KEY = "importance_class"
class_name = _common.keep(
    CLASS_KEY,
    st.selectbox(
        "Workload class",
        names,
        index=0 if CLASS_KEY in st.session_state else _common.kept_index(CLASS_KEY, names),
        key=CLASS_KEY,
    ),
)
st.caption(
    "Share of the score's variance each dimension explains on its own (Optuna's fANOVA over "
    "the configurations ranked); dimensions that always change together in the sweep cannot "
    "be told apart and are one row (e.g. `layout + stripe`); dimensions that never vary are "
    "left out."
)


def render() -> None:
    table = page.importances()
    mine = table[table["class"] == class_name].sort_values("importance", ascending=False)
    rec = views.find_recommendation(page.recommendations(), class_name)
    if mine.empty and rec is not None and rec.best is None:
        st.info(page.no_runs_note(rec.wclass.cell_keys, of=class_name))
        return
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
    shares = _every_class(table)
    _frame.table(shares, dict.fromkeys(shares.columns[1:], "%.0f%%"))


def _every_class(table: pd.DataFrame) -> pd.DataFrame:
    """Per dimension its share of the variance in each class (a column per class, in the
    spec's order). A class's column is headed by its name, marked ``(class)`` where that is
    the dimension column's own: a class may be named ``dimension``."""
    wide = 100 * table.pivot_table(index="dimension", columns="class", values="importance")
    classes = [n for n in names if n in wide.columns]
    labels = views.distinct_labels(classes, [DIMENSION], "class")
    shares = {DIMENSION: wide.index.to_numpy()}
    return pd.DataFrame(shares | {labels[n]: wide[n].to_numpy() for n in classes})


page.live(render)
