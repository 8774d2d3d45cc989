"""The Optuna study that decides which configuration to build next (ask/tell).

The package's public API, re-exported from its modules: the workers of one sweep
(``workers``), the study's locks (``locks``) and storage (``storage``), the mapping between a
configuration and a trial's parameters (``params``), the queries over trials (``queries``)
and the study as the sweeper uses it (``sweep_study``). ``LOCK_TIMEOUT_S`` is read where it
is used, in ``sweeper.study.locks``: change it there.
"""

from sweeper.study.locks import JournalFlock, StudyLockedError, study_lock
from sweeper.study.params import build_params, suggest_configuration, trial_params
from sweeper.study.queries import (
    completed_keys,
    enqueue,
    has_waiting,
    running_keys,
    waiting_keys,
)
from sweeper.study.storage import (
    JOURNAL_LOCK_FILE,
    STUDY_FILE,
    storage_problem,
    study_storage,
)
from sweeper.study.sweep_study import (
    SweepStudy,
    TrialEndedElsewhere,
    open_study,
    open_sweep_study,
    recover,
)
from sweeper.study.workers import live_workers, worker_lock, workers_refusal

__all__ = [
    "JOURNAL_LOCK_FILE",
    "STUDY_FILE",
    "JournalFlock",
    "StudyLockedError",
    "SweepStudy",
    "TrialEndedElsewhere",
    "build_params",
    "completed_keys",
    "enqueue",
    "has_waiting",
    "live_workers",
    "open_study",
    "open_sweep_study",
    "recover",
    "running_keys",
    "storage_problem",
    "study_lock",
    "study_storage",
    "suggest_configuration",
    "trial_params",
    "waiting_keys",
    "worker_lock",
    "workers_refusal",
]
