"""A run whose telemetry casts doubt on it is counted beside the figures it enters, like an
unsteady run: real fio on a loop device that a second fio uses at the same time, so the block
layer sees far more I/O than the sweep's fio reports (something else used the device)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from recommender import views
from recommender.data import load_recommendations
from tests.support import devices
from tests.support.cli import cli
from tests.support.specs import local_spec, quick_fio_matrix
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    with devices.loop_device(tmp_path / "loop.img", 32) as dev:
        yield dev


@pytest.fixture
def busy_neighbour(loop_device: str) -> Iterator[None]:
    """Another fio reading the same device all along (as another tenant would)."""
    proc = subprocess.Popen(
        [
            "fio",
            "--name=neighbour",
            f"--filename={loop_device}",
            "--rw=randread",
            "--bs=4k",
            "--direct=1",
            "--ioengine=psync",
            "--time_based",
            "--runtime=300",
            "--readonly",
            # the job as a thread of this process: a forked job is a session of its own
            # (fio calls setsid), and it read on alone for the rest of its 300 s after the
            # test killed its parent, beside the tests that came next
            "--thread",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


def _spec(tmp_path: Path, target: str) -> Path:
    options = {"target": target, "allow": [target], "fill": False}
    matrix = quick_fio_matrix("randread", engine="psync", runtime="3s", repetitions=2)
    return local_spec(tmp_path, "flagged", options, matrix)


def test_flagged_runs_are_counted_in_ranking_cli_report_and_app(
    tmp_path: Path, loop_device: str, busy_neighbour: None
) -> None:
    spec = _spec(tmp_path, loop_device)
    store, _ = sweep(spec, tmp_path / "s")
    runs = store.runs("flagged")
    assert len(runs) == 2 and (runs["status"] == "ok").all()
    flags = runs["telemetry_flag"].dropna().astype(str)
    assert len(flags) == 2 and all("block layer" in f for f in flags), list(flags)

    doc = cli("recommend", "flagged", "--store", tmp_path / "s", "--json")
    assert doc.returncode == 0, doc.stderr
    row = json.loads(doc.stdout)["classes"][0]["rankings"][0]
    assert row["flagged_runs"] == 2 and row["unsteady_runs"] >= 0

    text = cli("recommend", "flagged", "--store", tmp_path / "s", columns=200)
    assert text.returncode == 0, text.stderr
    assert "2 run(s) behind these figures are flagged by their telemetry" in text.stdout

    report = tmp_path / "report.html"
    made = cli("report", "flagged", "--store", tmp_path / "s", "-o", report)
    assert made.returncode == 0, made.stderr
    assert "2 run(s) flagged by their telemetry" in report.read_text()

    # The app's ranking table (the Recommendations page) carries the count as a column.
    (rec,) = load_recommendations(store, store.get_sweep("flagged"))
    assert list(views.recommendation_table(rec.ranked, prices=False)["flagged runs"]) == [2]
