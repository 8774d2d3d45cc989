"""What the kernel's counters mean, on captures and counts recorded from real devices
(tests/fixtures/capture/flushes/record.py, options/record.py): flushes are not writes, the
32-bit milliseconds wrap, the tracer's line format is pinned, and a trace that read nothing
is set aside."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from sweeper.capture.characterize import Options, characterize
from sweeper.capture.diskstats import FIELDS, WRAP, WRAPPING
from sweeper.capture.format import read_capture
from sweeper.capture.seconds import empty_writes, seconds
from sweeper.capture.trace import parse_line
from sweeper.capture.tracefs import LINE_FORMAT
from sweeper.workload import WorkloadCell
from tests.support.paths import FIXTURES

HERE = FIXTURES / "capture"
FLUSHES = HERE / "flushes"
MEASURED = json.loads((FLUSHES / "measured.json").read_text())
#: the writes of data each measured program made (one per operation but the empty fsyncs)
DATA_WRITES = {"empty_fsync": 0, "discard": 0}


def _programs() -> list[tuple[str, str]]:
    return [
        (device, program)
        for device in ("loop", "zram", "ext4")
        for program in MEASURED[device]
        if program != "queue" and (device, program) != ("ext4", "write_fsync")
    ]


@pytest.mark.parametrize(("device", "program"), _programs())
def test_writes_of_no_data_are_told_from_writes_as_measured(device: str, program: str) -> None:
    """Every program measured: the writes of data are recovered exactly from the kernel's
    writes, sectors and flushes (ext4's write+fsync also commits the journal: no count of
    its own writes is known)."""
    measured = MEASURED[device][program]
    d, ops = measured["delta"], measured["ops"]
    empty = empty_writes(d["writes"], d["write_sectors"], d["flushes"])
    assert d["writes"] - empty == DATA_WRITES.get(program, ops), d


def test_an_empty_fsync_is_a_write_of_no_data_and_a_flush() -> None:
    """What the kernel counts (6.18, loop with a write-back cache; zram has none)."""
    loop, zram = MEASURED["loop"], MEASURED["zram"]
    ops = loop["empty_fsync"]["ops"]
    assert loop["queue"] == {"write_cache": "write back", "fua": "0"}
    d = loop["empty_fsync"]["delta"]
    assert (d["writes"], d["write_sectors"], d["flushes"]) == (ops, 0, ops)
    d = loop["write_fsync"]["delta"]
    assert (d["writes"], d["write_sectors"], d["flushes"]) == (2 * ops, 8 * ops, ops)
    d = loop["direct_dsync"]["delta"]
    assert (d["writes"], d["write_sectors"], d["flushes"]) == (2 * ops, 8 * ops, 2 * ops)
    assert zram["empty_fsync"]["delta"]["writes"] == zram["empty_fsync"]["delta"]["flushes"] == 0
    d = loop["discard"]["delta"]
    assert d["discards"] == 1 and d["discard_sectors"] == 2048 and d["writes"] == 0


def _cells(phase) -> dict[str, float]:
    return {c["cell"]: c["weight"] for c in phase.document["cells"]}


def _characterized(capture, min_phase_s: float = 3) -> tuple[list, list[str]]:
    return characterize(seconds(capture), Options("serial", min_phase_s=min_phase_s))


def test_fsyncs_are_not_writes_nor_a_made_up_size() -> None:
    """4k O_DIRECT writes each followed by fsync, then fsyncs alone: one cell of 4k writes at
    the program's rate, one in flight; the fsyncs alone are no cell (they were randwrite/2k
    at twice the rate, and randwrite/512)."""
    run = json.loads((FLUSHES / "serial.run.json").read_text())
    classes, notes = _characterized(read_capture(FLUSHES / "serial.jsonl"))
    cells = {cell for c in classes for cell in _cells(c)}
    assert cells and all(WorkloadCell.parse(c).block_size == 4096 for c in cells), cells
    assert all(c.endswith("/qd1x1") for c in cells), cells
    rate = run["writes"] / (run["change_t"] - run["start_t"])
    written = sum(c.kept[0][0].requests for c in classes)
    assert abs(written - run["writes"]) <= 0.05 * run["writes"], (written, run["writes"])
    for c in classes:
        busy = c.intervals
        assert c.kept[0][0].requests / busy <= 1.1 * rate
    assert any("writes of no data" in n for n in notes), notes


def test_a_capture_without_flush_counters_makes_no_size_of_no_bytes(tmp_path: Path) -> None:
    """The same capture as a kernel before 4.18 gives it (the first 11 counters): the fsyncs
    alone moved no byte and make no cell."""
    lines = (FLUSHES / "serial.jsonl").read_text().splitlines()
    out = []
    for line in lines:
        record = json.loads(line)
        if "diskstats_fields" in record:
            record["diskstats_fields"] = record["diskstats_fields"][:11]
        for name, counters in record.get("diskstats", {}).items():
            record["diskstats"][name] = counters[:11]
        out.append(json.dumps(record))
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(out) + "\n")
    classes, _ = _characterized(read_capture(old))
    cells = {cell for c in classes for cell in _cells(c)}
    assert cells and not any(WorkloadCell.parse(c).block_size < 1024 for c in cells), cells


def test_flushes_time_is_not_requests_in_flight() -> None:
    """The same strictly serial program, traced: one request in flight at most (the flushes'
    time counted into weighted_ms made it qd1x2, 1.5 in flight)."""
    classes, _ = _characterized(read_capture(FLUSHES / "serial_traced.jsonl"))
    for c in classes:
        for cell, _ in c.kept:
            assert cell.key.endswith("/qd1x1") and cell.in_flight <= 1.0, cell


def _moved(capture, wrap_at: int):
    """The capture with its 32-bit milliseconds moved to pass 2**32 after sample
    ``wrap_at``, as a kernel up long enough gives them."""
    name = capture.header.devices[0]
    at = capture.samples[wrap_at]["diskstats"][name]
    samples = []
    for s in capture.samples:
        counters = list(s["diskstats"][name])
        for i, field in enumerate(FIELDS[: len(counters)]):
            if field in WRAPPING:
                counters[i] = (counters[i] + WRAP - 1 - at[i]) % WRAP
        samples.append(s | {"diskstats": {name: counters}})
    return capture.model_copy(update={"samples": samples})


@pytest.mark.parametrize("name", ["counters", "mixed"])
def test_the_32_bit_milliseconds_wrap_without_losing_an_interval(name: str) -> None:
    capture = read_capture(HERE / f"{name}.jsonl")
    series = seconds(capture)
    busy = max(range(len(series)), key=lambda i: series[i].weighted_ms)
    moved = _moved(capture, busy)
    after = moved.samples[busy + 1]["diskstats"][capture.header.devices[0]]
    before = moved.samples[busy]["diskstats"][capture.header.devices[0]]
    assert after[10] < before[10], "weighted_ms wraps in the busiest interval"
    assert seconds(moved) == series


def test_a_device_re_created_adds_nothing_to_its_interval() -> None:
    """Counts that went backwards (a device removed and made again): not a wrap."""
    capture = read_capture(HERE / "counters.jsonl")
    name = capture.header.devices[0]
    samples = [dict(s) for s in capture.samples]
    k = len(samples) // 2
    for s in samples[k:]:
        base = capture.samples[k - 1]["diskstats"][name]
        s["diskstats"] = {
            name: [max(0, x - b) for x, b in zip(s["diskstats"][name], base, strict=True)]
        }
    series = seconds(capture.model_copy(update={"samples": samples}))
    assert series[k - 1].requests == 0 and series[k - 1].weighted_ms == 0
    assert series[k:] == seconds(capture)[k:]


def test_a_trace_that_read_no_request_is_set_aside_and_said() -> None:
    """The traced capture with every trace tally empty (what a line format the reader did not
    know gave: trace_lines 0): characterised from the counters alone, saying so, never as
    "seen one by one"."""
    capture = read_capture(HERE / "mixed.jsonl")
    series = seconds(capture)
    blank = [replace(s, groups=[], latency={"R": {}, "W": {}}) for s in series]
    classes, notes = characterize(blank, Options("m", min_phase_s=8))
    assert any("set aside" in n and "diskstats alone" in n for n in notes), notes
    text = " ".join(line for c in classes for line in c.explanation)
    assert "one by one" not in text and "from /proc/diskstats alone" in text
    counters = [replace(s, groups=None, latency=None) for s in series]
    alone, _ = characterize(counters, Options("m", min_phase_s=8))
    assert [c.document for c in classes] == [c.document for c in alone]


def test_every_option_that_changes_the_tracers_lines_is_pinned() -> None:
    """Each tracefs option flipped on a real trace (options/lines.json): those after which the
    reader parses fewer of the same reads' events are set, while tracing, to the value the
    reader reads."""
    recorded = json.loads((HERE / "options" / "lines.json").read_text())

    def events(lines: list[str]) -> int:
        return sum(parse_line(line) is not None for line in lines)

    baseline = recorded["baseline"]
    assert events(baseline["lines"]) >= 6  # three reads queued and completed
    changing = {name for name, flip in recorded["flipped"].items() if events(flip["lines"]) < 6}
    assert {"blk_classic", "blk_cgroup", "context-info", "latency-format"} <= changing
    for name in changing:
        assert LINE_FORMAT.get(name) == baseline["options"][name], name


def test_milliseconds_that_restart_while_requests_grow_are_no_wrap() -> None:
    """A device re-created between two samples whose request counts had already passed the
    old ones: its milliseconds restart from near zero, which is no 32-bit wrap (that would be
    4.29e9 ms in an interval and millions of requests in flight): the interval is not its."""
    capture = read_capture(HERE / "counters.jsonl")
    name = capture.header.devices[0]
    k = len(capture.samples) // 2
    samples = []
    for j, s in enumerate(capture.samples):
        counters = list(s["diskstats"][name])
        if j >= k:
            for i, field in enumerate(FIELDS[: len(counters)]):
                if field in WRAPPING:
                    counters[i] = 5 + counters[i] - capture.samples[k]["diskstats"][name][i]
        samples.append(s | {"diskstats": {name: counters}})
    series = seconds(capture.model_copy(update={"samples": samples}))
    assert series[k - 1].requests == 0 and series[k - 1].weighted_ms == 0
    assert series[k:] == seconds(capture)[k:]
    classes, _ = characterize(series, Options(name="restarted", min_phase_s=3))
    for c in classes:
        for cell, _ in c.kept:
            WorkloadCell.parse(cell.key)  # a cell a spec takes


def test_a_queue_deeper_than_a_cell_takes_is_the_most_jobs_and_said() -> None:
    """Requests in flight above a cell's 4,096 jobs (64 jobs at QD128 over many devices, or
    samples a moment apart): the class says qd1x4096 and how deep the queue was, never a
    traceback for an invalid cell."""
    capture = read_capture(HERE / "counters.jsonl")
    name = capture.header.devices[0]
    deeper = [FIELDS.index(f) for f in ("read_ms", "write_ms", "weighted_ms")]
    samples = []
    for s in capture.samples:
        counters = list(s["diskstats"][name])
        for at in deeper:  # every request waits 20,000 times as long: the queue as deep
            counters[at] = (counters[at] * 20_000) % WRAP
        samples.append(s | {"diskstats": {name: counters}})
    deep = capture.model_copy(update={"samples": samples})
    classes, _ = characterize(seconds(deep), Options(name="deep", min_phase_s=3))
    kept = [cell for c in classes for cell, _ in c.kept]
    assert kept and all(WorkloadCell.parse(c.key).concurrency.numjobs <= 4096 for c in kept)
    deepest = max(kept, key=lambda c: c.in_flight)
    assert deepest.key.endswith("/qd1x4096") and "more than a cell's 4096 jobs" in deepest.how


def test_a_counters_only_p99_is_a_queues_not_the_mean_wait() -> None:
    """From counters alone each interval's waits are exponential about its mean wait: one
    steady interval's p99 is ln 100 ≈ 4.6 × its mean; a mixture lies between its parts'."""
    from sweeper.capture.characterize import _exponential_percentile

    assert _exponential_percentile([(0.2, 1000)], 99) == pytest.approx(0.2 * math.log(100))
    mixed = _exponential_percentile([(0.2, 1000), (2.0, 10)], 99)
    assert mixed is not None and 0.2 * math.log(100) < mixed < 2.0 * math.log(100)
    assert _exponential_percentile([(0.0, 5)], 99) is None
