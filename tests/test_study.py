"""The study: define-by-run configurations, enqueueing without duplicates, crash recovery."""

from __future__ import annotations

import fcntl
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

from sweeper.configuration import enumerate_configurations
from sweeper.spec import load_spec
from sweeper.study import (
    JOURNAL_LOCK_FILE,
    STUDY_FILE,
    JournalFlock,
    completed_keys,
    enqueue,
    open_study,
    recover,
    study_storage,
    suggest_configuration,
    waiting_keys,
)
from tests.support.paths import QUICK, ROOT


def test_enqueue_twice_adds_nothing_and_recovery_reenqueues(tmp_path: Path) -> None:
    spec, _ = load_spec(QUICK)
    configs = enumerate_configurations(spec.config_space)
    study = open_study(spec, tmp_path)
    assert enqueue(study, configs, spec.config_space) == 9
    assert enqueue(study, configs, spec.config_space) == 0
    assert waiting_keys(study) == {c.key for c in configs}

    trial = study.ask()  # the first in build order, as enqueued
    config = suggest_configuration(trial, spec.config_space)
    trial.set_user_attr("config_key", config.key)
    assert config == configs[0]
    assert "ranks" not in trial.params  # single_rank has no rank count

    # a crash leaves the trial RUNNING; reopening the journal finds and fails it
    reopened = open_study(spec, tmp_path)
    assert recover(reopened) == 1
    assert reopened.trials[trial.number].state == TrialState.FAIL
    assert (
        enqueue(reopened, configs, spec.config_space) == 1
    )  # only the lost configuration comes back
    assert completed_keys(reopened) == set()


class _ToldBetweenReads(JournalStorage):
    """The journal as a second worker reads it, ``then`` running once after its ``after``-th
    read of the trials: what the first worker's tell (outside the study's lock) can do."""

    def __init__(self, path: Path, after: int, then: Callable[[], None]) -> None:
        super().__init__(JournalFileBackend(str(path)))
        self.reads, self.after = 0, after
        self.then: Callable[[], None] | None = then

    def get_all_trials(self, *args: Any, **kwargs: Any) -> list[optuna.trial.FrozenTrial]:
        trials = super().get_all_trials(*args, **kwargs)
        self.reads += 1
        if self.reads == self.after:
            self.land()
        return trials

    def land(self) -> None:
        then, self.then = self.then, None
        if then is not None:
            then()


@pytest.mark.parametrize("after", [1, 2, 3, 4, 5])
def test_a_configuration_completed_while_another_worker_enqueues_is_not_queued_again(
    tmp_path: Path, after: int
) -> None:
    spec, _ = load_spec(QUICK)
    configs = enumerate_configurations(spec.config_space)
    first = open_study(spec, tmp_path)
    enqueue(first, configs, spec.config_space)
    trial = first.ask()
    measured = suggest_configuration(trial, spec.config_space)
    trial.set_user_attr("config_key", measured.key)
    values = [1.0] * len(first.directions)
    # The second worker enqueues the grid while the first tells its configuration complete,
    # after whichever of the second's reads of the trials (or after all of them).
    storage = _ToldBetweenReads(tmp_path / STUDY_FILE, after, lambda: first.tell(trial, values))
    second = optuna.load_study(study_name=spec.name, storage=storage)
    added = enqueue(second, configs, spec.config_space)
    storage.land()
    assert added == 0
    assert measured.key in completed_keys(second)
    assert measured.key not in waiting_keys(second)
    assert len(waiting_keys(second)) == len(configs) - 1


def test_recovery_puts_the_lost_configuration_back_in_optimize_mode(tmp_path: Path) -> None:
    spec, _ = load_spec(QUICK)
    spec = spec.model_copy(update={"study": spec.study.model_copy(update={"mode": "optimize"})})
    study = open_study(spec, tmp_path)
    trial = study.ask()
    config = suggest_configuration(trial, spec.config_space)
    trial.set_user_attr("config_key", config.key)
    reopened = open_study(spec, tmp_path)  # the worker died mid-configuration
    assert recover(reopened, spec.config_space) == 1
    assert waiting_keys(reopened) == {config.key}
    again = reopened.ask()  # the next trial is the lost configuration, whatever the sampler
    assert suggest_configuration(again, spec.config_space) == config


def test_multi_rank_layouts_suggest_ranks_and_stripe(tmp_path: Path) -> None:
    spec, _ = load_spec(QUICK)
    study = open_study(spec, tmp_path)
    multi = [c for c in enumerate_configurations(spec.config_space) if c.ranks]
    enqueue(study, multi[:1], spec.config_space)
    trial = study.ask()
    config = suggest_configuration(trial, spec.config_space)
    assert config == multi[0]
    # a per-layout value list (stripe_kib here) gives each layout's parameter its own choices
    layout = multi[0].layout
    assert trial.params["ranks"] == 4
    assert trial.params[f"stripe_kib_{layout}"] == multi[0].stripe_kib


def test_enqueued_configurations_keep_their_features_off(tmp_path: Path) -> None:
    """With snapshots and data reduction as dimensions, an enqueued configuration with both
    off is asked back with both off (the sampler must not choose them)."""
    spec, _ = load_spec(QUICK)
    space = spec.config_space.model_copy(
        update={
            "snapshots": [False, True],
            "data_reduction": [False, True],
            "raid_level": ["raid5"],
            "layout": ["single_rank"],
        }
    )
    configs = enumerate_configurations(space)
    assert len(configs) == 4
    study = open_study(spec, tmp_path)
    enqueue(study, configs, space)
    asked = []
    for _ in configs:
        trial = study.ask()
        asked.append(suggest_configuration(trial, space).key)
        study.tell(trial, [1.0] * len(spec.classes))
    assert asked == [c.key for c in configs]


def test_a_journal_lock_held_by_a_killed_process_does_not_stall_the_next_sweeper(
    tmp_path: Path,
) -> None:
    # A sweeper killed in the middle of a journal append: with Optuna's lock files the next
    # one waited 30 s for the lock to be called stale; flock(2) dies with its process.
    lock_path = tmp_path / JOURNAL_LOCK_FILE
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from sweeper.study import JournalFlock;"
            " JournalFlock(Path(sys.argv[1])).acquire(); print('held', flush=True);"
            " time.sleep(600)",
            str(lock_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    # held: another process cannot take it
    with open(lock_path) as fh, pytest.raises(BlockingIOError):
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    storage = study_storage(load_spec(QUICK)[0], tmp_path)
    started = time.monotonic()
    study = optuna.create_study(study_name="after-kill", storage=storage)
    study.enqueue_trial({"x": 1})
    assert time.monotonic() - started < 5
    assert len(study.get_trials()) == 1
    assert not (tmp_path / "study.journal.lock").exists()  # Optuna's own lock is not used


def test_threads_of_one_sweeper_take_turns_on_the_journal_lock(tmp_path: Path) -> None:
    lock = JournalFlock(tmp_path / JOURNAL_LOCK_FILE)
    inside: list[int] = []
    overlaps: list[int] = []

    def work(i: int) -> None:
        for _ in range(50):
            lock.acquire()
            try:
                if inside:
                    overlaps.append(i)
                inside.append(i)
                time.sleep(0.0005)
                inside.remove(i)
            finally:
                lock.release()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == []
