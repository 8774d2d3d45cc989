"""The Optuna study that decides which configuration to build next (ask/tell)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
import time
import warnings
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, cast

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.storages.journal._file import BaseJournalFileLock
from optuna.trial import TrialState

from recommender.classes import load_classes
from sweeper.configuration import Configuration
from sweeper.errors import SpecError
from sweeper.locking import LockHeld, describe_holder, holder_of
from sweeper.spec import ConfigSpace, SweepSpec
from sweeper.vocabulary import MULTI_RANK_COLUMNS, MULTI_RANK_LAYOUTS

optuna.logging.set_verbosity(optuna.logging.WARNING)
# multivariate/group TPE is what conditional spaces need; its "experimental" label is noise here
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
STUDY_FILE = "study.journal"
#: the flock(2) file of the journal's appends (JournalFlock)
JOURNAL_LOCK_FILE = "study.journal.flock"
#: how long a sweeper waits for the study's lock before it stops with StudyLockedError
LOCK_TIMEOUT_S = 120.0


class StudyLockedError(RuntimeError):
    """The study's lock stayed taken past LOCK_TIMEOUT_S."""


class TrialEndedElsewhere(optuna.exceptions.UpdateFinishedTrialError):
    """This sweeper's trial was ended by another process (marked failed by a sweeper that
    took it for a dead one's) while this one still measured it: it cannot be told now."""

    def __init__(self, number: int, key: str | None, state: TrialState) -> None:
        self.number, self.key, self.state = number, key, state
        what = f"configuration {key}" if key else f"trial {number}"
        super().__init__(
            f"{what} was marked {state.name} by another process while this sweeper measured it"
        )


def worker_lock(sweep_dir: Path, worker: str) -> Path:
    """The lock a worker holds in the sweep's folder while it runs (``run --worker``); the
    name the Sweeper's own lock has (``sweeper.sweep.sweeper.Sweeper._own_lock``)."""
    return sweep_dir / f".run-{worker}.lock"


def live_workers(sweep_dir: Path) -> dict[str, dict[str, Any]]:
    """The workers running the sweep from this store now (their run lock held), each with
    the record its lock holds (who, where, since when)."""
    found = {}
    for path in sorted(sweep_dir.glob(".run-*.lock")):
        holder = holder_of(path)
        if holder is not None:
            found[str(holder.get("worker") or path.name[len(".run-") : -len(".lock")])] = holder
    return found


def workers_refusal(
    sweep_dir: Path, subject: str, advice: Callable[[str, str], str]
) -> LockHeld | None:
    """The refusal of a command that cannot run while workers run the sweep from this store
    (``subject``: the sweep, as the refusal names it), each live worker named with its
    holder; ``advice(names, pids)`` says what to do. None while no worker runs it."""
    live = live_workers(sweep_dir)
    if not live:
        return None
    names = ", ".join(live)
    pids = " ".join(str(h.get("pid")) for h in live.values() if h.get("pid"))
    # each problem reads after "<sweep> is " (``warn_busy``) as after "error: <sweep>:"
    problems = [f"in use by worker {name}: {describe_holder(h)}" for name, h in live.items()]
    problems[-1] += ": " + advice(names, pids)
    return LockHeld(subject, problems)


def _rdb_url(spec: SweepSpec) -> str:
    # SQLAlchemy reads postgresql:// with psycopg (3), the driver raidsweep installs.
    return spec.study.storage or ""


def _advisory_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:7], "big")


@contextlib.contextmanager
def _pg_lock(engine: Any, name: str) -> Iterator[None]:
    from sqlalchemy import text

    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _advisory_key(name)})
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _advisory_key(name)})


def study_storage(spec: SweepSpec, sweep_dir: Path) -> optuna.storages.BaseStorage:
    """A journal file beside the results, or the spec's PostgreSQL database."""
    if spec.study.storage:
        from sqlalchemy import create_engine

        url = _rdb_url(spec)
        # Two sweepers starting together would both create Optuna's tables: one at a time.
        engine = create_engine(url, poolclass=None)
        try:
            with _pg_lock(engine, "raidsweep-schema"):
                return optuna.storages.RDBStorage(url, engine_kwargs={"pool_pre_ping": True})
        finally:
            engine.dispose()
    sweep_dir.mkdir(parents=True, exist_ok=True)
    lock = cast(BaseJournalFileLock, JournalFlock(sweep_dir / JOURNAL_LOCK_FILE))
    return JournalStorage(JournalFileBackend(str(sweep_dir / STUDY_FILE), lock_obj=lock))


class JournalFlock:
    """The lock of each append to the study's journal, on flock(2), which the kernel releases
    when its process ends however it ends. Optuna's own journal locks are files (a symlink,
    or one made with O_EXCL) that outlive a process killed while holding one: the next
    sweeper then waits 30 s for Optuna to call it stale. Threads of one process take turns
    through a thread lock; processes through the file's flock."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._threads = threading.Lock()
        self._fd: int | None = None

    def acquire(self) -> bool:
        self._threads.acquire()
        try:
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
        except BaseException:
            self._threads.release()
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
        finally:
            self._threads.release()


def storage_problem(spec: SweepSpec) -> str | None:
    """Why the spec's PostgreSQL study storage cannot be used (unreachable, login refused,
    no such database), or None; asked before anything is written. For a spec read from its
    file (``load_spec``) the problem is raised as that file's SpecError naming the line of
    ``study.storage``, as every other problem of the spec is named."""
    if not spec.study.storage:
        return None
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    engine = create_engine(_rdb_url(spec), poolclass=None, connect_args={"connect_timeout": 10})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        # where, without the query (nothing secret is let into the spec, but say no more)
        url = make_url(spec.study.storage).set(query={})
        problem = f"cannot use the study database {url.render_as_string()!r}: {reason}"
        source = spec.source
        if source is None:
            return problem
        line = source.line_of(["study", "storage"])
        raise SpecError(source.name, [f"line {line}: study.storage: {problem}"]) from None
    finally:
        engine.dispose()
    return None


@contextlib.contextmanager
def study_lock(storage: optuna.storages.BaseStorage, sweep_dir: Path) -> Iterator[None]:
    """Serialise one worker's read-then-write steps on the study against the others'.

    Enqueueing the grid, or choosing a configuration and claiming it, must not interleave
    with another sweeper's: two would enqueue the grid twice, or build the same point. A
    PostgreSQL advisory lock for a shared database; a file lock for a journal beside the store.
    """
    if isinstance(storage, optuna.storages.RDBStorage):
        with _pg_lock(storage.engine, f"raidsweep-study-{sweep_dir.name}"):
            yield
        return
    sweep_dir.mkdir(parents=True, exist_ok=True)
    with open(sweep_dir / "study.lock", "a") as fh:
        # Another sweeper holds it for one ask or tell (milliseconds); one holding it for
        # minutes has hung, and waiting for ever would hang this sweep too.
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StudyLockedError(
                        f"the study of {sweep_dir.name} is locked by another process "
                        f"({sweep_dir / 'study.lock'}) for more than {LOCK_TIMEOUT_S:g} s"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class SweepStudy:
    """The sweep's study with the storage it lives in: asks, tells and reads through Optuna's
    public API, and serialises one worker's read-then-write steps (:meth:`lock`)."""

    def __init__(
        self, study: optuna.Study, storage: optuna.storages.BaseStorage, sweep_dir: Path
    ) -> None:
        self.study = study
        self.storage = storage
        self.sweep_dir = sweep_dir
        self._id = storage.get_study_id_from_name(study.study_name)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """See :func:`study_lock`; StudyLockedError when another sweeper holds it too long."""
        with study_lock(self.storage, self.sweep_dir):
            yield

    def ask(self) -> optuna.Trial:
        return self.study.ask()

    def from_queue(self, trial: optuna.Trial) -> bool:
        """Whether ``ask`` gave an enqueued trial (not a new point from the sampler)."""
        trial_id = self.storage.get_trial_id_from_study_id_trial_number(self._id, trial.number)
        return "fixed_params" in self.storage.get_trial_system_attrs(trial_id)

    def tell(
        self,
        trial: optuna.Trial | int,
        values: list[float] | None = None,
        *,
        state: TrialState | None = None,
    ) -> None:
        """Optuna's tell; TrialEndedElsewhere when another process has ended the trial
        meanwhile (Optuna's ValueError, or its UpdateFinishedTrialError in a race)."""
        try:
            self.study.tell(trial, values, state=state)
        except (ValueError, optuna.exceptions.UpdateFinishedTrialError):
            number = trial if isinstance(trial, int) else trial.number
            frozen = self.study.get_trials(deepcopy=False)[number]
            if frozen.state == TrialState.RUNNING:
                raise  # a bad value, not another process
            raise TrialEndedElsewhere(
                number, frozen.user_attrs.get("config_key"), frozen.state
            ) from None

    def recover(self, space: ConfigSpace | None = None, *, worker: str | None = None) -> int:
        """:func:`recover` this sweeper's trials left RUNNING (``worker``'s, or without a
        worker every one known dead: see :meth:`workers_not_dead`). Call it holding
        :meth:`lock`: a worker claims a trial only under it, after taking its run lock."""
        spare = self.workers_not_dead() if worker is None else {}
        return recover(self.study, space, worker=worker, spare=spare)

    def workers_not_dead(self) -> dict[str, str]:
        """The workers with trials RUNNING that a sweeper without a worker must leave alone,
        each with why: the worker is running now (its run lock in this store is held), or
        it never ran from this store (no run lock here: a worker of a shared PostgreSQL
        study on another machine, whether it still runs cannot be told from here)."""
        spare: dict[str, str] = {}
        for t in self.trials(TrialState.RUNNING):
            name = t.user_attrs.get("worker")
            if not name or name in spare:
                continue
            lock = worker_lock(self.sweep_dir, str(name))
            if not lock.exists():
                spare[name] = "it never ran from this store: it may be running elsewhere"
            elif holder_of(lock) is not None:
                spare[name] = "it is running"
        return spare

    def enqueue(self, configs: list[Configuration], space: ConfigSpace) -> int:
        return enqueue(self.study, configs, space)

    def enqueue_build(self, config: Configuration, space: ConfigSpace) -> None:
        """A trial that fixes ``config``'s RAID build, the sampler choosing the rest."""
        self.study.enqueue_trial(build_params(config, space))

    def completed_keys(self) -> set[str]:
        return completed_keys(self.study)

    def running_keys(self, *, besides: int | None = None) -> set[str]:
        return running_keys(self.study, besides=besides)

    def has_waiting(self) -> bool:
        return has_waiting(self.study)

    def waiting_keys(self) -> set[str]:
        return waiting_keys(self.study)

    def trials(self, *states: TrialState) -> list[optuna.trial.FrozenTrial]:
        """The study's trials in these states (all without), as stored (not copied)."""
        return self.study.get_trials(deepcopy=False, states=states or None)


def open_sweep_study(spec: SweepSpec, sweep_dir: Path) -> SweepStudy:
    """Create or load the sweep's study (journal file beside its results, or PostgreSQL)."""
    storage = study_storage(spec, sweep_dir)
    if spec.study.mode == "optimize" and spec.study.sampler == "tpe":
        sampler: optuna.samplers.BaseSampler = optuna.samplers.TPESampler(
            seed=spec.study.seed, multivariate=True, group=True, n_startup_trials=5
        )
    else:
        # Random search; in grid mode only enqueued trials run and it is never asked.
        sampler = optuna.samplers.RandomSampler(seed=spec.study.seed)
    with study_lock(storage, sweep_dir):  # two workers creating the same study at once
        study = optuna.create_study(
            study_name=spec.name,
            storage=storage,
            sampler=sampler,
            directions=["maximize"] * len(spec.classes),
            load_if_exists=True,
        )
        # optuna-dashboard and every Optuna plot name the objectives "redo_log (IOPS)" …
        names = [c.objective_name for c in load_classes(spec.classes)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            if study.metric_names != names:
                study.set_metric_names(names)
    return SweepStudy(study, storage, sweep_dir)


def open_study(spec: SweepSpec, sweep_dir: Path) -> optuna.Study:
    """The sweep's Optuna study itself (see :func:`open_sweep_study`)."""
    return open_sweep_study(spec, sweep_dir).study


def suggest_configuration(trial: optuna.Trial, space: ConfigSpace) -> Configuration:
    """Define-by-run: ``ranks`` and ``stripe_kib`` exist only for multi-rank layouts (and
    ranks given per RAID level only for their level); the declared dimensions the space lists
    are parameters of their own names."""
    raid = trial.suggest_categorical("raid_level", list(space.raid_level))
    layout = trial.suggest_categorical("layout", list(space.layout))
    ranks = stripe = None
    if layout in MULTI_RANK_LAYOUTS:
        # Per-layout and per-level value lists get their own parameter names: one Optuna
        # parameter keeps one set of choices.
        ranks = trial.suggest_categorical(
            space.parameter("ranks", raid, layout), space.values("ranks", layout, raid)
        )
        stripe = trial.suggest_categorical(
            space.parameter("stripe_kib", raid, layout), space.values("stripe_kib", layout)
        )
    cache = trial.suggest_categorical("cache_policy", list(space.cache_policy))
    snap = dr = False
    if _optional_dimension(space, "snapshots"):
        snap = trial.suggest_categorical("snapshots", list(space.snapshots))
    if _optional_dimension(space, "data_reduction"):
        dr = trial.suggest_categorical("data_reduction", list(space.data_reduction))
    # the dimensions the platform declares, each an Optuna parameter of its own name
    declared = {n: trial.suggest_categorical(n, values) for n, values in space.dimensions.items()}
    return Configuration(raid, layout, cache, ranks, stripe, snap, dr, declared)


def _optional_dimension(space: ConfigSpace, dim: str) -> bool:
    """Whether the study asks for an on/off dimension (it does unless the space has it off)."""
    values = getattr(space, dim)
    return len(values) > 1 or bool(values[0])


def recover(
    study: optuna.Study,
    space: ConfigSpace | None = None,
    *,
    worker: str | None = None,
    spare: Collection[str] = (),
) -> int:
    """Mark trials left RUNNING by a crash or kill as failed and, given the space, enqueue
    their configurations again, first in line (any mode: optimize mode too would otherwise
    leave a half-measured configuration behind). Returns how many trials were recovered.

    With several sweepers on one study, only ``worker``'s own trials are its to recover: a
    RUNNING trial of another worker is being measured right now. Without ``worker``, the
    trials of every worker but those in ``spare`` (workers alive, or not known dead).
    """
    stale = [
        t
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if (t.user_attrs.get("worker") == worker)
        or (worker is None and t.user_attrs.get("worker") not in spare)
    ]
    lost = [t.user_attrs["config_key"] for t in stale if "config_key" in t.user_attrs]
    for t in stale:
        study.tell(t.number, state=TrialState.FAIL)
    if space is not None:
        enqueue(study, [Configuration.from_key(k) for k in lost], space)
    return len(stale)


def completed_keys(study: optuna.Study) -> set[str]:
    return _claimed_keys(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def waiting_keys(study: optuna.Study) -> set[str]:
    return _waiting_keys(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))


def _claimed_keys(trials: list[optuna.trial.FrozenTrial]) -> set[str]:
    """The configurations of these asked trials (a trial carries its key once asked)."""
    return {t.user_attrs["config_key"] for t in trials if "config_key" in t.user_attrs}


def _waiting_keys(trials: list[optuna.trial.FrozenTrial]) -> set[str]:
    """The configurations these trials wait to be asked for."""
    waiting = (t for t in trials if t.state == TrialState.WAITING)
    # An enqueued trial has no params until asked; Optuna keeps them as "fixed_params".
    fixed = (t.system_attrs.get("fixed_params") for t in waiting)
    # A trial that fixes only the build (build_params) is not one configuration yet.
    return {Configuration.from_params(p).key for p in fixed if p and "cache_policy" in p}


def build_params(config: Configuration, space: ConfigSpace) -> dict[str, Any]:
    """The parameters of ``config``'s RAID build (level, layout, rank count): fixed in a trial,
    the sampler chooses only what changes without a format (stripe, cache, features)."""
    params: dict[str, Any] = {"raid_level": config.raid_level, "layout": config.layout}
    if config.layout in MULTI_RANK_LAYOUTS:
        params[space.parameter("ranks", config.raid_level, config.layout)] = config.ranks
    return params


def trial_params(config: Configuration, space: ConfigSpace) -> dict[str, Any]:
    """The configuration as the trial parameters ``suggest_configuration`` asks for."""
    params = config.params()
    for dim in ("snapshots", "data_reduction"):
        # params() leaves an off feature out; the study asks for it, so it must be fixed too,
        # or the sampler would choose it for the enqueued trial.
        if _optional_dimension(space, dim):
            params[dim] = getattr(config, dim)
    if config.layout in MULTI_RANK_LAYOUTS:
        for dim in MULTI_RANK_COLUMNS:
            params[space.parameter(dim, config.raid_level, config.layout)] = params.pop(dim)
    return params


def enqueue(study: optuna.Study, configs: list[Configuration], space: ConfigSpace) -> int:
    """Enqueue configurations that are neither completed, pruned, waiting, nor being measured
    (by another worker sharing the study).

    The trials are read once: another worker tells its trials outside the study's lock, and
    a configuration read as running by one read and as complete by the next would be in
    neither set, and measured again.
    """
    trials = study.get_trials(deepcopy=False)
    settled = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.PRUNED)
    done = _claimed_keys([t for t in trials if t.state in settled]) | _waiting_keys(trials)
    n = 0
    for config in configs:
        if config.key not in done:
            study.enqueue_trial(trial_params(config, space))
            done.add(config.key)
            n += 1
    return n


def has_waiting(study: optuna.Study) -> bool:
    return bool(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))


def running_keys(study: optuna.Study, *, besides: int | None = None) -> set[str]:
    """Configurations being measured now (by this or another worker), but trial ``besides``."""
    trials = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    return _claimed_keys([t for t in trials if t.number != besides])
