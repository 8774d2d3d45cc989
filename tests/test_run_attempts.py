"""Every attempt at a run can be read: a cell that failed twice before it succeeded keeps both
failed attempts beside its good run, each with its error and job file; the store lists them
and reads any one, ``raidsweep disclose RUN --attempt N`` prints it and the app's Run details
page chooses it.

The store API is checked on every backend of ``tests/test_store.py``; the CLI and the app on
a one-run sweep of the simulated array whose run gets two failed attempts, written as a sweep
writes them (``put_run``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from sweeper.store import ParquetStore, ResultsStore, RunAddress
from tests.support.apptest import open_app
from tests.support.cli import cli
from tests.support.specs import class_measuring, one_cell_sim, write_spec
from tests.support.sweeps import sweep
from tests.test_store import BACKENDS, crash_after_part_written, run_row

A = "raid10/single_rank/wb-ra"
ADDRESS = RunAddress("s1", A, "randread/8k/qd1x1", 1)
SWEEP = "tries"
#: when the good run finished; its failed attempts finished a minute and two before
GOOD_AT = datetime(2026, 11, 29, 9, 32, 12, tzinfo=UTC)


def _failed_attempt(
    row: dict[str, Any], number: int, good_at: datetime = GOOD_AT
) -> dict[str, Any]:
    """``row`` as its failed attempt ``number`` (1 or 2), finished before the good run (at
    ``good_at``), with an error and a job file of its own."""
    finished = good_at - timedelta(minutes=3 - number)
    return row | {
        "status": "failed",
        "error": f"fio exited 1: attempt {number} boom",
        "job_file": f"[global]\n# attempt {number}\n",
        "iops": None,
        "mbps": None,
        "read_iops": None,
        "started_at": finished - timedelta(seconds=30),
        "finished_at": finished,
    }


def _failed_twice_then_good(store: ResultsStore, row: dict[str, Any]) -> None:
    """The cell of ``row`` failed twice, then succeeded (``row`` itself, finished at GOOD_AT)."""
    for number in (2, 1):  # stored out of order: the order made is by when they finished
        assert store.put_run(_failed_attempt(row, number))
    store.put_run(row | {"finished_at": GOOD_AT})


@pytest.fixture(params=sorted(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ResultsStore:
    return BACKENDS[request.param](tmp_path / "store")


# the store -----------------------------------------------------------------------------------
class TestRunAttempts:
    def test_failed_attempts_in_the_order_made_then_the_good_run(self, store: ResultsStore) -> None:
        _failed_twice_then_good(store, run_row(config=A))
        attempts = store.run_attempts(ADDRESS.run_id)
        assert [a["status"] for a in attempts] == ["failed", "failed", "ok"]
        assert [a["error"] for a in attempts] == [
            "fio exited 1: attempt 1 boom",
            "fio exited 1: attempt 2 boom",
            None,
        ]
        finished = [a["finished_at"] for a in attempts]
        assert finished == sorted(finished) and finished[-1] == GOOD_AT

    def test_each_attempt_reads_whole_and_the_default_is_unchanged(
        self, store: ResultsStore
    ) -> None:
        _failed_twice_then_good(store, run_row(config=A))
        run_id = ADDRESS.run_id
        first, second, good = (store.run_detail(run_id, attempt=n) for n in (1, 2, 3))
        assert first and first["job_file"] == "[global]\n# attempt 1\n"
        assert second and second["error"] == "fio exited 1: attempt 2 boom"
        assert good and good["status"] == "ok" and good["iops"] == 1000.0
        assert store.run_detail(run_id) == good
        with pytest.raises(ValueError, match="1 to 3"):
            store.run_detail(run_id, attempt=4)
        with pytest.raises(ValueError, match="1 to 3"):
            store.run_detail(run_id, attempt=0)

    def test_a_run_that_never_succeeded_shows_its_latest(self, store: ResultsStore) -> None:
        row = run_row(config=A)
        for number in (1, 2):
            store.put_run(_failed_attempt(row, number))
        assert [a["status"] for a in store.run_attempts(ADDRESS.run_id)] == ["failed"] * 2
        latest = store.run_detail(ADDRESS.run_id)
        assert latest == store.run_detail(ADDRESS.run_id, attempt=2)
        assert latest and latest["error"] == "fio exited 1: attempt 2 boom"

    def test_no_such_run_has_no_attempts(self, store: ResultsStore) -> None:
        _failed_twice_then_good(store, run_row(config=A))
        for run_id in ("0" * 24, "not a run id"):
            assert store.run_attempts(run_id) == []
            assert store.run_detail(run_id, attempt=1) is None

    def test_attempts_in_parts_and_files_each_once(self, store: ResultsStore) -> None:
        """Failed attempts compacted before the good run was stored (a part and a file), and a
        compaction killed between its part and its removal of the files (both)."""
        row = run_row(config=A)
        for number in (1, 2):
            store.put_run(_failed_attempt(row, number))
        store.compact("s1", A)
        store.put_run(row | {"finished_at": GOOD_AT})
        crash_after_part_written(store, A, keep=1)
        attempts = store.run_attempts(ADDRESS.run_id)
        assert [a["status"] for a in attempts] == ["failed", "failed", "ok"]
        detail = store.run_detail(ADDRESS.run_id, attempt=1)
        assert detail and detail["job_file"] == "[global]\n# attempt 1\n"


# the CLI and the app, on a sweep -------------------------------------------------------------
@pytest.fixture(scope="module")
def tried(tmp_path_factory: pytest.TempPathFactory) -> tuple[ParquetStore, str, str]:
    """A sweep of two runs, the first of which failed twice before it succeeded: the store,
    that run and the other (one attempt)."""
    folder = tmp_path_factory.mktemp("run-attempts")
    spec = one_cell_sim(SWEEP, ["raid5", "raid10"])
    spec["classes"] = [class_measuring(folder, spec["matrix"])]
    store, outcome = sweep(write_spec(folder, spec, SWEEP), folder / "store")
    assert outcome.complete
    retried, once = sorted(store.runs(SWEEP)["run_id"])
    good = store.run_detail(retried)
    assert good is not None
    for number in (1, 2):
        assert store.put_run(_failed_attempt(good, number, good["finished_at"]))
    return store, retried, once


def test_disclose_says_there_are_attempts_and_reads_each(
    tried: tuple[ParquetStore, str, str],
) -> None:
    store, run_id, once = tried
    shown = cli("disclose", run_id, "--store", store.root)
    assert shown.returncode == 0, shown.stderr
    assert yaml.safe_load(shown.stdout)["status"] == "ok"
    assert "3 attempts (2 failed, then the good run); this is attempt 3" in shown.stderr
    assert f"raidsweep disclose {run_id} --attempt N (1 to 3)" in shown.stderr

    first = cli("disclose", run_id, "--store", store.root, "--attempt", "1", "--format", "json")
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)  # the note is on stderr: stdout stays whole JSON
    assert doc["status"] == "failed" and doc["error"] == "fio exited 1: attempt 1 boom"
    assert doc["job_file"] == "[global]\n# attempt 1\n"
    assert "this is attempt 1" in first.stderr

    single = cli("disclose", once, "--store", store.root)
    assert single.returncode == 0 and single.stderr == ""


@pytest.mark.parametrize("attempt", ["0", "4"])
def test_disclose_of_no_such_attempt_exits_2_naming_the_range(
    tried: tuple[ParquetStore, str, str], attempt: str
) -> None:
    store, run_id, _ = tried
    refused = cli("disclose", run_id, "--store", store.root, "--attempt", attempt, columns=200)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert (
        refused.stderr.strip() == f"error: --attempt: {attempt} is not 1 to 3, the run's attempts"
    )


def test_disclose_of_a_sweeps_attempt_is_refused(tried: tuple[ParquetStore, str, str]) -> None:
    store, *_ = tried
    refused = cli("disclose", SWEEP, "--store", store.root, "--attempt", "1")
    assert refused.returncode == 2 and refused.stdout == ""
    assert "--attempt: a run's, not a sweep's" in refused.stderr


def _run_details(monkeypatch: pytest.MonkeyPatch, store: ParquetStore, run_id: str) -> AppTest:
    """Run details on ``run_id``, chosen as a heatmap cell's runs choose it."""
    at = open_app(monkeypatch, store.root)
    at.switch_page("app_pages/run_details.py").run()
    at.session_state["run_pick"] = run_id
    return _shown(at.run())


def _shown(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    return at


def _status(at: AppTest) -> str:
    return next(m.value for m in at.metric if m.label == "Status")


def test_run_details_chooses_an_attempt(
    monkeypatch: pytest.MonkeyPatch, tried: tuple[ParquetStore, str, str]
) -> None:
    store, run_id, once = tried
    at = _run_details(monkeypatch, store, run_id)
    choice = at.selectbox(key="run_attempt")
    assert choice.label == "Attempt" and choice.value == 3  # the good run, as without a choice
    labels = [
        a["finished_at"].astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        for a in store.run_attempts(run_id)
    ]
    assert choice.options == [
        f"1 of 3 · failed · {labels[0]}",
        f"2 of 3 · failed · {labels[1]}",
        f"3 of 3 · ok · {labels[2]}",
    ]
    assert _status(at) == "ok" and not at.error

    _shown(choice.set_value(1).run())
    assert _status(at) == "failed"
    assert [c.value for c in at.code][:2] == [
        "fio exited 1: attempt 1 boom",
        "[global]\n# attempt 1",
    ]

    # a run of one attempt has no choice; back on the retried run, its default again
    at.session_state["run_pick"] = once
    _shown(at.run())
    assert not [s for s in at.selectbox if s.label == "Attempt"] and _status(at) == "ok"
    at.session_state["run_pick"] = run_id
    _shown(at.run())
    assert at.selectbox(key="run_attempt").value == 3 and _status(at) == "ok"


def test_run_details_keeps_the_attempt_chosen_across_pages(
    monkeypatch: pytest.MonkeyPatch, tried: tuple[ParquetStore, str, str]
) -> None:
    """Another page (the heatmaps, by the sidebar) and back: the attempt chosen is shown."""
    store, run_id, _ = tried
    at = _run_details(monkeypatch, store, run_id)
    _shown(at.selectbox(key="run_attempt").set_value(2).run())
    assert _status(at) == "failed"
    _shown(at.switch_page("app_pages/heatmaps.py").run())
    _shown(at.switch_page("app_pages/run_details.py").run())
    assert at.selectbox(key="run_attempt").value == 2 and _status(at) == "failed"
