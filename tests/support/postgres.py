"""Debian's PostgreSQL, started for a module on a loopback port in a scratch folder (as the
postgres user: the server refuses to run as root) and stopped after; the integration
conftest registers the fixture."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.net import free_port


def _as_postgres(*cmd: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *cmd], check=True, capture_output=True)


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    versions = sorted(Path("/usr/lib/postgresql").iterdir(), key=lambda p: int(p.name))
    bin_dir = versions[-1] / "bin"
    root = Path(tempfile.mkdtemp(prefix="raidsweep-pg-", dir="/var/tmp"))
    root.chmod(0o755)
    data = root / "data"
    data.mkdir()
    shutil.chown(data, "postgres", "postgres")
    shutil.chown(root, "postgres", "postgres")
    port = free_port()
    _as_postgres(
        str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "raidsweep", "--no-sync"
    )
    _as_postgres(
        str(bin_dir / "pg_ctl"),
        "-D",
        str(data),
        "-w",
        "-l",
        str(root / "log"),
        "-o",
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off",
        "start",
    )
    try:
        _as_postgres(
            str(bin_dir / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-U",
            "raidsweep",
            "raidsweep",
        )
        yield f"postgresql://raidsweep@127.0.0.1:{port}/raidsweep"
    finally:
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-m",
                "fast",
                "-w",
                "stop",
            ],
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)
