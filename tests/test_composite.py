"""Composite cells (several streams at the same time, one run): their keys, their place in
the matrix, their job file, and fio's output of them (recorded from real fio) read as one run
with each stream's figures kept."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from sweeper.fio import FioParseError, parse_fio_output, render_job
from sweeper.spec import Matrix
from sweeper.sweep.records import stream_figures
from sweeper.workload import WorkloadCell
from tests.support.paths import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "fio" / "composite_randrw70_8k_qd4x1_write_64k_qd1x1.json"
KEY = "randrw70/8k/qd4x1+write/64k/qd1x1"


def test_a_composite_key_names_its_streams() -> None:
    cell = WorkloadCell.parse(KEY)
    assert cell.key == KEY and [s.key for s in cell.streams] == KEY.split("+")
    assert cell.pattern_name == "randrw70+write" and cell.curve == KEY
    with pytest.raises(ValueError, match="names the same stream twice"):
        WorkloadCell.parse("read/4k/qd1x1+read/4k/qd1x1")
    with pytest.raises(ValueError, match="closed loops"):
        WorkloadCell.parse("read/4k/qd1x1+write/4k/qd1x1/rate50")


def test_the_matrix_declares_composites_and_refuses_bad_ones() -> None:
    m = Matrix.model_validate(
        {"patterns": ["read"], "block_sizes": ["4k"], "composite": [KEY.split("+")]}
    )
    assert [c.key for c in m.cells()] == ["read/4k/qd1x1", KEY]
    with pytest.raises(ValidationError, match=r"\[0\] a composite cell has 2 to 8 streams"):
        Matrix.model_validate(
            {"patterns": ["read"], "block_sizes": ["4k"], "composite": [["read/4k/qd1x1"]]}
        )


def test_the_job_file_runs_the_streams_together_in_groups_of_their_own() -> None:
    text = render_job(
        WorkloadCell.parse(KEY), filename="f", engine="libaio", runtime_s=1, ramp_s=0, size=2**25
    )
    assert text.count("new_group\n") == 1 and "stonewall\n" not in text
    assert "rw=randrw\nrwmixread=70\nbs=8k\niodepth=4" in text and "rw=write\nbs=64k" in text


def test_the_output_is_one_run_with_each_streams_figures() -> None:
    text = FIXTURE.read_text()
    with pytest.raises(FioParseError, match="2 job groups"):
        parse_fio_output(text)
    result = parse_fio_output(text, concurrent_groups=True)
    raw = json.loads(text)["jobs"]
    assert [s.group for s in result.streams] == [0, 1]
    data, log = result.streams
    assert data.read is not None and data.read.iops == pytest.approx(raw[0]["read"]["iops"])
    assert log.read is None and log.write is not None
    assert log.write.iops == pytest.approx(raw[1]["write"]["iops"])
    assert result.write is not None and data.write is not None
    assert result.write.iops == pytest.approx(data.write.iops + log.write.iops)
    figures = stream_figures(WorkloadCell.parse(KEY), result)
    assert [f["cell"] for f in figures] == KEY.split("+")
    assert figures[1]["iops"] == pytest.approx(raw[1]["write"]["iops"])
