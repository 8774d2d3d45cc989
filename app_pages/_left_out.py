"""The files of a sweep the app's cached reads left out: kept beside the reads (``_read``), and
named at the top of every page (``say_left_out``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

from app_pages._address import SWEEP_KEY
from app_pages._store import get_store, signature
from sweeper.errors import StoreError
from sweeper.store import ParquetStore
from sweeper.untrusted import markdown_code, markdown_text

_T = TypeVar("_T")

#: per store and sweep, the signature of its last reads and the files they left out (a run
#: file or part not whole Parquet, or of other columns), each line naming its file: a cached
#: read is not read again, so what it left out is kept beside it to be said on every page
_LEFT_OUT: dict[tuple[str, str], tuple[tuple, tuple[str, ...]]] = {}
_LEFT_OUT_LOCK = threading.Lock()


def _read(root: str, sweep_id: str, sig: tuple, read: Callable[[ParquetStore], _T]) -> _T:
    """What ``read`` finds in the store at ``root``; what it left out of the sweep at ``sig``
    kept (``left_out``)."""
    store = ParquetStore(root)
    found = read(store)
    _note_left_out(root, sweep_id, sig, store.damaged)
    return found


def _note_left_out(root: str, sweep_id: str, sig: tuple, lines: Sequence[str]) -> None:
    """Keep what a read of the sweep at ``sig`` left out, with what other reads at ``sig``
    left out (the runs and the configurations are read apart)."""
    with _LEFT_OUT_LOCK:
        held = _LEFT_OUT.get((root, sweep_id))
        before = held[1] if held is not None and held[0] == sig else ()
        _LEFT_OUT[(root, sweep_id)] = (sig, tuple(dict.fromkeys([*before, *lines])))


def left_out(store: ParquetStore, sweep_id: str) -> list[str]:
    """What the app's reads of the sweep as it is now left out, each naming its file."""
    held = _LEFT_OUT.get((str(store.root), sweep_id))
    if held is None or held[0] != signature(store, sweep_id):
        return []
    return list(held[1])


#: how many of the files left out a page names (the rest are counted)
LEFT_OUT_SHOWN = 10


def say_left_out(where: Any) -> None:
    """In ``where`` (a placeholder at the top of the page: one element), the files of the
    chosen sweep the page's reads left out, named: its figures are of the rest, as the
    commands warn. Called however the page ended: a store it cannot look at says nothing
    here (the page said what it could not read)."""
    sweep_id = st.session_state.get(SWEEP_KEY)
    if not sweep_id:
        return
    try:
        lines = left_out(get_store(), str(sweep_id))
    except (OSError, StoreError):
        return
    if not lines:
        return
    where.warning(
        f"{len(lines):,} file(s) of the sweep {markdown_code(str(sweep_id))} cannot be read; "
        "what this page shows is of the rest:  \n"
        + named_files(lines, " (`raidsweep status` names all)"),
        icon=":material/report:",
    )


def named_files(lines: Sequence[str], after_more: str = "") -> str:
    """``lines`` (each naming a file and its problem) as Markdown text, one a line: the first
    ``LEFT_OUT_SHOWN``, then how many more (followed by ``after_more``)."""
    named = [markdown_text(line) for line in lines[:LEFT_OUT_SHOWN]]
    if len(lines) > LEFT_OUT_SHOWN:
        named.append(f"and {len(lines) - LEFT_OUT_SHOWN:,} more{after_more}")
    return "  \n".join(named)
