"""fio's version on every host that runs it, not the first one's: SSH hosts (vsan's workers)
are each checked at start and each host's output before the merge, and the job options a
matrix asks for (``sync: [dsync]``, ``engine: io_uring``) are checked against the fio that will
run them before anything is built. Hosts are this machine (inventory connection ``local``);
an old host's fio is a wrapper that answers with a real fio-3.7 recording."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from sweeper.fio import FioParseError, parse_fio_output
from sweeper.fio.runner import FioMissingError, find_fio, fio_needs, versions_problems
from sweeper.load import SshFio
from sweeper.remote import RemoteHost
from sweeper.spec import Matrix
from tests.support.specs import quick_fio_matrix

FIXTURES = Path(__file__).parent / "fixtures" / "fio"
OLD = FIXTURES / "lanzhiwang_fio-3.7_randrw70_psync.json"
OLD_VERSION = json.loads(OLD.read_text())["fio version"]
#: fio 3.33's real output of a psync run (record.sh)
NEW = FIXTURES / "randread_4k_psync_qd1x2.json"


def _hosts() -> list[RemoteHost]:
    return [RemoteHost(f"worker-{i}", "localhost", 22, None, None, (), local=True) for i in (1, 2)]


def _wrapper(tmp_path: Path, old_call: int | None, runs: str = 'exec fio "$@"') -> str:
    """A fio whose ``--version`` call number ``old_call`` (1: the first host asked) answers
    with the fio-3.7 recording's version, the others with this host's real fio."""
    counter = tmp_path / "calls"
    recorded = f"import json; print(json.load(open({str(OLD)!r}))['fio version'])"
    version = (
        f'if [ "$1" = --version ]; then echo x >> {counter}; '
        f'[ "$(wc -l < {counter})" = {old_call} ] && exec python3 -c {shlex.quote(recorded)}; '
        "exec fio --version; fi\n"
    )
    path = tmp_path / "fio-wrapper"
    path.write_text("#!/bin/sh\n" + version + runs + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("old_call", [1, 2])
def test_a_host_with_too_old_an_fio_is_refused_at_start_by_name(
    tmp_path: Path, old_call: int
) -> None:
    """Whichever host has it, fio-3.7 is refused before any run, naming that host, its
    version and the minimum (the first host's version alone decided before)."""
    transport = SshFio(_hosts())
    with pytest.raises(FioMissingError) as caught:
        transport.start(_wrapper(tmp_path, old_call))
    message = str(caught.value)
    assert f"worker-{old_call} is '{OLD_VERSION}'" in message
    assert "fio-3.12 or newer" in message
    assert f"worker-{3 - old_call}" not in message


def test_the_recorded_version_names_each_hosts_fio() -> None:
    transport = SshFio(_hosts())
    fio = transport.start("fio")
    real = find_fio().version
    # one fio everywhere: its version as fio prints it (the disclosure lists the hosts)
    assert fio.version == real
    assert fio.version_tuple == find_fio().version_tuple


def test_a_hosts_old_output_is_refused_before_the_merge_naming_it(tmp_path: Path) -> None:
    """Both hosts' fio passed at start; then one's output is fio-3.7's: the run fails with
    that host named, instead of being kept (or refused) by the other host's version."""
    arrived = tmp_path / "arrived"
    runs = f"if mkdir {arrived} 2>/dev/null; then cat {OLD}; else cat {NEW}; fi"
    transport = SshFio(_hosts())
    transport.start(_wrapper(tmp_path, None, runs))
    job = tmp_path / "job.fio"
    job.write_text("[job]\nrw=read\n")
    run = transport.run(job, 30, fill=True)
    assert run.error is not None, "the fio-3.7 output passed"
    assert f"is '{OLD_VERSION}'" in run.error and "fio-3.12 or newer" in run.error
    assert run.error.startswith("fio on worker-")


def test_an_old_output_with_every_field_says_plainly_what_to_do() -> None:
    """fio-3.7's JSON has total_ios, lat_ns and bw_bytes but no job_runtime; its refusal
    names the version, the minimum and what to do, never "not checked"."""
    with pytest.raises(FioParseError) as caught:
        parse_fio_output(OLD.read_text())
    message = str(caught.value)
    assert OLD_VERSION in message and "fio-3.12" in message
    assert "not checked" not in message
    assert "install fio-3.12 or newer" in message


def test_the_matrix_features_need_their_fio_release() -> None:
    """``sync: [dsync]`` needs fio-3.24 (sync=dsync, axboe/fio PR #1080), io_uring
    fio-3.13; the message names the spec field, the version needed and the one found."""
    matrix = Matrix.model_validate(
        quick_fio_matrix("write", engine="io_uring", sync=["fsync", "dsync"])
    )
    needs = fio_needs(matrix)
    assert [(n.field, n.value, n.minimum) for n in needs] == [
        ("matrix.engine", "io_uring", (3, 13)),
        ("matrix.sync", "dsync", (3, 24)),
    ]
    assert versions_problems({"worker-1": find_fio().version}, needs) == []
    # the last release before sync=dsync: io_uring is there, dsync is not
    problems = versions_problems({"worker-2": "fio-3.23"}, needs)
    assert problems == [
        "matrix.sync: dsync needs fio-3.24 or newer, and fio on worker-2 is 'fio-3.23' (older "
        "fio refuses the job option): install a newer fio there, or leave dsync out of the "
        "matrix"
    ]
    assert fio_needs(Matrix.model_validate(quick_fio_matrix("randread", engine="psync"))) == []
