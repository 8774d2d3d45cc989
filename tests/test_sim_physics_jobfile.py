"""The simulated load reads a job file's pattern as fio does: a sequential mix reads
``rwmixread`` of its I/O; trim, which the model does not know, is refused."""

from __future__ import annotations

import pytest

from sweeper.load.sim import job_from_options


@pytest.mark.parametrize("rw", ["rw", "readwrite"])
def test_a_sequential_mix_reads_its_rwmixread(rw: str) -> None:
    job = job_from_options({"rw": rw, "rwmixread": "70", "bs": "8k"}, 1024**3)
    assert job.read_fraction == pytest.approx(0.7)
    assert job.sequential


def test_a_sequential_mix_reads_half_by_default_as_fio_does() -> None:
    job = job_from_options({"rw": "rw", "bs": "8k"}, 1024**3)
    assert job.read_fraction == pytest.approx(0.5)


@pytest.mark.parametrize("rw", ["trim", "randtrim", "trimwrite"])
def test_trim_is_refused(rw: str) -> None:
    with pytest.raises(ValueError, match="trim"):
        job_from_options({"rw": rw, "bs": "8k"}, 1024**3)
