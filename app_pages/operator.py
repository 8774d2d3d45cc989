"""Operator: answer a manual sweep waiting for a configuration to be built (what
``raidsweep ready`` does, from the browser)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app_pages import _common, _frame
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


def resume_command(record: dict[str, Any]) -> str:
    """The command that resumes the sweep: ``raidsweep run`` with the spec it was started
    with (its file's name, as the record keeps it; SPEC where it keeps none)."""
    spec_file = record.get("spec_file")
    return f"raidsweep run {spec_file if isinstance(spec_file, str) and spec_file else 'SPEC'}"


def stopped_text(waiting: operator.Waiting, state: str, record: dict[str, Any]) -> str:
    """What the page says of a sweep that stopped (``state``: interrupted) while it waited
    for ``waiting``: nothing takes an answer now, how to resume it, and that an answer given
    now is kept for it (the resumed sweep asks for the same configuration first and takes
    the answer left for it, checked again: ``sweeper.sweep.loop``, ``ManualPlatform``)."""
    return (
        f"The sweep is not running ({state}): it stopped while it waited for "
        f"{waiting.config_key} ({waiting.position} of {waiting.total}), and nothing measures "
        f"it now. Resume it with: {resume_command(record)} (the spec it was started with, "
        "from the folder it was started in): it asks for this configuration again. An answer "
        "given here now is kept, and the sweep takes it (checking it again) once resumed."
    )


def _instructions(waiting: operator.Waiting, running: bool) -> None:
    """What to build, and the answers the sweep refused: the spec's and the operator's words
    (a LUN path, a note) shown as themselves. A sweep that is not running does not wait:
    said so, with how to resume it, before anything else."""
    if not running:
        state = page.status().state
        st.warning(
            markdown_prose(stopped_text(waiting, state, page.record)),
            icon=":material/pause_circle:",
        )
        st.subheader(markdown_prose(f"stopped while {waiting.headline}"))
    else:
        st.subheader(markdown_prose(waiting.headline))
    st.markdown("\n".join(f"- {markdown_prose(line)}" for line in waiting.instructions))
    for refusal in waiting.refused:
        st.warning(f"Refused: {markdown_prose(refusal)}", icon=":material/block:")
    st.caption(
        "The answer is checked as the sweep checks it: a stable id (/dev/disk/by-id/…) or a "
        "device the spec allows, not mounted or held, no foreign signature, large enough."
    )


def _answer(waiting: operator.Waiting, target: str, note: str, running: bool) -> None:
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
        "running": running,
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
    if not outcome["problems"] and outcome.get("running", True):
        answered = markdown_prose(
            f"{outcome['config_key']} on {outcome['target']} as soon as it sees this."
        )
        st.success(f"Answered: the sweep measures {answered}")
    elif not outcome["problems"]:
        kept = markdown_prose(
            f"{outcome['config_key']} on {outcome['target']}, kept for the sweep: it is not "
            "running; once resumed, it checks the answer again and measures it."
        )
        st.success(f"Answered: {kept}")


def _form(waiting: operator.Waiting, running: bool) -> None:
    """The answer: measured as soon as the sweep sees it, or, the sweep not running, kept
    for it until it is resumed (the button says which)."""
    label = "Built: measure it" if running else "Built: keep the answer for the resumed sweep"
    with st.form("answer", clear_on_submit=False):
        target = st.text_input(
            "The LUN as this host sees it", placeholder="/dev/disk/by-id/wwn-0x…", key="op_target"
        )
        note = st.text_input("What was built, in your words (kept with the runs)", key="op_note")
        done = st.form_submit_button(label, type="primary")
    if done:
        _answer(waiting, target.strip(), note.strip(), running)


def render() -> None:
    """What the sweep waits for, read afresh: while the sweep runs, a wait that starts or
    ends after the page opened shows without a reload."""
    waiting = _waiting()
    if waiting is None:
        st.success("The sweep is not waiting for the operator.")
    else:
        running = _common.is_running(page.store, page.sweep_id)
        _instructions(waiting, running)
        _form(waiting, running)
    _show_outcome(waiting)


if spec.get("platform") != "manual":
    platform = markdown_prose(str(spec.get("platform", "?")))
    st.info(
        f"Sweep {markdown_prose(page.sweep_id)} runs on platform {platform}: only a manual "
        "sweep waits for an operator to build its configurations."
    )
    st.stop()
page.live(render)
