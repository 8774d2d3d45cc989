"""The sweep loop: ask the study for a configuration, build it with Ansible, run the matrix."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import platform as host_platform
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from recommender.classes import load_classes
from recommender.curves import curve_points, should_stop
from recommender.scoring import objective_values, rank_classes
from recommender.tradeoffs import merge_hardware
from sweeper.ansible import PlayResult, run_playbook
from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.errors import InputError, StoreError
from sweeper.fio import FioParseError, FioRunError, parse_fio_output
from sweeper.fio.runner import exit_reason
from sweeper.locking import (
    LockHeld,
    describe_holder,
    hold,
    holders,
    lock_record,
    target_locks,
)
from sweeper.ordering import cost_ordered, total_cost
from sweeper.platforms import Platform, get_platform
from sweeper.platforms.base import RunOutput
from sweeper.pruning import Pruner, separating_order
from sweeper.repetitions import needs_more
from sweeper.spec import SweepSpec
from sweeper.status import array_seconds
from sweeper.store import ResultsStore, RunAddress
from sweeper.store.records import DIRECTION_FIELDS
from sweeper.study import (
    StudyLockedError,
    build_params,
    completed_keys,
    enqueue,
    from_queue,
    has_waiting,
    open_study,
    recover,
    running_keys,
    storage_problem,
    study_lock,
    suggest_configuration,
)
from sweeper.workload import WorkloadCell

#: errors of a store that cannot take more data: the sweep stops cleanly on them
STORE_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}
MAX_REPEATED_SUGGESTIONS = 50  # the sampler keeps choosing measured points: it has converged


def now() -> datetime:
    return datetime.now(UTC)


def raidsweep_version() -> str:
    try:
        return metadata.version("raidsweep")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass
class Plan:
    """What a sweep will do: shown by ``--check`` and used for the progress bar's totals."""

    space_size: int
    configurations: list[Configuration]
    cells: list[WorkloadCell]
    repetitions: int
    run_array_s: float
    reconfig_array_s: float
    extra_runs_per_configuration: int = 0  # the drift cell's runs beyond the repetitions
    listed_reconfig_array_s: float = 0.0  # reconfiguring in the spec's own order, for comparison

    @property
    def runs(self) -> int:
        per_config = len(self.cells) * self.repetitions + self.extra_runs_per_configuration
        return len(self.configurations) * per_config

    @property
    def array_s(self) -> float:
        return self.run_array_s * self.runs + self.reconfig_array_s


def planned_cells(spec: SweepSpec) -> list[WorkloadCell]:
    """The matrix's cells, or only those the classes score when the study measures just them."""
    cells = spec.matrix.cells()
    if not spec.study.class_cells_only:
        return cells
    wanted = {c.cell for wc in load_classes(spec.classes) for c in wc.cells}
    if spec.matrix.drift is not None:
        wanted.add(spec.matrix.drift.cell)
    # A class cell without an active range is the whole working set (ws100).
    return [c for c in cells if c.key.removesuffix("/ws100") in wanted]


def make_plan(spec: SweepSpec, platform: Platform) -> Plan:
    space = enumerate_configurations(spec.config_space)
    listed_cost = total_cost(space, platform.reconfiguration_time)
    if spec.study.mode == "grid":
        # Every layout, stripe and cache policy of one RAID build before tearing it down.
        space = cost_ordered(space, platform.reconfiguration_time)
    configs = space
    budget = spec.study.budget
    if budget and budget.configurations:
        # Grid mode takes the first N in build order; optimize mode chooses N as it goes, so
        # the first N stand in for the totals of the progress bar and the ETA.
        configs = space[: budget.configurations]
    return Plan(
        space_size=len(space),
        configurations=configs,
        cells=planned_cells(spec),
        repetitions=spec.matrix.repetitions,
        run_array_s=platform.run_time(spec.matrix),
        reconfig_array_s=total_cost(configs, platform.reconfiguration_time),
        listed_reconfig_array_s=listed_cost,
        extra_runs_per_configuration=sum(
            spec.matrix.repetitions_of(c) - spec.matrix.repetitions for c in planned_cells(spec)
        ),
    )


class Progress:
    """Receives what the sweep is doing; the CLI draws it, tests may record it."""

    def start(self, plan: Plan, done_runs: int, done_configs: int) -> None: ...
    def configuration(self, key: str, phase: str) -> None: ...
    def run_done(self, address: RunAddress, ok: bool, array_s: float) -> None: ...
    def configuration_done(self, key: str, status: str, array_s: float) -> None: ...
    def finish(self, outcome: Outcome) -> None: ...


@dataclass
class Outcome:
    sweep_id: str
    configurations_done: int = 0
    configurations_failed: dict[str, str] = field(default_factory=dict)
    runs_written: int = 0
    runs_skipped: int = 0
    runs_failed: int = 0
    #: configuration -> why it was stopped before its matrix was complete
    configurations_pruned: dict[str, str] = field(default_factory=dict)
    #: "config cell" -> why the cell was not run (its concurrency curve had stopped)
    cells_skipped: dict[str, str] = field(default_factory=dict)
    array_s: float = 0.0
    interrupted: bool = False
    recovered_trials: int = 0
    #: locks left by a holder that is gone (killed, crashed), taken over: who held them
    stale_locks: list[str] = field(default_factory=list)
    #: why the sweep stopped before its end although nobody asked (e.g. the store's disk full)
    stopped: str | None = None

    @property
    def complete(self) -> bool:
        return not self.interrupted and self.stopped is None


def host_disclosure() -> dict[str, Any]:
    uname = host_platform.uname()
    versions = {}
    for pkg in ("raidsweep", "ansible-core", "ansible-runner", "optuna", "duckdb"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {
        "load_hosts": [
            {
                "hostname": socket.gethostname(),
                "os": f"{uname.system} {uname.release}",
                "kernel": uname.version,
                "machine": uname.machine,
                "cpus": os.cpu_count(),
            }
        ],
        "versions": versions,
    }


class Sweeper:
    """Runs one sweep spec to completion (or to its budget), resumable at any point."""

    def __init__(
        self,
        spec: SweepSpec,
        inventory: Path,
        store: ResultsStore,
        *,
        spec_path: Path | None = None,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
        worker: str | None = None,
        exclusive: bool = False,
    ):
        """``exclusive``: for a command that will hold :meth:`locks` (``run``, ``teardown``):
        refused (LockHeld, exit status 2) before the preflight's first play when another
        process already runs this sweep (and worker) or drives its storage."""
        self.spec = spec
        self.inventory = inventory
        self.store = store
        self.spec_path = spec_path
        self.progress = progress or Progress()
        self.stop = stop or threading.Event()
        self.sweep_dir = store.sweep_dir(spec.name)
        #: name of this sweeper when several share one study; each has its own array state
        self.worker = worker
        self.platform = get_platform(
            spec.platform,
            spec.platform_options,
            self.sweep_dir / ("array" if worker is None else f"array-{worker}"),
            inventory,
        )
        if exclusive:
            self.refuse_if_busy()
        self.platform.preflight(spec.config_space)
        problem = storage_problem(spec)
        if problem is not None:  # before anything is written, and for --check too
            raise InputError(str(spec_path or spec.name), [f"study.storage: {problem}"])
        #: what the trade-offs and media-specific limits need to know of the drives
        self.hardware = merge_hardware(
            self.platform.hardware(), spec.hardware.model_dump(mode="json")
        )
        self.classes = load_classes(spec.classes, self.hardware.get("media"))
        self.plan = make_plan(spec, self.platform)
        self.host = host_disclosure()
        self._previous: Configuration | None = None

    # ------------------------------------------------------------------
    def register(self) -> dict[str, Any]:
        return self.store.create_sweep(
            self.spec.name,
            {
                "sweep_id": self.spec.name,
                "fingerprint": self.spec.fingerprint(),
                "description": self.spec.description,
                "platform": self.spec.platform,
                "spec": self.spec.model_dump(mode="json"),
                "spec_file": self.spec_path.name if self.spec_path else None,
                "hardware": self.hardware,
                "created_at": now().isoformat(),
                "raidsweep_version": raidsweep_version(),
            },
        )

    def locks(self) -> dict[Path, str]:
        """The locks a sweep (or a teardown) holds: its own, per worker, in the store, and
        one per part of the storage it drives, machine-wide."""
        return self._own_lock() | target_locks(self.platform.target_identity())

    def _own_lock(self) -> dict[Path, str]:
        worker = "" if self.worker is None else f"-{self.worker}"
        who = "" if self.worker is None else f" (worker {self.worker})"
        mine = self.sweep_dir / f".run{worker}.lock"
        return {mine: f"sweep {self.spec.name!r}{who} in {self.store.root}"}

    def busy(self) -> list[LockHeld]:
        """Who else runs this sweep (and worker) or drives its storage right now, each as
        the refusal a run would get; takes and creates nothing (``--check``, ``plan``)."""
        return holders(self.locks())

    def refuse_if_busy(self) -> None:
        """LockHeld naming the first holder of any of :meth:`locks`, if another process
        holds one; nothing is taken. Before the preflight's first play, so that a second run
        is told who is at work, not what the storage looks like under the first."""
        try:
            locks = self.locks()
        except Exception:  # an inventory the preflight will refuse, naming the problem
            locks = self._own_lock()
        found = holders(locks)
        if found:
            raise found[0]

    @contextlib.contextmanager
    def holding(self, what: str) -> Iterator[list[str]]:
        """Hold :meth:`locks` for the block; LockHeld (exit status 2) naming the holder when
        another process runs this sweep or drives this storage, and nothing changed. Yields
        who held the locks found left by a holder that is gone."""
        if self.worker is not None:
            what = f"{what} --worker {self.worker}"
        record = lock_record(
            what, sweep=self.spec.name, store=str(self.store.root), worker=self.worker
        )
        with hold(self.locks(), record) as stale:
            yield [f"{r.get('subject', 'a lock')}: {describe_holder(r)}" for r in stale]

    def run(self) -> Outcome:
        """Run or resume the sweep; LockHeld before anything changes when another process
        runs this sweep (and worker) or drives the same storage."""
        try:
            with self.holding(f"raidsweep run {self.spec.name}") as stale:
                outcome = self._run()
                outcome.stale_locks = stale
                return outcome
        except OSError as exc:
            # Before the first run (the lock, the sweep's record, the study): a store that
            # cannot be written is said with the file and what to do; later the sweep stops
            # cleanly on it (Outcome.stopped) with what is stored kept.
            if exc.errno not in STORE_WRITE_ERRORS | {errno.EACCES, errno.EPERM}:
                raise
            raise StoreError(
                f"the store at {self.store.root} cannot be written ({exc.strerror}: "
                f"{exc.filename}); make it writable or free space there (or give another "
                "--store), then run again: the sweep resumes"
            ) from None

    def _run(self) -> Outcome:
        self.register()
        self.store.remove_stale_temporaries(self.spec.name)
        outcome = Outcome(self.spec.name)
        try:
            study = open_study(self.spec, self.sweep_dir)
            lock = functools.partial(study_lock, study._storage, self.sweep_dir)
            with lock():
                outcome.recovered_trials = recover(
                    study, self.spec.config_space, worker=self.worker
                )
        except StudyLockedError as exc:
            outcome.stopped = str(exc)  # nothing changed yet
            return outcome
        done = self.store.done_addresses(self.spec.name)
        done_configs = completed_keys(study)
        outcome.array_s = self._array_time_used()
        self.progress.start(self.plan, len(done), len(done_configs))
        self._write_progress("running", outcome)
        repeats = 0
        try:
            if self.spec.study.mode == "grid" or self.spec.study.seed_configurations:
                seeds = [Configuration.from_key(k) for k in self.spec.study.seed_configurations]
                grid = self.plan.configurations if self.spec.study.mode == "grid" else []
                with lock():  # another worker may be enqueueing the same grid right now
                    enqueue(study, seeds + grid, self.spec.config_space)
            while not self.stop.is_set() and not self._budget_spent(study, outcome):
                if self.spec.study.mode == "grid" and not has_waiting(study):
                    break
                if self.spec.study.mode == "optimize" and self._space_exhausted(study):
                    break
                with lock():  # choose and claim a configuration before any other worker
                    trial = study.ask()
                    config = suggest_configuration(trial, self.spec.config_space)
                    trial.set_user_attr("config_key", config.key)
                    if self.worker:
                        trial.set_user_attr("worker", self.worker)
                    taken = config.key in running_keys(study, besides=trial.number)
                    queued = from_queue(trial)
                if self.spec.study.mode == "grid" and not queued:
                    # Another worker took the grid's last configuration meanwhile.
                    trial.set_user_attr("error", "the grid's queue was empty")
                    study.tell(trial, state=TrialState.FAIL)
                    break
                if taken:
                    trial.set_user_attr("error", "being measured by another worker")
                    study.tell(trial, state=TrialState.FAIL)
                    repeats += 1
                    if repeats >= MAX_REPEATED_SUGGESTIONS:
                        break
                    continue
                if config.key in completed_keys(study):
                    # The sampler asked again for a configuration already measured: answer
                    # from the store, spending no array time.
                    self._answer_from_store(study, trial, config)
                    repeats += 1
                    if repeats >= MAX_REPEATED_SUGGESTIONS:
                        break
                    continue
                repeats = 0
                try:
                    self._evaluate(study, trial, config, done, outcome)
                    # A large sweep keeps each finished configuration as one file: fast reads.
                    self.store.compact(self.spec.name, config.key, only_if_large=True)
                except OSError as exc:
                    if exc.errno not in STORE_WRITE_ERRORS:
                        raise
                    # The store (or the study beside it) cannot be written: what is stored
                    # stays whole (writes are atomic), the run in flight is lost, and the
                    # sweep stops here rather than measure what it cannot keep.
                    outcome.stopped = (
                        f"cannot write to the store at {self.store.root}: {exc.strerror or exc}"
                    )
                    with contextlib.suppress(Exception):
                        study.tell(trial, state=TrialState.FAIL)
                    break
                if self._stays_on_build(study, config):
                    with lock():
                        study.enqueue_trial(build_params(config, self.spec.config_space))
        except StudyLockedError as exc:
            # Between configurations: stored runs are whole; the sweep resumes when run again.
            outcome.stopped = str(exc)
        finally:
            outcome.interrupted = self.stop.is_set()
            state = "interrupted" if outcome.interrupted or outcome.stopped else "finished"
            with contextlib.suppress(OSError):  # a full disk may refuse this too
                self._write_progress(state, outcome)
            self.progress.finish(outcome)
        return outcome

    # ------------------------------------------------------------------
    def _answer_from_store(
        self, study: optuna.Study, trial: optuna.Trial, config: Configuration
    ) -> None:
        values = objective_values(
            self.store.runs(self.spec.name, config_key=config.key), self.classes
        )
        trial.set_user_attr("answered_from_store", True)
        if values is None:
            study.tell(trial, state=TrialState.FAIL)
        else:
            study.tell(trial, values)

    def _stays_on_build(self, study: optuna.Study, config: Configuration) -> bool:
        """Whether the next configuration should be another on ``config``'s RAID build, the
        sampler choosing what changes without a format: in optimize mode, while ``config``
        came out best (or tied best) for some class and the build has had fewer than
        ``study.same_build`` configurations. A format costs as much as many runs."""
        limit = self.spec.study.per_build
        if self.spec.study.mode != "optimize" or limit <= 1 or has_waiting(study):
            return False
        if config.key not in completed_keys(study):
            return False  # failed or pruned: the build has shown what it can do
        build = (config.raid_level, config.layout, config.rank_count)
        measured = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
        keys = {t.user_attrs.get("config_key") for t in measured} - {None}
        on_build = [
            k for k in keys
            if (c := Configuration.from_key(k)) and (c.raid_level, c.layout, c.rank_count) == build
        ]  # fmt: skip
        if len(on_build) >= limit:
            return False
        ranked = rank_classes(self.store.runs(self.spec.name), self.classes)
        return config.key in set(ranked.loc[ranked["rank"] == 1, "config_key"])

    def _space_exhausted(self, study: optuna.Study) -> bool:
        return len(completed_keys(study)) >= self.plan.space_size

    def _budget_spent(self, study: optuna.Study, outcome: Outcome) -> bool:
        budget = self.spec.study.budget
        if budget is None:
            return False
        if (
            budget.configurations is not None
            and len(completed_keys(study)) >= budget.configurations
        ):
            return True
        return budget.array_time_s is not None and outcome.array_s >= budget.array_time_s

    def _array_time_used(self) -> float:
        return array_seconds(
            self.store.runs(self.spec.name, include_failed=True),
            self.store.configurations(self.spec.name),
        )

    def _evaluate(
        self,
        study: optuna.Study,
        trial: optuna.Trial,
        config: Configuration,
        done: set[RunAddress],
        outcome: Outcome,
    ) -> None:
        key = config.key
        self.progress.configuration(key, "reconfiguring")
        started = now()
        play = run_playbook(
            "reconfigure.yml",
            self.inventory,
            self.platform.extravars(config),
            cancel=self.stop.is_set,
        )
        reconfig_s = self.platform.reconfiguration_time(self._previous, config) if play.ok else 0.0
        self._store_configuration(config, trial.number, play, reconfig_s, started)
        outcome.array_s += reconfig_s
        if not play.ok:
            if play.status == "canceled" or self.stop.is_set():
                study.tell(trial, state=TrialState.FAIL)
                return
            reason = play.failure()
            trial.set_user_attr("error", reason)
            study.tell(trial, state=TrialState.FAIL)
            outcome.configurations_failed[key] = reason
            self.progress.configuration_done(key, "failed", outcome.array_s)
            self._previous = None  # the storage is in an unknown state
            return
        self._previous = config
        runner = self.platform.runner(config, self.spec.matrix, self.spec.study.seed)
        self.progress.configuration(key, "running")
        measured = self._measured(key)
        stopped_curves: dict[tuple[str, int, int | None], str] = {}
        others = self._completed_runs(study, key) if self.spec.study.pruning else None
        pruner = Pruner(others, self.classes) if others is not None else None
        try:
            try:
                runner.prepare()
            except Exception as exc:  # noqa: BLE001 - any cause fails this configuration only
                reason = f"preparing the runs failed: {exc}"
                trial.set_user_attr("error", reason)
                study.tell(trial, state=TrialState.FAIL)
                outcome.configurations_failed[key] = reason
                self.progress.configuration_done(key, "failed", outcome.array_s)
                return
            for cell in self._cell_order(others):
                curve = (cell.pattern.name, cell.block_size, cell.active_pct)
                if curve in stopped_curves:
                    outcome.cells_skipped[f"{key} {cell.key}"] = stopped_curves[curve]
                    continue
                rep = 0
                while self._wants_another(cell, rep, measured):
                    rep += 1
                    if self.stop.is_set():
                        study.tell(trial, state=TrialState.FAIL)
                        return
                    address = RunAddress(self.spec.name, key, cell.key, rep)
                    if address in done or self.store.has_run(address):
                        outcome.runs_skipped += 1
                        continue
                    ok, array_s, iops = self._one_run(runner, config, cell, address, play)
                    outcome.array_s += array_s
                    if ok:
                        done.add(address)
                        outcome.runs_written += 1
                        measured.setdefault(cell.key, {})[rep] = iops
                    else:
                        outcome.runs_failed += 1
                    self.progress.run_done(address, ok, outcome.array_s)
                if pruner is None and self.spec.matrix.curve_stop is None:
                    continue
                mine = self.store.runs(self.spec.name, config_key=key)
                reason = self._curve_stop(mine, cell)
                if reason:
                    stopped_curves[curve] = reason
                if pruner is not None:
                    pruned = pruner.reason(mine)
                    if pruned:
                        trial.set_user_attr("pruned", f"after {cell.key}: {pruned}")
                        study.tell(trial, state=TrialState.PRUNED)
                        outcome.configurations_pruned[key] = pruned
                        self.progress.configuration_done(key, "pruned", outcome.array_s)
                        return
            if stopped_curves:
                trial.set_user_attr(
                    "curves_stopped",
                    {
                        f"{p}/{bs}" + (f"/ws{ws}" if ws is not None else ""): r
                        for (p, bs, ws), r in stopped_curves.items()
                    },
                )
        finally:
            runner.cleanup()
        runs = self.store.runs(self.spec.name, config_key=key)
        values = objective_values(runs, self.classes)
        if values is None:
            reason = "no class could be scored from this configuration's runs"
            trial.set_user_attr("error", reason)
            study.tell(trial, state=TrialState.FAIL)
            outcome.configurations_failed[key] = reason
            self.progress.configuration_done(key, "failed", outcome.array_s)
            return
        study.tell(trial, values)
        outcome.configurations_done += 1
        self.progress.configuration_done(key, "complete", outcome.array_s)
        self._write_progress("running", outcome)

    def _completed_runs(self, study: optuna.Study, key: str) -> Any:
        """Runs of the configurations completed so far (what pruning compares with)."""
        done = completed_keys(study) - {key}
        runs = self.store.runs(self.spec.name)
        return runs[runs["config_key"].isin(done)]

    def _cell_order(self, others: Any = None) -> list[WorkloadCell]:
        """The matrix's cells; with a curve stop, each curve from the fewest I/Os in flight;
        with pruning, the cells that separated the configurations most so far first."""
        cells = self.plan.cells
        if self.spec.matrix.curve_stop is None:
            if others is None or others.empty:
                return cells
            metric = {c.cell: wc.metric for wc in self.classes for c in wc.cells}
            by_key = {c.key: c for c in cells}
            return [by_key[k] for k in separating_order(list(by_key), others, metric)]
        engine = self.spec.matrix.engine
        order = {p: i for i, p in enumerate(self.spec.matrix.patterns)}
        return sorted(
            cells,
            key=lambda c: (
                order[c.pattern],
                c.block_size,
                c.active_pct or 0,
                c.concurrency.outstanding(engine),
            ),
        )

    def _curve_stop(self, runs: Any, cell: WorkloadCell) -> str | None:
        """Why the curve of ``cell`` (its pattern, block size and active range) goes no higher,
        if it should;
        ``runs``: the configuration's runs so far."""
        rule = self.spec.matrix.curve_stop
        if rule is None:
            return None
        # One curve: this pattern, block size and active range, across concurrencies.
        same_range = (
            runs["active_pct"].isna()
            if cell.active_pct is None
            else runs["active_pct"] == cell.active_pct
        )
        mine = runs[
            (runs["pattern"] == cell.pattern.name)
            & (runs["block_size"] == cell.block_size)
            & same_range
        ]
        limit = cell.concurrency.outstanding(self.spec.matrix.engine)
        points = [p for p in curve_points(mine) if p.outstanding <= limit]
        if not points or points[-1].outstanding != limit:
            return None  # this cell gave no point: nothing to judge it by
        return should_stop(points, rule.latency_limit_ms, rule.throughput_drop_pct)

    def _measured(self, key: str) -> dict[str, dict[int, float]]:
        """IOPS per cell and repetition already stored for configuration ``key``."""
        if self.spec.matrix.dynamic_repetitions is None:
            return {}
        runs = self.store.runs(self.spec.name, config_key=key)
        out: dict[str, dict[int, float]] = {}
        for r in runs.itertuples():
            out.setdefault(r.cell_key, {})[int(r.repetition)] = float(r.iops)
        return out

    def _wants_another(
        self, cell: WorkloadCell, done_reps: int, measured: dict[str, dict[int, float]]
    ) -> bool:
        """The fixed repetitions first; then, if asked, more while the IOPS still vary."""
        m = self.spec.matrix
        if done_reps < m.repetitions_of(cell):
            return True
        dyn = m.dynamic_repetitions
        if dyn is None:
            return False
        values = list(measured.get(cell.key, {}).values())
        return done_reps < dyn.max and needs_more(
            values, cv_threshold_pct=dyn.cv_pct, cap=dyn.max, minimum=m.repetitions
        )

    def _one_run(
        self,
        runner: Any,
        config: Configuration,
        cell: WorkloadCell,
        address: RunAddress,
        play: PlayResult,
    ) -> tuple[bool, float, float | None]:
        started = now()
        t0 = time.monotonic()
        error = None
        out: RunOutput | None = None
        parsed = None
        try:
            out = runner.run(cell, address.repetition)
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
        row = self._run_row(
            config, cell, address, out, parsed, error, started, time.monotonic() - t0, play
        )
        self.store.put_run(row)
        return error is None, (out.array_time_s if out else 0.0), row.get("iops")

    def _run_row(
        self, config, cell, address, out, parsed, error, started, wall, play
    ) -> dict[str, Any]:
        m = self.spec.matrix
        row: dict[str, Any] = {
            "sweep_id": address.sweep_id,
            "config_key": address.config_key,
            "cell_key": address.cell_key,
            "repetition": address.repetition,
            "status": "ok" if error is None else "failed",
            "error": error,
            "platform": self.spec.platform,
            "raid_level": config.raid_level,
            "layout": config.layout,
            "ranks": config.rank_count,
            "stripe_kib": config.stripe_kib,
            "cache_policy": config.cache_policy,
            "snapshots": config.snapshots,
            "data_reduction": config.data_reduction,
            "pattern": cell.pattern.name,
            "block_size": cell.block_size,
            "iodepth": cell.concurrency.iodepth,
            "numjobs": cell.concurrency.numjobs,
            "active_pct": cell.active_pct,
            "engine": m.engine,
            "runtime_s": m.runtime,
            "ramp_s": m.ramp,
            "array_time_s": out.array_time_s if out else 0.0,
            "started_at": started,
            "finished_at": now(),
            "wall_s": wall,
            "tool": out.tool if out else None,
            "tool_version": out.tool_version if out else None,
            "job_file": out.job_file if out else None,
            "fio_json": out.stdout if out else None,
            "fio_stderr": out.stderr if out else None,
        }
        if parsed is not None:
            total_iops = total_mbps = 0.0
            for direction in ("read", "write"):
                stats = getattr(parsed, direction)
                if stats is None:
                    continue
                for f in DIRECTION_FIELDS:
                    row[f"{direction}_{f}"] = getattr(stats, f)
                total_iops += stats.iops
                total_mbps += stats.mbps
            row["iops"] = total_iops
            row["mbps"] = total_mbps
        steady = (out.extra.get("steady_state") if out else None) or {}
        row["steady"] = steady.get("steady")
        row["steady_range_pct"] = steady.get("range_pct")
        row["steady_slope_pct"] = steady.get("slope_pct")
        disclosure = dict(self.host)
        disclosure |= {
            "platform": self.spec.platform,
            "inventory": self.inventory.name,
            "tool": row["tool"],
            "tool_version": row["tool_version"],
            "engine": m.engine,
            "ramp_s": m.ramp,
            "runtime_s": m.runtime,
            "working_set": m.working_set,
            "array_state": (out.extra.get("array_state") if out else None),
            # The storage as Ansible found it when it configured it (devices, filesystems).
            "facts": play.facts,
        }
        if steady:
            disclosure["steady_state"] = steady
        if out and out.extra.get("precondition"):
            disclosure["precondition"] = out.extra["precondition"]
        if out and out.extra.get("hosts"):
            disclosure["load_hosts_results"] = out.extra["hosts"]
        if out and out.extra.get("load_hosts"):
            # fio ran on these hosts, not on the controller that started it.
            disclosure["controller"] = disclosure["load_hosts"]
            disclosure["load_hosts"] = out.extra["load_hosts"]
        if out and out.extra.get("fill"):
            disclosure["fill"] = out.extra["fill"]
        if out and out.extra.get("model"):
            # The simulated array says which mechanisms decided the run (hit ratio, bottleneck).
            disclosure["model"] = out.extra["model"]
        row["disclosure"] = json.dumps(disclosure, sort_keys=True, default=str)
        return row

    def _store_configuration(self, config, attempt, play, reconfig_s, started) -> None:
        self.store.put_configuration(
            {
                "sweep_id": self.spec.name,
                "config_key": config.key,
                "attempt": attempt,
                "status": play.status,
                "raid_level": config.raid_level,
                "layout": config.layout,
                "ranks": config.rank_count,
                "stripe_kib": config.stripe_kib,
                "cache_policy": config.cache_policy,
                "snapshots": config.snapshots,
                "data_reduction": config.data_reduction,
                "reconfig_array_time_s": reconfig_s,
                "ansible_status": play.status,
                "ansible_rc": play.rc,
                "changed_tasks": play.changed,
                "failed_task": play.failed_task,
                "error": play.error,
                "ansible_stdout": play.stdout[-20000:],
                "facts": json.dumps(play.facts, sort_keys=True, default=str),
                "started_at": started,
                "finished_at": now(),
            }
        )

    def _write_progress(self, state: str, outcome: Outcome) -> None:
        self.store.write_progress(
            self.spec.name,
            {
                "state": state,
                "pid": os.getpid(),
                "updated_at": now().isoformat(),
                "configurations_total": len(self.plan.configurations),
                "runs_total": self.plan.runs,
                "array_s_total": self.plan.array_s,
                "array_s_used": outcome.array_s,
                "configurations_failed": sorted(outcome.configurations_failed),
            },
        )


def run_sweep(spec: SweepSpec, inventory: Path, store: ResultsStore, **options: Any) -> Outcome:
    """Run (or resume) a sweep; ``options`` are those of :class:`Sweeper`."""
    return Sweeper(spec, inventory, store, **options).run()
