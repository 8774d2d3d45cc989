"""Compare: two configurations side by side — per-class scores, per-cell figures with their
ratio, and the trade-offs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages import _frame
from recommender import views
from recommender.views.markdown import risk_text

GLOSSARY_HELP = "What the parts of a configuration key mean:\n\n" + views.glossary_markdown()
page = _frame.open_page("Compare")
recs = page.recommendations()
configs = sorted(page.runs()["config_key"].unique())
if len(configs) < 2:
    st.info("Two configurations need runs in the store before they can be compared.")
    st.stop()

# By default the first class's recommendation against its runner-up: the comparison people ask.
first = next((r for r in recs if r.best is not None and r.runner_up is not None), None)
default_a = first.best["config_key"] if first is not None else configs[0]
default_b = first.runner_up["config_key"] if first is not None else configs[1]
# A configuration chosen on another page (a ranking's row) arrives as a pair to compare.
if "compare_pick" in st.session_state:
    pick_a, pick_b = st.session_state.pop("compare_pick")
    if pick_a in configs and pick_b in configs:
        st.session_state["compare_a"], st.session_state["compare_b"] = pick_a, pick_b
for state_key, default in (("compare_a", default_a), ("compare_b", default_b)):
    if st.session_state.get(state_key) not in configs:
        st.session_state[state_key] = default
cols = st.columns(2)
a = cols[0].selectbox(
    "Configuration A",
    configs,
    key="compare_a",
    help=GLOSSARY_HELP,
)
b = cols[1].selectbox(
    "Configuration B",
    configs,
    key="compare_b",
    help=GLOSSARY_HELP,
)


def render() -> None:
    if a == b:
        st.warning("Choose two different configurations.")
        return
    st.markdown(f"**A** = `{a}`  \n**B** = `{b}`")
    current = page.recommendations()
    st.subheader("Per class")
    _frame.table(
        views.compare_scores(current, a, b), {"score A": "%.1f", "score B": "%.1f", "A / B": "%.3f"}
    )

    st.subheader("Per cell")
    label = st.radio("Figure", list(views.COMPARE_METRICS), key="compare_metric", horizontal=True)
    cells = views.compare_cells(page.runs(), a, b, views.COMPARE_METRICS[label])
    if cells.empty:
        st.info("The two configurations have no workload cell in common yet.")
    else:
        fmt = "%.2f" if label != "IOPS" else "%.1f"
        _frame.table(
            cells,
            {
                "A": st.column_config.NumberColumn(f"A {label}", format=fmt),
                "B": st.column_config.NumberColumn(f"B {label}", format=fmt),
                "A / B": "%.3f",
            },
        )
        st.caption("Means over repetitions; repetitions as A/B.")

    st.subheader("Trade-offs")
    trade = views.compare_tradeoffs(current, a, b)
    if trade.empty:
        st.info("The sweep's hardware facts give no trade-off figures.")
    else:
        currency = ((page.record.get("spec") or {}).get("prices") or {}).get("currency", "")
        _frame.table(_shown_tradeoffs(trade, currency))


#: how each trade-off figure is written (money with its currency; the risk as the CLI
#: writes it, ``RISK``); the figures are one per row, so each row has its own format
_TRADEOFF_FORMATS = {
    "drives": "{:,.0f}",
    "usable GB": "{:,.0f}",
    "usable share": "{:.0%}",
    "rebuild hours": "{:,.1f}",
    "further failures survived during a rebuild": "{:.0f}",
    "cost": "{:,.0f}",
    "cost per usable GB": "{:,.2f}",
}


#: the trade-off written by ``risk_text``, as the CLI and the report write it
RISK = {"data-loss risk per year"}


#: the trade-offs that are money, written with the currency
MONEY = {"cost", "cost per usable GB"}


def _trade_text(figure: str, value: float, currency: str) -> str:
    if pd.isna(value):
        return _frame.MISSING
    if figure in RISK:
        return risk_text(value)
    text = _TRADEOFF_FORMATS.get(figure, "{:.4g}").format(value)
    return f"{text} {currency}" if figure in MONEY and currency else text


def _shown_tradeoffs(trade: pd.DataFrame, currency: str) -> pd.DataFrame:
    out = trade.copy()
    for side in ("A", "B"):
        out[side] = [
            _trade_text(f, v, currency) for f, v in zip(trade["figure"], trade[side], strict=True)
        ]
    return out


page.live(render)
