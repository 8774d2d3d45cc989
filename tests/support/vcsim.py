"""vcsim, govmomi's vSphere API simulator, started on 127.0.0.1 for the vsan tests.

scripts/install-vcsim.sh (run by scripts/test.sh) installs the binary; ``RAIDSWEEP_VCSIM``
names another one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

VCSIM_VERSION = "v0.46.3"
USERNAME = "raidsweep"  # vcsim takes no "@" in its user name
#: distinctive, so a grep for it cannot match anything by chance
PASSWORD = "Vc-s1m!Pa55w0rd-7f3a9c"  # noqa: S105 - the simulator's test password


@dataclass(frozen=True)
class Vcsim:
    host: str
    port: int
    username: str
    password: str
    #: seconds from start to the API answering
    start_s: float
    cluster: str = "DC0_C0"
    #: the simulator's VMs in the cluster, and the label of each one's disk
    vms: tuple[str, ...] = ("DC0_C0_RP0_VM0", "DC0_C0_RP0_VM1")
    disk: str = "disk-202-0"


def vcsim_binary() -> str:
    named = os.environ.get("RAIDSWEEP_VCSIM")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    default = Path(
        os.environ.get("RAIDSWEEP_VCSIM_DIR", cache / "raidsweep" / f"vcsim-{VCSIM_VERSION}")
    )
    for candidate in (named, str(default / "vcsim"), shutil.which("vcsim")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise FileNotFoundError(
        f"vcsim {VCSIM_VERSION} is not installed: run scripts/install-vcsim.sh "
        "(scripts/test.sh does), or name it in RAIDSWEEP_VCSIM"
    )


@contextmanager
def running_vcsim(
    hosts: int = 6, timeout_s: float = 30.0, password: str = PASSWORD
) -> Iterator[Vcsim]:
    """A vcsim with one cluster of ``hosts`` hosts on a free loopback port, stopped after."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [vcsim_binary(), "-l", "127.0.0.1:0", "-host", str(hosts),
         "-username", USERNAME, "-password", password],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        port = None
        deadline = started + timeout_s
        # vcsim prints its URL (port 0 lets the kernel choose a free one) once it listens.
        while port is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"vcsim exited with {proc.returncode} before listening")
            m = re.search(r"@127\.0\.0\.1:(\d+)/sdk", line)
            if m:
                port = int(m.group(1))
        if port is None:
            raise RuntimeError(f"vcsim did not listen within {timeout_s:.0f}s")
        # Keep reading what it prints, so a full pipe never blocks it.
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        yield Vcsim("127.0.0.1", port, USERNAME, password, time.monotonic() - started)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
