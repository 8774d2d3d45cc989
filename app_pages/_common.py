"""Shared helpers of the app's pages: the store, the chosen sweep, cached reads, live refresh,
and the pure table shaping every page uses (no Streamlit calls below "pure table shaping").

The store is only read here. Cached reads are keyed on a signature of the sweep's folder (how
many run and configuration parts it holds, when its progress file last changed), so a run that
lands in the store changes the key and the next render reads it: the app never goes stale while
a sweep writes.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from recommender.curves import sweep_curves
from recommender.data import load_recommendations
from recommender.recommendations import ClassRecommendation
from sweeper.errors import InputError
from sweeper.processes import pid_alive
from sweeper.status import SweepStatus, sweep_status
from sweeper.store import ParquetStore
from sweeper.units import format_size

STORE_ENV = "RAIDSWEEP_STORE"
DEFAULT_STORE = "raidsweep-data"
REFRESH_S = 2
START_COMMAND = "raidsweep run examples/quick.yaml"
RUN_ID_RE = re.compile(r"^[0-9a-f]{24}$")


# store and sweep ------------------------------------------------------------------------------
def store_root() -> Path:
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


def get_store() -> ParquetStore:
    return ParquetStore(store_root())


def sweep_ids(records: list[dict[str, Any]]) -> list[str]:
    """Sweep ids, newest first."""
    ordered = sorted(records, key=lambda r: str(r.get("created_at", "")), reverse=True)
    return [r["sweep_id"] for r in ordered if r.get("sweep_id")]


def how_to_start(root: Path) -> str:
    return (
        f"No sweeps in `{root}` yet. Start one with `{START_COMMAND} --store {root}` "
        f"(or set `{STORE_ENV}` to the folder of an existing store), then reload this page."
    )


def require_sweep() -> tuple[ParquetStore, dict[str, Any]]:
    """The store and the sweep chosen in the sidebar; otherwise say how to start one and stop."""
    store = get_store()
    sweep_id = st.session_state.get("sweep")
    record = store.get_sweep(sweep_id) if sweep_id else None
    if record is None:
        st.info(how_to_start(store.root))
        st.stop()
    return store, record


# cached reads -----------------------------------------------------------------------------------
def signature(store: ParquetStore, sweep_id: str) -> tuple[int, ...]:
    """Changes whenever a run or a configuration is stored, runs are compacted (fewer files,
    one more part: a count of files alone could come back to an earlier value) or the
    progress file of the sweep is written."""
    try:
        progress_mtime = (store.root / sweep_id / "progress.json").stat().st_mtime_ns
    except FileNotFoundError:
        progress_mtime = 0
    return (*store.version(sweep_id), progress_mtime)


# The runs of a sweep are the largest thing the app holds (100,000 rows for a large sweep):
# st.cache_resource hands every page the same frame instead of unpickling a copy per rerun, so
# callers must never modify it (filter, assign and merge return new frames; that is all the
# pages do). One read of every attempt serves both the good runs and the failed counts.
@st.cache_resource(max_entries=4, show_spinner="Reading the store…")
def _attempts(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    return ParquetStore(root).runs(sweep_id, include_failed=True)


def _ok(attempts: pd.DataFrame) -> pd.DataFrame:
    if not len(attempts):
        return attempts
    return attempts[attempts["status"] == "ok"].reset_index(drop=True)


@st.cache_data(max_entries=8, show_spinner=False)
def _configurations(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    return ParquetStore(root).configurations(sweep_id)


@st.cache_data(max_entries=8, show_spinner="Ranking the configurations…")
def _recommendations(
    root: str, sweep_id: str, created_at: str, sig: tuple, _record: dict[str, Any]
) -> list[ClassRecommendation]:
    runs = _ok(_attempts(root, sweep_id, sig))
    return load_recommendations(ParquetStore(root), _record, runs)


@st.cache_data(max_entries=8, show_spinner="Weighing the dimensions…")
def _importances(
    root: str, sweep_id: str, created_at: str, sig: tuple, _record: dict[str, Any]
) -> pd.DataFrame:
    from recommender.importance import class_importances

    ranked = ranked_all(_recommendations(root, sweep_id, created_at, sig, _record))
    if ranked.empty:
        return pd.DataFrame(columns=["class", "dimension", "importance"])
    return class_importances(ranked)


@st.cache_data(max_entries=8, show_spinner="Finding the curves…")
def _curves(root: str, sweep_id: str, sig: tuple, _matrix: dict[str, Any]) -> pd.DataFrame:
    return sweep_curves(_ok(_attempts(root, sweep_id, sig)), _matrix)


@st.cache_data(max_entries=8, show_spinner=False)
def _status(root: str, sweep_id: str, sig: tuple, tick: int) -> SweepStatus:
    return sweep_status(ParquetStore(root), sweep_id)


def attempts(store: ParquetStore, sweep_id: str) -> pd.DataFrame:
    """Every run attempt, failed ones included (shared: do not modify)."""
    return _attempts(str(store.root), sweep_id, signature(store, sweep_id))


def runs(store: ParquetStore, sweep_id: str, *, include_failed: bool = False) -> pd.DataFrame:
    """The sweep's good runs (or every attempt), without the bulky raw columns."""
    all_attempts = attempts(store, sweep_id)
    return all_attempts if include_failed else _ok(all_attempts)


def configurations(store: ParquetStore, sweep_id: str) -> pd.DataFrame:
    return _configurations(str(store.root), sweep_id, signature(store, sweep_id))


def recommendations(store: ParquetStore, record: dict[str, Any]) -> list[ClassRecommendation]:
    """``load_recommendations`` for the sweep: per class the decision, trade-offs, evidence.

    A class file that no longer loads (edited or removed since the sweep) stops the page with
    its problem, not a traceback.
    """
    sweep_id = record["sweep_id"]
    try:
        return _recommendations(
            str(store.root),
            sweep_id,
            str(record.get("created_at", "")),
            signature(store, sweep_id),
            record,
        )
    except InputError as exc:
        st.error(f"The sweep's workload classes cannot be loaded:\n\n```\n{exc.render()}\n```")
        st.stop()
        raise  # st.stop() raises; this line only tells type checkers the function ends here


def importances(store: ParquetStore, record: dict[str, Any]) -> pd.DataFrame:
    """Rows of (class, dimension, importance) for every class with enough configurations."""
    sweep_id = record["sweep_id"]
    return _importances(
        str(store.root),
        sweep_id,
        str(record.get("created_at", "")),
        signature(store, sweep_id),
        record,
    )


def curves(store: ParquetStore, record: dict[str, Any]) -> pd.DataFrame:
    """``sweep_curves`` of the sweep: Speed, Optimum and Maximum per curve."""
    sweep_id = record["sweep_id"]
    matrix = (record.get("spec") or {}).get("matrix") or {}
    return _curves(str(store.root), sweep_id, signature(store, sweep_id), matrix)


def status(store: ParquetStore, sweep_id: str) -> SweepStatus:
    """``sweep_status``; while the progress file says running it is read afresh every tick, so
    a sweep whose process died shows as interrupted."""
    progress = store.read_progress(sweep_id) or {}
    tick = int(time.monotonic() // REFRESH_S) if progress.get("state") == "running" else 0
    return _status(str(store.root), sweep_id, signature(store, sweep_id), tick)


def is_running(store: ParquetStore, sweep_id: str) -> bool:
    """Whether a live process is writing the sweep, from its progress file alone: deciding to
    refresh must not cost a read of every run (``sweep_status`` reads them all)."""
    progress = store.read_progress(sweep_id) or {}
    return progress.get("state") == "running" and pid_alive(progress.get("pid"))


# live refresh -----------------------------------------------------------------------------------
def live(store: ParquetStore, sweep_id: str, render: Callable[[], None]) -> None:
    """Call ``render``; while the sweep runs, as a fragment re-rendered every REFRESH_S seconds."""
    if not is_running(store, sweep_id):
        render()
        return

    @st.fragment(run_every=REFRESH_S)
    def _live() -> None:
        if not is_running(store, sweep_id):
            st.rerun()  # the sweep stopped: a full run renders it once more, without the timer
        st.caption(f"Live: refreshed every {REFRESH_S} s while the sweep runs.")
        render()

    _live()


# pure table shaping -----------------------------------------------------------------------------
def rank_label(rank: int, tied: bool) -> str:
    return f"={int(rank)}" if tied else str(int(rank))


def ranked_all(recs: Iterable[ClassRecommendation]) -> pd.DataFrame:
    """Every class's ranked rows, stacked (the shape ``recommender.scoring.rank_classes`` has)."""
    parts = [r.ranked for r in recs if len(r.ranked)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["class"])


def find_recommendation(
    recs: Iterable[ClassRecommendation], class_name: str
) -> ClassRecommendation | None:
    return next((r for r in recs if r.name == class_name), None)


def _num(value: Any) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return math.nan
    return out


def recommendation_table(ranked: pd.DataFrame, *, prices: bool) -> pd.DataFrame:
    """The ranked rows of one class as shown: rank ('=' marks a tie), score with interval and
    repetitions, the limits kept or the cells that broke them, and the trade-offs."""
    part = ranked
    columns: dict[str, Any] = {
        "rank": [rank_label(r, t) for r, t in zip(part["rank"], part["tied"], strict=True)],
        "configuration": part["config_key"].to_numpy(),
        "score": part["score"].astype(float).to_numpy(),
        "95% interval": [
            f"{lo:,.1f} – {hi:,.1f}"
            for lo, hi in zip(part["score_lo"], part["score_hi"], strict=True)
        ],
        "CV %": part["cv_pct"].astype(float).to_numpy(),
        "repetitions": part["repetitions"].astype(int).to_numpy(),
        "limits": [
            "ok" if ok else str(v)
            for ok, v in zip(part["meets_limits"], part["violations"], strict=True)
        ],
    }
    if "usable_share" in part:
        columns["usable %"] = [100 * _num(v) for v in part["usable_share"]]
        columns["rebuild h"] = [_num(v) for v in part["rebuild_h"]]
        columns["data-loss risk / year"] = [_num(v) for v in part["loss_risk_per_year"]]
        if prices:
            columns["cost per unit"] = [_num(v) for v in part["cost_per_unit"]]
            columns["cost per usable GB"] = [_num(v) for v in part["cost_per_usable_gb"]]
        front = part["tradeoff_front"] if "tradeoff_front" in part else [False] * len(part)
        columns["trade-off front"] = [bool(v) for v in front]
    out = pd.DataFrame(columns)
    unsteady = part["unsteady_runs"].fillna(0).astype(int).to_numpy()
    if unsteady.any():
        out["unsteady runs"] = unsteady
    missing = part["cells_missing"].fillna("").astype(str).to_numpy()
    if any(missing):
        out["cells missing"] = missing
    return out


def evidence_table(evidence: pd.DataFrame) -> pd.DataFrame:
    """The cells that decided between the recommended configuration and the runner-up."""
    return pd.DataFrame(
        {
            "cell": evidence["cell"].astype(str).to_numpy(),
            "weight": evidence["weight"].astype(float).to_numpy(),
            "recommended": evidence["recommended"].astype(float).to_numpy(),
            "runner-up": evidence["runner_up"].astype(float).to_numpy(),
            "ratio": evidence["ratio"].astype(float).to_numpy(),
            "share of the decision %": evidence["contribution_pct"].astype(float).to_numpy(),
            "repetitions": evidence["repetitions"].astype(str).to_numpy(),
        }
    )


def impact_table(impact: pd.DataFrame) -> pd.DataFrame:
    """Feature impact of one class: performance kept with snapshots / data reduction on."""
    return pd.DataFrame(
        {
            "feature": impact["feature"].astype(str).to_numpy(),
            "configuration (feature off)": impact["configuration"].astype(str).to_numpy(),
            "score off": impact["score_off"].astype(float).to_numpy(),
            "score on": impact["score_on"].astype(float).to_numpy(),
            "kept %": impact["kept_pct"].astype(float).to_numpy(),
        }
    )


def configuration_table(
    all_runs: pd.DataFrame, configs: pd.DataFrame, runs_per_config: int
) -> pd.DataFrame:
    """One row per configuration: its reconfiguration's outcome and its run counts."""
    columns = ["configuration", "reconfiguration", "attempts", "runs done", "runs failed"]
    if runs_per_config:
        columns.append("runs planned")
    rows: dict[str, dict[str, Any]] = {}
    if len(configs):
        for key, grp in configs.groupby("config_key", sort=False):
            rows[key] = {
                "configuration": key,
                "reconfiguration": str(grp["status"].iloc[-1]),
                "attempts": len(grp),
            }
    if len(all_runs):
        for key, grp in all_runs.groupby("config_key", sort=False):
            row = rows.setdefault(key, {"configuration": key, "reconfiguration": "", "attempts": 0})
            row["runs done"] = int((grp["status"] == "ok").sum())
            row["runs failed"] = int((grp["status"] == "failed").sum())
    for row in rows.values():
        row.setdefault("runs done", 0)
        row.setdefault("runs failed", 0)
        if runs_per_config:
            row["runs planned"] = runs_per_config
    table = pd.DataFrame(list(rows.values()), columns=columns)
    return table.sort_values("configuration", kind="stable").reset_index(drop=True)


def concurrency_label(iodepth: Any, numjobs: Any) -> str:
    return f"qd{int(iodepth)}x{int(numjobs)}"


def _concurrency_key(label: str) -> list[int]:
    return [int(x) for x in label[2:].split("x")] if re.fullmatch(r"qd\d+x\d+", label) else [0]


def matrix_options(record: dict[str, Any], all_runs: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Patterns and concurrencies (``qd<iodepth>x<numjobs>``) of the sweep: the matrix's first,
    in its order, then any the runs add (extra cells, drift)."""
    matrix = (record.get("spec") or {}).get("matrix") or {}
    patterns = [str(p) for p in matrix.get("patterns") or []]
    concurrency = [
        c if str(c).startswith("qd") else f"qd{c}" for c in matrix.get("concurrency") or []
    ]
    if len(all_runs):
        patterns += sorted(set(all_runs["pattern"]) - set(patterns))
        pairs = all_runs[["iodepth", "numjobs"]].drop_duplicates()
        seen = {
            concurrency_label(d, j) for d, j in zip(pairs["iodepth"], pairs["numjobs"], strict=True)
        }
        concurrency += sorted(seen - set(concurrency), key=_concurrency_key)
    return patterns, concurrency


def block_sizes(all_runs: pd.DataFrame) -> list[int]:
    return sorted(int(b) for b in all_runs["block_size"].unique()) if len(all_runs) else []


# heatmaps ---------------------------------------------------------------------------------------
GRID_COLUMNS = ["config_key", "column", "value", "sd", "n"]
SCORE_LABEL = "score (% of the class best)"


def _select(
    runs: pd.DataFrame,
    *,
    pattern: str | None = None,
    block_size: int | None = None,
    concurrency: str | None = None,
    active_pct: int | None = None,
) -> pd.DataFrame:
    sel = runs
    if pattern is not None:
        sel = sel[sel["pattern"] == pattern]
    if block_size is not None:
        sel = sel[sel["block_size"] == int(block_size)]
    if active_pct is not None:
        sel = sel[sel["active_pct"] == int(active_pct)]
    if concurrency:
        qd = "qd" + sel["iodepth"].astype(str) + "x" + sel["numjobs"].astype(str)
        sel = sel[qd == concurrency]
    return sel


def grid_frame(
    runs: pd.DataFrame,
    metric: str,
    *,
    by: str,
    pattern: str | None = None,
    block_size: int | None = None,
    concurrency: str | None = None,
    active_pct: int | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Mean, standard deviation and count of ``metric`` per configuration × column, where the
    columns are block sizes (``by="block_size"``, for one pattern) or patterns (``by="pattern"``,
    for one block size); and the columns' order (block sizes by size, patterns as given)."""
    if by not in ("block_size", "pattern"):
        raise ValueError(f"by must be block_size or pattern, not {by!r}")
    sel = _select(
        runs, pattern=pattern, block_size=block_size, concurrency=concurrency, active_pct=active_pct
    )
    sel = sel.dropna(subset=[metric]) if len(sel) else sel
    if sel.empty:
        return pd.DataFrame(columns=GRID_COLUMNS), []
    out = sel.groupby(["config_key", by])[metric].agg(value="mean", sd="std", n="count")
    out = out.reset_index()
    if by == "block_size":
        order = [format_size(int(b)) for b in sorted(out["block_size"].unique())]
        out["column"] = out["block_size"].map(lambda b: format_size(int(b)))
    else:
        order = sorted(out["pattern"].unique())
        out["column"] = out["pattern"].astype(str)
    return out[GRID_COLUMNS], order


def score_grid(recs: Iterable[ClassRecommendation]) -> tuple[pd.DataFrame, list[str]]:
    """Configuration × class: each configuration's score as % of the class's best score."""
    frames, order = [], []
    for rec in recs:
        part = rec.ranked
        if part.empty:
            continue
        order.append(rec.name)
        best = float(part["score"].max())
        pct = 100 * part["score"].astype(float) / best if best > 0 else part["score"] * math.nan
        frames.append(
            pd.DataFrame(
                {
                    "config_key": part["config_key"].to_numpy(),
                    "column": rec.name,
                    "value": pct.to_numpy(),
                    # the interval's half-width, in the same % of the best
                    "sd": (100 * (part["score_hi"] - part["score"]) / best).to_numpy()
                    if best > 0
                    else math.nan,
                    "n": part["repetitions"].astype(int).to_numpy(),
                }
            )
        )
    if not frames:
        return pd.DataFrame(columns=GRID_COLUMNS), []
    return pd.concat(frames, ignore_index=True), order


def grid_table(frame: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """The grid's means as a table: one row per configuration, one column per grid column."""
    if frame.empty:
        return pd.DataFrame(columns=["configuration"])
    wide = frame.pivot_table(index="config_key", columns="column", values="value", aggfunc="mean")
    wide = wide.reindex(columns=[c for c in order if c in wide.columns])
    wide = wide.reset_index().rename(columns={"config_key": "configuration"})
    wide.columns.name = None
    return wide


def heatmap_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``recommender.data.heatmap_frame``'s means as configuration × block size."""
    if frame.empty:
        return pd.DataFrame(columns=["configuration"])
    wide = frame.pivot_table(
        index="config_key", columns="block_size", values="value", aggfunc="mean"
    )
    wide = wide.reindex(columns=sorted(wide.columns))
    wide.columns = [format_size(int(b)) for b in wide.columns]
    wide = wide.reset_index().rename(columns={"config_key": "configuration"})
    wide.columns.name = None
    return wide


CELL_SEP = " · "


def cell_label(config_key: str, column: str) -> str:
    return f"{config_key}{CELL_SEP}{column}"


def parse_cell_label(label: str) -> tuple[str, str]:
    config_key, _, column = label.rpartition(CELL_SEP)
    return config_key, column


def clicked_cell(selection: Any, name: str = "cell") -> tuple[str, str] | None:
    """The (configuration, column) of a point selection on a grid heatmap, or None.

    ``selection`` is the chart's event state as ``st.altair_chart(on_select=...)`` keeps it:
    ``{"selection": {name: [{"config_key": ..., "column": ...}]}}``.
    """
    try:
        points = selection["selection"][name]
    except (KeyError, TypeError):
        return None
    if not isinstance(points, list | tuple) or not points:
        return None
    point = points[-1]  # shift-click adds points: the newest is the one just clicked
    if not isinstance(point, dict) or "config_key" not in point or "column" not in point:
        return None
    return str(point["config_key"]), str(point["column"])


CELL_RUN_COLUMNS = {
    "run_id": "run id",
    "cell_key": "cell",
    "repetition": "repetition",
    "iops": "IOPS",
    "mbps": "MB/s",
    "read_lat_p99_ms": "p99 read ms",
    "write_lat_p99_ms": "p99 write ms",
    "steady": "steady",
    "finished_at": "finished",
}


def cell_runs(
    runs: pd.DataFrame,
    config_key: str,
    column: str,
    *,
    by: str,
    pattern: str | None = None,
    block_size: int | None = None,
    concurrency: str | None = None,
    active_pct: int | None = None,
    class_cells: dict[str, list[str]] | None = None,
) -> pd.DataFrame:
    """The runs behind one heatmap cell: those of ``config_key`` at the column's block size or
    pattern (with the view's other choices), or for the score grid (``by="class"``) the runs
    of the class's cells (``class_cells``: class name -> cell keys)."""
    mine = runs[runs["config_key"] == config_key]
    if by == "class":
        cells = set((class_cells or {}).get(column, []))
        bare = mine["cell_key"].str.replace(r"/ws100$", "", regex=True)
        sel = mine[bare.isin(cells)]
    elif by == "block_size":
        sizes = {format_size(int(b)): int(b) for b in mine["block_size"].unique()}
        if column not in sizes:
            return pd.DataFrame(columns=list(CELL_RUN_COLUMNS.values()))
        sel = _select(
            mine,
            pattern=pattern,
            block_size=sizes[column],
            concurrency=concurrency,
            active_pct=active_pct,
        )
    elif by == "pattern":
        sel = _select(
            mine,
            pattern=column,
            block_size=block_size,
            concurrency=concurrency,
            active_pct=active_pct,
        )
    else:
        raise ValueError(f"by must be block_size, pattern or class, not {by!r}")
    cols = [c for c in CELL_RUN_COLUMNS if c in sel.columns]
    sel = sel.sort_values(["cell_key", "repetition"])[cols]
    return sel.rename(columns=CELL_RUN_COLUMNS).reset_index(drop=True)


# curves -----------------------------------------------------------------------------------------
def curve_name(config_key: str, pattern: str, block_size: int, active_pct: Any) -> str:
    ws = f"/ws{int(active_pct)}" if active_pct is not None and not pd.isna(active_pct) else ""
    return f"{config_key} · {pattern}/{format_size(int(block_size))}{ws}"


def curve_points(table: pd.DataFrame) -> pd.DataFrame:
    """The points of ``sweep_curves`` rows for ``recommender.charts.curve_chart``: one per
    concurrency, with its role (Speed, Optimum, Maximum, or '' for the rest)."""
    rows = []
    for r in table.itertuples():
        name = curve_name(r.config_key, r.pattern, r.block_size, r.active_pct)
        # A point can be two roles at once (one worker may already be the maximum).
        roles: dict[int, list[str]] = {}
        roles.setdefault(r.speed.outstanding, []).append("Speed")
        if r.optimum is not None:
            roles.setdefault(r.optimum.outstanding, []).append("Optimum")
        roles.setdefault(r.maximum.outstanding, []).append("Maximum")
        for p in r.points:
            rows.append(
                {
                    "curve": name,
                    "outstanding": p.outstanding,
                    "iops": p.iops,
                    "latency_ms": p.latency_ms,
                    "role": " + ".join(roles.get(p.outstanding, [])),
                }
            )
    return pd.DataFrame(rows, columns=["curve", "outstanding", "iops", "latency_ms", "role"])


def curve_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Speed, Optimum and Maximum of each curve: I/Os in flight, IOPS and mean latency."""
    rows = []
    for r in table.itertuples():
        row: dict[str, Any] = {
            "curve": curve_name(r.config_key, r.pattern, r.block_size, r.active_pct)
        }
        for label, point in (("Speed", r.speed), ("Optimum", r.optimum), ("Maximum", r.maximum)):
            row[f"{label} in flight"] = point.outstanding if point is not None else None
            row[f"{label} IOPS"] = point.iops if point is not None else math.nan
            row[f"{label} ms"] = point.latency_ms if point is not None else math.nan
        row["how the optimum was found"] = r.note
        row["stopped"] = r.stopped or ""
        rows.append(row)
    return pd.DataFrame(rows)


# compare ----------------------------------------------------------------------------------------
def compare_scores(recs: Iterable[ClassRecommendation], a: str, b: str) -> pd.DataFrame:
    """Per class: both configurations' rank, score and limits, and the ratio of the scores."""
    rows = []
    for rec in recs:
        part = rec.ranked.set_index("config_key") if len(rec.ranked) else None
        row: dict[str, Any] = {"class": rec.name, "metric": rec.wclass.metric}
        for side, key in (("A", a), ("B", b)):
            if part is None or key not in part.index:
                row |= {f"rank {side}": "", f"score {side}": math.nan, f"limits {side}": ""}
                continue
            r = part.loc[key]
            row |= {
                f"rank {side}": rank_label(r["rank"], r["tied"]),
                f"score {side}": float(r["score"]),
                f"limits {side}": "ok" if bool(r["meets_limits"]) else str(r["violations"]),
            }
        sa, sb = row["score A"], row["score B"]
        row["A / B"] = sa / sb if sb and not math.isnan(sb) else math.nan
        rows.append(row)
    cols = ["class", "metric", "rank A", "score A", "rank B", "score B", "A / B",
            "limits A", "limits B"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


COMPARE_METRICS = {
    "IOPS": "iops",
    "MB/s": "mbps",
    "p99 read ms": "read_lat_p99_ms",
    "p99 write ms": "write_lat_p99_ms",
}


def compare_cells(runs: pd.DataFrame, a: str, b: str, metric: str) -> pd.DataFrame:
    """Per workload cell both configurations measured: the mean ``metric`` of each, their ratio,
    and the repetitions behind each figure."""
    frames = {}
    for side, key in (("A", a), ("B", b)):
        mine = runs[runs["config_key"] == key]
        frames[side] = mine.groupby("cell_key")[metric].agg(["mean", "count"])
    both = frames["A"].merge(frames["B"], left_index=True, right_index=True, suffixes=("_a", "_b"))
    out = pd.DataFrame(
        {
            "cell": both.index.astype(str),
            "A": both["mean_a"].astype(float).to_numpy(),
            "B": both["mean_b"].astype(float).to_numpy(),
        }
    )
    out["A / B"] = out["A"] / out["B"].where(out["B"] != 0)
    out["repetitions"] = [
        f"{int(x)}/{int(y)}" for x, y in zip(both["count_a"], both["count_b"], strict=True)
    ]
    return out.reset_index(drop=True)


TRADEOFF_ROWS = {
    "drives": "drives",
    "usable_gb": "usable GB",
    "usable_share": "usable share",
    "rebuild_h": "rebuild hours",
    "survives_during_rebuild": "further failures survived during a rebuild",
    "loss_risk_per_year": "data-loss risk per year",
    "cost": "cost",
    "cost_per_usable_gb": "cost per usable GB",
}


def compare_tradeoffs(recs: Iterable[ClassRecommendation], a: str, b: str) -> pd.DataFrame:
    """The trade-offs of both configurations, one row per figure (from any class's ranking:
    they do not depend on the class)."""
    found: dict[str, pd.Series] = {}
    for rec in recs:
        for key in (a, b):
            if key not in found and len(rec.ranked):
                hit = rec.ranked[rec.ranked["config_key"] == key]
                if len(hit):
                    found[key] = hit.iloc[0]
    rows = []
    for col, label in TRADEOFF_ROWS.items():
        va = found[a].get(col) if a in found else None
        vb = found[b].get(col) if b in found else None
        if (va is None or pd.isna(va)) and (vb is None or pd.isna(vb)):
            continue
        rows.append({"figure": label, "A": _num(va), "B": _num(vb)})
    return pd.DataFrame(rows, columns=["figure", "A", "B"])


# run details ------------------------------------------------------------------------------------
def run_id_problem(text: str) -> str | None:
    """Why ``text`` is not a run id, or None when it is one."""
    if not RUN_ID_RE.fullmatch(text):
        return (
            f"`{text}` is not a run id: a run id is 24 hexadecimal digits "
            "(see the run id column of a heatmap cell's runs, or `raidsweep disclose`)."
        )
    return None


def find_run(runs: pd.DataFrame, config_key: str, cell_key: str, repetition: int) -> str | None:
    hit = runs[
        (runs["config_key"] == config_key)
        & (runs["cell_key"] == cell_key)
        & (runs["repetition"] == int(repetition))
    ]
    return str(hit["run_id"].iloc[0]) if len(hit) else None


def run_summary(detail: dict[str, Any]) -> pd.DataFrame:
    """The figures of one run as (field, value) rows, bulky raw columns left out."""
    skip = {"job_file", "fio_json", "fio_stderr", "disclosure"}
    rows = [
        {"field": k, "value": "" if v is None else str(v)}
        for k, v in detail.items()
        if k not in skip
    ]
    return pd.DataFrame(rows, columns=["field", "value"])
