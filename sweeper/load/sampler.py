"""Telemetry sampled on this host while fio runs: /proc/stat and /proc/diskstats each second
in a thread, the figures taken over fio's measured interval (see ``telemetry``)."""

from __future__ import annotations

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
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="telemetry", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.samples.append(snapshot(self.device))

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
        } | series_figures(self.samples, window)
