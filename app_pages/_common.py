"""The app's hold on the store: the store and the chosen sweep, cached reads and live refresh
(the pages use them through ``_frame``; the tables they show are ``recommender.views``).

The store is only read here. Cached reads are keyed on a signature of the sweep's folder (how
many run and configuration parts it holds, when its progress file last changed), so a run that
lands in the store changes the key and the next render reads it: the app never goes stale while
a sweep writes.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from recommender.curves import sweep_curves
from recommender.data import SCORING_COLUMNS, load_recommendations, record_place
from recommender.data import record_damage as damaged_fields
from recommender.importance import class_importances
from recommender.recommendations import ClassRecommendation
from recommender.views import ranked_all
from recommender.views.runs import SWEEP_QUERY, quoted_typed
from sweeper.errors import InputError, StoreError
from sweeper.processes import pid_alive
from sweeper.status import SweepStatus, sweep_status
from sweeper.store import ParquetStore
from sweeper.untrusted import markdown_code, markdown_text

_T = TypeVar("_T")

STORE_ENV = "RAIDSWEEP_STORE"
DEFAULT_STORE = "raidsweep-data"
REFRESH_S = 2
#: what a page says while it reads a sweep's runs (``working``)
READING = "Reading the store…"
START_COMMAND = "raidsweep run examples/quick.yaml"
#: the session-state key of the sweep chosen in the sidebar (its selectbox's key)
SWEEP_KEY = "sweep"
#: the sweep the address named when it was last read or written (``sweep_from_address``)
LINKED_KEY = "sweep_linked"
#: a sweep the address names that the store does not hold: said on every page until another
#: is chosen, never replaced by another sweep silently
UNKNOWN_KEY = "sweep_unknown"
#: where the pages' choices are kept (``keep``): Streamlit forgets a widget's state in every
#: run that does not draw it, so without a copy under keys of the app's own a visit to another
#: page would lose the class, the row or the heatmap's settings chosen
KEPT_KEY = "kept_choices"


# store and sweep ------------------------------------------------------------------------------
def store_root() -> Path:
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


def get_store() -> ParquetStore:
    return ParquetStore(store_root())


def sweep_ids(records: list[dict[str, Any]]) -> list[str]:
    """Sweep ids, newest first."""
    ordered = sorted(records, key=lambda r: str(r.get("created_at", "")), reverse=True)
    return [r["sweep_id"] for r in ordered if r.get("sweep_id")]


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


# choices kept across pages -------------------------------------------------------------------
_NOTHING = object()


def keep(key: str, value: Any) -> Any:
    """Keep ``value``, the choice of the widget ``key``, for when its page is shown again;
    ``value`` returned."""
    st.session_state.setdefault(KEPT_KEY, {})[key] = value
    return value


def kept(key: str, default: Any = None) -> Any:
    """The choice kept for the widget ``key`` (``keep``), else ``default``."""
    return st.session_state.get(KEPT_KEY, {}).get(key, default)


def kept_index(key: str, options: Sequence[Any], default: int | None = 0) -> int | None:
    """The index to draw the widget ``key`` with: of the choice kept for it when that is still
    one of ``options``, else ``default``. Streamlit reads it only where it has forgotten the
    widget (its page was not shown in the last run): a widget with a key keeps its own state
    otherwise, whatever the index."""
    value = kept(key, _NOTHING)
    if value is _NOTHING:
        return default
    for i, option in enumerate(options):
        if option == value:
            return i
    return default


# cached reads -----------------------------------------------------------------------------------
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


def signature(store: ParquetStore, sweep_id: str) -> tuple[int, ...]:
    """Changes whenever a run or a configuration is stored, runs are compacted (fewer files,
    one more part: a count of files alone could come back to an earlier value) or the
    progress record of any of its sweepers is written."""
    return (*store.version(sweep_id), *store.progress_version(sweep_id))


# The runs of a sweep are the largest thing the app holds (100,000 rows for a large sweep):
# st.cache_resource hands every page the same frame instead of unpickling a copy per rerun, so
# callers must never modify it (filter, assign and merge return new frames; that is all the
# pages do). One read of every attempt serves both the good runs and the failed counts.
@st.cache_resource(max_entries=4, show_spinner=False)
def _attempts(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    _READ_WHOLE[(root, sweep_id)] = sig
    return _read(root, sweep_id, sig, lambda s: s.runs(sweep_id, include_failed=True))


#: per store and sweep, the signature at which ``_attempts`` last read every attempt: the
#: ranking then takes its columns from that frame instead of reading them again
_READ_WHOLE: dict[tuple[str, str], tuple] = {}
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


def _ok(attempts: pd.DataFrame) -> pd.DataFrame:
    if not len(attempts):
        return attempts
    return attempts[attempts["status"] == "ok"].reset_index(drop=True)


# What the ranking reads of the good runs, read alone (a third fewer columns, none of the run's
# other text): Recommendations, the first page, then never waits for a read of everything;
# taken from the frame of every attempt when a page (the landing Overview) has read it already.
# Shared like ``_attempts``: never to be modified.
@st.cache_resource(max_entries=4, show_spinner=False)
def _scoring_runs(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    if _READ_WHOLE.get((root, sweep_id)) == sig:  # a page read every attempt (Overview)
        whole = _attempts(root, sweep_id, sig)
        if set(SCORING_COLUMNS) <= set(whole.columns):
            return _ok(whole)[list(SCORING_COLUMNS)]
    return _read(root, sweep_id, sig, lambda s: s.runs(sweep_id, columns=SCORING_COLUMNS))


@st.cache_data(max_entries=8, show_spinner=False)
def _configurations(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    return _read(root, sweep_id, sig, lambda s: s.configurations(sweep_id))


@st.cache_data(max_entries=8, show_spinner=False)
def _recommendations(
    root: str, sweep_id: str, created_at: str, sig: tuple, _record: dict[str, Any]
) -> list[ClassRecommendation]:
    ahead = _RANKED_AHEAD.get((root, sweep_id))
    if ahead is not None and ahead[0] == (created_at, sig):
        return ahead[1].result()  # ranked, or being ranked, in the background
    runs = _scoring_runs(root, sweep_id, sig)
    done: Future[list[ClassRecommendation]] = Future()
    done.set_result(_ranked(root, sweep_id, sig, _record, runs))
    _hold((root, sweep_id), (created_at, sig), done)
    return done.result()


def _ranked(
    root: str, sweep_id: str, sig: tuple, record: dict[str, Any], runs: pd.DataFrame
) -> list[ClassRecommendation]:
    """``load_recommendations`` of ``runs``; what its reads of the store left out, kept."""
    return _read(root, sweep_id, sig, lambda s: load_recommendations(s, record, runs))


#: how many sweeps' rankings are kept for the next page (``_recommendations`` keeps as many)
RANKED_KEPT = 8
#: ranks a finished sweep in the background, one sweep at a time (``rank_ahead``)
_AHEAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rank-ahead")
#: per store and sweep, the ranking done or under way and the (creation, signature) it is of
_RANKED_AHEAD: dict[tuple[str, str], tuple[tuple[str, tuple], Future]] = {}
_HOLDING = threading.Lock()


def rank_ahead(store: ParquetStore, record: dict[str, Any]) -> None:
    """Rank a finished sweep in the background once a page has read all its runs, so that
    Recommendations (and every page built on the ranking) opens on a ranking already made or
    under way. The same ``load_recommendations`` of the same runs as the page's own; nothing
    is done while a sweep runs (its signature changes with every run) or when the sweep is
    ranked already."""
    root, sweep_id, created_at, sig = _sweep_key(store, record)
    ahead = _RANKED_AHEAD.get((root, sweep_id))
    if (ahead is not None and ahead[0] == (created_at, sig)) or is_running(store, sweep_id):
        return
    if _READ_WHOLE.get((root, sweep_id)) != sig:
        return  # reading the runs here would hold the page up
    runs = _scoring_runs(root, sweep_id, sig)
    job = _AHEAD.submit(_ranked, root, sweep_id, sig, record, runs)
    _hold((root, sweep_id), (created_at, sig), job)


def _hold(sweep: tuple[str, str], of: tuple[str, tuple], ranking: Future) -> None:
    """Keep ``ranking`` for the next page, for the sweeps last ranked (as many as the cache)."""
    with _HOLDING:  # every session's script thread keeps rankings here
        _RANKED_AHEAD.pop(sweep, None)
        _RANKED_AHEAD[sweep] = (of, ranking)
        while len(_RANKED_AHEAD) > RANKED_KEPT:
            del _RANKED_AHEAD[next(iter(_RANKED_AHEAD))]


@st.cache_data(max_entries=8, show_spinner=False)
def _importances(
    root: str, sweep_id: str, created_at: str, sig: tuple, _record: dict[str, Any]
) -> pd.DataFrame:
    ranked = ranked_all(_recommendations(root, sweep_id, created_at, sig, _record))
    if ranked.empty:
        return pd.DataFrame(columns=["class", "dimension", "importance"])
    return class_importances(ranked)


@st.cache_data(max_entries=8, show_spinner=False)
def _curves(root: str, sweep_id: str, sig: tuple, _matrix: dict[str, Any]) -> pd.DataFrame:
    return sweep_curves(_ok(_attempts(root, sweep_id, sig)), _matrix)


class _ReadOnce:
    """The store as ``sweep_status`` reads it, its runs and configurations taken from the
    app's cached reads: the Overview's status costs no second read of every run."""

    def __init__(self, root: str, sweep_id: str, sig: tuple) -> None:
        self._store, self._sweep_id, self._sig = ParquetStore(root), sweep_id, sig

    def runs(self, sweep_id: str, *, include_failed: bool = False) -> pd.DataFrame:
        if sweep_id != self._sweep_id:
            return self._store.runs(sweep_id, include_failed=include_failed)
        every = _attempts(str(self._store.root), sweep_id, self._sig)
        return every if include_failed else _ok(every)

    def configurations(self, sweep_id: str) -> pd.DataFrame:
        if sweep_id != self._sweep_id:
            return self._store.configurations(sweep_id)
        return _configurations(str(self._store.root), sweep_id, self._sig)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@st.cache_data(max_entries=8, show_spinner=False)
def _status(root: str, sweep_id: str, sig: tuple, tick: int) -> SweepStatus:
    return sweep_status(_ReadOnce(root, sweep_id, sig), sweep_id)  # type: ignore[arg-type]


def attempts(store: ParquetStore, sweep_id: str) -> pd.DataFrame:
    """Every run attempt, failed ones included (shared: do not modify)."""
    with working(store, sweep_id, READING):
        return _attempts(str(store.root), sweep_id, signature(store, sweep_id))


def runs(store: ParquetStore, sweep_id: str, *, include_failed: bool = False) -> pd.DataFrame:
    """The sweep's good runs (or every attempt), without the bulky raw columns."""
    all_attempts = attempts(store, sweep_id)
    return all_attempts if include_failed else _ok(all_attempts)


def configurations(store: ParquetStore, sweep_id: str) -> pd.DataFrame:
    return _configurations(str(store.root), sweep_id, signature(store, sweep_id))


def _sweep_key(store: ParquetStore, record: dict[str, Any]) -> tuple[str, str, str, tuple]:
    """What the reads of a whole sweep are cached on: store, sweep, its creation, signature."""
    sweep_id = record["sweep_id"]
    return str(store.root), sweep_id, str(record.get("created_at", "")), signature(store, sweep_id)


def recommendations(store: ParquetStore, record: dict[str, Any]) -> list[ClassRecommendation]:
    """``load_recommendations`` for the sweep: per class the decision, trade-offs, evidence.

    A class file that no longer loads (edited or removed since the sweep) stops the page with
    its problem, not a traceback.
    """
    try:
        with working(store, record["sweep_id"], "Ranking the configurations…"):
            return _recommendations(*_sweep_key(store, record), record)
    except InputError as exc:
        # the problem names files and quotes them: as text, never as Markdown (a ``` in it
        # would end a fenced block early)
        st.error("The sweep's workload classes cannot be loaded:", icon=":material/error:")
        st.code(exc.render(), language=None, wrap_lines=True)
        st.stop()
        raise  # st.stop() raises; this line only tells type checkers the function ends here


def importances(store: ParquetStore, record: dict[str, Any]) -> pd.DataFrame:
    """Rows of (class, dimension, importance) for every class with enough configurations."""
    with working(store, record["sweep_id"], "Weighing the dimensions…"):
        return _importances(*_sweep_key(store, record), record)


def curves(store: ParquetStore, record: dict[str, Any]) -> pd.DataFrame:
    """``sweep_curves`` of the sweep: Speed, Optimum and Maximum per curve."""
    sweep_id = record["sweep_id"]
    matrix = (record.get("spec") or {}).get("matrix") or {}
    with working(store, sweep_id, "Finding the curves…"):
        return _curves(str(store.root), sweep_id, signature(store, sweep_id), matrix)


def status(store: ParquetStore, sweep_id: str) -> SweepStatus:
    """``sweep_status``; while the progress file says running it is read afresh every tick, so
    a sweep whose process died shows as interrupted."""
    progress = store.read_progress(sweep_id) or {}
    tick = int(time.monotonic() // REFRESH_S) if progress.get("state") == "running" else 0
    with working(store, sweep_id, READING):
        return _status(str(store.root), sweep_id, signature(store, sweep_id), tick)


def is_running(store: ParquetStore, sweep_id: str) -> bool:
    """Whether a live process is writing the sweep, from its progress file alone: deciding to
    refresh must not cost a read of every run (``sweep_status`` reads them all)."""
    progress = store.read_progress(sweep_id) or {}
    return progress.get("state") == "running" and pid_alive(progress.get("pid"))


# live refresh -----------------------------------------------------------------------------------
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
