"""One configuration's measurement: its cells in order, their repetitions, the curve stop
and pruning. The runs it writes are kept in memory: the store is read once, for what an
earlier attempt at this configuration left there."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Set
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from recommender.classes import WorkloadClass
from recommender.curves import curve_points, should_stop
from sweeper.ansible import PlayResult
from sweeper.configuration import Configuration
from sweeper.fio import FioParseError, FioRunError, parse_fio_output
from sweeper.fio.runner import exit_reason
from sweeper.load import LoadDriver, RunOutput
from sweeper.pruning import Pruner, separating_order
from sweeper.repetitions import needs_more
from sweeper.spec import SweepSpec
from sweeper.store import RUN_SCHEMA, ResultsStore, RunAddress
from sweeper.sweep.progress import Outcome, Progress
from sweeper.sweep.records import Attempt, RunContext, now, run_row
from sweeper.workload import WorkloadCell

#: a curve: pattern, block size, active range


@dataclass
class Measured:
    """What measuring a configuration came to."""

    #: complete | pruned | failed (it could not be prepared) | interrupted
    status: str
    #: why it was pruned or failed
    reason: str | None = None
    #: its runs, as the store reads them
    runs: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: curve (the cell key without its concurrency, ``randread/8k/ws10``) -> why it was
    #: stopped before its highest concurrency
    curves_stopped: dict[str, str] = field(default_factory=dict)
    #: the cell after which it was pruned
    after: str | None = None


@dataclass
class Sweep:
    """What every configuration's measurement shares."""

    spec: SweepSpec
    store: ResultsStore
    cells: list[WorkloadCell]
    classes: list[WorkloadClass]
    context: RunContext
    progress: Progress
    stop: threading.Event


def runs_frame(rows: list[dict[str, Any]], like: pd.DataFrame) -> pd.DataFrame:
    """Run records as :meth:`ResultsStore.runs` reads them, with the columns of ``like`` (a
    frame that store read, empty or not)."""
    table = pa.Table.from_pylist(rows, schema=RUN_SCHEMA)
    frame = table.select(list(like.columns)).to_pandas()
    for column in frame.columns:
        tz = getattr(like[column].dtype, "tz", None)
        if tz is not None:  # the store reads timestamps in its own zone's name
            frame[column] = frame[column].dt.tz_convert(tz)
    return frame


class ConfigurationRuns:
    """A configuration's ok runs: those stored before this attempt and those it wrote."""

    def __init__(self, stored: pd.DataFrame):
        self._frame = stored
        self._new: list[dict[str, Any]] = []

    def add(self, row: dict[str, Any]) -> None:
        self._new.append(row)

    def frame(self) -> pd.DataFrame:
        if self._new:
            new = runs_frame(self._new, self._frame)
            both = new if self._frame.empty else pd.concat([self._frame, new], ignore_index=True)
            order = ["config_key", "cell_key", "repetition", "finished_at"]
            self._frame = both.sort_values(order, kind="stable", ignore_index=True)
            self._new = []
        return self._frame

    def iops(self) -> dict[str, dict[int, float]]:
        """IOPS per cell and repetition."""
        out: dict[str, dict[int, float]] = {}
        for r in self.frame().itertuples():
            out.setdefault(r.cell_key, {})[int(r.repetition)] = float(r.iops)
        return out


def cell_order(sweep: Sweep, others: pd.DataFrame | None = None) -> list[WorkloadCell]:
    """The matrix's cells; with a curve stop, each curve from the fewest I/Os in flight;
    with pruning, the cells that separated the configurations most so far first."""
    cells = sweep.cells
    matrix = sweep.spec.matrix
    if matrix.curve_stop is None:
        if others is None or others.empty:
            return cells
        metric = {c.cell: wc.metric for wc in sweep.classes for c in wc.cells}
        by_key = {c.key: c for c in cells}
        return [by_key[k] for k in separating_order(list(by_key), others, metric)]
    order = {p: i for i, p in enumerate(matrix.patterns)}
    return sorted(
        cells,
        key=lambda c: (
            order[c.pattern],
            c.block_size,
            c.active_pct or 0,
            c.curve,
            c.concurrency.outstanding(matrix.engine),
        ),
    )


def curve_stop(sweep: Sweep, runs: pd.DataFrame, cell: WorkloadCell) -> str | None:
    """Why the curve of ``cell`` (its key without the concurrency: pattern, block size,
    active range, sync mode, distribution, data profile) goes no higher, if it should;
    ``runs``: the configuration's runs so far."""
    rule = sweep.spec.matrix.curve_stop
    if rule is None:
        return None
    curves = runs["cell_key"].map(lambda key: WorkloadCell.parse(key).curve)
    mine = runs[curves == cell.curve]
    limit = cell.concurrency.outstanding(sweep.spec.matrix.engine)
    points = [p for p in curve_points(mine) if p.outstanding <= limit]
    if not points or points[-1].outstanding != limit:
        return None  # this cell gave no point: nothing to judge it by
    return should_stop(points, rule.latency_limit_ms, rule.throughput_drop_pct)


def wants_another(
    sweep: Sweep, cell: WorkloadCell, done_reps: int, measured: dict[str, dict[int, float]]
) -> bool:
    """The fixed repetitions first; then, if asked, more while the IOPS still vary."""
    m = sweep.spec.matrix
    if done_reps < m.repetitions_of(cell):
        return True
    dyn = m.dynamic_repetitions
    if dyn is None:
        return False
    values = list(measured.get(cell.key, {}).values())
    return done_reps < dyn.max and needs_more(
        values, cv_threshold_pct=dyn.cv_pct, cap=dyn.max, minimum=m.repetitions
    )


def ran_later(sweep: Sweep, key: str, cell: WorkloadCell, rep: int, done: set[RunAddress]) -> bool:
    """Whether a repetition of ``cell`` after ``rep`` is stored: repetitions are run in turn,
    so ``rep`` was run (a lost run measured again though the rule would now ask no more)."""
    m = sweep.spec.matrix
    most = max(m.repetitions_of(cell), m.dynamic_repetitions.max if m.dynamic_repetitions else 0)
    name = sweep.spec.name
    return any(RunAddress(name, key, cell.key, r) in done for r in range(rep + 1, most + 1))


def one_run(
    driver: LoadDriver, cell: WorkloadCell, repetition: int
) -> tuple[RunOutput | None, Any, str | None]:
    """Run the cell once: the driver's output, fio's figures and why it failed (if it did)."""
    out = parsed = error = None
    try:
        out = driver.run(cell, repetition)
        if out.exit_code != 0:
            error = exit_reason(out.exit_code, out.stderr)
        elif out.error:
            error = out.error
        else:
            parsed = out.result or parse_fio_output(out.stdout)
    except (FioParseError, FioRunError) as exc:
        error = str(exc)
    except Exception as exc:  # a failed run is stored with its cause, never lost
        error = f"{type(exc).__name__}: {exc}"
    return out, parsed, error


def measure(
    sweep: Sweep,
    config: Configuration,
    driver: LoadDriver,
    play: PlayResult,
    done: set[RunAddress],
    outcome: Outcome,
    others: Callable[[], pd.DataFrame] | None,
    only: set[RunAddress] | None = None,
    required: Set[RunAddress] = frozenset(),
) -> Measured:
    """Run ``config``'s cells on ``driver`` (prepared here, cleaned up after). ``others``:
    the runs of the configurations completed so far, when pruning compares with them.
    ``only``: measure none but these runs (those the store lost of a configuration measured
    before), each where the cells' order and repetitions would have it, or where a later
    repetition stored or ``required`` shows it was run. ``required``: those among them that
    must be measured (a curve stopped by the runs measured again still reaches them)."""
    key = config.key
    name = sweep.spec.name
    mine = ConfigurationRuns(sweep.store.runs(name, config_key=key))
    dynamic = sweep.spec.matrix.dynamic_repetitions is not None
    measured = mine.iops() if dynamic else {}
    stopped: dict[str, str] = {}
    completed = others() if others is not None else None
    pruner = Pruner(completed, sweep.classes) if completed is not None else None
    try:
        try:
            driver.prepare()
        except Exception as exc:  # noqa: BLE001 - any cause fails this configuration only
            return Measured("failed", f"preparing the runs failed: {exc}", mine.frame())
        for cell in cell_order(sweep, completed):
            curve = cell.curve
            asked = {a.repetition for a in required if a.cell_key == cell.key}
            # a lost run is measured again where it was, though runs measured again below it
            # would now stop its curve earlier
            if curve in stopped and not asked:
                outcome.cells_skipped[f"{key} {cell.key}"] = stopped[curve]
                continue
            rep = 0
            while wants_another(sweep, cell, rep, measured) or (
                only is not None
                and (ran_later(sweep, key, cell, rep + 1, done) or any(r > rep for r in asked))
            ):
                rep += 1
                if sweep.stop.is_set():
                    return Measured("interrupted", runs=mine.frame())
                address = RunAddress(name, key, cell.key, rep)
                if only is not None and address not in only and address not in done:
                    continue  # not asked for, and not stored: no run to count
                if address in done or sweep.store.has_run(address):
                    outcome.runs_skipped += 1
                    continue
                started, t0 = now(), time.monotonic()
                out, parsed, error = one_run(driver, cell, rep)
                attempt = Attempt(out, parsed, error, started, time.monotonic() - t0)
                row = run_row(sweep.context, config, cell, address, attempt, play, now())
                stored = sweep.store.put_run(row)
                outcome.array_s += out.array_time_s if out else 0.0
                if error is None:
                    done.add(address)
                    outcome.runs_written += 1
                    measured.setdefault(cell.key, {})[rep] = row["iops"]
                    if stored:
                        mine.add(dict(row, run_id=address.run_id))
                    else:  # a good run was there already: the store's is the one to read
                        mine = ConfigurationRuns(sweep.store.runs(name, config_key=key))
                else:
                    outcome.runs_failed += 1
                sweep.progress.run_done(address, error is None, outcome.array_s)
            if pruner is None and sweep.spec.matrix.curve_stop is None:
                continue
            reason = curve_stop(sweep, mine.frame(), cell)
            if reason:
                stopped[curve] = reason
            if pruner is not None:
                pruned = pruner.reason(mine.frame())
                if pruned:
                    return Measured("pruned", pruned, mine.frame(), after=cell.key)
    finally:
        driver.cleanup()
    return Measured("complete", runs=mine.frame(), curves_stopped=stopped)
