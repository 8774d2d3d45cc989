"""A run's telemetry where people read it: the app's Run details page (opened from a link in
the Curves page's list of runs) and the report, after a sweep with real fio on a loop device."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from recommender.views.runs import run_link
from sweeper.store import ParquetStore
from tests.support import devices
from tests.support.cli import cli
from tests.support.paths import ROOT
from tests.support.specs import local_spec, quick_fio_matrix
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, pd.DataFrame]]:
    """A two-point concurrency curve measured with real fio on a loop device: the store."""
    tmp = tmp_path_factory.mktemp("shown")
    with devices.loop_device(tmp / "loop.img", 32) as dev:
        options = {"target": dev, "allow": [dev], "fill": False}
        matrix = quick_fio_matrix("randread", concurrency=["1x1", "1x4"])
        store, _ = sweep(local_spec(tmp, "shown", options, matrix), tmp / "s")
        yield tmp / "s", store.runs("shown")


def _app(monkeypatch: pytest.MonkeyPatch, root: Path) -> AppTest:
    monkeypatch.setenv("RAIDSWEEP_STORE", str(root))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_curves_list_their_runs_with_links_to_run_details(
    monkeypatch: pytest.MonkeyPatch, swept: tuple[Path, pd.DataFrame]
) -> None:
    root, runs = swept
    at = _app(monkeypatch, root)
    at.switch_page("app_pages/curves.py").run()
    assert not at.exception, [e.message for e in at.exception]
    listed = at.dataframe[-1].value
    assert sorted(listed["details"]) == sorted(run_link(r, "shown") for r in runs["run_id"])


def test_run_details_opens_on_a_linked_run_and_shows_its_telemetry(
    monkeypatch: pytest.MonkeyPatch, swept: tuple[Path, pd.DataFrame]
) -> None:
    root, runs = swept
    run = runs.sort_values("cell_key").iloc[-1]
    at = _app(monkeypatch, root)
    at.query_params["run"] = run["run_id"]
    at.switch_page("app_pages/run_details.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.text_input(key="run_id").value == run["run_id"]
    assert any(run["cell_key"] in s.value for s in at.subheader)
    telemetry = at.dataframe[-1].value
    first = telemetry.iloc[0]
    assert first["load host CPU %"] == pytest.approx(run["host_cpu_pct"])
    assert first["block layer IOPS"] == pytest.approx(run["disk_iops"])
    assert first["fio IOPS"] == pytest.approx(run["iops"])
    assert first["fio system CPU %"] == pytest.approx(run["fio_sys_cpu_pct"])
    # a figure kept in the disclosure alone: the CPUs other programs used beside fio
    detail = ParquetStore(root).run_detail(run["run_id"]) or {}
    recorded = json.loads(detail["disclosure"])["telemetry"]["other_cpus"]
    assert recorded is not None and 0 <= recorded <= os.cpu_count()
    assert first["other programs' CPUs"] == pytest.approx(recorded)


def test_the_report_shows_the_runs_telemetry(swept: tuple[Path, pd.DataFrame]) -> None:
    root, runs = swept
    out = root.parent / "report.html"
    made = cli("report", "shown", "--store", root, "-o", out)
    assert made.returncode == 0, made.stderr
    section = out.read_text().split("<h3>Telemetry</h3>")[1].split("<h3>")[0]
    rows = section.split("<tr>")[2:]
    assert len(rows) == len(runs)
    for _, run in runs.iterrows():
        (row,) = [r for r in rows if f"<td>{run['cell_key']}</td>" in r]
        for col in ("disk_iops", "host_cpu_pct", "fio_sys_cpu_pct", "disk_util_pct"):
            assert f'<td class="num">{run[col]:,.1f}</td>' in row, (col, row)
