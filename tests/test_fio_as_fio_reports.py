"""raidsweep's figures of a run are fio's own, on outputs recorded from real fio
(tests/fixtures/fio/RECORDED.md): the group rate of jobs that ended at different times, a
percentile at a sample count where double precision would pick the bin before fio's, and the
runs whose figures would not be one run (a verify pass's reads, stonewalled groups through
fio's client mode), and a composite cell's streams through the client mode."""

from __future__ import annotations

import re

import pytest

from sweeper.fio import FioParseError, parse_fio_output
from sweeper.fio.clients import parse_client_output, wait_for_servers
from sweeper.fio.parse import find_document
from tests.support.paths import FIO_FIXTURES as FIXTURES


def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_p999_is_fios_own_where_doubles_would_pick_the_bin_before() -> None:
    text = _fixture("randread_4k_psync_33000ios_jsonplus_normal.txt")
    (job,) = find_document(text)["jobs"]
    assert job["read"]["total_ios"] == 33000  # 99.9% of it is 32,967 in doubles, not in fact
    fios = job["read"]["lat_ns"]["percentile"]
    result = parse_fio_output(text)
    assert result.read is not None
    for key, pct in (("p50", "50"), ("p95", "95"), ("p99", "99"), ("p999", "99.9")):
        assert getattr(result.read, f"lat_{key}_ms") * 1e6 == fios[f"{float(pct):.6f}"], key
    # and fio's normal output says the same, in microseconds
    normal = re.search(r"99\.90th=\[\s*(\d+)\]", text.split("lat percentiles", 1)[1])
    assert normal is not None
    assert round(result.read.lat_p999_ms * 1000) == int(normal.group(1))


def test_jobs_that_ended_apart_are_rated_over_the_groups_time_as_fio_does() -> None:
    text = _fixture("randread_4k_psync_2jobs_nogroup_size_limited_jsonplus_normal.txt")
    jobs = find_document(text)["jobs"]
    runtimes = [j["read"]["runtime"] for j in jobs]
    assert len(jobs) == 2 and max(runtimes) > 2 * min(runtimes)  # one ended far sooner
    result = parse_fio_output(text)
    assert result.read is not None
    group = re.search(r"READ: bw=[\d.]+\w+/s \(([\d.]+)MB/s\)", text)
    assert group is not None  # fio's "Run status group" line
    assert result.read.mbps == pytest.approx(float(group.group(1)), abs=0.05)
    assert result.read.iops == pytest.approx(
        sum(j["read"]["total_ios"] for j in jobs) / (max(runtimes) / 1000)
    )
    # the sum of the jobs' own rates counts the fast job as if it had run the whole time
    assert sum(j["read"]["iops"] for j in jobs) > 2.5 * result.read.iops


def test_a_verify_pass_is_not_read_as_reads_beside_the_writes() -> None:
    text = _fixture("write_4k_psync_verify_crc32c.json")
    (job,) = find_document(text)["jobs"]
    assert job["read"]["total_ios"] == job["write"]["total_ios"]  # the verify pass reread all
    with pytest.raises(FioParseError, match=r"verified the data it wrote \(verify=crc32c\)"):
        parse_fio_output(text)


def test_stonewalled_groups_through_the_client_are_refused_as_alone() -> None:
    text = _fixture("clients_stonewall_write_then_randread.json")
    summed = [e for e in find_document(text)["client_stats"] if e["jobname"] == "All clients"]
    assert summed[0]["read"]["total_ios"] and summed[0]["write"]["total_ios"]  # fio adds them
    with pytest.raises(FioParseError, match=r"2 job groups that ran one after another"):
        parse_client_output(text)


def test_a_composite_cells_streams_come_through_the_client() -> None:
    text = _fixture("clients_2hosts_composite_randrw70_8k_write_64k.json")
    with pytest.raises(FioParseError, match=r"job groups"):
        parse_client_output(text)  # read as one group, it would be refused
    clients = parse_client_output(text, concurrent_groups=True)
    s0, s1 = clients.aggregate.streams
    assert (s0.group, s1.group) == (0, 1)
    assert s0.read is not None and s0.write is not None  # randrw70
    assert s1.read is None and s1.write is not None  # the sequential writer
    total = clients.aggregate
    assert total.read is not None and total.write is not None
    assert s0.read.total_ios == total.read.total_ios
    assert s0.write.total_ios + s1.write.total_ios == total.write.total_ios
    entries = [e for e in find_document(text)["client_stats"] if e["jobname"] != "All clients"]
    assert s1.write.total_ios == sum(e["write"]["total_ios"] for e in entries if e["groupid"])


def test_one_address_with_two_servers_is_refused() -> None:
    """fio names the interval logs it brings back by address: the second server's would
    overwrite the first's, and the steady-state rule read half the jobs."""
    with pytest.raises(ValueError, match=r"127\.0\.0\.1 is named twice \(ports 18765 and 18766\)"):
        wait_for_servers([("127.0.0.1", 18765), ("127.0.0.1", 18766)], timeout_s=0.1)
