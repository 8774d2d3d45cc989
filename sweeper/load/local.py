"""fio on this host, against a block device or file it sees."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sweeper.fio.runner import Fio, find_fio, run_fio
from sweeper.load.transport import FioTransport, TransportRun
from sweeper.target import inspect_target


class LocalFio(FioTransport):
    """fio started here, its JSON read from its standard output."""

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

    def run(self, job: Path, timeout_s: float, *, fill: bool = False) -> TransportRun:
        assert self.fio is not None, "start() finds fio first"
        return TransportRun(run_fio(self.fio, job, timeout_s=timeout_s))
