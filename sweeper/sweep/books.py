"""What a sweep keeps in memory of its store, so that its bookkeeping per configuration does
not grow with the store: the runs of the configurations measured so far.

Read from the store once; then this sweeper adds what it measured, and the configurations
another sweeper sharing the study finished are read one by one when the study shows them.
"""

from __future__ import annotations

import pandas as pd
from optuna.trial import TrialState

from sweeper.store import ResultsStore
from sweeper.study import SweepStudy

FINISHED = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
#: the order of ResultsStore.runs
ORDER = ["config_key", "cell_key", "repetition", "finished_at"]


class KnownRuns:
    """The sweep's ok runs, as :meth:`ResultsStore.runs` would read them now (but the runs of
    a configuration another sweeper is measuring right now)."""

    def __init__(self, store: ResultsStore, sweep_id: str, study: SweepStudy):
        self.store = store
        self.sweep_id = sweep_id
        self._frame = store.runs(sweep_id)
        self._pending: dict[str, pd.DataFrame] = {}
        #: trials accounted for: finished before the read, or asked by this sweeper
        self._seen = {t.number for t in study.trials(*FINISHED)}

    def mine(self, trial_number: int) -> None:
        """A trial this sweeper asked: what it measures comes through :meth:`put`."""
        self._seen.add(trial_number)

    def put(self, config_key: str, runs: pd.DataFrame) -> None:
        """``config_key``'s runs, all of them, in place of those known before."""
        self._pending[config_key] = runs

    def sync(self, study: SweepStudy) -> None:
        """Read the runs of configurations other sweepers finished since the last look."""
        for t in study.trials(*FINISHED):
            if t.number in self._seen:
                continue
            self._seen.add(t.number)
            key = t.user_attrs.get("config_key")
            if key is not None:
                self.put(key, self.store.runs(self.sweep_id, config_key=key))

    def runs(self, config_keys: set[str] | None = None) -> pd.DataFrame:
        """The runs of these configurations (of every one without)."""
        if self._pending:
            kept = self._frame[~self._frame["config_key"].isin(list(self._pending))]
            parts = [f for f in (kept, *self._pending.values()) if not f.empty]
            if parts:
                merged = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
                self._frame = merged.sort_values(ORDER, kind="stable", ignore_index=True)
            else:
                self._frame = kept
            self._pending = {}
        if config_keys is None:
            return self._frame
        return self._frame[self._frame["config_key"].isin(config_keys)]
