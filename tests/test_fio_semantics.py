"""What a job file asks of fio and what fio's output may be trusted for: each sequential job on
its own region, sync-write latency, skewed access, data profiles, and output the parser must
refuse (an fio older than 3.12, several stonewalled job groups). Live tests run real fio."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest

from sweeper.fio import FioParseError, parse_fio_output, render_job
from sweeper.fio.parse import direction_stats
from sweeper.workload import WorkloadCell
from tests.support.paths import FIO_FIXTURES as FIXTURES

MIB = 1024**2


def job_options(text: str) -> dict[str, str]:
    parser = configparser.ConfigParser(allow_no_value=True, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    section = next(s for s in parser.sections() if s != "global")
    return dict(parser["global"]) | dict(parser[section])


def render(key: str, size: int = 64 * MIB, **kwargs: object) -> str:
    base = {"filename": "data.bin", "engine": "psync", "runtime_s": 1, "ramp_s": 0, "size": size}
    return render_job(WorkloadCell.parse(key), **(base | kwargs))  # type: ignore[arg-type]


def fio() -> str:
    path = shutil.which("fio")
    if path is None:
        pytest.skip("fio is not installed")
    return path


def run_fio(job: Path, *args: str) -> str:
    proc = subprocess.run(
        [fio(), *args, str(job)],
        cwd=job.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# --- each sequential job on its own region ---------------------------------------------------


def test_sequential_jobs_get_their_own_region_in_the_job_file() -> None:
    options = job_options(render("read/128k/qd1x4", size=64 * MIB, offset=MIB))
    assert options["size"] == str(16 * MIB)
    assert options["offset_increment"] == str(16 * MIB)
    assert options["offset"] == str(MIB)
    assert "own region" in render("read/128k/qd1x4")


def test_regions_are_whole_blocks() -> None:
    options = job_options(render("write/1m/qd1x3", size=64 * MIB))
    region = int(options["size"])
    assert region % MIB == 0 and 3 * region <= 64 * MIB < 3 * region + 3 * MIB


@pytest.mark.parametrize("key", ["randread/4k/qd1x4", "randrw70/8k/qd4x8", "read/128k/qd4x1"])
def test_random_or_single_job_cells_run_over_the_whole_working_set(key: str) -> None:
    options = job_options(render(key, size=64 * MIB))
    assert options["size"] == str(64 * MIB)
    assert "offset_increment" not in options


def test_a_working_set_too_small_for_the_jobs_is_refused() -> None:
    with pytest.raises(ValueError, match="region of at least one"):
        render("read/1m/qd1x16", size=8 * MIB)


def job_offsets(tmp_path: Path, own_regions: bool) -> tuple[dict[int, set[int]], dict[str, str]]:
    """Run a 4-job sequential write over 4 MiB with real fio, logging every I/O's offset
    (per-job latency logs with ``log_offset``): each job's set of offsets, and the job
    options fio itself reported in its json+ output."""
    size = 4 * MIB
    (tmp_path / "data.bin").write_bytes(b"\0" * size)
    text = render("write/64k/qd1x4", size=size, direct=False, runtime_s=1, own_regions=own_regions)
    # the job section is last: per-I/O logs, one per job (io.N.log), with each I/O's offset
    text += "write_lat_log=io\nlog_offset=1\nlog_avg_msec=0\nper_job_logs=1\n"
    job = tmp_path / "regions.fio"
    job.write_text(text)
    doc = json.loads(run_fio(job, "--output-format=json+"))
    offsets: dict[int, set[int]] = {}
    for n in range(1, 5):
        lines = (tmp_path / f"io_lat.{n}.log").read_text().splitlines()
        offsets[n] = {int(line.split(",")[4]) for line in lines if line.strip()}
    reported = {k: str(v) for k, v in doc["jobs"][0]["job options"].items()}
    return offsets, doc.get("global options", {}) | reported


@pytest.mark.integration
def test_fio_runs_each_sequential_job_over_its_own_disjoint_region(tmp_path: Path) -> None:
    offsets, options = job_offsets(tmp_path, own_regions=True)
    region, size, bs = MIB, 4 * MIB, 64 * 1024
    assert options["offset_increment"] == str(region) and options["size"] == str(region)
    starts = set()
    for n, seen in offsets.items():
        start = min(seen)
        # fio's own log: each job wrote every block of one region and nothing outside it
        assert start % region == 0 and seen == set(range(start, start + region, bs)), n
        starts.add(start)
    assert starts == {0, region, 2 * region, 3 * region}
    union = set().union(*offsets.values())
    assert union == set(range(0, size, bs))  # together they cover the working set
    assert sum(len(s) for s in offsets.values()) == len(union)  # disjoint


@pytest.mark.integration
def test_without_own_regions_fio_jobs_overlap(tmp_path: Path) -> None:
    """The defect the regions fix: every job over the same blocks from the same start."""
    offsets, _ = job_offsets(tmp_path, own_regions=False)
    assert offsets[1] & offsets[2] & offsets[3] & offsets[4]


# --- parser edges, on recorded output --------------------------------------------------------


def test_fio_older_than_3_12_is_refused_with_its_version() -> None:
    # PerfKitBenchmarker's recorded fio-2.1.4 output (RECORDED.md names its source)
    text = (FIXTURES / "pkb_fio-2.1.4_four_stonewalled_groups.json").read_text()
    jobs = json.loads(text)["jobs"]
    with pytest.raises(KeyError, match="total_ios"):  # what reading it used to give
        direction_stats(jobs, "read")
    with pytest.raises(FioParseError, match=r"fio-2\.1\.4, older than fio-3\.12"):
        parse_fio_output(text)


def test_several_stonewalled_job_groups_are_refused() -> None:
    text = (FIXTURES / "stonewall_2groups_write_then_randread.json").read_text()
    doc = json.loads(text)
    assert {j["groupid"] for j in doc["jobs"]} == {0, 1}
    with pytest.raises(FioParseError, match="2 job groups") as exc:
        parse_fio_output(text)
    assert "'first' (group 0)" in str(exc.value) and "'second' (group 1)" in str(exc.value)


def test_sync_latency_is_parsed_from_the_sync_section() -> None:
    text = (FIXTURES / "write_4k_psync_qd1x1_fdatasync_jsonplus.json").read_text()
    raw = json.loads(text)["jobs"][0]["sync"]["lat_ns"]
    result = parse_fio_output(text)
    assert result.sync is not None and result.write is not None
    assert result.sync.count == raw["N"] > 0
    assert result.sync.lat_mean_ms == pytest.approx(raw["mean"] / 1e6)
    # from the histogram, the way fio computes it: fio's own p99 is the same bin
    assert result.sync.lat_p99_ms == pytest.approx(raw["percentile"]["99.000000"] / 1e6)
    assert result.job_options["fdatasync"] == "1"


def test_runs_without_sync_calls_have_no_sync_figures() -> None:
    text = (FIXTURES / "randwrite_8k_libaio_qd4x1.json").read_text()
    assert parse_fio_output(text).sync is None


# --- sync writes, skewed access and data profiles in the job file ----------------------------


@pytest.mark.parametrize(
    ("mode", "line"),
    [("fdatasync", "fdatasync=1"), ("fsync", "fsync=1"), ("dsync", "sync=dsync")],
)
def test_sync_mode_becomes_fios_option(mode: str, line: str) -> None:
    assert f"\n{line}\n" in render(f"write/4k/qd1x1/{mode}")


def test_distribution_and_data_profile_become_fios_options() -> None:
    options = job_options(render("randwrite/8k/qd1x16/zipf1.2/cmp60dd25"))
    assert options["random_distribution"] == "zipf:1.2"
    assert options["buffer_compress_percentage"] == "60"
    assert options["dedupe_percentage"] == "25"
    assert options["refill_buffers"] is None or options["refill_buffers"] == "1"


@pytest.mark.integration
def test_fio_reports_the_sync_latency_of_a_sync_cell(tmp_path: Path) -> None:
    (tmp_path / "data.bin").write_bytes(b"\0" * 8 * MIB)
    job = tmp_path / "sync.fio"
    job.write_text(render("write/4k/qd1x1/fdatasync", size=8 * MIB, direct=False))
    result = parse_fio_output(run_fio(job, "--output-format=json+"))
    assert result.write is not None and result.sync is not None
    # one fdatasync per write (the last write may still be waiting for its own at the end)
    assert abs(result.sync.count - result.write.total_ios) <= 1
    assert result.sync.lat_p99_ms is not None and result.sync.lat_p99_ms > 0


@pytest.mark.integration
def test_fio_concentrates_a_zipf_cell_on_hot_blocks(tmp_path: Path) -> None:
    """A zipf:1.2 cell puts most I/Os on a few blocks; a uniform one does not."""
    size, bs = 16 * MIB, 4096

    def hot_share(key: str) -> float:
        (tmp_path / "data.bin").write_bytes(b"\0" * size)
        text = render(key, size=size, direct=False, job_name="hot")
        text += "write_lat_log=hot\nlog_offset=1\nlog_avg_msec=0\n"
        job = tmp_path / "hot.fio"
        job.write_text(text)
        run_fio(job, "--output-format=json")
        lines = (tmp_path / "hot_lat.1.log").read_text().splitlines()
        counts = Counter(int(line.split(",")[4]) for line in lines if line.strip())
        top = sum(c for _, c in counts.most_common(size // bs // 10))  # hottest 10% of blocks
        return top / sum(counts.values())

    assert hot_share("randread/4k/qd1x1/zipf1.2") > 0.6
    assert hot_share("randread/4k/qd1x1") < 0.35


@pytest.mark.integration
def test_fio_writes_data_of_the_asked_profile(tmp_path: Path) -> None:
    """Written with a 50% compressible, 30% duplicate profile: zlib saves 50% ± 5 points of
    each 4 KiB block, and Debian's fio-dedupe finds 30% ± 5 points of the blocks duplicate.

    One pass over the file, not our jobs' time-based loop: a pass cut short by the clock
    leaves blocks of two passes, whose duplicates may point at buffers the newer pass
    overwrote (the share came out from 23% to 40%). fio decides per 64 KiB buffer whether to
    repeat one, so 64 MiB (1,024 decisions) keeps the share within about 1.5 points of 30."""
    size, bs = 64 * MIB, 4096
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(size))  # anything not overwritten would count as random
    job = tmp_path / "profile.fio"
    text = render("write/64k/qd1x1/cmp50dd30", size=size, direct=False, runtime_s=120)
    assert "time_based=1\n" in text
    job.write_text(text.replace("time_based=1\n", "time_based=0\n"))
    result = parse_fio_output(run_fio(job, "--output-format=json"))
    assert result.write is not None and result.write.total_ios * 64 * 1024 >= size
    content = data.read_bytes()
    compressed = sum(len(zlib.compress(content[i : i + bs], 6)) for i in range(0, size, bs))
    assert 100 * (1 - compressed / size) == pytest.approx(50, abs=5)
    dedupe = shutil.which("fio-dedupe")
    if dedupe is None:
        pytest.skip("fio-dedupe (Debian's fio package) is not installed")
    out = subprocess.run(
        [dedupe, "-b", str(bs), str(data)], capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("Extents="))
    extents, unique = (int(part.split("=")[1]) for part in line.split(", "))
    assert 100 * (1 - unique / extents) == pytest.approx(30, abs=5)
