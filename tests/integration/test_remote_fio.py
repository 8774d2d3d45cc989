"""The load behind linux_md and vsan's ``load: fio`` (the fio driver over SSH on several hosts
at once, the job on stdin, fio's JSON back), here with two hosts that are this machine (inventory connection
``local``) and real fio on a loop device; the lab and vsan tests reach it over SSH."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sweeper.fio import parse_fio_output
from sweeper.load import FioDriver, FioLoad, SshFio
from sweeper.remote import RemoteHost
from sweeper.spec import Matrix
from tests.support import devices
from tests.support.specs import quick_fio_matrix

pytestmark = pytest.mark.integration

MATRIX = quick_fio_matrix("randread", engine="psync", working_set="16m")


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    with devices.loop_device(tmp_path / "loop.img", 32) as dev:
        yield dev


def _runner(tmp_path: Path, device: str, fio: str = "fio") -> FioDriver:
    hosts = [RemoteHost(f"worker-{i}", "localhost", 22, None, None, (), local=True) for i in (1, 2)]
    load = FioLoad(target=device, fio=fio, fill=False)
    runner = FioDriver(load, tmp_path / "state", Matrix.model_validate(MATRIX), SshFio(hosts))
    runner.prepare()
    return runner


def test_the_hosts_jobs_are_one_run_and_each_host_has_its_share(
    tmp_path: Path, loop_device: str
) -> None:
    runner = _runner(tmp_path, loop_device)
    cell = Matrix.model_validate(MATRIX).cells()[0]
    out = runner.run(cell, 0)
    assert out.exit_code == 0 and out.error is None, out.stderr
    result = parse_fio_output(out.stdout)
    shares = out.host_results
    assert sorted(shares) == ["worker-1", "worker-2"]
    assert result.read is not None
    # the run's rate is fio's group rate (the I/Os over the longest runtime): the hosts'
    # runtimes differ by milliseconds, so their own rates add up to it closely
    assert result.read.iops == pytest.approx(
        sum(s["read"]["iops"] for s in shares.values()), rel=2e-3
    )
    assert runner.fio is not None and runner.fio.path == "worker-1,worker-2:fio"
    assert runner.fio.version.startswith("fio-")


def test_an_unreadable_output_on_one_host_fails_the_run_naming_that_host(
    tmp_path: Path, loop_device: str
) -> None:
    """fio exits 0 on both hosts but one's output is not fio's JSON: the run carries that
    host's name and the parse error as its cause, not "the output is empty"."""
    spoiled = tmp_path / "spoiled"
    wrapper = tmp_path / "fio-wrapper"
    # The first host to get here (mkdir is atomic) prints text instead of fio's JSON.
    wrapper.write_text(
        "#!/bin/sh\n"
        '[ "$1" = --version ] && exec fio --version\n'
        f"if mkdir {spoiled} 2>/dev/null; then fio \"$@\" >/dev/null; echo 'not json'; "
        'else exec fio "$@"; fi\n'
    )
    wrapper.chmod(0o755)
    runner = _runner(tmp_path, loop_device, fio=str(wrapper))
    out = runner.run(Matrix.model_validate(MATRIX).cells()[0], 0)
    assert out.exit_code == 0
    assert out.error is not None
    assert out.error.startswith("fio's output on worker-")
    assert " is unreadable: " in out.error and "empty" not in out.error
