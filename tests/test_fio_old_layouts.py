"""The JSON layouts of fio versions other than the installed 3.33, as public outputs of those
versions show them, read right.

Only fio 3.33 can run here, and public output may not be copied in, so each test derives the
older layout from our own recorded 3.33 output (tests/fixtures/fio, RECORDED.md) by the one
change that real outputs of the older version show, named in the test:

* ``N`` (the sample count of ``slat_ns``/``clat_ns``/``lat_ns`` and of the ``sync`` section's
  ``lat_ns``): written by fio-3.19 and later (seen in fio-3.19, 3.20, 3.26-3.43 outputs);
  absent from every fio-3.16 and fio-3.13 output seen (fio-3.13 ``randrw`` sync-engine run,
  fio-3.16 ``randrw`` 4 jobs ``group_reporting`` ``lat_percentiles`` run, fio-3.16 three
  stonewalled groups), where the latency stats hold only min/max/mean/stddev (and
  ``percentile``/``bins``);
* ``job_runtime``: absent from fio-3.7, fio-3.1 and fio-2.17 outputs, including
  ``group_reporting`` entries of 2 and 8 jobs; present from fio-3.13 on;
* ``bw_bytes``: absent from fio-3.1 and 2.x outputs, present in fio-3.7.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from sweeper.fio import FioParseError, FioResult, parse_fio_output
from tests.support.paths import FIO_FIXTURES as FIXTURES

STATS = ("slat_ns", "clat_ns", "lat_ns")


def recorded(name: str) -> dict[str, Any]:
    text = (FIXTURES / name).read_text()
    return json.loads(text[text.index("{") :])


def text_of(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2)


def without_n(doc: dict[str, Any], version: str = "fio-3.16") -> dict[str, Any]:
    """fio-3.16's layout: the same document with no ``N`` in any latency stats (directions and
    the ``sync`` section), and fio-3.16's version string."""
    old = copy.deepcopy(doc)
    old["fio version"] = version
    for job in old["jobs"]:
        for direction in ("read", "write", "trim"):
            for stat in STATS:
                job[direction][stat].pop("N")
        job["sync"]["lat_ns"].pop("N")
    return old


def strip(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """``doc`` with ``key`` (e.g. ``bins``) removed from every latency stats object."""
    old = copy.deepcopy(doc)
    for job in old["jobs"]:
        for direction in ("read", "write", "trim"):
            for stat in STATS:
                job[direction][stat].pop(key, None)
        job["sync"]["lat_ns"].pop(key, None)
    return old


def same_figures(got: FioResult, want: FioResult) -> None:
    for name in ("read", "write", "sync"):
        a, b = getattr(got, name), getattr(want, name)
        assert (a is None) == (b is None), name
        if a is None:
            continue
        for field, value in vars(b).items():
            if value is None:
                assert getattr(a, field) is None, (name, field)
            else:
                assert getattr(a, field) == pytest.approx(value, rel=1e-12), (name, field)


# --- no N (fio 3.16 and older) -------------------------------------------------------------


def test_one_job_without_n_keeps_its_total_latency_mean() -> None:
    # mirrors fio-3.16 (and 3.13): lat_ns without N; the mean was read as "not timed" (None)
    doc = recorded("randwrite_8k_libaio_qd4x1.json")
    got = parse_fio_output(text_of(without_n(doc)))
    assert got.write is not None
    assert got.write.lat_mean_ms == doc["jobs"][0]["write"]["lat_ns"]["mean"] / 1e6
    same_figures(got, parse_fio_output(text_of(doc)))


def test_untimed_latency_without_n_stays_none() -> None:
    # gtod_reduce: fio timed nothing; without N the zeros must still read as "not timed"
    doc = recorded("randread_4k_libaio_gtod_reduce.json")
    got = parse_fio_output(text_of(without_n(doc)))
    assert got.read is not None and got.read.lat_mean_ms is None


def test_several_jobs_without_n_weight_the_mean_by_their_ios() -> None:
    # mirrors fio-3.16: two job entries (no group_reporting), no N, plain JSON: each job's
    # mean weighted by its I/O count (in this recording equal to N)
    doc = recorded("read_128k_psync_2jobs_nogroup.json")
    for job in doc["jobs"]:
        assert job["read"]["lat_ns"]["N"] == job["read"]["total_ios"]
    got = parse_fio_output(text_of(without_n(doc)))
    assert got.read is not None and got.read.lat_mean_ms is not None
    same_figures(got, parse_fio_output(text_of(doc)))


def test_jsonplus_without_n_weights_by_the_histograms() -> None:
    # mirrors fio-3.16 json+: no N, bins kept; the bins' sum is the sample count
    doc = recorded("randread_4k_psync_2jobs_nogroup_jsonplus.json")
    got = parse_fio_output(text_of(without_n(doc)))
    same_figures(got, parse_fio_output(text_of(doc)))
    assert got.read is not None and got.read.lat_mean_ms is not None


def test_sync_calls_without_n_are_counted_from_the_histogram() -> None:
    # mirrors fio-3.16's sync section (lat_ns without N) in json+: the sync calls were read
    # as none at all (sync=None)
    doc = recorded("write_4k_psync_qd1x1_fdatasync_jsonplus.json")
    want = parse_fio_output(text_of(doc))
    got = parse_fio_output(text_of(without_n(doc)))
    assert want.sync is not None and got.sync is not None
    assert got.sync.count == doc["jobs"][0]["sync"]["lat_ns"]["N"]
    same_figures(got, want)


def test_sync_calls_without_any_count_are_refused_not_dropped() -> None:
    # mirrors fio-3.16 plain JSON with fsync/fdatasync: no N and no bins, so the number of
    # sync calls is nowhere in the output; reading it as "no sync calls" hides them
    doc = strip(without_n(recorded("write_4k_psync_qd1x1_fdatasync_jsonplus.json")), "bins")
    assert doc["jobs"][0]["sync"]["lat_ns"]["mean"] > 0
    with pytest.raises(FioParseError, match="fsync/fdatasync calls but its output does not say"):
        parse_fio_output(text_of(doc))


# --- no job_runtime: group_reporting CPU ----------------------------------------------------


def test_group_entry_without_job_runtime_has_no_cpu_figure() -> None:
    # mirrors fio-3.1 / fio-2.17 group_reporting entries (no job_runtime): the entry's usr_cpu
    # is its jobs' mean share; read as the total it halves two jobs' CPU use
    doc = recorded("randread_4k_psync_qd1x2.json")
    assert doc["jobs"][0]["job options"]["numjobs"] == "2"
    want = parse_fio_output(text_of(doc))
    assert want.usr_cpu_pct == pytest.approx(2 * doc["jobs"][0]["usr_cpu"], rel=1e-3)
    old = copy.deepcopy(doc)
    del old["jobs"][0]["job_runtime"]
    got = parse_fio_output(text_of(old))
    assert got.usr_cpu_pct is None and got.sys_cpu_pct is None


def test_single_job_entries_without_job_runtime_add_their_shares() -> None:
    # one entry per job (no group_reporting) and no job_runtime: the shares add, as before
    doc = recorded("read_128k_psync_2jobs_nogroup.json")
    old = copy.deepcopy(doc)
    for job in old["jobs"]:
        del job["job_runtime"]
    got = parse_fio_output(text_of(old))
    assert got.usr_cpu_pct == pytest.approx(sum(j["usr_cpu"] for j in doc["jobs"]))


# --- the refusal of fio older than 3.12 names what that output lacks ------------------------


def _as_fio_3_7(doc: dict[str, Any]) -> dict[str, Any]:
    """fio-3.7's layout: no job_runtime and no N (it has total_ios, lat_ns and bw_bytes)."""
    old = without_n(doc, "fio-3.7")
    for job in old["jobs"]:
        del job["job_runtime"]
    return old


def _as_fio_3_1(doc: dict[str, Any]) -> dict[str, Any]:
    """fio-3.1's layout: fio-3.7's, and no bw_bytes either."""
    old = _as_fio_3_7(doc)
    old["fio version"] = "fio-3.1"
    for job in old["jobs"]:
        for direction in ("read", "write", "trim"):
            del job[direction]["bw_bytes"]
    return old


@pytest.mark.parametrize(
    ("make", "says", "not_said"),
    [
        (_as_fio_3_7, "its JSON has no job_runtime)", ("total_ios", "lat_ns", "bw_bytes")),
        (_as_fio_3_1, "its JSON has no bw_bytes or job_runtime)", ("total_ios", "lat_ns")),
    ],
)
def test_refusal_names_only_what_the_old_output_lacks(
    make: Callable[[dict[str, Any]], dict[str, Any]], says: str, not_said: tuple[str, ...]
) -> None:
    # fio-3.7's output holds total_ios, lat_ns and bw_bytes; the refusal said it had none
    doc = make(recorded("randrw70_4k_libaio_qd2x1_jsonplus.json"))
    with pytest.raises(FioParseError, match=r"older than fio-3\.12") as exc:
        parse_fio_output(text_of(doc))
    message = str(exc.value)
    assert says in message
    for field in not_said:
        assert field not in message


def test_refusal_of_fio_2_names_its_missing_fields() -> None:
    # PerfKitBenchmarker's recorded fio-2.1.4 output (RECORDED.md names its source)
    text = (FIXTURES / "pkb_fio-2.1.4_four_stonewalled_groups.json").read_text()
    with pytest.raises(FioParseError, match=r"fio-2\.1\.4, older than fio-3\.12") as exc:
        parse_fio_output(text)
    assert "its JSON has no total_ios, lat_ns, bw_bytes or job_runtime" in str(exc.value)
