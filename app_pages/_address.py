"""The sweep a page shows: chosen from the address (``?sweep=<id>``) and the sidebar, named in
the address on every page, and, where none can be shown, why (no store, an unknown sweep, a
damaged record)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from app_pages._store import STORE_ENV, get_store
from recommender.data import record_damage as damaged_fields
from recommender.data import record_place
from recommender.views.runs import SWEEP_QUERY, quoted_typed
from sweeper.store import ParquetStore
from sweeper.untrusted import markdown_code, markdown_text

START_COMMAND = "raidsweep run examples/quick.yaml"
#: the session-state key of the sweep chosen in the sidebar (its selectbox's key)
SWEEP_KEY = "sweep"
#: the sweep the address named when it was last read or written (``sweep_from_address``)
LINKED_KEY = "sweep_linked"
#: a sweep the address names that the store does not hold: said on every page until another
#: is chosen, never replaced by another sweep silently
UNKNOWN_KEY = "sweep_unknown"


def how_to_start(root: Path, damaged: Sequence[str] = ()) -> str:
    """What the page says where there is no sweep to show: a store path that names nothing
    (or a file) is said to be so, since a mistyped path would look like an empty store; a
    store whose every sweep has a damaged record (``damaged``, as ``list_sweeps`` found them)
    is said to hold sweeps none of which can be shown, never to hold none."""
    command = markdown_code(f"{START_COMMAND} --store {root}")
    elsewhere = f"set `{STORE_ENV}` to the folder of an existing store"
    if damaged:
        return (
            f"No sweep in {markdown_code(str(root))} can be shown: what the store holds is "
            "damaged (named in the sidebar). Restore it from a copy, or start a sweep with "
            f"{command}; then reload this page."
        )
    if root.is_file():
        return (
            f"{markdown_code(str(root))} is a file, not a store's folder: {elsewhere}, "
            "then reload this page."
        )
    if not root.exists():
        return (
            f"There is no folder {markdown_code(str(root.resolve()))}: check the store's path "
            f"({elsewhere}), or start one with {command}; then reload this page."
        )
    return (
        f"No sweeps in {markdown_code(str(root))} yet. Start one with {command} (or {elsewhere}), "
        "then reload this page."
    )


def sweep_from_address(ids: Sequence[str], damaged: Sequence[str] = ()) -> None:
    """Choose the sweep the address names (``?sweep=<id>``), once per address read: a reload
    or a shared link opens that sweep, and the sidebar can still change it. A sweep the store
    does not hold is kept as unknown (``require_sweep`` says so on every page) until a sweep
    is chosen in the sidebar, as is one whose record is damaged (``damaged``: its folder is
    there, none of it is shown) even where it is the store's only sweep. A chosen sweep that
    vanished from the store gives way to the newest."""
    chosen = st.session_state.get(SWEEP_KEY)
    if chosen is not None and chosen not in ids:
        st.session_state.pop(SWEEP_KEY, None)
    named = st.query_params.get(SWEEP_QUERY)
    if named is not None and named != st.session_state.get(LINKED_KEY):
        st.session_state[LINKED_KEY] = named
        if named in ids:
            st.session_state[SWEEP_KEY] = named
        elif ids or damaged:
            st.session_state[UNKNOWN_KEY] = named
            st.session_state[SWEEP_KEY] = None  # the sidebar shows no sweep chosen
    if st.session_state.get(SWEEP_KEY) in ids:  # chosen (again) since
        st.session_state.pop(UNKNOWN_KEY, None)


def sweep_in_address() -> None:
    """Name the sweep shown (or the unknown one the page says it cannot show) in the address,
    on every page: moving between pages clears the address's query, and a reload or a shared
    link must open the same sweep."""
    shown = st.session_state.get(SWEEP_KEY) or st.session_state.get(UNKNOWN_KEY)
    if shown is None:
        return
    if st.query_params.get(SWEEP_QUERY) != shown:
        st.query_params[SWEEP_QUERY] = shown
    st.session_state[LINKED_KEY] = shown


def page_link(where: Any, page_file: str, **kw: Any) -> None:
    """``where.page_link`` to ``page_file`` whose address already names the sweep shown: set
    by the page it opens instead (``sweep_in_address``), the query made the browser's history
    hold that page twice (with the query and without), and Back then stayed on it."""
    shown = st.session_state.get(SWEEP_KEY) or st.session_state.get(UNKNOWN_KEY)
    query = {SWEEP_QUERY: shown} if shown is not None else None
    where.page_link(page_file, query_params=query, **kw)


def _damaged_record(root: Path, name: str, damaged: Sequence[str]) -> str | None:
    """What ``damaged`` says of the record of the sweep ``name`` (a folder of the store),
    or None: a name that is no folder's (``..``, a path) names none of them."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        return None
    place = str(Path(root).absolute() / name / "sweep.json")
    return next((line for line in damaged if line.startswith(place)), None)


def unknown_sweep_note(root: Path, name: str, damaged: Sequence[str] = ()) -> str:
    """What a page says where the address names a sweep the store does not hold: no name at
    all (``?sweep=``), a sweep whose record is damaged (``damaged``, as ``list_sweeps``
    found them: its folder is there), or a name the store has no sweep of, quoted as text and
    a very long one cut (``quoted_typed``)."""
    where = markdown_code(str(root))
    if not name.strip():
        return "The address names no sweep (`?sweep=` is empty): choose a sweep in the sidebar."
    problem = _damaged_record(root, name, damaged)
    if problem is not None:
        return (
            f"The address names the sweep {quoted_typed(name)}, whose record in the store "
            f"{where} is damaged; it is not shown:  \n{markdown_text(problem)}  \n"
            "Choose another sweep in the sidebar."
        )
    return (
        f"The address names the sweep {quoted_typed(name)}, which is not in the store "
        f"{where}: choose a sweep in the sidebar."
    )


def require_sweep() -> tuple[ParquetStore, dict[str, Any]]:
    """The store and the sweep chosen in the sidebar; otherwise say how to start one (or that
    the sweep the address names is not in the store) and stop."""
    store = get_store()
    sweep_id = st.session_state.get(SWEEP_KEY)
    unknown = st.session_state.get(UNKNOWN_KEY)
    if sweep_id is None and unknown is not None:
        store.list_sweeps()  # what is damaged, to tell a damaged sweep from one not there
        note = unknown_sweep_note(store.root, str(unknown), store.damaged)
        st.error(note, icon=":material/report:")
        st.stop()
    record = store.get_sweep(sweep_id) if sweep_id else None
    if record is None:
        store.list_sweeps()
        st.info(how_to_start(store.root, store.damaged))
        st.stop()
    damage = record_damage(store, record)
    if damage is not None:
        st.error(damage, icon=":material/report:")
        st.stop()
    return store, record


def record_damage(store: ParquetStore, record: dict[str, Any]) -> str | None:
    """What is damaged in the sweep's record (``sweep.json``, a file anyone may edit), as
    Markdown naming the file and each field (``recommender.data.record_damage``, what the
    commands check), or None.
    A page reads none of such a record: its fields would be taken as they are."""
    problems = damaged_fields(record)
    if not problems:
        return None
    place = record_place(store, record)
    return f"{markdown_code(place)} is damaged; the sweep is not shown:  \n" + "  \n".join(
        markdown_text(p) for p in problems
    )
