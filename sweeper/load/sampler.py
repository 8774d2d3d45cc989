"""Telemetry sampled on this host while fio runs: /proc/stat and /proc/diskstats each second
in a thread, the figures taken over fio's measured interval (see ``telemetry``).

The sampling thread runs at the lowest CPU priority (nice 19, that thread alone), so that on a
load host with few cores it never takes the CPU fio needs; its own CPU time is recorded with
the run (``sampler_cpu_s``), so a reader can see what it cost."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

from sweeper.load.purge import block_name
from sweeper.load.telemetry import Snapshot, parse_cpu, parse_disk, series_figures

#: seconds between two samples
INTERVAL_S = 1.0
#: the sampling thread's nice value (Linux sets it per thread)
SAMPLER_NICE = 19


def watched_device(target: str) -> tuple[str | None, bool]:
    """(the block device whose counters tell what reached the storage, whether that device is
    the target itself): the target's own device, or the one holding a target file."""
    name = block_name(target)
    if name is not None:
        return name, True
    try:
        dev = os.stat(os.path.realpath(target)).st_dev
    except OSError:
        return None, False
    link = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    return (link.resolve().name if link.exists() else None), False


def snapshot(device: str | None) -> Snapshot:
    with open("/proc/stat") as fh:
        cpu = parse_cpu(fh.read())
    with open("/proc/diskstats") as fh:
        disk = parse_disk(fh.read(), device)
    return Snapshot(time.time(), cpu, disk)


class Sampler:
    """Samples from ``start`` to ``stop`` in a daemon thread (one sample a second, and one at
    each end), then ``record`` gives the run's telemetry."""

    def __init__(self, target: str, interval_s: float = INTERVAL_S):
        self.device, self.is_device = watched_device(target)
        self.interval_s = interval_s
        self.samples: list[Snapshot] = []
        #: CPU seconds the sampling thread used (known once it stopped)
        self.cpu_s: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="telemetry", daemon=True)

    def _loop(self) -> None:
        with contextlib.suppress(OSError):  # a host that refuses it samples at its priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SAMPLER_NICE)
        while not self._stop.wait(self.interval_s):
            self.samples.append(snapshot(self.device))
        self.cpu_s = time.thread_time()

    def start(self) -> None:
        self.samples.append(snapshot(self.device))
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(snapshot(self.device))

    def record(self, window: tuple[float, float] | None) -> dict[str, Any]:
        return {
            "host": socket.gethostname(),
            "cpus": os.cpu_count(),
            "device": self.device,
            "target_is_device": self.is_device,
            "interval_s": self.interval_s,
            "sampler_cpu_s": None if self.cpu_s is None else round(self.cpu_s, 4),
        } | series_figures(self.samples, window)
