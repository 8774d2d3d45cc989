"""Heatmaps as data: the mean of a figure per configuration × block size, pattern or class,
and the runs behind one cell."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from recommender.recommendations import ClassRecommendation
from recommender.views.labels import (
    CONFIGURATION,
    RUN_FIGURES,
    concurrency_key,
    concurrency_label,
    distinct_labels,
)
from recommender.views.rankings import measured_only
from sweeper.units import format_size

HEATMAP_METRICS = {
    "IOPS": "iops",
    "MB/s": "mbps",
    "p99 read latency (ms)": "read_lat_p99_ms",
    "p99 write latency (ms)": "write_lat_p99_ms",
}


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
    if "rate_pct" in sel:
        # Rate cells are open loops at a share of the maximum: not figures to set beside the
        # closed loops of their pattern and concurrency (their classes rank them).
        sel = sel[sel["rate_pct"].isna()]
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


def heatmap_frame(
    runs: pd.DataFrame,
    pattern: str,
    metric: str,
    concurrency: str | None = None,
    active_pct: int | None = None,
) -> pd.DataFrame:
    """Mean of ``metric`` per configuration × block size for one pattern (and concurrency,
    and active range when the matrix has one)."""
    return _means(
        runs,
        metric,
        by="block_size",
        pattern=pattern,
        concurrency=concurrency,
        active_pct=active_pct,
    )


def run_concurrencies(runs: pd.DataFrame) -> list[str]:
    """The concurrencies (``qd<iodepth>x<numjobs>``) of ``runs``, by iodepth, then jobs."""
    if not len(runs):
        return []
    pairs = runs[["iodepth", "numjobs"]].drop_duplicates()
    seen = {
        concurrency_label(d, j) for d, j in zip(pairs["iodepth"], pairs["numjobs"], strict=True)
    }
    return sorted(seen, key=concurrency_key)


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
        concurrency += [c for c in run_concurrencies(all_runs) if c not in concurrency]
    return patterns, concurrency


def block_sizes(all_runs: pd.DataFrame) -> list[int]:
    return sorted(int(b) for b in all_runs["block_size"].unique()) if len(all_runs) else []


def _means(runs: pd.DataFrame, metric: str, *, by: str, **choices: Any) -> pd.DataFrame:
    """Mean, standard deviation and count of ``metric`` per configuration × ``by`` over the
    runs ``_select`` keeps: config_key, ``by``, value, sd, n."""
    sel = _select(runs, **choices)
    if sel.empty:
        return pd.DataFrame(columns=["config_key", by, "value", "sd", "n"])
    out = sel.groupby(["config_key", by])[metric].agg(value="mean", sd="std", n="count")
    return out.reset_index()


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
    columns are block sizes (``by="block_size"``, for one pattern; ``heatmap_frame``) or
    patterns (``by="pattern"``, for one block size); and the columns' order (block sizes by
    size, patterns as given). Cells without a value are left out."""
    if by not in ("block_size", "pattern"):
        raise ValueError(f"by must be block_size or pattern, not {by!r}")
    out = _means(
        runs,
        metric,
        by=by,
        pattern=pattern,
        block_size=block_size,
        concurrency=concurrency,
        active_pct=active_pct,
    )
    out = out.dropna(subset=["value"]).reset_index(drop=True)
    if out.empty:
        return pd.DataFrame(columns=GRID_COLUMNS), []
    if by == "block_size":
        order = [format_size(int(b)) for b in sorted(out["block_size"].unique())]
        out["column"] = out["block_size"].map(lambda b: format_size(int(b)))
    else:
        order = sorted(out["pattern"].unique())
        out["column"] = out["pattern"].astype(str)
    return out[GRID_COLUMNS], order


def score_grid(recs: Iterable[ClassRecommendation]) -> tuple[pd.DataFrame, list[str]]:
    """Configuration × class: each configuration's measured score as % of the class's best
    measured score (a prediction is never a cell of it: ``views.predicted_cells``)."""
    frames, order = [], []
    for rec in recs:
        part = rec.ranked
        measured_only(part)
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
                    # the score's own 95% interval (not symmetric), in the same % of the best
                    "sd": math.nan,
                    "n": part["repetitions"].astype(int).to_numpy(),
                    "lo": (100 * part["score_lo"].astype(float) / best).to_numpy()
                    if best > 0
                    else math.nan,
                    "hi": (100 * part["score_hi"].astype(float) / best).to_numpy()
                    if best > 0
                    else math.nan,
                }
            )
        )
    if not frames:
        return pd.DataFrame(columns=GRID_COLUMNS), []
    return pd.concat(frames, ignore_index=True), order


def grid_labels(order: Iterable[str], what: str = "column") -> dict[str, str]:
    """Each grid column's header in ``grid_table``: its own name, unless that is the
    configuration column's (a class named ``configuration``), then marked with ``what`` it is
    (``configuration (class)``)."""
    return distinct_labels(order, [CONFIGURATION], what)


def grid_table(frame: pd.DataFrame, order: list[str], what: str = "column") -> pd.DataFrame:
    """The grid's means as a table: one row per configuration, one column per grid column,
    headed by ``grid_labels`` (whatever the columns are named, the table's are distinct)."""
    if frame.empty:
        return pd.DataFrame(columns=[CONFIGURATION])
    wide = frame.pivot_table(index="config_key", columns="column", values="value", aggfunc="mean")
    columns = [c for c in order if c in wide.columns]
    labels = grid_labels(order, what)  # of the whole order, as the page heads them
    # built column by column: a grid column named like the index (``config_key``) or the
    # configuration column never meets it
    table = {CONFIGURATION: wide.index.to_numpy()}
    table |= {labels[c]: wide[c].to_numpy() for c in columns}
    return pd.DataFrame(table)


#: at most this many figures side by side in a grid's table: with the configuration key
#: beside them it fits a laptop's window (1280 px beside the sidebar)
TABLE_COLUMNS = 6


def column_groups(
    order: list[str], *, by_key: bool, limit: int = TABLE_COLUMNS
) -> list[tuple[str, list[str]]]:
    """The grid's columns in tables of at most ``limit``, each as (heading, columns).
    ``by_key``: the columns are cell keys (``randread/8k/qd1x1``), grouped by their leading
    parts (a table per pattern, then per pattern and block size: ``short_column`` drops the
    heading from each); the rest, or a group still too wide, is cut in parts ("1 of 2")."""
    if not by_key:
        return _parts("", order, limit)
    return _by_key(order, 1, limit)


def _by_key(columns: list[str], depth: int, limit: int) -> list[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = {}
    for column in columns:
        groups.setdefault("/".join(column.split("/")[:depth]), []).append(column)
    out: list[tuple[str, list[str]]] = []
    for head, members in groups.items():
        deeper = any(len(c.split("/")) > depth + 1 for c in members)
        if len(members) > limit and deeper:
            out += _by_key(members, depth + 1, limit)
        else:
            out += _parts(head, members, limit)
    return out


def _parts(head: str, columns: list[str], limit: int) -> list[tuple[str, list[str]]]:
    chunks = [columns[i : i + limit] for i in range(0, len(columns), limit)] or [[]]
    if len(chunks) == 1:
        return [(head, chunks[0])]
    where = f"{head} (%d of {len(chunks)})" if head else f"part %d of {len(chunks)}"
    return [(where % i, c) for i, c in enumerate(chunks, 1)]


def short_column(column: str, heading: str) -> str:
    """A column's header under its table's heading: the key without the heading's parts."""
    head = heading.split(" (")[0]
    return column[len(head) + 1 :] if head and column.startswith(head + "/") else column


CELL_RUN_COLUMNS = {"run_id": "run id"} | RUN_FIGURES | {"finished_at": "finished"}


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
    elif by == "cell":
        sel = mine[mine["cell_key"] == column]
    elif by == "pattern":
        sel = _select(
            mine,
            pattern=column,
            block_size=block_size,
            concurrency=concurrency,
            active_pct=active_pct,
        )
    else:
        raise ValueError(f"by must be block_size, pattern, cell or class, not {by!r}")
    cols = [c for c in CELL_RUN_COLUMNS if c in sel.columns]
    sel = sel.sort_values(["cell_key", "repetition"])[cols]
    return sel.rename(columns=CELL_RUN_COLUMNS).reset_index(drop=True)
