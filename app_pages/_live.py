"""Live updating: whether a sweep is being written, the page's part redrawn every few seconds
while it is, and a spinner in the page's flow only where it is not (``working``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import streamlit as st

from sweeper.processes import pid_alive
from sweeper.store import ParquetStore

REFRESH_S = 2


# Streamlit draws a cached function's own spinner over the page (its box takes no height, so
# that nothing moves): while a sweep runs every refresh reads and ranks afresh, and the spinner
# covered the page's content every few seconds. The reads show none of their own: ``working``
# shows one in the page's flow where a sweep is not running, and none while it runs (the page
# keeps its figures until the new ones replace them, and says it is refreshed live).
@contextlib.contextmanager
def working(store: ParquetStore, sweep_id: str, text: str) -> Iterator[None]:
    """A spinner saying ``text`` in the page's flow (never over its content) while the block
    takes more than half a second; none while the sweep runs (``live`` redraws it every few
    seconds then, and a spinner would come and go above its figures each time)."""
    if is_running(store, sweep_id):
        yield
        return
    with st.spinner(text):
        yield


def is_running(store: ParquetStore, sweep_id: str) -> bool:
    """Whether a live process is writing the sweep, from its progress file alone: deciding to
    refresh must not cost a read of every run (``sweep_status`` reads them all)."""
    progress = store.read_progress(sweep_id) or {}
    return progress.get("state") == "running" and pid_alive(progress.get("pid"))


def live(
    store: ParquetStore,
    sweep_id: str,
    render: Callable[[], None],
    *others: tuple[ParquetStore, str],
) -> None:
    """Call ``render``; while the sweep runs (or any of ``others``, (store, sweep) pairs of
    the other sweeps the page shows beside it), as a fragment re-rendered every REFRESH_S
    seconds. The page's widgets drawn before it keep their choices: a refresh re-runs
    ``render`` alone."""
    sweeps = [(store, sweep_id), *others]
    shown = "a sweep shown" if others else "the sweep"

    def running() -> bool:
        return any(is_running(where, sweep) for where, sweep in sweeps)

    if not running():
        render()
        return

    @st.fragment(run_every=REFRESH_S)
    def _live() -> None:
        if not running():
            st.rerun()  # the sweeps stopped: a full run renders them once more, without the timer
        st.caption(f"Live: refreshed every {REFRESH_S} s while {shown} runs.")
        render()

    _live()
