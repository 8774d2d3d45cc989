"""Operator: answer a manual sweep waiting for a configuration to be built (what
``raidsweep ready`` does, from the browser)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app_pages import _frame
from sweeper import operator_room as operator
from sweeper.platforms.manual import answer_waiting_sweep
from sweeper.spec import Matrix
from sweeper.untrusted import markdown_prose

#: the outcome of the last answer given from this page (``_answer``)
OUTCOME = "op_outcome"

page = _frame.open_page("Operator")
spec = page.record.get("spec") or {}
sweep_dir = page.store.sweep_dir(page.sweep_id)


def _waiting() -> operator.Waiting | None:
    """What the sweep waits for (each worker, --worker, drives its own array and may wait
    for its own configuration: the operator chooses whose); None when it does not wait."""
    waits = [w for _, w in operator.waiting_rooms(sweep_dir)]
    if len(waits) <= 1:
        return waits[0] if waits else None
    return st.selectbox(
        f"{len(waits)} of the sweep's workers wait: answer for",
        waits,
        format_func=lambda w: w.config_key,
        key="op_config",
    )


def _instructions(waiting: operator.Waiting) -> None:
    """What to build, and the answers the sweep refused: the spec's and the operator's words
    (a LUN path, a note) shown as themselves."""
    st.subheader(markdown_prose(waiting.headline))
    st.markdown("\n".join(f"- {markdown_prose(line)}" for line in waiting.instructions))
    for refusal in waiting.refused:
        st.warning(f"Refused: {markdown_prose(refusal)}", icon=":material/block:")
    st.caption(
        "The answer is checked as the sweep checks it: a stable id (/dev/disk/by-id/…) or a "
        "device the spec allows, not mounted or held, no foreign signature, large enough."
    )


def _answer(waiting: operator.Waiting, target: str, note: str) -> None:
    """Check the answer as the sweep would and leave it for the sweep; what became of it is
    kept for the page (``_show_outcome``)."""
    try:
        working_set = Matrix.model_validate(spec.get("matrix") or {}).working_set
    except ValueError:
        working_set = None
    _, problems = answer_waiting_sweep(
        sweep_dir, spec, waiting.config_key, target, note, "app", working_set
    )
    st.session_state[OUTCOME] = {
        "config_key": waiting.config_key,
        "target": target,
        "problems": [list(p) for p in problems],
    }


def _show_outcome(waiting: operator.Waiting | None) -> None:
    """The last answer given here and whether it was taken, until the sweep waits for another
    configuration: while the sweep runs, the page redraws every few seconds, and a refusal or
    an acceptance must not vanish before it is read."""
    outcome: dict[str, Any] | None = st.session_state.get(OUTCOME)
    if outcome is None:
        return
    # a newer wait: that answer was for the one before; no wait: a refusal is moot
    refused = bool(outcome["problems"])
    moot = refused if waiting is None else waiting.config_key != outcome["config_key"]
    if moot:
        del st.session_state[OUTCOME]
        return
    for place, problem in outcome["problems"]:
        st.error(markdown_prose(f"{place}: {problem}"), icon=":material/error:")
    if not outcome["problems"]:
        answered = markdown_prose(
            f"{outcome['config_key']} on {outcome['target']} as soon as it sees this."
        )
        st.success(f"Answered: the sweep measures {answered}")


def _form(waiting: operator.Waiting) -> None:
    with st.form("answer", clear_on_submit=False):
        target = st.text_input(
            "The LUN as this host sees it", placeholder="/dev/disk/by-id/wwn-0x…", key="op_target"
        )
        note = st.text_input("What was built, in your words (kept with the runs)", key="op_note")
        done = st.form_submit_button("Built: measure it", type="primary")
    if done:
        _answer(waiting, target.strip(), note.strip())


def render() -> None:
    """What the sweep waits for, read afresh: while the sweep runs, a wait that starts or
    ends after the page opened shows without a reload."""
    waiting = _waiting()
    if waiting is None:
        st.success("The sweep is not waiting for the operator.")
    else:
        _instructions(waiting)
        _form(waiting)
    _show_outcome(waiting)


if spec.get("platform") != "manual":
    platform = markdown_prose(str(spec.get("platform", "?")))
    st.info(
        f"Sweep {markdown_prose(page.sweep_id)} runs on platform {platform}: only a manual "
        "sweep waits for an operator to build its configurations."
    )
    st.stop()
page.live(render)
