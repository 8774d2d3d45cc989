"""Hostile capture files: each is a recorded fixture with one change, and each is refused
by ``read_capture`` with an InputError naming the line and the field, and by ``raidsweep
characterize`` with exit status 2, no traceback and nothing written."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sweeper.capture import diskstats
from sweeper.capture.format import MAX_PROBLEMS, read_capture
from sweeper.cli import app
from sweeper.errors import InputError
from tests.support.paths import FIXTURES, RAIDSWEEP, ROOT

HERE = FIXTURES / "capture"
Lines = list[str]


def _lines(name: str = "mixed") -> Lines:
    return (HERE / f"{name}.jsonl").read_text().splitlines()


def _dump(record: Any) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True)


def _first(lines: Lines, kind: str, after: int = 0) -> int:
    """The index of the first line from ``after`` holding ``kind`` (tick, trace, end)."""
    for i, line in enumerate(lines):
        if i >= after and i > 0 and kind in json.loads(line):
            if kind != "tick" or "trace" not in json.loads(line):
                return i
    raise AssertionError(f"no {kind} line")


def _sample(n: int) -> Callable[[Lines], int]:
    """The index of the ``n``-th sample line (0: the baseline)."""

    def at(lines: Lines) -> int:
        found = [i for i, line in enumerate(lines) if i and "diskstats" in json.loads(line)]
        return found[n]

    return at


def _trace(lines: Lines) -> int:
    return _first(lines, "trace")


def _header(lines: Lines) -> int:
    return 0


def _edit(where: Callable[[Lines], int], change: Callable[[dict], None]) -> Callable[[Lines], int]:
    """A mutation: the record at ``where`` changed in place; returns its index."""

    def mutate(lines: Lines) -> int:
        i = where(lines)
        record = json.loads(lines[i])
        change(record)
        lines[i] = _dump(record)
        return i

    return mutate


def _set(*path: Any, value: Any) -> Callable[[dict], None]:
    def change(record: dict) -> None:
        place = record
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = value

    return change


def _group(item: int, value: Any) -> Callable[[dict], None]:
    def change(record: dict) -> None:
        record["trace"]["loop0"]["groups"][0][item] = value

    return change


def _rename_device(name: str) -> Callable[[Lines], int]:
    """loop0 renamed everywhere (header, samples, trace): the header is the first refusal."""

    def mutate(lines: Lines) -> int:
        for i, line in enumerate(lines):
            lines[i] = _dump(json.loads(line.replace('"loop0"', json.dumps(name))))
        return 0

    return mutate


def _swap_first_samples(lines: Lines) -> int:
    a, b = _sample(0)(lines), _sample(1)(lines)
    lines[a], lines[b] = lines[b], lines[a]
    return a


def _repeat_tick(lines: Lines) -> int:
    i, before = _sample(3)(lines), json.loads(lines[_sample(2)(lines)])
    record = json.loads(lines[i])
    record["tick"] = before["tick"]
    lines[i] = _dump(record)
    return i


def _time_back(lines: Lines) -> int:
    i, before = _sample(3)(lines), json.loads(lines[_sample(2)(lines)])
    record = json.loads(lines[i])
    record["t"] = before["t"] - 10
    lines[i] = _dump(record)
    return i


def _trace_past_samples(lines: Lines) -> int:
    last = json.loads(lines[_sample(-1)(lines)])["tick"]
    return _edit(_trace, _set("tick", value=last + 2))(lines)


def _text(where: Callable[[Lines], int], old: str, new: str) -> Callable[[Lines], int]:
    """A mutation of the line's text (for what json.dumps does not write)."""

    def mutate(lines: Lines) -> int:
        i = where(lines)
        assert old in lines[i]
        lines[i] = lines[i].replace(old, new, 1)
        return i

    return mutate


def _nan_seconds(token: str) -> Callable[[Lines], int]:
    def mutate(lines: Lines) -> int:
        i = _trace(lines)
        record = json.loads(lines[i])
        seconds = record["trace"]["loop0"]["groups"][0][4]
        lines[i] = lines[i].replace(f",{seconds}]", f",{token}]", 1)
        assert token in lines[i]
        return i

    return mutate


def _replace(where: Callable[[Lines], int], text: str) -> Callable[[Lines], int]:
    def mutate(lines: Lines) -> int:
        i = where(lines)
        lines[i] = text
        return i

    return mutate


def _end_early(lines: Lines) -> int:
    end = lines.pop()
    at = _sample(3)(lines)
    lines.insert(at, end)
    return at + 1  # the line after the end record is the one refused


BIG = 10**400
# (id, mutation, the words the problem names besides its line)
CASES: list[tuple[str, Callable[[Lines], int], str]] = [
    ("sector-bytes-0", _edit(_header, _set("sector_bytes", value=0)), "sector_bytes"),
    ("sector-bytes-negative", _edit(_header, _set("sector_bytes", value=-512)), "sector_bytes"),
    ("sector-bytes-huge", _edit(_header, _set("sector_bytes", value=10**30)), "sector_bytes"),
    ("sector-bytes-odd", _edit(_header, _set("sector_bytes", value=1000)), "sector_bytes"),
    ("sector-bytes-bool", _edit(_header, _set("sector_bytes", value=True)), "sector_bytes"),
    # /proc/diskstats counts 512-byte sectors on a 4k-sector drive too: 4096 would be 8x off
    ("sector-bytes-4096", _edit(_header, _set("sector_bytes", value=4096)), "sector_bytes"),
    ("fields-unknown", _edit(_header, _set("diskstats_fields", value=["a"])), "diskstats_fields"),
    (
        "fields-reordered",
        _edit(_header, _set("diskstats_fields", value=list(reversed(diskstats.FIELDS)))),
        "diskstats_fields",
    ),
    ("devices-twice", _edit(_header, _set("devices", value=["loop0", "loop0"])), "devices"),
    ("sources-no-diskstats", _edit(_header, _set("sources", value=["blk-trace"])), "sources"),
    ("interval-nan", _text(_header, '"interval_s":1.0', '"interval_s":NaN'), "interval_s"),
    ("host-control", _edit(_header, _set("host", value="vm\x1b[2J")), "host"),
    ("host-long", _edit(_header, _set("host", value="h" * 65)), "host"),
    # half of a UTF-16 pair (JSON's "\\ud83d" alone) is no character: it could not be printed
    ("host-half-pair", _edit(_header, _set("host", value="vm\ud83d")), "host"),
    ("started-not-a-time", _edit(_header, _set("started", value="yesterday")), "started"),
    ("device-dotdot", _rename_device("../../etc"), "devices.0"),
    ("device-template", _rename_device("{{7*7}}"), "devices.0"),
    ("device-escape", _rename_device("sd\x1b[31ma"), "devices.0"),
    ("device-long", _rename_device("a" * 5000), "devices.0"),
    ("device-dot-dot-inside", _rename_device("a..b"), "devices.0"),
    ("device-newline", _rename_device("sda\n"), "devices.0"),
    (
        "sample-device-unknown",
        _edit(_sample(2), lambda r: r["diskstats"].update(sdz=r["diskstats"]["loop0"])),
        "diskstats.sdz",
    ),
    (
        "sample-device-path",
        _edit(_sample(2), lambda r: r["diskstats"].update({"../x": r["diskstats"]["loop0"]})),
        "diskstats.'../x'",
    ),
    ("counter-huge", _edit(_sample(2), _set("diskstats", "loop0", 0, value=BIG)), "loop0.0"),
    ("counter-2**64", _edit(_sample(2), _set("diskstats", "loop0", 3, value=2**64)), "loop0.3"),
    ("counter-negative", _edit(_sample(2), _set("diskstats", "loop0", 4, value=-1)), "loop0.4"),
    ("counter-bool", _edit(_sample(2), _set("diskstats", "loop0", 1, value=True)), "loop0.1"),
    ("counter-float", _edit(_sample(2), _set("diskstats", "loop0", 2, value=1.5)), "loop0.2"),
    ("counters-short", _edit(_sample(2), lambda r: r["diskstats"]["loop0"].pop()), "loop0"),
    (
        "counters-past-the-header",
        _edit(_sample(2), lambda r: r["diskstats"]["loop0"].extend([0] * 6)),
        "diskstats.loop0: 17 counters where the header's diskstats_fields name 11",
    ),
    (
        "end-note-control",
        _edit(lambda lines: len(lines) - 1, _set("end", "notes", value=["gone\x1b[2J"])),
        "end.notes.0",
    ),
    (
        "end-note-half-pair",
        _edit(lambda lines: len(lines) - 1, _set("end", "notes", value=["gone\udc00"])),
        "end.notes.0",
    ),
    ("counter-5000-digits", _text(_sample(2), "[", "[" + "9" * 5000 + ","), "not JSON"),
    ("sample-extra-key", _edit(_sample(2), _set("extra", value=1)), "extra"),
    ("sample-no-t", _edit(_sample(2), lambda r: r.pop("t")), "t"),
    ("t-infinite", _text(_sample(2), '"t":', '"t":Infinity,"x":'), "t"),
    ("t-huge", _edit(_sample(2), _set("t", value=1e300)), "t"),
    ("t-negative", _edit(_sample(2), _set("t", value=-1.0)), "t"),
    ("ticks-reversed", _swap_first_samples, "tick"),
    ("tick-repeated", _repeat_tick, "tick"),
    ("tick-negative", _edit(_sample(0), _set("tick", value=-1)), "tick"),
    ("tick-bool", _edit(_sample(1), _set("tick", value=True)), "tick"),
    ("group-seconds-nan", _nan_seconds("NaN"), "groups.0.seconds"),
    ("group-seconds-infinity", _nan_seconds("Infinity"), "groups.0.seconds"),
    ("group-seconds-overflow", _nan_seconds("1e400"), "groups.0.seconds"),
    ("group-seconds-negative", _edit(_trace, _group(4, -0.5)), "groups.0.seconds"),
    ("group-seconds-denormal", _edit(_trace, _group(4, 5e-324)), "groups.0.seconds"),
    ("group-count-negative", _edit(_trace, _group(3, -3)), "groups.0.count"),
    ("group-count-huge", _edit(_trace, _group(3, BIG)), "groups.0.count"),
    ("group-count-float", _edit(_trace, _group(3, 2.5)), "groups.0.count"),
    ("group-direction-x", _edit(_trace, _group(0, "X")), "groups.0.direction"),
    ("group-size-0", _edit(_trace, _group(1, 0)), "groups.0.size"),
    ("group-size-huge", _edit(_trace, _group(1, 99999999999999999999999)), "groups.0.size"),
    ("group-size-not-sectors", _edit(_trace, _group(1, 1000)), "groups.0.size"),
    ("group-sequential-int", _edit(_trace, _group(2, 1)), "groups.0.sequential"),
    (
        "group-short",
        _edit(_trace, lambda r: r["trace"]["loop0"]["groups"][0].pop()),
        "groups.0",
    ),
    (
        "group-not-a-list",
        _edit(_trace, _set("trace", "loop0", "groups", 0, value={"R": 1})),
        "groups.0",
    ),
    (
        "latency-key-negative",
        _edit(_trace, _set("trace", "loop0", "latency", "R", "-12", value=3)),
        "latency.R.-12",
    ),
    (
        "latency-key-huge",
        _edit(_trace, _set("trace", "loop0", "latency", "R", "9999", value=3)),
        "latency.R.9999",
    ),
    (
        "latency-key-word",
        _edit(_trace, _set("trace", "loop0", "latency", "R", "x", value=3)),
        "latency.R.x",
    ),
    (
        "latency-count-negative",
        _edit(_trace, _set("trace", "loop0", "latency", "W", "20", value=-1)),
        "latency.W.20",
    ),
    (
        "latency-direction",
        _edit(_trace, _set("trace", "loop0", "latency", "D", value={})),
        "latency.D",
    ),
    ("trace-no-latency", _edit(_trace, lambda r: r["trace"]["loop0"].pop("latency")), "latency"),
    (
        "trace-device-unknown",
        _edit(_trace, lambda r: r["trace"].update(sdz=r["trace"]["loop0"])),
        "trace.sdz",
    ),
    ("trace-tick-0", _edit(_trace, _set("tick", value=0)), "tick"),
    ("trace-tick-past-samples", _trace_past_samples, "tick"),
    ("end-stopped", _edit(lambda lines: len(lines) - 1, _set("end", "stopped", value="x")), "end"),
    (
        "end-cpu-nan",
        _text(lambda lines: len(lines) - 1, '"cpu_s":5.645', '"cpu_s":NaN'),
        "end.cpu_s",
    ),
    ("end-early", _end_early, "after the end record"),
    ("deep-nesting", _replace(_sample(4), "[" * 100_000), "nested too deeply"),
    ("line-not-an-object", _replace(_sample(4), "[1, 2]"), "object"),
    ("line-empty", _replace(_sample(4), ""), "not JSON"),
]


def _hostile(tmp_path: Path, mutate: Callable[[Lines], int], name: str = "mixed") -> tuple:
    lines = _lines(name)
    index = mutate(lines)
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, index + 1


def _refused_by_cli(path: Path, out: Path) -> None:
    result = CliRunner().invoke(
        app, ["characterize", str(path), "-o", str(out)], env={"COLUMNS": "300"}
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert "problem(s)" in result.output
    assert not out.exists()


@pytest.mark.parametrize(("mutate", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_hostile_capture_is_refused_with_line_and_field(
    tmp_path: Path, mutate: Callable[[Lines], int], words: str
) -> None:
    path, line = _hostile(tmp_path, mutate)
    with pytest.raises(InputError) as caught:
        read_capture(path)
    problems = caught.value.problems
    assert 1 <= len(problems) <= MAX_PROBLEMS
    assert any(p.startswith(f"line {line}: ") and words in p for p in problems), problems
    for problem in problems:  # shown as they are: no control character, no 5,000 characters
        assert problem.isprintable() and len(problem) < 400, problem
    _refused_by_cli(path, tmp_path / "out")


@pytest.mark.parametrize(
    "case", ["sector-bytes-0", "counter-huge", "group-seconds-nan", "deep-nesting"]
)
def test_the_command_refuses_the_crashes_found_with_exit_2(tmp_path: Path, case: str) -> None:
    """The audit's crashes, as a user runs the command: exit 2, the place, no traceback."""
    mutate = next(c[1] for c in CASES if c[0] == case)
    path, line = _hostile(tmp_path, mutate)
    out = tmp_path / "out"
    result = subprocess.run(
        [str(RAIDSWEEP), "characterize", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"line {line}:" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert not out.exists()


def test_trace_lines_in_a_capture_without_the_tracer_are_refused(tmp_path: Path) -> None:
    trace = _lines("mixed")[_trace(_lines("mixed"))]

    def mutate(lines: Lines) -> int:
        lines.insert(3, trace)
        return 3

    path, line = _hostile(tmp_path, mutate, "counters")
    with pytest.raises(InputError, match=f"line {line}: trace: a trace line in a capture"):
        read_capture(path)


def test_at_most_ten_problems_are_listed(tmp_path: Path) -> None:
    def mutate(lines: Lines) -> int:
        for i in range(2, 30):
            record = json.loads(lines[i])
            if "diskstats" in record:
                record["diskstats"]["loop0"][0] = -1
                lines[i] = _dump(record)
        return 2

    path, _ = _hostile(tmp_path, mutate)
    with pytest.raises(InputError) as caught:
        read_capture(path)
    assert len(caught.value.problems) == MAX_PROBLEMS


def test_a_capture_cut_mid_line_is_still_read(tmp_path: Path) -> None:
    """A capture killed while writing a line: the lines before it are read, the end record
    missing; a cut line anywhere but the last is refused, as is a header alone and cut."""
    whole = read_capture(HERE / "mixed.jsonl")
    lines = _lines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:17], encoding="utf-8")
    read = read_capture(cut)
    assert read.end is None and read.samples == whole.samples and read.trace == whole.trace
    cut.write_text("\n".join(lines[:20]) + "\n" + lines[20][:40], encoding="utf-8")
    assert len(read_capture(cut).samples) < len(whole.samples)
    cut.write_text("\n".join([*lines[:5], lines[5][:30], *lines[6:]]), encoding="utf-8")
    with pytest.raises(InputError, match="line 6: not JSON"):
        read_capture(cut)
    cut.write_text(lines[0][:50], encoding="utf-8")
    with pytest.raises(InputError, match="line 1: not JSON"):
        read_capture(cut)


def test_the_recorded_captures_are_read_whole() -> None:
    for name in ("mixed", "counters"):
        capture = read_capture(HERE / f"{name}.jsonl")
        ticks = [s["tick"] for s in capture.samples]
        assert ticks == list(range(len(ticks))) and len(ticks) == 26
        assert capture.end is not None and capture.end["samples"] == 26
        assert bool(capture.trace) == (name == "mixed")


def test_the_capture_command_takes_only_names_the_reader_takes() -> None:
    assert diskstats.device_name("nvme0n1p2", ["sda", "nvme0n1p2"]) == "nvme0n1p2"
    for name in ("dm-0", "md127", "mmcblk0boot0", "ubiblock0_0", "cciss!c0d0"):
        assert diskstats.is_device_name(name), name
    for name in ("../../etc", "a..b", "{{7*7}}", "sd\x1ba", "a" * 65, "", ".x", "a/b"):
        assert not diskstats.is_device_name(name), name
    with pytest.raises(ValueError, match="not one a capture can hold"):
        diskstats.device_name("a..b", ["a..b"])


def test_a_wall_clock_set_back_is_read_not_refused(tmp_path: Path) -> None:
    """``t`` is the wall clock, which a time step (NTP) may set back during a long capture:
    the capture is still read and characterised."""
    path, _ = _hostile(tmp_path, _time_back)
    assert len(read_capture(path).samples) == len(read_capture(HERE / "mixed.jsonl").samples)
    result = CliRunner().invoke(app, ["characterize", str(path), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("kind", ["device", "fifo", "folder", "huge"])
def test_what_is_not_a_capture_file_is_refused_without_reading_it(
    tmp_path: Path, kind: str
) -> None:
    """/dev/zero filled the memory until the kernel killed the command, a FIFO waited for
    ever: only a regular file of a capture's size is read."""
    import os

    path = {"device": Path("/dev/zero"), "folder": tmp_path}.get(kind, tmp_path / "c.jsonl")
    if kind == "fifo":
        os.mkfifo(path)
    if kind == "huge":
        with path.open("wb") as fh:
            fh.truncate(3 * 1024**3)  # sparse: nothing written
    out = tmp_path / "out"
    result = _characterize(path, out)
    words = {
        "device": "is not a regular file",
        "fifo": "is not a regular file",
        "folder": "is a directory, not a capture",
        "huge": "more than the 2,147,483,648 a capture may be",
    }
    assert words[kind] in result.stderr and str(path) in result.stderr
    assert not out.exists()


def test_an_output_folder_with_template_syntax_is_refused(tmp_path: Path) -> None:
    capture = FIXTURES / "capture" / "loop_randrw70_8k_qd4.jsonl"
    if not capture.exists():
        capture = next((FIXTURES / "capture").glob("*.jsonl"))
    out = tmp_path / "{{ x }}"
    result = _characterize(capture, out)
    assert "--output:" in result.stderr and "template" in result.stderr
    assert not out.exists()


def _characterize(capture: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """``raidsweep characterize CAPTURE -o OUT`` as a user runs it; it must exit 2."""
    result = subprocess.run(
        [str(RAIDSWEEP), "characterize", str(capture), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    return result
