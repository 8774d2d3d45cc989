"""Characterising a workload from a capture of real I/O: known workloads run with real fio on
a loop device while ``raidsweep capture`` records it, then ``raidsweep characterize``; the
recovered mix must match what fio ran (read share ±5 points, the dominant block-size bin
exact, weights ±10 points, the phase boundary within 2 s)."""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from recommender.classes import load_class
from sweeper.capture.bins import size_bin
from sweeper.capture.tracefs import tracefs, unavailable
from sweeper.units import format_size
from sweeper.workload import WorkloadCell
from tests.support.cli import cli, finish, start
from tests.support.devices import loop_device
from tests.support.locks import wait_held
from tests.support.workloads import MIXED, OLTP, Run, expected_mix, fio, two_phases


@pytest.fixture
def device(tmp_path: Path) -> Iterator[str]:
    with loop_device(tmp_path / "img", 256) as dev:
        yield dev


@pytest.fixture
def traceable(device: str) -> None:
    """tracefs mounted (as a root shell would: mount -t tracefs), the blk tracer free."""
    if tracefs() is None:
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"], check=True)
    problem = unavailable([Path(device).name])
    if problem is not None and "CONFIG_BLK_DEV_IO_TRACE" in problem:
        pytest.skip(problem)
    assert problem is None, problem


def _characterize(capture: Path, folder: Path) -> list:
    result = cli("characterize", capture, "-o", folder, "--min-phase", "8s", "--name", "w")
    assert result.returncode == 0, result.stderr
    files = sorted(folder.glob("*.yaml"))
    return [load_class(f) for f in files]


def _check(
    run: Run, classes: list, capture: Path, cells_of_jobs: dict[str, str], scan_bins: set[str]
) -> None:
    assert [c.name for c in classes] == ["w_phase1", "w_phase2"]
    first, scan = classes
    read_share, jobs = expected_mix(run)
    weights = {c.cell: c.weight for c in first.cells}
    total = sum(weights.values())
    recovered = sum(w * WorkloadCell.parse(k).pattern.read_fraction for k, w in weights.items())
    assert abs(recovered / total - read_share) <= 0.05, (weights, read_share)
    for job, prefix in cells_of_jobs.items():
        (cell,) = [k for k in weights if k.startswith(prefix[0]) and f"/{prefix[1]}/" in k]
        assert abs(100 * weights[cell] / total - 100 * jobs[job]) <= 10, (weights, jobs)
    dominant = max(weights, key=weights.__getitem__)
    assert f"/{cells_of_jobs['oltp'][1]}/" in dominant
    (scan_cell,) = scan.cell_keys
    assert scan_cell.split("/")[:1] == ["read"] and scan.metric == "mbps"
    assert scan_cell.split("/")[1] in scan_bins
    # the boundary: phase 2 begins within 2 s of fio's change
    header = capture.read_text().splitlines()
    assert json.loads(header[0])["format"] == "raidsweep.capture/1"
    text = (capture.parent / "classes" / "w_phase2.yaml").read_text()
    start = text.split("# phase 2 of 2: ", 1)[1].split(" to ")[0]
    began = datetime.datetime.fromisoformat(start.replace(" ", "T") + "+00:00")
    assert abs(began.timestamp() - run.change_t) <= 2.0, (start, run.change_t)


def test_traced_mix_and_phase_change_are_recovered(
    tmp_path: Path, device: str, traceable: None
) -> None:
    """8k random 70/30 at queue depth 4 beside 64k sequential writes, then 1m sequential
    reads, captured with the block tracer."""
    capture = tmp_path / "capture.jsonl"
    run = two_phases(device, capture, MIXED, "on")
    assert "sources: diskstats, blk-trace" in run.capture_output
    classes = _characterize(capture, tmp_path / "classes")
    _check(run, classes, capture, {"oltp": ("randrw", "8k"), "log": ("write", "64k")}, {"1m"})
    assert {lim.metric for lim in classes[0].limits} == {"read_lat_p99", "write_lat_p99"}
    end = json.loads(capture.read_text().splitlines()[-1])["end"]
    assert end["trace_lost"] == 0, end  # at this rate the tracer keeps up: every event seen


def test_counters_alone_recover_the_mix_and_phase_change(tmp_path: Path, device: str) -> None:
    """The 8k random 70/30 job alone, then 1m sequential reads, from /proc/diskstats only."""
    capture = tmp_path / "capture.jsonl"
    run = two_phases(device, capture, OLTP, "off")
    classes = _characterize(capture, tmp_path / "classes")
    # Counters see the requests the device got: a 1m read the block layer split to the
    # queue's segment limit (user pages not physically contiguous) counts as its parts.
    queue = Path("/sys/class/block") / Path(device).name / "queue"
    parts = int((queue / "max_segments").read_text()) * os.sysconf("SC_PAGE_SIZE")
    _check(run, classes, capture, {"oltp": ("randrw", "8k")}, {"1m", format_size(size_bin(parts))})
    text = (tmp_path / "classes" / "w_phase1.yaml").read_text()
    assert "from /proc/diskstats alone" in text


def test_a_second_traced_capture_waits_its_turn_and_the_first_loses_nothing(
    tmp_path: Path, device: str, traceable: None, lock_dir: Path
) -> None:
    """The block tracer is one per machine: while a capture traces one device, a capture of
    another device with ``--trace on`` is refused (exit 2, naming the holder, no file, the
    tracing state untouched), and with ``--trace auto`` it records counters alone, saying why.
    The first capture's events all arrive."""
    first_out = tmp_path / "first.jsonl"
    first = start("capture", "-d", device, "-o", first_out, "--duration", "12s", "--trace", "on")
    try:
        wait_held(lock_dir, "blk-tracer.lock", first)
        deadline = time.monotonic() + 30
        while not first_out.exists():  # created once its tracer is on
            assert time.monotonic() < deadline and first.poll() is None, finish(first)
            time.sleep(0.05)
        root = tracefs()
        assert root is not None
        settings = ("current_tracer", "trace_clock", "buffer_size_kb")
        before = {name: (root / name).read_text() for name in settings}
        load = [["--name=r", "--rw=randread", "--bs=4k", "--size=64m", "--rate_iops=2000"]]
        with loop_device(tmp_path / "other.img", 64) as other:
            on_out = tmp_path / "on.jsonl"
            second = start(
                "capture", "-d", other, "-o", on_out, "--duration", "3s", "--trace", "on"
            )
            fio(device, load, 2)  # the first capture's device busy while the second tries
            rc, out = finish(second)
            assert rc == 2, out
            assert f"the kernel's block tracer is in use by pid {first.pid} on host" in out, out
            assert "raidsweep capture --device " in out and "Traceback" not in out, out
            assert not on_out.exists()
            assert {name: (root / name).read_text() for name in settings} == before
            auto_out = tmp_path / "auto.jsonl"
            rc, out = finish(
                start("capture", "-d", other, "-o", auto_out, "--duration", "2s", "--trace", "auto")
            )
            assert rc == 0, out
            assert f"(block tracer: the kernel's block tracer is in use by pid {first.pid}" in out
            header = json.loads(auto_out.read_text().splitlines()[0])
            assert header["sources"] == ["diskstats"]
    except BaseException:
        first.send_signal(signal.SIGINT)  # a failed check: ended as Ctrl-C does, tracer put back
        finish(first)
        raise
    rc, out = finish(first)
    assert rc == 0, out
    end = json.loads(first_out.read_text().splitlines()[-1])["end"]
    assert end["trace_lost"] == 0 and end["trace_lines"] > 1000, end


def test_characterizing_says_what_the_tracer_lost(
    tmp_path: Path, device: str, traceable: None
) -> None:
    """The random job at the loop device's own pace (tens of thousands of requests a second,
    more than the tracer's reader may keep up with here): what the end record counts as lost,
    the characterisation says, in those numbers; nothing when nothing was lost."""
    capture = tmp_path / "capture.jsonl"
    two_phases(device, capture, OLTP, "on", seconds=5)
    end = json.loads(capture.read_text().splitlines()[-1])["end"]
    result = cli("characterize", capture, "-o", tmp_path / "classes", "--min-phase", "3s")
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stdout.split())
    if end["trace_lost"]:
        lost, read = end["trace_lost"], end["trace_lines"]
        assert f"the kernel dropped {lost:,} of its events ({read:,} read)" in said, said
    else:
        assert "fell behind" not in said, said
    print(
        f"tracer at the loop device's pace: {end['trace_lines']:,} read, {end['trace_lost']:,} lost"
    )


def test_a_device_left_traced_is_refused_with_the_way_to_free_it(
    tmp_path: Path, device: str, traceable: None, lock_dir: Path
) -> None:
    """A device whose trace a killed capture left on (no capture holds the tracer): refused,
    exit 2, with the command that frees it; once freed as said, a capture traces it."""
    enable = Path("/sys/class/block") / Path(device).name / "trace" / "enable"
    enable.write_text("1")  # what a capture killed with SIGKILL leaves
    try:
        out_file = tmp_path / "capture.jsonl"
        args = ["capture", "-d", device, "-o", out_file, "--duration", "2s", "--trace", "on"]
        result = cli(*args)
        said = " ".join((result.stdout + result.stderr).split())
        assert result.returncode == 2, said
        assert f"{Path(device).name} is already being traced" in said, said
        assert f"'echo 0 > {enable}' frees it" in said, said
        assert not out_file.exists()
        subprocess.run(["sh", "-c", f"echo 0 > {enable}"], check=True)  # the advice, as given
        result = cli(*args)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "sources: diskstats, blk-trace" in " ".join(result.stdout.split())
    finally:
        enable.write_text("0")


def _traced_capture(device: str, out: Path, duration: str) -> subprocess.Popen[str]:
    """A traced capture of ``device`` into ``out``, once it has begun writing."""
    proc = start("capture", "-d", device, "-o", out, "--duration", duration, "--trace", "on")
    deadline = time.monotonic() + 30
    while not out.exists():
        assert time.monotonic() < deadline and proc.poll() is None, finish(proc)
        time.sleep(0.05)
    return proc


def _tracing_state() -> dict[str, str]:
    root = tracefs()
    assert root is not None
    names = ["current_tracer", "trace_clock", "buffer_size_kb"]
    names += [f"options/{p.name}" for p in sorted((root / "options").iterdir())]
    return {name: (root / name).read_text() for name in names}


def test_a_traced_device_that_goes_away_is_noted_and_the_capture_kept(
    tmp_path: Path, traceable: None
) -> None:
    """A zram device removed while traced: the capture goes on, ends as planned (exit 0, its
    end record noting the device gone), keeps what it recorded, and puts every tracing
    setting back (it stopped with 'could not start', the tracer left on)."""
    control = Path("/sys/class/zram-control")
    if not control.exists():
        pytest.skip("no zram here")
    before = _tracing_state()
    number = control.joinpath("hot_add").read_text().strip()
    dev = f"/dev/zram{number}"
    try:
        Path(f"/sys/block/zram{number}/disksize").write_text("64M")
        out = tmp_path / "capture.jsonl"
        proc = _traced_capture(dev, out, "6s")
        fio(dev, [["--name=w", "--rw=randwrite", "--bs=4k", "--size=32m"]], 2)
        time.sleep(0.5)
        control.joinpath("hot_remove").write_text(number)
        rc, said = finish(proc)
    finally:
        if Path(f"/sys/block/zram{number}").exists():
            control.joinpath("hot_remove").write_text(number)
    assert rc == 0, said
    assert f"zram{number} went away" in said and "Traceback" not in said, said
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    end = lines[-1]["end"]
    assert end["stopped"] == "duration" and end["trace_lines"] > 1000, end
    assert any(f"zram{number} went away" in note for note in end["notes"]), end
    assert _tracing_state() == before
    result = cli("characterize", out, "-o", tmp_path / "classes", "--min-phase", "2s")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("option", ["blk_classic", "blk_cgroup"])
def test_the_tracers_line_format_is_set_while_tracing_and_put_back(
    tmp_path: Path, device: str, traceable: None, option: str
) -> None:
    """With a tracefs option that changes the block tracer's lines switched on (blkparse's
    layout, a cgroup column), a traced capture still reads every request (it read none,
    and claimed a trace), and the option is on again after."""
    root = tracefs()
    assert root is not None
    place = root / "options" / option
    found = place.read_text()
    place.write_text("1")
    try:
        before = _tracing_state()
        out = tmp_path / "capture.jsonl"
        proc = _traced_capture(device, out, "4s")
        fio(device, [["--name=r", "--rw=randread", "--bs=4k", "--rate_iops=500"]], 2)
        rc, said = finish(proc)
        assert rc == 0, said
        assert _tracing_state() == before and place.read_text() == "1\n"
    finally:
        place.write_text(found)
    end = json.loads(out.read_text().splitlines()[-1])["end"]
    assert end["trace_lines"] >= 1000, end  # 500 reads a second, each queued and completed


def _mkfs_mounted(fs: str, dev: str, mnt: Path) -> None:
    subprocess.run(
        [f"mkfs.{fs}", "-q" if fs == "ext4" else "-f", dev], check=True, capture_output=True
    )
    mnt.mkdir()
    subprocess.run(["mount", dev, str(mnt)], check=True)


@pytest.mark.parametrize("fs", ["ext4", "btrfs"])
def test_a_capture_file_on_an_observed_device_is_refused(tmp_path: Path, fs: str) -> None:
    """The output on a file system of the observed device: refused, exit 2, naming it, nothing
    written, on ext4 and on btrfs (whose files have an anonymous device number, which passed)."""
    with loop_device(tmp_path / "img", 256) as dev:
        mnt = tmp_path / "mnt dir"
        _mkfs_mounted(fs, dev, mnt)
        try:
            out = mnt / "sub" / "cap.jsonl"
            out.parent.mkdir()
            result = cli("capture", "-d", dev, "-o", out, "--duration", "2s")
            said = " ".join((result.stdout + result.stderr).split())
            assert result.returncode == 2, said
            assert f"would be written to {Path(dev).name}, an observed device" in said, said
            assert not out.exists()
        finally:
            subprocess.run(["umount", str(mnt)], check=True)


def test_a_disk_and_its_partition_are_not_both_observed(tmp_path: Path) -> None:
    """A loop device with a partition (an MBR written as fdisk would, added by partx: this
    kernel reads no partition table itself): observing both counted the partition's I/O
    twice; refused, exit 2, naming both, nothing written."""
    image = tmp_path / "img"
    with open(image, "wb") as fh:
        fh.truncate(64 * 1024**2)
        # one primary Linux partition from sector 2048 to the end
        entry = bytes([0, 0, 0, 0, 0x83, 0, 0, 0]) + (2048).to_bytes(4, "little")
        entry += (64 * 2048 - 2048).to_bytes(4, "little")
        fh.seek(446)
        fh.write(entry)
        fh.seek(510)
        fh.write(b"\x55\xaa")
    dev = subprocess.run(
        ["losetup", "--find", "--show", "-P", str(image)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    try:
        name = Path(dev).name
        subprocess.run(["partx", "-a", dev], check=False, capture_output=True)
        deadline = time.monotonic() + 10
        while not Path(f"/sys/class/block/{name}p1").exists():
            assert time.monotonic() < deadline, "the kernel made no partition"
            time.sleep(0.1)
        out = tmp_path / "cap.jsonl"
        result = cli("capture", "-d", dev, "-d", f"{name}p1", "-o", out, "--duration", "2s")
        said = " ".join((result.stdout + result.stderr).split())
        assert result.returncode == 2, said
        assert f"--device: {name} and {name}p1 are both chosen, and {name} holds {name}p1" in said
        assert not out.exists()
        result = cli("capture", "-d", f"{name}p1", "-o", out, "--duration", "2s")
        assert result.returncode == 0, result.stdout + result.stderr
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_kill_ends_a_traced_capture_as_ctrl_c_does(
    tmp_path: Path, device: str, traceable: None, sig: signal.Signals
) -> None:
    """``kill`` (what the refusal of a second capture advises) or a dropped ssh session: the
    samples kept with the end record, and the machine's block tracer put back as it was."""
    root = tracefs()
    assert root is not None
    settings = ("current_tracer", "trace_clock", "buffer_size_kb")
    before = {name: (root / name).read_text() for name in settings}
    out = tmp_path / "c.jsonl"
    proc = start("capture", "-d", device, "-o", out, "--duration", "60s", "--trace", "on")
    deadline = time.monotonic() + 30
    while not (out.exists() and len(out.read_text().splitlines()) >= 3):
        assert time.monotonic() < deadline and proc.poll() is None, finish(proc)
        time.sleep(0.1)
    proc.send_signal(sig)
    rc, said = finish(proc)
    assert rc == 0, said
    end = json.loads(out.read_text().splitlines()[-1])["end"]
    assert end["stopped"] == "interrupted" and end["samples"] >= 2, end
    assert {name: (root / name).read_text() for name in settings} == before
    enable = Path("/sys/block") / Path(device).name / "trace" / "enable"
    assert enable.read_text().strip() == "0"
