"""Curves: IOPS against latency as the I/Os in flight grow, per configuration, pattern and
block size, with the Speed, Optimum and Maximum points marked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from app_pages import _charts, _common, _frame, _widths
from recommender import views
from recommender.charts import curve_chart
from recommender.curves import KNEE_RULE
from recommender.figures import figure
from recommender.views.labels import concurrency_label, latency_text
from recommender.views.runs import run_list
from recommender.views.shading import cell_order_key
from sweeper.spec import Matrix
from sweeper.units import format_size
from sweeper.untrusted import markdown_prose

page = _frame.open_page("Curves")
#: how many configurations a sweep's curves open on
SHOWN_AT_FIRST = 3


def _chosen_configs(configs: list[str]) -> list[str]:
    """The configurations chosen, of this sweep's. Seeded in the session, as Compare seeds its
    pair: a multiselect's ``default`` counts at its first render only, and Streamlit drops
    chosen values that are not options, so a switch of the sweep in the sidebar left none
    chosen. A sweep shown again opens on what was chosen in it before, one shown for the
    first time on the configurations chosen that it has too, else on its first few; within
    one sweep, a choice made stands, none included."""
    chosen = st.session_state.get("curve_configs")
    if chosen is None or st.session_state.get("curve_sweep") != page.sweep_id:
        before = st.session_state.get("curve_chosen", {}).get(page.sweep_id, chosen or [])
        kept = [c for c in before if c in configs]
        st.session_state["curve_configs"] = kept or configs[:SHOWN_AT_FIRST]
    elif any(c not in configs for c in chosen):
        st.session_state["curve_configs"] = [c for c in chosen if c in configs]
    st.session_state["curve_sweep"] = page.sweep_id
    shown = st.multiselect("Configurations", configs, key="curve_configs")
    st.session_state.setdefault("curve_chosen", {})[page.sweep_id] = list(shown)
    return shown


def _kept(widget: Callable[..., Any], label: str, options: list[Any], key: str, **kw: Any) -> Any:
    """The choice made in ``widget``, kept for the next visit of the page (``_common.keep``)
    and drawn with it then: Streamlit forgets the state of a widget its page does not draw, so
    Heatmaps and back opened on the first pattern and block size again. The widget's own
    state, where Streamlit holds it, wins (and meets no index of the page's)."""
    index = 0 if key in st.session_state else _common.kept_index(key, options)
    return _common.keep(key, widget(label, options, index=index, key=key, **kw))


def _choose(table: pd.DataFrame) -> tuple[list[str], str, int]:
    """The configurations, pattern and block size of the curves to draw: the configurations
    as wide as the page, under them the pattern and the block size each in a box as wide as its
    longest choice (in a fifth of the page each, a narrow window cut ``randread`` to ``randr``;
    beside them, the configurations were squeezed to a key's first letters on a phone)."""
    configs = sorted(table["config_key"].unique())
    patterns = sorted(table["pattern"].unique())
    chosen = _chosen_configs(configs)
    row = st.container(horizontal=True)
    pattern = _kept(
        row.selectbox,
        "Pattern",
        patterns,
        key="curve_pattern",
        width=_widths.choice_px("Pattern", patterns),
    )
    sizes = sorted(table.loc[table["pattern"] == pattern, "block_size"].unique())
    names = [format_size(int(b)) for b in sizes]
    block_size = _kept(
        row.selectbox,
        "Block size",
        sizes,
        format_func=lambda b: format_size(int(b)),
        key="curve_block_size",
        width=_widths.choice_px("Block size", names),
    )
    return chosen, pattern, block_size


def render() -> None:
    """The curves, read afresh: while the sweep runs, a curve appears once its configuration
    has two concurrencies, without a reload."""
    current = page.curves()
    if current.empty:
        st.info(no_curves_text(page.record, running=_common.is_running(page.store, page.sweep_id)))
        return
    chosen, pattern, block_size = _choose(current)
    sel = current[
        current["config_key"].isin(chosen)
        & (current["pattern"] == pattern)
        & (current["block_size"] == block_size)
    ]
    place = f"{pattern}/{format_size(int(block_size))}"
    where = markdown_prose(place)
    if not chosen:
        st.info("Choose one or more configurations.")
        return
    if sel.empty:
        st.info(f"None of the chosen configurations has a {where} curve.")
        return
    if len(sel) > views.MAX_CURVES:
        st.warning(f"{len(sel)} curves: showing the first {views.MAX_CURVES}.")
        sel = sel.iloc[: views.MAX_CURVES]
    title = f"IOPS against mean latency as I/Os in flight grow: {place}"
    st.altair_chart(_charts.titled(curve_chart(views.curve_points(sel)), title))
    st.caption(
        "Diamonds mark the Speed (fewest I/Os in flight), the Optimum (the knee: "
        f"{KNEE_RULE}) and the Maximum (highest IOPS); hover for which."
    )
    st.markdown(f"**Speed, Optimum and Maximum of each curve** ({where})")
    summary = views.curve_summary(sel, in_one_cell=True)
    _frame.table(
        summary,
        SUMMARY_COLUMNS,
        spell=dict.fromkeys(IOPS_COLUMNS, figure) | dict.fromkeys(MS_COLUMNS, latency_text),
        column_order=_in_view(summary, SUMMARY_SPARE),
    )
    for line in no_optimum_lines(sel):
        st.caption(line)
    st.caption(
        "IOPS and mean latency (ms) at each point; the Optimum's I/Os in flight. More columns "
        "(the Speed's and the Maximum's I/Os in flight, how the optimum was found, why a curve "
        "stopped) in the table's column menu."
    )
    _runs(sel, pattern, block_size)


def _in_order(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs by configuration, then cell by value (qd1x4 before qd1x16, never as text), then
    repetition."""
    keys = [
        (config, cell_order_key(cell), rep)
        for config, cell, rep in zip(
            runs["config_key"], runs["cell_key"], runs["repetition"], strict=True
        )
    ]
    return runs.iloc[sorted(range(len(runs)), key=keys.__getitem__)]


def _runs(sel: pd.DataFrame, pattern: str, block_size: int) -> None:
    """The curves' runs, each with a link to its details."""
    runs = page.runs()
    mine = runs[
        runs["config_key"].isin(sel["config_key"])
        & (runs["pattern"] == pattern)
        & (runs["block_size"] == block_size)
    ]
    st.markdown(f"**The curves' {len(mine)} runs**, each with a link to its details")
    listed = run_list(_in_order(mine))
    # a latency no run of the curves has (a read pattern's writes) is no column to show
    empty = {c for c in LATENCIES if c in listed and listed[c].isna().all()}
    _frame.table(
        listed,
        RUN_COLUMNS,
        spell={"IOPS": figure, "MB/s": figure, **dict.fromkeys(LATENCIES, latency_text)},
        column_order=_in_view(listed, RUN_SPARE | empty),
    )
    st.caption("More columns (MB/s, steady, telemetry flag) in the table's column menu.")


#: the summary's columns: short headers with their units (the full name in the tooltip) and
#: narrow figures, so that the table fits a laptop's 1280 px window beside the sidebar
SUMMARY_COLUMNS: dict[str, object] = {
    "curve": st.column_config.TextColumn(
        "configuration", help="the curve's configuration (and working set, if it has one)"
    ),
    "Speed in flight": _frame.number(
        "Speed in flight", "%d", "I/Os in flight at the Speed point (the fewest)", 64
    ),
    "Speed IOPS": _frame.number("Speed IOPS", None, "IOPS at the Speed point", 80),
    "Speed ms": _frame.number("Speed ms", None, "mean latency at the Speed point, ms", 72),
    "Optimum in flight": _frame.number(
        "Opt. in flight", "%d", "I/Os in flight at the Optimum (the knee)", 84
    ),
    "Optimum IOPS": _frame.number("Opt. IOPS", None, "IOPS at the Optimum", 74),
    "Optimum ms": _frame.number("Opt. ms", None, "mean latency at the Optimum, ms", 64),
    "Maximum in flight": _frame.number(
        "Max. in flight", "%d", "I/Os in flight at the Maximum (the highest IOPS)", 84
    ),
    "Maximum IOPS": _frame.number("Max. IOPS", None, "IOPS at the Maximum", 74),
    "Maximum ms": _frame.number("Max. ms", None, "mean latency at the Maximum, ms", 64),
}
#: the IOPS columns, each figure written as every page writes a measured one
#: (``recommender.figures.figure``: 3,784 or 433.5)
IOPS_COLUMNS = ("Speed IOPS", "Optimum IOPS", "Maximum IOPS")
#: the latency columns, each written as every surface writes a latency
#: (``views.latency_text``: 2.30, 0.104), as ``raidsweep curves`` and the report do
MS_COLUMNS = ("Speed ms", "Optimum ms", "Maximum ms")
#: the summary's columns out of view at first (one click away in the column menu)
SUMMARY_SPARE = {"Speed in flight", "Maximum in flight", "how the optimum was found", "stopped"}
#: the run list's columns, narrowed as the summary's
RUN_COLUMNS: dict[str, object] = {
    "repetition": _frame.number("rep", "%d", "repetition", 42),
    "IOPS": _frame.number("IOPS", None, "I/Os a second", 72),
    "MB/s": _frame.number("MB/s", None, "MB/s (10⁶ bytes a second)", 64),
    "p99 read ms": _frame.number("p99 read ms", None, "99th percentile read latency, ms", 92),
    "p99 write ms": _frame.number("p99 write ms", None, "99th percentile write latency, ms", 96),
    "details": st.column_config.LinkColumn("details", display_text="open", width=56),
}
#: the run list's columns out of view at first (MB/s: the IOPS times the one block size)
RUN_SPARE = {"MB/s", "steady", "telemetry flag"}
#: the run list's latencies, each out of view where no run has it
LATENCIES = ("p99 read ms", "p99 write ms")


def no_curves_text(record: dict[str, Any], *, running: bool) -> str:
    """Why a sweep has no curve: a matrix of one concurrency never gives one (each cell is
    measured at that one); otherwise none is measured yet while it runs, or none was."""
    concurrencies = _concurrencies(record)
    need = (
        "a curve needs one configuration, pattern and block size measured at two or more "
        "concurrencies (matrix.concurrency: [1x1, 1x4, 1x16, …])"
    )
    if concurrencies is not None and len(concurrencies) < 2:
        one = concurrencies[0] if concurrencies else "one"
        return (
            f"No concurrency curves: the sweep's matrix measures every cell at one "
            f"concurrency ({one}), and {need}. A sweep with more concurrencies in its matrix "
            "draws them."
        )
    if running:
        return f"No concurrency curves yet: {need}."
    return f"No concurrency curves: {need}, and no run of this sweep gives one."


def _concurrencies(record: dict[str, Any]) -> list[str] | None:
    """The concurrencies of the sweep's matrix (``qd1x20``), None where it cannot be read."""
    matrix = (record.get("spec") or {}).get("matrix") or {}
    try:
        found = Matrix.model_validate(matrix).concurrency
    except ValueError:
        return None
    return [concurrency_label(c.iodepth, c.numjobs) for c in found]


def no_optimum_lines(curves: pd.DataFrame) -> list[str]:
    """Why a curve of ``curves`` (``sweep_curves`` rows) has no Optimum (its "–"), as
    ``raidsweep curves`` and the report say: one line per reason, naming its curves."""
    missing = curves[curves["optimum"].isna()]
    reasons: dict[str, list[str]] = {}
    for r in missing.itertuples():
        reasons.setdefault(str(r.note), []).append(str(r.config_key))
    lines = []
    for note, keys in reasons.items():
        which = "every curve shown" if len(keys) == len(curves) else ", ".join(keys)
        lines.append(markdown_prose(f"No Optimum (–) for {which}: {note}."))
    return lines


def _in_view(table: pd.DataFrame, spare: set[str]) -> list[str]:
    """A table's columns shown at first (the rest: the table's column menu)."""
    return [c for c in table.columns if c not in spare]


page.live(render)
