"""Recommendations: per workload class the decision (its tie-break, its margin to each limit,
provisional while the sweep is not finished), the ranking with its trade-offs and, apart, the
configurations that break a limit with what broke, links from a configuration to Compare and
its runs, the evidence against the runner-up, the Pareto view, the cost of snapshots / data
reduction, and downloads of the HTML report and the tables."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from app_pages import _charts, _common, _frame, _predictions, _widths
from recommender import views
from recommender.charts import tradeoff_chart, tradeoff_points
from recommender.evidence import SHARE_MEANING
from recommender.figures import figure
from recommender.recommendations import ClassRecommendation
from recommender.report import csv_bytes, render_report, report_tables
from recommender.scoring import FORMULA
from recommender.tradeoffs import TRADEOFF_FORMULA
from recommender.views.markdown import risk_text, share_text
from sweeper.status import provisional
from sweeper.units import format_ms
from sweeper.untrusted import markdown_code, markdown_prose, markdown_text

page = _frame.open_page("Recommendations")
names = page.class_names(
    "This sweep's spec names no workload classes, so there is nothing to recommend."
)
# The class and the rows chosen are kept apart from the widgets (``_common.keep``): Streamlit
# forgets a widget's state while its page is not shown, and Back from Compare must find them.
class_name = _common.keep(
    "class",
    st.selectbox("Workload class", names, index=_common.kept_index("class", names), key="class"),
)
prices = (page.record.get("spec") or {}).get("prices")


def render() -> None:
    recs = page.recommendations()
    rec = views.find_recommendation(recs, class_name)
    if rec is None:
        st.error(f"The class {class_name} could not be loaded for this sweep.")
        return
    wclass = rec.wclass
    if rec.best is None:
        note = page.no_runs_note(wclass.cell_keys, of=class_name)
        st.info(f"{note}  \nThe class's cells: {', '.join(wclass.cell_keys)}.")
        return
    _decision(rec)
    st.markdown(f"**{markdown_text(wclass.name)}** — {markdown_prose(wclass.description)}")
    cells = ", ".join(f"{c.cell} (×{c.weight:g})" for c in wclass.cells)
    limits = views.class_limits_text(wclass.limits)
    tie_break = ", ".join(wclass.tie_break) or "none (the higher mean score)"
    st.caption(
        f"Class metric: {views.metric_unit(wclass.metric)}; cells (weight): {cells}; "
        f"limits: {limits}; tie-break: {tie_break}"
    )

    st.subheader("Ranking")
    table = views.recommendation_table(rec.ranked, prices=bool(prices))
    currency = (prices or {}).get("currency", "")
    # Short headers (the full name in each header's tooltip) and narrow figures, so that the
    # ranking fits a laptop's 1280 px window beside the sidebar without scrolling sideways;
    # the columns left out of view (SPARE) are one click away in the table's column menu and
    # in the CSV.
    unit = views.metric_unit(wclass.metric)
    formats = _ranking_columns(unit, _frame.score_format(table["score"]), currency)
    keeps = table["limits"] == "ok"
    # The trade-off front is drawn and named under the chart below: not a column here.
    table = table.drop(columns=["trade-off front"], errors="ignore")
    headers = {views.CONFIGURATION: GLOSSARY_HELP, "rank": views.RANK_CAPTION}
    shown = table.drop(columns=["limits"])
    picked = _frame.table(
        shown[keeps],
        formats,
        help=headers,
        spell=RANKING_SPELLING,
        column_order=_in_view(shown),
        on_select="rerun",
        selection_mode="single-row",
        **_kept_selection("ranking_rows", table[keeps]),
    )
    st.caption(
        f"{views.RANK_CAPTION}.  \n"
        f"Repetitions: the complete repetitions behind each score. Drives and usable TB: the "
        "configuration's RAID groups on the sweep's drives. More columns (usable %, CV %, "
        "rebuild h, cost per usable GB) in the table's column menu and the CSV.  \n"
        f"**Score:** {FORMULA}.  \n"
        f"**Trade-offs:** {TRADEOFF_FORMULA}."
        + (
            f" Cost per unit: {currency} per {views.metric_unit(wclass.metric)} of the score."
            if prices
            else ""
        )
    )
    picks = {"kept": _picked_key(picked, table[keeps], "ranking_rows")}
    if (~keeps).any():
        broken = table[~keeps]
        st.subheader(f"Breaking a limit ({len(broken)})")
        st.caption("These rank after every configuration that keeps the class's limits.")
        # What broke is listed in full below the table, not squeezed into a column.
        picked_broken = _frame.table(
            shown[~keeps],
            formats,
            broken=[True] * len(broken),
            help=headers,
            spell=RANKING_SPELLING,
            column_order=_in_view(shown),
            on_select="rerun",
            selection_mode="single-row",
            **_kept_selection("ranking_broken_rows", broken),
        )
        picks["broken"] = _picked_key(picked_broken, broken, "ranking_broken_rows")
        st.warning(
            "What broke:  \n"
            + "  \n".join(
                f"**{key}** — " + "; ".join(markdown_text(v) for v in why.split("; "))
                for key, why in zip(broken[views.CONFIGURATION], broken["limits"], strict=True)
            ),
            icon=":material/block:",
        )
    # a row selected in each table: the one clicked last is the one chosen
    _links(_frame.latest_pick(_rows_key("ranking_pick", table), picks), rec)
    if "cells missing" in table:
        gaps = table.loc[table["cells missing"] != "", [views.CONFIGURATION, "cells missing"]]
        st.warning(
            "Cells missing (scored on the cells measured so far):  \n"
            + "  \n".join(
                f"{key}: {cells}"
                for key, cells in zip(gaps[views.CONFIGURATION], gaps["cells missing"], strict=True)
            )
        )
    _predictions.ranking_section(page, rec)
    _downloads(rec)

    st.subheader("Evidence")
    if rec.runner_up is None or rec.evidence.empty:
        st.info("Only one configuration is ranked: there is no runner-up to compare with.")
    else:
        st.markdown(
            f"Recommended **{rec.best['config_key']}** against the runner-up "
            f"**{rec.runner_up['config_key']}**, per cell "
            f"({views.metric_unit(wclass.metric)}, mean over repetitions); {SHARE_MEANING}."
        )
        _frame.table(
            views.evidence_table(rec.evidence),
            {"weight": "%g", "ratio": "%.3f"},
            # each cell's mean as the report writes it (figure: 3,784 or 433.5)
            spell={"recommended": figure, "runner-up": figure, "share %": share_text},
        )

    st.subheader("Trade-offs")
    points = tradeoff_points(rec.ranked)
    if points.empty:
        st.info(
            "The sweep's hardware facts lack drive size, RAID groups or rebuild rate, so "
            "usable capacity and rebuild exposure cannot be computed."
        )
    else:
        unit = views.metric_unit(wclass.metric)
        title = f"{class_name}: score ({unit}) against usable capacity and data-loss risk"
        st.altair_chart(_charts.titled(tradeoff_chart(points, unit), title))
        front = points.loc[points["front"] == "on the trade-off front", "config_key"]
        breaking = points.loc[points["front"] == "breaks a limit", "config_key"]
        st.caption(
            "Performance vs usable capacity vs rebuild exposure (data-loss risk per year). "
            f"On the trade-off front (no other configuration is as good in all three and better "
            f"in one): {', '.join(front) or 'none'}. Breaking a limit (red crosses, never on "
            f"the front): {', '.join(breaking) or 'none'}."
        )

    if len(rec.impact):
        st.subheader("Feature impact")
        st.caption("Performance kept with the feature on, as % of the same configuration off.")
        _frame.table(
            views.impact_table(rec.impact),
            {"score off": "%.1f", "score on": "%.1f", "kept %": "%.1f"},
        )


#: the ranking's columns out of view at first: usable % and CV % say again what usable TB
#: and the 95% interval say, the rebuild time is the drive's (the same in every row, its
#: effect is the data-loss risk), the cells missing are listed under the table
SPARE = ("usable %", "CV %", "rebuild h", "cost per usable GB", "cells missing")
#: the rank's and the repetitions' columns: their headers whole, their few digits beside
#: (narrower than before, so that the score's header fits whole in the same window)
RANK_PX = _widths.header_px("rank")
REPS_PX = _widths.header_px("reps")
#: the ranking's figures written as the CLI and the report write them
RANKING_SPELLING = {"data-loss risk / year": risk_text}


def _ranking_columns(unit: str, score_format: str, currency: str) -> dict[str, object]:
    """The ranking's columns: short headers (the full name in the tooltip), narrow widths,
    each header whole (``_widths.header_px``); money in ``currency``, named in the header
    (``USD / IOPS``) as the report heads it."""
    money = currency or "cost"
    return {
        "rank": st.column_config.TextColumn("rank", width=RANK_PX),
        "drives": _frame.number("drives", "%d", "drives the configuration's RAID groups take", 52),
        "usable TB": _frame.number("usable TB", "%.4g", "usable capacity, TB (10¹² bytes)", 74),
        # as the CLI and the report write it: the class's one precision (recommender.figures)
        "score": _frame.number(f"score ({unit})", score_format, "mean score", 76),
        "usable %": _frame.number("usable %", "%.1f", "usable share of the raw capacity"),
        "rebuild h": _frame.number("rebuild h", "%.2f", "hours to rebuild one drive"),
        "CV %": _frame.number("CV %", "%.2f", "coefficient of variation of the score"),
        "repetitions": _frame.number(
            "reps", "%d", "complete repetitions behind the score", REPS_PX
        ),
        "data-loss risk / year": st.column_config.Column(
            "risk / yr", help="data-loss risk per year", width=_widths.header_px("risk / yr", 60)
        ),
        # headed as the report heads it
        "95% interval": st.column_config.TextColumn(
            "95% CI", help="95% confidence interval of the mean score"
        ),
        "cost per unit": _frame.number(f"{money} / {unit}", "%.2f", f"cost per {unit}", 80),
        "cost per usable GB": _frame.number(f"{money} / GB", "%.2f", "cost per usable GB", 80),
        "unsteady runs": _frame.number("unsteady", "%d", "runs not in steady state (SNIA PTS)", 70),
        "flagged runs": _frame.number("flagged", "%d", "runs their telemetry flags", 64),
    }


GLOSSARY_HELP = "What the parts of a configuration key mean:\n\n" + views.glossary_markdown()


def _decision(rec: ClassRecommendation) -> None:
    """The decision box: provisional while the sweep is not finished, the decision with its
    tie-break, the margin to each limit, and what the recommended key says."""
    note = provisional(page.store, page.sweep_id)
    text = markdown_text(rec.sentence())
    if note:
        # the note quotes a command in backquotes (for the CLI and REPORT.md); here, in bold,
        # they would show as characters
        said = note[0].upper() + note[1:].replace("`", "")
        text = f"**{markdown_text(said)}.**  \n{text}"
    margins = rec.margins
    if len(margins):
        text += "  \n**Margin to each limit** (worst cell mean of the recommended configuration):"
        for _, m in margins.iterrows():
            verb = "to spare" if m["margin ms"] >= 0 else "over"
            worst, margin = format_ms(m["worst ms"]), format_ms(abs(m["margin ms"]))
            text += (
                f"  \n{markdown_text(m['limit'])}: worst {worst} ms at {m['cell']}, "
                f"{margin} ms ({abs(m['margin %']):.0f}% of the limit) {verb}"
            )
    elif rec.wclass.limits:
        text += "  \nMargin to each limit: the limited figures are not measured yet."
    st.success(text, icon=":material/hourglass_top:" if note else ":material/recommend:")
    key = str(rec.best["config_key"])
    st.markdown(f"Recommended configuration: {markdown_code(key)}", help=views.explain_key(key))


def _in_view(table: pd.DataFrame) -> list[str]:
    """The ranking's columns shown at first (the rest: the column menu and the CSV)."""
    return [c for c in table.columns if c not in SPARE]


def _rows_key(name: str, shown: pd.DataFrame) -> str:
    """A ranking table's key: its sweep, its class and its rows in order. A row selected in one
    ranking is then never taken for the row of that number in another sweep's or class's, nor
    in this one ranked again after more runs landed."""
    return _frame.selection_key(name, page.sweep_id, class_name, *shown[views.CONFIGURATION])


def _kept_selection(name: str, shown: pd.DataFrame) -> dict[str, object]:
    """A ranking table's key and, where a row of it was selected before the page was left
    (``_picked_key`` keeps it per sweep and class), that row selected again."""
    options: dict[str, object] = {"key": _rows_key(name, shown)}
    kept = _common.kept(_pick_key(name))
    rows = list(shown[views.CONFIGURATION])
    if kept in rows:
        options["selection_default"] = {"selection": {"rows": [rows.index(kept)]}}
    return options


def _pick_key(name: str) -> str:
    """Where the configuration selected in the table ``name`` is kept, per sweep and class."""
    return _frame.selection_key(name, page.sweep_id, class_name)


def _picked_key(picked: object, shown: pd.DataFrame, name: str) -> str | None:
    """The configuration selected in the table ``name`` (kept for the page's next visit)."""
    row = _frame.picked_row(picked, len(shown))
    key = None if row is None else str(shown[views.CONFIGURATION].iloc[row])
    return _common.keep(_pick_key(name), key)


def _links(key: str | None, rec: ClassRecommendation) -> None:
    """For the configuration chosen in a ranking: to Compare (against the recommended one, or
    the runner-up when it is the recommended one) and to its runs in Run details."""
    if key is None:
        st.caption("Select a row to compare that configuration or open its runs.")
        return
    best = str(rec.best["config_key"])
    other = (
        best
        if key != best
        else str((rec.runner_up if rec.runner_up is not None else rec.best)["config_key"])
    )
    st.session_state["compare_pick"] = (key, other)
    st.session_state["run_config_pick"] = key
    # The keys are in words above the links, where they wrap: a link's label never does, and
    # two keys in one would be cut off in a narrow window.
    whom = "the recommended one" if key != best else "the runner-up"
    st.markdown(f"Selected: {markdown_code(key)}  \nAgainst {whom}: {markdown_code(other)}")
    row = st.container(horizontal=True)
    _common.page_link(
        row,
        "app_pages/compare.py",
        label=f"Compare with {whom}",
        help=f"Compare {key} with {other}",
        icon=":material/compare_arrows:",
    )
    _common.page_link(
        row,
        "app_pages/run_details.py",
        label="Its runs",
        help=f"The runs of {key} in Run details",
        icon=":material/description:",
    )


def _file_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "sweep"


def _downloads(rec: ClassRecommendation) -> None:
    """The HTML report of the sweep and this class's ranking, named by sweep and class: the
    ranking as the report's rankings CSV holds it (its rows of this class)."""
    sweep, name = _file_part(page.sweep_id), _file_part(rec.name)
    cols = st.columns(2)
    cols[0].download_button(
        "Download the HTML report",
        data=lambda: render_report(page.store, page.record).encode("utf-8"),
        file_name=f"raidsweep-{sweep}-report.html",
        mime="text/html",
        icon=":material/download:",
    )
    cols[1].download_button(
        f"Download the {rec.name} ranking (CSV)",
        data=csv_bytes(report_tables([rec])["rankings"]),
        file_name=f"raidsweep-{sweep}-{name}-ranking.csv",
        mime="text/csv",
        icon=":material/download:",
    )


page.live(render)
