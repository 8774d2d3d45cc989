"""fio job files and fio JSON parsing, on output recorded from real fio (tests/fixtures/fio)."""

from __future__ import annotations

import configparser
import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jinja2
import pytest

from sweeper.fio import (
    DirectionStats,
    FioParseError,
    FioResult,
    FioRunError,
    parse_fio_output,
    render_job,
)
from sweeper.fio.jobfile import PERCENTILE_LIST, job_template
from sweeper.workload import WorkloadCell
from tests.support.paths import FIO_FIXTURES as FIXTURES

PCT_KEYS = {
    "lat_p50_ms": "50.000000",
    "lat_p95_ms": "95.000000",
    "lat_p99_ms": "99.000000",
    "lat_p999_ms": "99.900000",
    "lat_p9999_ms": "99.990000",
}


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text()


def fixture_doc(name: str) -> dict[str, Any]:
    """The fixture's JSON read independently of the parser (the notes contain no '{')."""
    text = fixture_text(name)
    return json.loads(text[text.index("{") :])


def assert_matches_single_job(stats: DirectionStats | None, raw: dict[str, Any]) -> None:
    assert stats is not None
    assert stats.iops == raw["iops"]
    assert stats.mbps == raw["bw_bytes"] / 1e6
    assert stats.total_ios == raw["total_ios"]
    assert stats.lat_mean_ms == pytest.approx(raw["lat_ns"]["mean"] / 1e6)
    for attr, key in PCT_KEYS.items():
        assert getattr(stats, attr) == raw["lat_ns"]["percentile"][key] / 1e6


# --- parsing recorded output ----------------------------------------------------------------


def test_randread_psync_two_jobs_grouped() -> None:
    doc = fixture_doc("randread_4k_psync_qd1x2.json")
    result = parse_fio_output(fixture_text("randread_4k_psync_qd1x2.json"))
    assert isinstance(result, FioResult)
    assert result.jobs == len(doc["jobs"]) == 1
    assert result.fio_version == doc["fio version"]
    assert_matches_single_job(result.read, doc["jobs"][0]["read"])
    assert result.read is not None and result.read.iops > 0
    assert result.write is None
    assert result.job_options["rw"] == "randread"
    assert result.job_options["numjobs"] == "2"
    assert result.job_options["ioengine"] == "psync"  # from 'global options'


def test_randwrite_libaio_iodepth4() -> None:
    doc = fixture_doc("randwrite_8k_libaio_qd4x1.json")
    result = parse_fio_output(fixture_text("randwrite_8k_libaio_qd4x1.json"))
    assert_matches_single_job(result.write, doc["jobs"][0]["write"])
    assert result.read is None
    assert result.job_options["iodepth"] == "4"
    assert result.job_options["bs"] == "8k"


def test_json_plus_parses_like_json() -> None:
    name = "randrw70_4k_libaio_qd2x1_jsonplus.json"
    doc = fixture_doc(name)
    job = doc["jobs"][0]
    assert "bins" in job["read"]["clat_ns"]  # really json+
    result = parse_fio_output(fixture_text(name))
    assert_matches_single_job(result.read, job["read"])
    assert_matches_single_job(result.write, job["write"])
    assert result.job_options["rwmixread"] == "70"
    stripped = copy.deepcopy(doc)
    for direction in ("read", "write"):
        for stat in ("clat_ns", "lat_ns"):
            stripped["jobs"][0][direction][stat].pop("bins", None)
    assert parse_fio_output(json.dumps(stripped)) == result


def test_two_job_entries_are_aggregated() -> None:
    doc = fixture_doc("read_128k_psync_2jobs_nogroup.json")
    reads = [job["read"] for job in doc["jobs"]]
    assert len(reads) == 2
    result = parse_fio_output(fixture_text("read_128k_psync_2jobs_nogroup.json"))
    assert result.jobs == 2
    assert result.write is None
    stats = result.read
    assert stats is not None
    assert stats.iops == pytest.approx(sum(r["iops"] for r in reads))
    assert stats.mbps == pytest.approx(sum(r["bw_bytes"] for r in reads) / 1e6)
    total = sum(r["total_ios"] for r in reads)
    assert stats.total_ios == total
    weighted = sum(r["lat_ns"]["mean"] * r["total_ios"] for r in reads) / total
    assert stats.lat_mean_ms == pytest.approx(weighted / 1e6)
    # plain JSON: two jobs' percentiles cannot be combined, and their maximum (an upper
    # bound) is never stored as the run's percentile
    for attr in PCT_KEYS:
        assert getattr(stats, attr) is None


def test_notice_line_before_json_on_stdout() -> None:
    text = fixture_text("sync_iodepth8_notice.txt")
    assert text.startswith("note: both iodepth >= 1 and synchronous I/O engine")
    doc = fixture_doc("sync_iodepth8_notice.txt")
    result = parse_fio_output(text)
    assert_matches_single_job(result.read, doc["jobs"][0]["read"])
    assert result.job_options["ioengine"] == "sync"
    assert result.job_options["iodepth"] == "8"


def test_text_after_json_is_ignored() -> None:
    text = fixture_text("randread_4k_psync_qd1x2.json")
    assert parse_fio_output(text + "fio: a trailing note\n") == parse_fio_output(text)


def test_completion_latency_is_never_passed_off_as_total_latency() -> None:
    # Real fio with disable_lat: lat_ns has no samples, clat_ns has them and percentiles.
    doc = fixture_doc("randread_4k_psync_disable_lat.json")
    raw = doc["jobs"][0]["read"]
    assert raw["lat_ns"]["N"] == 0 and raw["clat_ns"]["N"] > 0 and raw["clat_ns"]["percentile"]
    stats = parse_fio_output(fixture_text("randread_4k_psync_disable_lat.json")).read
    assert stats is not None and stats.iops == pytest.approx(raw["iops"])
    assert stats.lat_mean_ms is None and stats.lat_p99_ms is None


def test_without_lat_percentiles_the_mean_is_total_and_no_percentile_is_given() -> None:
    # Real fio, 4 grouped jobs without lat_percentiles: total latency's mean, completion
    # latency's percentiles only (each below the total it leaves out the submission).
    name = "randrw70_4k_libaio_4jobs_clat_percentiles.json"
    (job,) = fixture_doc(name)["jobs"]
    result = parse_fio_output(fixture_text(name))
    for direction in ("read", "write"):
        stats, raw = getattr(result, direction), job[direction]
        assert "percentile" in raw["clat_ns"] and "percentile" not in raw["lat_ns"]
        assert stats is not None and stats.lat_mean_ms == pytest.approx(raw["lat_ns"]["mean"] / 1e6)
        assert stats.lat_mean_ms > raw["clat_ns"]["mean"] / 1e6  # the submission is in it
        assert stats.lat_p50_ms is None and stats.lat_p99_ms is None


def test_a_run_fio_did_not_time_has_no_latency() -> None:
    # Real fio with gtod_reduce: IOPS and bytes, but neither total nor completion latency.
    name = "randread_4k_libaio_gtod_reduce.json"
    raw = fixture_doc(name)["jobs"][0]["read"]
    assert raw["lat_ns"]["N"] == raw["clat_ns"]["N"] == 0
    stats = parse_fio_output(fixture_text(name)).read
    assert stats is not None and stats.iops == pytest.approx(raw["iops"]) and stats.iops > 0
    assert stats.lat_mean_ms is None and stats.lat_p99_ms is None


def test_with_status_interval_the_last_report_is_the_result() -> None:
    # Real fio with --status-interval=1 over 3 s: a cumulative report each second, then the
    # final one; the first would give the first second's figures.
    text = fixture_text("randread_4k_psync_status_interval.txt")
    decoder, docs, at = json.JSONDecoder(), [], text.index("{")
    while at >= 0:
        doc, end = decoder.raw_decode(text, at)
        docs.append(doc)
        at = text.find("\n{", end) + 1 if "\n{" in text[end:] else -1
    assert len(docs) >= 3
    final = docs[-1]["jobs"][0]["read"]
    assert final["total_ios"] > docs[0]["jobs"][0]["read"]["total_ios"]
    stats = parse_fio_output(text).read
    assert stats is not None and stats.total_ios == final["total_ios"]
    assert stats.iops == pytest.approx(final["iops"])
    # a last report cut short is an error, not the interim report before it
    with pytest.raises(FioParseError, match="truncated or invalid \\(its report"):
        parse_fio_output(text[: text.rindex('"jobs"')])


def test_trims_are_refused_not_dropped() -> None:
    # Real fio (null engine): 8.9 M trims and no read or write; read as "no I/O" before.
    with pytest.raises(FioParseError, match=r"fio reported \d+ trims"):
        parse_fio_output(fixture_text("randtrim_4k_null.json"))


def test_reads_and_writes_reported_together_are_refused_by_name() -> None:
    # Real fio with unified_rw_reporting=mixed: one "mixed" direction, no "read" or "write".
    with pytest.raises(FioParseError, match="unified_rw_reporting=mixed"):
        parse_fio_output(fixture_text("randrw70_4k_psync_unified_mixed.json"))


def test_a_bad_field_and_bytes_are_parse_errors() -> None:
    doc = fixture_doc("randread_4k_psync_qd1x2.json")
    doc["jobs"][0]["read"]["runtime"] = "abc"
    with pytest.raises(FioParseError, match="bad field"):
        parse_fio_output(json.dumps(doc))
    with pytest.raises(FioParseError, match="must be text, not bytes"):
        parse_fio_output(fixture_text("randread_4k_psync_qd1x2.json").encode())  # type: ignore[arg-type]


def test_missing_percentiles_are_none() -> None:
    doc = fixture_doc("randread_4k_psync_qd1x2.json")
    for stat in ("clat_ns", "lat_ns"):
        doc["jobs"][0]["read"][stat].pop("percentile")
    stats = parse_fio_output(json.dumps(doc)).read
    assert stats is not None and stats.lat_p99_ms is None and stats.lat_mean_ms > 0


def test_no_io_in_either_direction() -> None:
    # Real fio: cannot create the file's directory, exits 1, yet reports "error" : 0 and a
    # job of no I/O: not a run of nothing, a run that never happened.
    with pytest.raises(FioParseError, match="'nodir' measured nothing of the 1 s"):
        parse_fio_output(fixture_text("nodir_error0_no_io.json"))


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "  \n", "fio: something went wrong\n", "no json { here"])
def test_no_json_is_a_parse_error(text: str) -> None:
    with pytest.raises(FioParseError, match="empty|no JSON"):
        parse_fio_output(text)


def test_run_without_json_is_a_parse_error() -> None:
    # Real fio with an unknown engine writes an error line on stdout and no JSON.
    with pytest.raises(FioParseError, match="no JSON.*nosuchengine"):
        parse_fio_output(fixture_text("bad_engine_nojson.txt"))


def test_truncated_json_is_a_parse_error() -> None:
    text = fixture_text("randread_4k_psync_qd1x2.json")
    with pytest.raises(FioParseError, match="truncated"):
        parse_fio_output(text[: len(text) // 2])


@pytest.mark.parametrize("text", ['{"fio version": "fio-3.33"}', '{"jobs": []}', "[1, 2]"])
def test_json_without_jobs_is_a_parse_error(text: str) -> None:
    with pytest.raises(FioParseError):
        parse_fio_output(text)


def test_parse_error_is_a_value_error() -> None:
    assert issubclass(FioParseError, ValueError)
    assert issubclass(FioRunError, RuntimeError)


def test_job_with_error_raises_run_error() -> None:
    doc = fixture_doc("error_enospc_dev_full.txt")
    assert doc["jobs"][0]["error"] == 28
    with pytest.raises(FioRunError, match=r"'devfull'.*error 28"):
        parse_fio_output(fixture_text("error_enospc_dev_full.txt"))


# --- job files ------------------------------------------------------------------------------


def render(cell: str = "randread/4k/qd4x2", **kwargs: Any) -> str:
    options: dict[str, Any] = {
        "filename": "/dev/sdb",
        "engine": "libaio",
        "runtime_s": 30,
        "ramp_s": 5,
        "size": 1 << 30,
    }
    options.update(kwargs)
    return render_job(WorkloadCell.parse(cell), **options)


def ini(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, comment_prefixes=(";", "#"))
    parser.read_string(text)
    return parser


def test_job_file_sections_and_options() -> None:
    parsed = ini(render())
    assert parsed.sections() == ["global", "randread_4k_qd4x2"]
    glob = parsed["global"]
    assert dict(glob) == {
        "thread": "1",  # every job a thread: stopping fio stops them all
        "ioengine": "libaio",
        "direct": "1",
        "time_based": "1",
        "runtime": "30",
        "ramp_time": "5",
        "size": str(1 << 30),
        "norandommap": "1",
        "randrepeat": "0",
        "lat_percentiles": "1",
        "percentile_list": PERCENTILE_LIST,
        "group_reporting": "1",
        "filename": "/dev/sdb",
    }
    assert dict(parsed["randread_4k_qd4x2"]) == {
        "rw": "randread",
        "bs": "4k",
        "iodepth": "4",
        "numjobs": "2",
    }


def test_job_file_options() -> None:
    parsed = ini(render(offset=4096, direct=False, runtime_s=0.2, ramp_s=1.6, job_name="mine"))
    assert parsed.sections() == ["global", "mine"]
    assert parsed["global"]["offset"] == "4096"
    assert parsed["global"]["direct"] == "0"
    assert parsed["global"]["runtime"] == "1"
    assert parsed["global"]["ramp_time"] == "2"


def test_randrw_has_rwmixread() -> None:
    job = ini(render("randrw70/8k/qd1x1"))["randrw70_8k_qd1x1"]
    assert job["rw"] == "randrw"
    assert job["rwmixread"] == "70"


def test_sync_engine_gets_iodepth_1() -> None:
    parsed = ini(render("randwrite/8k/qd8x4", engine="sync"))
    assert parsed["global"]["ioengine"] == "sync"
    assert parsed["randwrite_8k_qd8x4"]["iodepth"] == "1"
    assert parsed["randwrite_8k_qd8x4"]["numjobs"] == "4"


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="engine"):
        render(engine="posixaio")


@pytest.mark.parametrize(
    "filename",
    [
        "",
        "/dev/sdb\nrw=write",
        "/dev/sdb\r",
        "=/dev/sdb",
        "/tmp/a#b",
        "/tmp/a;b",
        "/tmp/${HOME}",
        "/tmp/$ncpus",
        " /dev/sdb",
        "/tmp/a\\b",
        "/tmp/a\x00b",
    ],
)
def test_filename_injection_is_refused(filename: str) -> None:
    with pytest.raises(ValueError, match="filename"):
        render(filename=filename)


def test_filename_colon_is_escaped() -> None:
    text = render(filename="/dev/disk/by-path/pci-0000:00:1f.2-ata-1")
    assert "filename=/dev/disk/by-path/pci-0000\\:00\\:1f.2-ata-1\n" in text


@pytest.mark.parametrize("job_name", ["global", "a]b", "a\nb", ""])
def test_bad_job_name_is_refused(job_name: str) -> None:
    with pytest.raises(ValueError, match="job name"):
        render(job_name=job_name)


@pytest.mark.parametrize("kwargs", [{"size": 0}, {"offset": -1}, {"runtime_s": -1.0}])
def test_bad_numbers_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        render(**kwargs)


def test_template_is_strict() -> None:
    job = {
        "name": "j",
        "rw": "read",
        "rwmixread": 50,
        "bs": "4k",
        "iodepth": 1,
        "numjobs": 1,
        "region": None,
        "sync": None,
        "distribution": None,
        "data": None,
        "rate": None,
    }
    context = {
        "cell_key": "read/4k/qd1x1",
        "engine": "psync",
        "direct": 1,
        "runtime": 1,
        "ramp_time": 0,
        "size": 4096,
        "offset": 0,
        "percentile_list": PERCENTILE_LIST,
        "filename": "f",
        "iops_log": None,
        "ss": None,
        "jobs": [job],
    }
    assert "numjobs=1" in job_template().render(**context)
    plain = job_template().render(**context)
    assert "write_iops_log" not in plain and "IOPS log" not in plain
    logged = job_template().render(**(context | {"iops_log": "r1"}))
    assert "write_iops_log=r1\nlog_avg_msec=1000\n" in logged
    # The header says how raidsweep runs it and that the log lands where it is run.
    assert "; Run by hand with: fio --output-format=json+ THIS_FILE" in plain
    assert "; It writes the per-second IOPS log" in logged
    del job["numjobs"]
    with pytest.raises(jinja2.UndefinedError):
        job_template().render(**context)


# --- live -----------------------------------------------------------------------------------


@pytest.mark.integration
def test_live_fio_run(tmp_path: Path) -> None:
    fio = shutil.which("fio")
    if fio is None:
        pytest.skip("fio is not installed")
    data = tmp_path / "data.bin"
    size = 4 * 1024 * 1024
    data.write_bytes(os.urandom(size))
    job = tmp_path / "job.fio"
    job.write_text(
        render_job(
            WorkloadCell.parse("randread/4k/qd1x1"),
            filename=str(data),
            engine="psync",
            runtime_s=1,
            ramp_s=0,
            size=size,
            direct=False,  # O_DIRECT is not available on every temporary file system
        )
    )
    proc = subprocess.run(
        [fio, "--output-format=json", str(job)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = parse_fio_output(proc.stdout)
    assert result.read is not None and result.read.iops > 0
    assert result.read.lat_p50_ms is not None and result.read.lat_p99_ms is not None
    assert result.write is None
    assert result.job_options["rw"] == "randread"


def test_jsonplus_percentiles_over_jobs_come_from_the_merged_histograms() -> None:
    """Two job entries, each with its own histogram: the p99 over all I/Os is exact."""
    text = (FIXTURES / "randread_4k_psync_2jobs_nogroup_jsonplus.json").read_text()
    result = parse_fio_output(text)
    doc = json.loads(text)
    assert result.jobs == 2
    bins: dict[int, int] = {}
    for job in doc["jobs"]:
        for value, count in job["read"]["lat_ns"]["bins"].items():
            bins[int(value)] = bins.get(int(value), 0) + count
    total = sum(bins.values())
    assert total == sum(j["read"]["total_ios"] for j in doc["jobs"])
    cumulative, p99 = 0, None
    for value in sorted(bins):
        cumulative += bins[value]
        if cumulative >= 0.99 * total:
            p99 = value / 1e6
            break
    assert result.read is not None and result.read.lat_p99_ms == pytest.approx(p99)
    # Never above the larger of the two jobs' own p99 (what plain JSON would have to use).
    per_job = [j["read"]["lat_ns"]["percentile"]["99.000000"] / 1e6 for j in doc["jobs"]]
    assert min(per_job) <= result.read.lat_p99_ms <= max(per_job)
