"""Run details: one run's figures, its disclosure record, its fio job file and fio's raw JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from app_pages import _common, _frame, _widths
from recommender import views
from recommender.figures import figure
from recommender.views.runs import RUN_QUERY, SWEEP_QUERY, run_telemetry
from recommender.views.shading import cell_order_key
from recommender.views.times import time_text
from sweeper.errors import StoreError
from sweeper.units import format_ms
from sweeper.untrusted import markdown_code, markdown_prose

#: the choices of a run on this page, all of one sweep (``run_sweep``)
RUN_CHOICES = ("run_id", "run_config", "run_cell", "run_repetition", "run_attempt", "run_attempts")

page = _frame.open_page("Run details")
store, sweep_id = page.store, page.sweep_id


def _forget_another_sweeps_run() -> None:
    """After a switch of the sweep in the sidebar, the run chosen before is the other
    sweep's: forget it (and its configuration, cell and repetition), so that the page shows
    this sweep's runs and its address names no run of another sweep."""
    if st.session_state.get("run_sweep") != sweep_id:
        for key in RUN_CHOICES:
            st.session_state.pop(key, None)
            _common.keep(key, None)
    st.session_state["run_sweep"] = sweep_id


def _take_picks() -> None:
    """A run chosen on another page, or by a link, becomes this page's choice."""
    # A run linked from another page (a curve's runs: run_details?run=ID) opens on that run,
    # once per link followed; the run shown is kept in the address, so it can be shared.
    linked = st.query_params.get(RUN_QUERY)
    if linked and linked != st.session_state.get("run_linked"):
        st.session_state["run_linked"] = linked
        st.session_state["run_id"] = linked
    # A run chosen on another page (a heatmap cell's runs) arrives as its id.
    if "run_pick" in st.session_state:
        st.session_state["run_id"] = st.session_state.pop("run_pick")
    # A configuration chosen on another page (a ranking's row): its runs, to choose from.
    if "run_config_pick" in st.session_state:
        st.session_state["run_config"] = st.session_state.pop("run_config_pick")
        st.session_state["run_id"] = ""


def _kept(widget: Callable[..., Any], label: str, options: list[Any], key: str, **kw: Any) -> Any:
    """The choice made in ``widget``, kept for the next visit of the page (``_common.keep``)
    and drawn with it then: Streamlit forgets the state of a widget its page does not draw, so
    another page and back opened on the first configuration, cell and repetition again. The
    widget's own state, where Streamlit holds it (a pick from another page), wins."""
    index = 0 if key in st.session_state else _common.kept_index(key, options)
    return _common.keep(key, widget(label, options, index=index, key=key, **kw))


def _chosen_run(all_runs: pd.DataFrame) -> str | None:
    """The run typed, else the one chosen by configuration, cell and repetition; None (and
    why) when the typed text is no run id: the address then names that text, as a link to
    this page would (a reload shows the same error, never the run shown before)."""
    before = "" if "run_id" in st.session_state else _common.kept("run_id") or ""
    typed = _common.keep(
        "run_id",
        st.text_input(
            "Run id",
            value=before,
            key="run_id",
            placeholder="24 hex digits, or choose the run below",
        ),
    ).strip()
    if typed:
        problem = views.run_id_problem(typed)
        if problem:
            st.error(problem)  # the typed text quoted as itself
            _run_in_address(typed)
            return None
        return typed
    # each box as wide as its longest choice, on one line where the window holds them: in
    # columns of a narrow window a configuration key or a cell was cut off
    row = st.container(horizontal=True)
    configs = sorted(all_runs["config_key"].unique())
    config_key = _kept(
        row.selectbox,
        "Configuration",
        configs,
        key="run_config",
        width=_widths.choice_px("Configuration", configs),
    )
    mine = all_runs[all_runs["config_key"] == config_key]
    # by value: pattern, block size in bytes, then concurrency as numbers (never 16k before 4k)
    cells = sorted(mine["cell_key"].unique(), key=cell_order_key)
    cell_key = _kept(
        row.selectbox, "Cell", cells, key="run_cell", width=_widths.choice_px("Cell", cells)
    )
    reps = sorted(int(r) for r in mine.loc[mine["cell_key"] == cell_key, "repetition"].unique())
    repetition = _kept(
        row.selectbox,
        "Repetition",
        reps,
        key="run_repetition",
        width=_widths.choice_px("Repetition", [str(r) for r in reps]),
    )
    if config_key is None or cell_key is None or repetition is None:
        return None
    return views.find_run(mine, config_key, cell_key, repetition)


def _attempt_label(number: int, attempts: list[dict[str, Any]]) -> str:
    """``2 of 3 · failed · 2026-11-29 09:30:12 UTC``: which attempt, how it ended, when."""
    attempt = attempts[number - 1]
    when = time_text(attempt.get("finished_at")) or _frame.MISSING
    return f"{number} of {len(attempts)} · {attempt.get('status')} · {when}"


def _default_attempt(run_id: str, count: int) -> None:
    """Open each run on the attempt shown without a choice (its good run, else its latest):
    another run's choice is not this one's. While the sweep writes, a choice of the latest
    follows a newer attempt (the good run arriving); a choice of an earlier one stays."""
    was = st.session_state.get("run_attempts")
    # the attempt chosen, or the one chosen before the page was left (``_common.keep``)
    chosen = st.session_state.get("run_attempt", _common.kept("run_attempt"))
    latest_before = was is not None and was[0] == run_id and chosen == was[1]
    if was is None or was[0] != run_id or latest_before or chosen not in range(1, count + 1):
        st.session_state["run_attempt"] = count
    elif "run_attempt" not in st.session_state:
        st.session_state["run_attempt"] = chosen
    st.session_state["run_attempts"] = (run_id, count)


def _chosen_attempt(run_id: str) -> int | None:
    """The attempt of the run to show, chosen in "Attempt" when it has several (a cell that
    failed before it succeeded, or failed again); None (the store's default) otherwise."""
    attempts = store.run_attempts(run_id)
    if len(attempts) < 2:
        # the run shown now: back on a run of several, its default again, not the choice kept
        st.session_state["run_attempts"] = (run_id, len(attempts))
        return None
    _default_attempt(run_id, len(attempts))
    return _common.keep(
        "run_attempt",
        st.selectbox(
            "Attempt",
            range(1, len(attempts) + 1),
            key="run_attempt",
            format_func=lambda number: _attempt_label(number, attempts),
            help="A run that failed is tried again: each attempt is kept with what went wrong.",
        ),
    )


def _detail(run_id: str) -> dict[str, Any] | None:
    """The run's whole record (of the attempt chosen, when it has several); None, and why,
    when the store has none or cannot read it."""
    try:
        detail = store.run_detail(run_id, attempt=_chosen_attempt(run_id))
    except StoreError as exc:  # a damaged run file: named, never a traceback
        st.error(f"Run {run_id} cannot be read from the store:", icon=":material/error:")
        st.code(str(exc), language=None, wrap_lines=True)
        return None
    if detail is None:
        st.error(f"No run {run_id} is stored in {markdown_code(str(store.root))}.")
    return detail


def _figure(value: Any) -> str:
    """A figure of the run as every page writes a measured one (``recommender.figures``:
    3,784 or 433.5); a missing one (a failed run's) as the tables show it: a real 0 is a
    measurement, a missing figure is not."""
    if value is None or pd.isna(value):
        return _frame.MISSING
    return figure(value)


def _worst_p99(detail: dict[str, Any]) -> str:
    """The higher of the run's read and write p99 latencies, of those it has."""
    measured = [
        v for v in (detail.get("read_lat_p99_ms"), detail.get("write_lat_p99_ms")) if pd.notna(v)
    ]
    return format_ms(max(measured)) if measured else _frame.MISSING


def _figures(detail: dict[str, Any]) -> None:
    # Each figure as wide as it reads, the row wrapping where the window is narrow: never cut off.
    figures = st.container(horizontal=True, gap="large")
    # the status as the store holds it: shown as text, never as Markdown, whatever it says
    figures.metric("Status", markdown_prose(str(detail.get("status"))), width="content")
    figures.metric("IOPS", _figure(detail.get("iops")), width="content")
    figures.metric("MB/s", _figure(detail.get("mbps")), width="content")
    figures.metric("p99 latency (ms)", _worst_p99(detail), width="content")
    steady = detail.get("steady")
    figures.metric(
        "Steady", "not judged" if steady is None else ("yes" if steady else "no"), width="content"
    )


def _notes(detail: dict[str, Any]) -> None:
    """Which tool measured the run, and what went wrong: the store's and the tools' words
    shown as themselves (an Ansible or shell error holds `$`, `*` and links)."""
    tool = markdown_prose(f"{detail.get('tool')} {detail.get('tool_version')}")
    st.caption(f"Run id {markdown_code(str(detail.get('run_id')))} · {tool}")
    if detail.get("error"):
        st.error("The run failed. What the tool said:", icon=":material/error:")
        st.code(str(detail["error"]), language=None, wrap_lines=True)
    if detail.get("telemetry_flag"):
        flag = markdown_prose(str(detail["telemetry_flag"]))
        st.warning(f"Telemetry flag: {flag}", icon=":material/report:")


def _keep_in_address(detail: dict[str, Any]) -> None:
    """The run shown, and its own sweep, in the address: a shared link opens on it."""
    own = str(detail.get("sweep_id") or sweep_id)
    _run_in_address(str(detail.get("run_id")))
    st.query_params[SWEEP_QUERY] = own
    st.session_state["sweep_linked"] = own


def _run_in_address(run: str | None) -> None:
    """The address in step with the page: ``?run=`` names the run shown, or the id typed that
    the page says is wrong or not stored; no run at all where none is chosen. A reload or a
    shared link then shows what the page showed, never the run shown before."""
    if run:
        if st.query_params.get(RUN_QUERY) != run:
            st.query_params[RUN_QUERY] = run
        st.session_state["run_linked"] = run
    else:
        if RUN_QUERY in st.query_params:
            del st.query_params[RUN_QUERY]
        st.session_state.pop("run_linked", None)


def _parsed(text: Any) -> Any:
    """JSON text as data (st.json folds it); text that is not JSON stays text."""
    if not text:
        return None
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return str(text)


def _tabs(detail: dict[str, Any]) -> None:
    disclosure = _parsed(detail.get("disclosure"))
    tabs = st.tabs(["Disclosure record", "Job file", "fio JSON", "Figures", "Telemetry"])
    with tabs[0]:
        if disclosure is None:
            st.info("No disclosure record was stored with this run.")
        else:
            st.json(disclosure, expanded=2)
    with tabs[1]:
        if detail.get("job_file"):
            st.caption(
                "Run it by hand with `fio --output-format=json+ FILE`, as raidsweep runs it."
            )
            st.code(detail["job_file"], language="ini")
        else:
            st.info("No job file was stored with this run.")
    with tabs[2]:
        _fio_output(detail)
    with tabs[3]:
        _frame.table(views.run_summary(detail))
    with tabs[4]:
        _telemetry(detail, disclosure if isinstance(disclosure, dict) else None)


def _fio_output(detail: dict[str, Any]) -> None:
    raw = _parsed(detail.get("fio_json"))
    if raw is None:
        st.info("No fio output was stored with this run.")
    elif isinstance(raw, str):
        st.code(raw, language="text")
    else:
        st.json(raw, expanded=1)
    if detail.get("fio_stderr"):
        st.caption("fio's standard error")
        st.code(detail["fio_stderr"], language="text")


def _telemetry(detail: dict[str, Any], record: dict[str, Any] | None) -> None:
    if not (record or {}).get("telemetry") and detail.get("host_cpu_pct") is None:
        st.info("No telemetry was recorded with this run.")
        return
    st.caption(
        "Over fio's measured interval: the load host's CPU (all its CPUs), fio's own CPU "
        "(percent of one CPU, all jobs together), the CPUs other programs kept busy beside it "
        "and the target's block layer "
        "(/proc/diskstats) beside fio's IOPS."
    )
    shown = run_telemetry(detail, record)
    _frame.table(shown, {c: "%.1f" for c in shown.columns if c != "host"})


def render() -> None:
    """The run chosen, read afresh: while the sweep runs, the runs to choose from grow (and a
    sweep without any yet gets its first) without a reload."""
    all_runs = page.runs(include_failed=True)
    if all_runs.empty:
        st.info("No runs are stored for this sweep yet.")
        _run_in_address(None)
        return
    run_id = _chosen_run(all_runs)
    detail = _detail(run_id) if run_id else None
    if detail is None:
        if run_id or not st.session_state.get("run_id", "").strip():
            _run_in_address(run_id)  # the id not stored (its error shown), or no run chosen
        return
    if detail.get("sweep_id") != sweep_id:
        mine = markdown_prose(f"Run {run_id} belongs to sweep {detail.get('sweep_id')}")
        st.warning(f"{mine}, not {markdown_prose(sweep_id)}.")
    where = f"{detail.get('config_key')} · {detail.get('cell_key')}"
    st.subheader(markdown_prose(f"{where} · repetition {detail.get('repetition')}"))
    _figures(detail)
    _notes(detail)
    _keep_in_address(detail)
    _tabs(detail)


_forget_another_sweeps_run()
_take_picks()
page.live(render)
