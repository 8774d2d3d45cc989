"""The kernel's block tracer (``blk``, the events blktrace records) through tracefs: whether
it can be used here, switching it on for the observed devices only, and reading its lines.

It changes tracing state, never a device's data: ``current_tracer`` (refused when another
tracer is in use), ``trace_clock`` (``mono``, so events fall into the sampler's intervals),
``buffer_size_kb``, the ``options`` that decide the line format (``LINE_FORMAT``), and each
device's ``trace/act_mask`` (queue and complete only) and ``trace/enable``; ``stop`` puts back
what was found, every setting it can whatever else failed (a device that went away meanwhile
is noted and passed over). blktrace itself reads the same events through relay files in
debugfs, which some kernels (and containers) refuse; tracefs's text pipe works wherever the
``blk`` tracer is built in."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sweeper.locking import target_lock_dir

TRACEFS_PLACES = (Path("/sys/kernel/tracing"), Path("/sys/kernel/debug/tracing"))
ACT_MASK = "queue,complete"
#: the tracer's buffer per CPU while capturing (KiB): a second of a busy device's events
BUFFER_KB = 16384
#: the tracefs options that change the text of a ``blk`` line, at the values whose lines
#: ``trace`` reads (recorded one by one on 6.18: tests/fixtures/capture/options): the
#: blk tracer's own (``blk_classic``: blkparse's layout; ``blk_cgroup``, ``blk_cgname``: a
#: cgroup column), and the ones every tracer's lines follow (``context-info``: the task,
#: CPU and time; ``latency-format``: relative microseconds; ``raw``, ``hex``, ``bin``:
#: numbers only; ``fields``: none of the text; ``verbose``: actions as words). Those a
#: kernel lacks are left alone; the others (``irq-info``, ``record-tgid``, …) add or drop
#: columns the reader passes over.
LINE_FORMAT = {
    "blk_classic": "0",
    "blk_cgroup": "0",
    "blk_cgname": "0",
    "context-info": "1",
    "latency-format": "0",
    "raw": "0",
    "hex": "0",
    "bin": "0",
    "fields": "0",
    "verbose": "0",
}


def tracefs() -> Path | None:
    """The mounted tracefs folder, if any."""
    for place in TRACEFS_PLACES:
        if (place / "available_tracers").exists():
            return place
    return None


def unavailable(devices: list[str]) -> str | None:
    """Why the block tracer cannot be used for ``devices`` (None when it can)."""
    if os.geteuid() != 0:
        return "the block tracer needs root"
    root = tracefs()
    if root is None:
        return "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
    if "blk" not in (root / "available_tracers").read_text().split():
        return "this kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)"
    current = (root / "current_tracer").read_text().strip()
    if current not in ("nop", "blk"):
        return f"the kernel's tracer is in use ({current})"
    for name in devices:
        if not (_sysfs(name) / "enable").exists():
            return f"{name} cannot be traced (no {_sysfs(name)})"
        if (_sysfs(name) / "enable").read_text().strip() != "0":
            return (
                f"{name} is already being traced (by blktrace, or left so by a capture that "
                f"was killed: if no blktrace runs, 'echo 0 > {_sysfs(name) / 'enable'}' frees it)"
            )
    return None


def tracer_lock() -> dict[Path, str]:
    """The machine-wide lock of the kernel's block tracer (one per machine: every traced
    device's events go through its one buffer and pipe, so a second capture would clear and
    resize the first's buffer before the kernel refuses its pipe), with what it guards."""
    return {target_lock_dir() / "blk-tracer.lock": "the kernel's block tracer"}


def _sysfs(name: str) -> Path:
    return Path("/sys/class/block") / name / "trace"


def device_numbers(devices: list[str]) -> dict[str, str]:
    """The tracer's "major,minor" for each device name."""
    out = {}
    for name in devices:
        major, minor = (Path("/sys/class/block") / name / "dev").read_text().strip().split(":")
        out[f"{major},{minor}"] = name
    return out


class BlockTracer:
    """The ``blk`` tracer switched on for ``devices``; its trace lines go to ``feed`` from a
    reader thread until ``stop``, in blocks of whole lines as the pipe gives them."""

    def __init__(self, devices: list[str], feed: Callable[[str], None]):
        root = tracefs()
        assert root is not None
        self.root, self.devices, self.feed = root, devices, feed
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._read, name="blk-trace", daemon=True)
        self._pipe: int | None = None
        #: what ``stop`` puts back, in the order it does: the options, then the tracer, its
        #: buffer and its clock (read before anything is changed)
        self._found: dict[str, str] = {
            f"options/{name}": (root / "options" / name).read_text().strip()
            for name in LINE_FORMAT
            if (root / "options" / name).exists()
        }
        self._found["current_tracer"] = (root / "current_tracer").read_text().strip()
        self._found["buffer_size_kb"] = (root / "buffer_size_kb").read_text().split()[0]
        clock = (root / "trace_clock").read_text()
        self._found["trace_clock"] = clock[clock.index("[") + 1 : clock.index("]")]
        #: events the kernel dropped because this reader fell behind
        self.lost = 0

    def start(self) -> None:
        """Switches the tracer on; its clock is then ``time.monotonic()``'s. An OSError
        (the kernel refused a setting) leaves the tracing state as it was found."""
        try:
            self._switch_on()
        except OSError:
            self._put_back()
            raise
        self._thread.start()

    def _switch_on(self) -> None:
        for place in self._found:
            if place.startswith("options/"):
                (self.root / place).write_text(LINE_FORMAT[place.removeprefix("options/")])
        (self.root / "trace_clock").write_text("mono")
        (self.root / "buffer_size_kb").write_text(str(BUFFER_KB))
        (self.root / "current_tracer").write_text("blk")
        (self.root / "trace").write_text("")
        for name in self.devices:
            (_sysfs(name) / "act_mask").write_text(ACT_MASK)
            (_sysfs(name) / "enable").write_text("1")
        self._pipe = os.open(self.root / "trace_pipe", os.O_RDONLY | os.O_NONBLOCK)

    def _read(self) -> None:
        assert self._pipe is not None
        rest = b""
        while True:
            try:
                chunk = os.read(self._pipe, 1 << 16)
            except BlockingIOError:
                chunk = b""
            if not chunk:
                if self._stopping.is_set():  # stopped, and the pipe drained
                    return
                time.sleep(0.05)
                continue
            block = rest + chunk
            cut = block.rfind(b"\n") + 1  # whole lines now, the rest with the next read
            block, rest = block[:cut], block[cut:]
            if block:
                self.feed(block.decode("ascii", "replace"))

    def stop(self) -> list[str]:
        """Switches the tracer off and puts back every setting it changed, whatever fails on
        the way (it never raises): what went wrong, as notes (a device that went away, a
        setting the kernel would not take back)."""
        notes = self._devices_off()
        try:
            self._stopping.set()
            if self._thread.is_alive():
                self._thread.join()
            if self._pipe is not None:
                os.close(self._pipe)
                self._pipe = None
            self.lost = sum(_lost(stats.read_text()) for stats in self.root.glob("per_cpu/*/stats"))
        except OSError as exc:
            notes.append(f"the trace's end could not be read: {exc}")
        finally:
            notes += self._put_back()
        return notes

    def _devices_off(self) -> list[str]:
        notes = []
        for name in self.devices:
            try:
                (_sysfs(name) / "enable").write_text("0")  # drops its trace and mask
            except FileNotFoundError:
                notes.append(f"{name} went away while traced: its trace ends where it went")
            except OSError as exc:
                notes.append(f"{name}'s trace could not be switched off: {exc}")
        return notes

    def _put_back(self) -> list[str]:
        """Each device's trace off and each setting as found, each tried whatever the others
        did; what could not be put back, as notes."""
        for name in self.devices:
            try:
                (_sysfs(name) / "enable").write_text("0")
            except OSError:
                pass  # said by stop; at start, a device that is not there has no trace on
        notes = []
        for place, value in self._found.items():
            try:
                (self.root / place).write_text(value)
            except OSError as exc:
                notes.append(f"could not put back {self.root / place} ({value}): {exc}")
        return notes


def _lost(stats: str) -> int:
    """Events a CPU's buffer overwrote or dropped before they were read."""
    total = 0
    for line in stats.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in ("overrun", "dropped events"):
            total += int(value.strip() or 0)
    return total
