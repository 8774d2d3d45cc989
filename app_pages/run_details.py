"""Run details: one run's figures, its disclosure record, its fio job file and fio's raw JSON."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from app_pages import _frame
from recommender import views
from recommender.views.runs import RUN_QUERY, SWEEP_QUERY, run_telemetry
from recommender.views.shading import cell_order_key
from sweeper.units import format_ms

page = _frame.open_page("Run details")
store, sweep_id = page.store, page.sweep_id
all_runs = page.runs(include_failed=True)
if all_runs.empty:
    st.info("No runs are stored for this sweep yet.")
    st.stop()

# A run linked from another page (a curve's runs: run_details?run=ID) opens on that run, once
# per link followed; the run shown is kept in the address, so it can be shared.
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

typed = st.text_input(
    "Run id", key="run_id", placeholder="24 hex digits, or choose the run below"
).strip()
run_id: str | None = None
if typed:
    problem = views.run_id_problem(typed)
    if problem:
        st.error(problem)
        st.stop()
    run_id = typed
else:
    cols = st.columns([3, 2, 1])
    configs = sorted(all_runs["config_key"].unique())
    config_key = cols[0].selectbox("Configuration", configs, key="run_config")
    mine = all_runs[all_runs["config_key"] == config_key]
    # by value: pattern, block size in bytes, then concurrency as numbers (never 16k before 4k)
    cells = sorted(mine["cell_key"].unique(), key=cell_order_key)
    cell_key = cols[1].selectbox("Cell", cells, key="run_cell")
    reps = sorted(int(r) for r in mine.loc[mine["cell_key"] == cell_key, "repetition"].unique())
    repetition = cols[2].selectbox("Repetition", reps, key="run_repetition")
    run_id = views.find_run(mine, config_key, cell_key, repetition)

detail: dict[str, Any] | None = store.run_detail(run_id) if run_id else None
if detail is None:
    st.error(f"No run {run_id} is stored in `{store.root}`.")
    st.stop()
if detail.get("sweep_id") != sweep_id:
    st.warning(f"Run {run_id} belongs to sweep {detail.get('sweep_id')}, not {sweep_id}.")

where = f"{detail.get('config_key')} · {detail.get('cell_key')}"
st.subheader(f"{where} · repetition {detail.get('repetition')}")
# Each figure as wide as it reads, the row wrapping where the window is narrow: never cut off.
figures = st.container(horizontal=True, gap="large")
figures.metric("Status", str(detail.get("status")), width="content")
figures.metric("IOPS", f"{detail.get('iops') or 0:,.0f}", width="content")
figures.metric("MB/s", f"{detail.get('mbps') or 0:,.1f}", width="content")
p99 = max(detail.get("read_lat_p99_ms") or 0.0, detail.get("write_lat_p99_ms") or 0.0)
figures.metric("p99 latency (ms)", format_ms(p99), width="content")
steady = detail.get("steady")
figures.metric(
    "Steady", "not judged" if steady is None else ("yes" if steady else "no"), width="content"
)
st.caption(f"Run id `{detail.get('run_id')}` · {detail.get('tool')} {detail.get('tool_version')}")
if detail.get("error"):
    st.error(f"Error: {detail['error']}")
if detail.get("telemetry_flag"):
    st.warning(f"Telemetry flag: {detail['telemetry_flag']}", icon=":material/report:")
st.query_params[RUN_QUERY] = str(detail.get("run_id"))
st.session_state["run_linked"] = str(detail.get("run_id"))
st.query_params[SWEEP_QUERY] = str(sweep_id)
st.session_state["sweep_linked"] = str(sweep_id)


def _parsed(text: Any) -> Any:
    """JSON text as data (st.json folds it); text that is not JSON stays text."""
    if not text:
        return None
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return str(text)


disclosure = _parsed(detail.get("disclosure"))
tabs = st.tabs(["Disclosure record", "Job file", "fio JSON", "Figures", "Telemetry"])
with tabs[0]:
    if disclosure is None:
        st.info("No disclosure record was stored with this run.")
    else:
        st.json(disclosure, expanded=2)
with tabs[1]:
    if detail.get("job_file"):
        st.caption("Run it by hand with `fio --output-format=json FILE`.")
        st.code(detail["job_file"], language="ini")
    else:
        st.info("No job file was stored with this run.")
with tabs[2]:
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
with tabs[3]:
    _frame.table(views.run_summary(detail))
with tabs[4]:
    record = disclosure if isinstance(disclosure, dict) else None
    if not (record or {}).get("telemetry") and detail.get("host_cpu_pct") is None:
        st.info("No telemetry was recorded with this run.")
    else:
        st.caption(
            "Over fio's measured interval: the load host's CPU (all its CPUs), fio's own CPU "
            "(percent of one CPU, all jobs together), the CPUs other programs kept busy beside it "
            "and the target's block layer "
            "(/proc/diskstats) beside fio's IOPS."
        )
        shown = run_telemetry(detail, record)
        _frame.table(shown, {c: "%.1f" for c in shown.columns if c != "host"})
