"""Compare: two configurations side by side — per-class scores, per-cell figures with their
ratio, and the trade-offs."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from app_pages import _common, _frame, _widths
from recommender import views
from recommender.recommendations import ClassRecommendation
from recommender.views.labels import USABLE_TB_SPEC
from recommender.views.markdown import figure, risk_text
from sweeper.untrusted import markdown_code, markdown_prose

GLOSSARY_HELP = "What the parts of a configuration key mean:\n\n" + views.glossary_markdown()
page = _frame.open_page("Compare")


def _defaults(recs: list[ClassRecommendation], configs: list[str]) -> tuple[str, str]:
    """The first class's recommendation against its runner-up: the comparison people ask
    (the first two configurations while no class has both)."""
    first = next((r for r in recs if r.best is not None and r.runner_up is not None), None)
    if first is None:
        return configs[0], configs[1]
    return first.best["config_key"], first.runner_up["config_key"]


def _chosen_pair(recs: list[ClassRecommendation], configs: list[str]) -> tuple[str, str]:
    """Configurations A and B, as chosen (or picked on another page), else the defaults: a
    choice that is no configuration of this sweep (another sweep's) is replaced."""
    default_a, default_b = _defaults(recs, configs)
    # A configuration chosen on another page (a ranking's row) arrives as a pair to compare.
    if "compare_pick" in st.session_state:
        pick_a, pick_b = st.session_state.pop("compare_pick")
        if pick_a in configs and pick_b in configs:
            st.session_state["compare_a"], st.session_state["compare_b"] = pick_a, pick_b
    # the pair chosen before the page was left (``_common.keep``: Streamlit forgets a widget
    # its page does not draw), else the defaults
    for state_key, default in (("compare_a", default_a), ("compare_b", default_b)):
        if st.session_state.get(state_key) not in configs:
            before = _common.kept(state_key)
            st.session_state[state_key] = before if before in configs else default
    # each box as wide as the longest key, side by side where the window holds both: in half
    # a narrow window's page a key was cut off
    row = st.container(horizontal=True)
    width = max(
        _widths.choice_px(f"Configuration {side}", configs, help_icon=True) for side in "AB"
    )
    a = row.selectbox("Configuration A", configs, key="compare_a", help=GLOSSARY_HELP, width=width)
    b = row.selectbox("Configuration B", configs, key="compare_b", help=GLOSSARY_HELP, width=width)
    return _common.keep("compare_a", a), _common.keep("compare_b", b)


def render() -> None:
    """Both configurations' figures, read afresh: while the sweep runs, the configurations to
    choose from grow (and a sweep with fewer than two gets them) without a reload."""
    configs = sorted(page.runs()["config_key"].unique())
    if len(configs) < 2:
        st.info("Two configurations need runs in the store before they can be compared.")
        return
    current = page.recommendations()
    a, b = _chosen_pair(current, configs)
    if a == b:
        st.warning("Choose two different configurations.")
        return
    st.markdown(f"**A** = {markdown_code(a)}  \n**B** = {markdown_code(b)}")
    st.subheader("Per class")
    _scores(views.compare_scores(current, a, b))
    st.subheader("Per cell")
    _cells(a, b)
    st.subheader("Trade-offs")
    trade = views.compare_tradeoffs(current, a, b)
    if trade.empty:
        st.info("The sweep's hardware facts give no trade-off figures.")
    else:
        currency = ((page.record.get("spec") or {}).get("prices") or {}).get("currency", "")
        _frame.table(_shown_tradeoffs(trade, currency))


#: what the per-class table's "limits" columns say of a configuration that keeps every limit
#: of the class, and where the class has not ranked it
LIMITS_OK, NOT_RANKED = "ok", ""
#: how ``limits_text`` joins the limits a configuration broke (one per cell and limit)
LIMITS_SEPARATOR = "; "


def _broken(limits: str) -> list[str]:
    """The limits a configuration broke, each naming its cell, from the text the views write
    (``limits_text``: ``ok``, or the broken ones ``; ``-joined); none for ``ok`` or unranked."""
    if limits in (LIMITS_OK, NOT_RANKED):
        return []
    return [part for part in str(limits).split(LIMITS_SEPARATOR) if part.strip()]


def _limits_count(limits: str) -> str:
    """The table's short form: ``ok``, ``3 breaches`` (a limit broken on a cell is one) or
    MISSING (the class has not ranked it). The grid never wraps its text: the whole list, cut
    off there, is shown under the table."""
    if limits == NOT_RANKED:
        return _frame.MISSING
    return _breaches(len(_broken(limits))) or LIMITS_OK


def _breaches(count: int) -> str:
    """``1 breach``, ``3 breaches`` (``""`` for none)."""
    return "" if not count else f"{count} breach" if count == 1 else f"{count} breaches"


def _limits_help(side: str) -> str:
    return (
        f"ok, or how many times {side} breaks a limit of the class (once per limit and cell: "
        "one limit broken on two cells is two breaches); each is listed, with its cell and "
        "figure, under the table."
    )


def broken_limits_markdown(scores: pd.DataFrame) -> str:
    """Every limit A and B break, per class and side, one a line (``""``: none broken): the
    class's name as code and the limit's text as prose, never read as Markdown."""
    lines = []
    for row in scores.to_dict("records"):
        for side in ("A", "B"):
            broken = _broken(row[f"limits {side}"])
            if not broken:
                continue
            lines.append(
                f"- {markdown_code(str(row['class']))} — **{side}**, {_breaches(len(broken))}:"
            )
            lines += [f"    - {markdown_prose(limit)}" for limit in broken]
    return "\n".join(lines)


def _scores(scores: pd.DataFrame) -> None:
    """Per class both scores as its ranking writes them (the class's precision,
    ``recommender.figures``: 84,412 or 35.3) and the class's metric as every page names it
    (IOPS, MB/s); of the limits each breaks the count in the table (a grid does not wrap: a
    long list there is cut off, and two wide columns push B's beyond the frame) and the full
    list under it, which wraps."""
    shown = scores.drop(columns="decimals").assign(
        metric=[views.metric_unit(m) for m in scores["metric"]],
        **{f"limits {s}": [_limits_count(t) for t in scores[f"limits {s}"]] for s in "AB"},
        **{
            f"score {s}": [
                figure(v, f",.{int(d)}f")
                for v, d in zip(scores[f"score {s}"], scores["decimals"], strict=True)
            ]
            for s in "AB"
        },
    )
    right = {f"score {s}": st.column_config.TextColumn(alignment="right") for s in "AB"}
    _frame.table(
        shown,
        {"A / B": "%.3f", **right},
        help={f"limits {s}": _limits_help(s) for s in "AB"},
    )
    listed = broken_limits_markdown(scores)
    if listed:
        st.markdown("**Limits broken** (each cell's mean against the class's limit)")
        st.markdown(listed)
    else:
        st.caption("Neither configuration breaks a limit of any class.")


#: the per-cell table's choice of a figure
METRIC_KEY = "compare_metric"


def _cells(a: str, b: str) -> None:
    """Per cell both means, each written as the CLI writes the figure (a flash array's
    0.1015 ms latency reads 0.102, not 0.10: ``views.metric_text``)."""
    labels = list(views.COMPARE_METRICS)
    # kept as the pair is: back on the page, the figure chosen before
    index = 0 if METRIC_KEY in st.session_state else _common.kept_index(METRIC_KEY, labels)
    label = _common.keep(
        METRIC_KEY,
        st.radio("Figure", labels, index=index, key=METRIC_KEY, horizontal=True),
    )
    metric = views.COMPARE_METRICS[label]
    cells = views.compare_cells(page.runs(), a, b, metric)
    if cells.empty and not views.compare_cells(page.runs(), a, b, "iops").empty:
        st.info(f"Neither configuration has a {label} figure in a cell both measured.")
        return
    if cells.empty:
        st.info("The two configurations have no workload cell in common yet.")
        return
    written = partial(views.metric_text, metric)
    _frame.table(
        cells,
        {
            "A": st.column_config.Column(f"A {label}"),
            "B": st.column_config.Column(f"B {label}"),
            "A / B": "%.3f",
        },
        spell={"A": written, "B": written},
    )
    st.caption("Means over repetitions; repetitions as A/B.")


#: how each trade-off figure is written (``recommender.figures.figure`` with the report's
#: spec; money with its currency; the risk as the CLI writes it, ``RISK``; usable capacity
#: in TB as the rankings write it); the figures are one per row, so each row has its own
_TRADEOFF_FORMATS = {
    "drives": ",.0f",
    "usable TB": USABLE_TB_SPEC,
    "usable share": ".0%",
    "rebuild hours": ",.1f",
    "further failures survived during a rebuild": ".0f",
    "cost": ",.0f",
    "cost per usable GB": ",.2f",
}


#: the trade-off written by ``risk_text``, as the CLI and the report write it
RISK = {"data-loss risk per year"}


#: the trade-offs that are money, written with the currency
MONEY = {"cost", "cost per usable GB"}


def _trade_text(name: str, value: float, currency: str) -> str:
    if pd.isna(value):
        return _frame.MISSING
    if name in RISK:
        return risk_text(value)
    text = figure(value, _TRADEOFF_FORMATS.get(name))
    return f"{text} {currency}" if name in MONEY and currency else text


def _shown_tradeoffs(trade: pd.DataFrame, currency: str) -> pd.DataFrame:
    out = trade.copy()
    for side in ("A", "B"):
        out[side] = [
            _trade_text(f, v, currency) for f, v in zip(trade["figure"], trade[side], strict=True)
        ]
    return out


page.live(render)
