"""The Sweeper: one sweep spec on one platform, its locks, run to completion or budget."""

from __future__ import annotations

import contextlib
import errno
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recommender.classes import load_classes
from recommender.tradeoffs import merge_hardware
from sweeper.errors import InputError, StoreError
from sweeper.fio.runner import fio_needs, versions_problems
from sweeper.locking import LockHeld, describe_holder, hold, holders, lock_record, target_locks
from sweeper.operator_room import OperatorPrompt
from sweeper.platforms import get_platform
from sweeper.spec import SweepSpec
from sweeper.store import ResultsStore
from sweeper.study import storage_problem, worker_lock
from sweeper.sweep import loop
from sweeper.sweep.plan import make_plan
from sweeper.sweep.progress import Outcome, Progress
from sweeper.sweep.records import RunContext, host_disclosure, now, raidsweep_version
from sweeper.sweep.warm import warm_configurations


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
        prompt: OperatorPrompt | None = None,
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
        #: the terminal an operator answers at (the manual platform), when a person sits there
        self.prompt = prompt
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
        # fio too old for what the matrix asks (a sync mode, an engine), on any host that runs
        # it: refused here, not in every run after the storage was reconfigured
        old_fio = versions_problems(self.platform.fio_versions(), fio_needs(spec.matrix))
        if old_fio:
            raise InputError(str(spec_path or spec.name), old_fio)
        problem = storage_problem(spec)
        if problem is not None:  # before anything is written, and for --check too
            raise InputError(str(spec_path or spec.name), [f"study.storage: {problem}"])
        #: what the trade-offs and media-specific limits need to know of the drives
        self.hardware = merge_hardware(
            self.platform.hardware(), spec.hardware.model_dump(mode="json")
        )
        cell_keys = [c.key for c in spec.matrix.cells()]
        self.classes = load_classes(spec.classes, self.hardware.get("media"), cell_keys)
        #: a previous sweep's best configurations, measured first (``study.warm_start``)
        self.warm = warm_configurations(spec, self.classes, spec_path)
        self.plan = make_plan(spec, self.platform)
        self.host = host_disclosure()
        #: what every run record of this sweep shares
        self.context = RunContext(spec.platform, spec.matrix, inventory, self.host)

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
        who = "" if self.worker is None else f" (worker {self.worker})"
        mine = (
            self.sweep_dir / ".run.lock"
            if self.worker is None
            else worker_lock(self.sweep_dir, self.worker)
        )
        return {mine: f"sweep {self.spec.name!r}{who} in {self.store.root}"}

    def busy(self) -> list[LockHeld]:
        """Who else runs this sweep (and worker) or drives its storage right now, each as
        the refusal a run would get; takes and creates nothing (``--check``, ``plan``)."""
        found = holders(self.locks())
        workers = loop.workers_at_work(self) if self.worker is None else None
        return found if workers is None else [*found, workers]

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
        if self.worker is None:
            loop.refuse_beside_workers(self)

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
                outcome = loop.run(self)
                outcome.stale_locks = stale
                return outcome
        except OSError as exc:
            # Before the first run (the lock, the sweep's record, the study): a store that
            # cannot be written is said with the file and what to do; later the sweep stops
            # cleanly on it (Outcome.stopped) with what is stored kept.
            # (a file of the store that cannot be made, as under /proc, is the store's too)
            missing = exc.errno in (errno.ENOENT, errno.ENOTDIR) and _inside(
                exc.filename, self.store.root
            )
            unwritable = exc.errno in loop.STORE_WRITE_ERRORS | {errno.EACCES, errno.EPERM}
            if not (unwritable or missing):
                raise
            raise StoreError(
                f"the store at {self.store.root} cannot be written ({exc.strerror}: "
                f"{exc.filename}); make it writable or free space there (or give another "
                "--store), then run again: the sweep resumes"
            ) from None


def _inside(filename: Any, root: Path) -> bool:
    return isinstance(filename, str | Path) and Path(filename).is_relative_to(root)


def run_sweep(spec: SweepSpec, inventory: Path, store: ResultsStore, **options: Any) -> Outcome:
    """Run (or resume) a sweep; ``options`` are those of :class:`Sweeper`."""
    return Sweeper(spec, inventory, store, **options).run()
