"""Operator: answer a manual sweep waiting for a configuration to be built (what
``raidsweep ready`` does, from the browser)."""

from __future__ import annotations

import streamlit as st

from app_pages import _frame
from sweeper import operator_room as operator
from sweeper.platforms.manual import answer_waiting_sweep
from sweeper.spec import Matrix
from sweeper.untrusted import markdown_text

page = _frame.open_page("Operator")
spec = page.record.get("spec") or {}
if spec.get("platform") != "manual":
    st.info(
        f"Sweep {page.sweep_id} runs on platform {spec.get('platform', '?')}: only a manual "
        "sweep waits for an operator to build its configurations."
    )
    st.stop()
sweep_dir = page.store.sweep_dir(page.sweep_id)
# each worker (--worker) drives its own array and may wait for its own configuration
rooms = operator.waiting_rooms(sweep_dir)
if not rooms:
    st.success("The sweep is not waiting for the operator.")
    st.stop()
waits = [w for _, w in rooms]
waiting = waits[0]
if len(waits) > 1:
    waiting = st.selectbox(
        f"{len(waits)} of the sweep's workers wait: answer for",
        waits,
        format_func=lambda w: w.config_key,
        key="op_config",
    )

st.subheader(markdown_text(waiting.headline))
st.markdown("\n".join(f"- {markdown_text(line)}" for line in waiting.instructions))
for refusal in waiting.refused:
    st.warning(f"Refused: {refusal}", icon=":material/block:")
st.caption(
    "The answer is checked as the sweep checks it: a stable id (/dev/disk/by-id/…) or a "
    "device the spec allows, not mounted or held, no foreign signature, large enough."
)
with st.form("answer", clear_on_submit=False):
    target = st.text_input(
        "The LUN as this host sees it", placeholder="/dev/disk/by-id/wwn-0x…", key="op_target"
    )
    note = st.text_input("What was built, in your words (kept with the runs)", key="op_note")
    done = st.form_submit_button("Built: measure it", type="primary")
if done:
    try:
        working_set = Matrix.model_validate(spec.get("matrix") or {}).working_set
    except ValueError:
        working_set = None
    answered, problems = answer_waiting_sweep(
        sweep_dir, spec, waiting.config_key, target.strip(), note.strip(), "app", working_set
    )
    if problems:
        for place, problem in problems:
            st.error(f"{place}: {problem}", icon=":material/error:")
    else:
        st.success(
            f"Answered: the sweep measures {waiting.config_key} on {target.strip()} as soon "
            "as it sees this."
        )
