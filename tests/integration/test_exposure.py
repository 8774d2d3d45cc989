"""`raidsweep app` beyond loopback: a warning naming the risk before the app starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(address: str, store: Path) -> tuple[str, str]:
    """What ``raidsweep app`` prints before Streamlit takes over; then it is stopped."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sweeper.cli", "app", "--address", address,
         "--port", str(_free_port()), "--store", str(store)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env=os.environ | {"COLUMNS": "300"},
    )  # fmt: skip
    try:
        first = proc.stdout.readline() if proc.stdout else ""
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        _, rest = proc.communicate(timeout=30)
    return first, rest


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "192.0.2.7", "app.example.com"])
def test_binding_beyond_loopback_warns(address: str, tmp_path: Path) -> None:
    first, stderr = _start(address, tmp_path / "store")
    text = " ".join(stderr.split())
    assert "warning:" in text and f"--address {address}" in text, text
    assert "no login" in text and "127.0.0.1" in text
    assert first.startswith("raidsweep app: http://")


@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_is_quiet(address: str, tmp_path: Path) -> None:
    first, stderr = _start(address, tmp_path / "store")
    assert "warning" not in stderr
    assert first.startswith("raidsweep app: http://")
