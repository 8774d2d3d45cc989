"""fio on this host, against a block device or file it sees."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from sweeper.fio.runner import Fio, find_fio, run_fio
from sweeper.load.purge import discard_supported, nvme_format_problem
from sweeper.load.sampler import Sampler
from sweeper.load.telemetry import measured_window, with_other_work
from sweeper.load.transport import FioTransport, TransportRun
from sweeper.target import inspect_target

#: a device purge (blkdiscard, nvme format) may take this long before it counts as hung
PURGE_TIMEOUT_S = 24 * 3600.0


class LocalFio(FioTransport):
    """fio started here, its JSON read from its standard output; this host's CPU and the
    target's block-layer counters sampled each second while it runs."""

    def start(self, fio_name: str) -> Fio:
        self.fio = find_fio(fio_name)
        return self.fio

    def target_size(self, target: str) -> int:
        found = inspect_target(target)
        if found.kind not in ("block", "file"):
            raise RuntimeError(f"{target} is not a block device or file")
        return found.size

    def identity(self, target: str) -> dict[str, Any]:
        st = os.stat(target)
        return {
            "target": os.path.realpath(target),
            "dev": st.st_dev,
            "ino": st.st_ino,
            "rdev": st.st_rdev,
        }

    def purge(self, target: str, method: str) -> str | None:
        device = os.path.realpath(target)
        if method == "nvme-format":
            problem = nvme_format_problem(target)
            if problem is not None:
                raise RuntimeError(problem)
            argv = ["nvme", "format", "--ses=1", "--force", device]
        elif not discard_supported(target):
            return f"{target} does not accept discards"
        else:
            argv = ["blkdiscard", device]
        try:
            proc = subprocess.run(
                argv, capture_output=True, text=True, timeout=PURGE_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"purge: {argv[0]} {target} failed: {exc}") from None
        if proc.returncode != 0:
            raise RuntimeError(
                f"purge: {argv[0]} {target} failed (exit {proc.returncode}): "
                f"{proc.stderr.strip()[-400:]}"
            )
        return None

    def run(
        self, job: Path, timeout_s: float, *, fill: bool = False, concurrent_groups: bool = False
    ) -> TransportRun:
        assert self.fio is not None, "start() finds fio first"
        if fill or self.watched is None:
            return TransportRun(run_fio(self.fio, job, timeout_s=timeout_s))
        sampler = Sampler(self.watched)
        sampler.start()
        try:
            out = run_fio(self.fio, job, timeout_s=timeout_s)
        finally:
            sampler.stop()
        record = sampler.record(measured_window(out.stdout))
        return TransportRun(out, telemetry=with_other_work(record, out.stdout))
