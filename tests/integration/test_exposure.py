"""`raidsweep app` beyond loopback: a warning naming the risk before the app starts."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.support.cli import start
from tests.support.net import free_port

pytestmark = pytest.mark.integration


def _start(address: str, store: Path) -> tuple[str, str]:
    """What ``raidsweep app`` prints before Streamlit takes over; then it is stopped."""
    proc = start("app", "--address", address, "--port", str(free_port()), "--store", store)
    try:
        first = proc.stdout.readline() if proc.stdout else ""
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        _, rest = proc.communicate(timeout=30)
    return first, rest


# (a name that does not resolve is refused before anything: tests/test_cli_bad_options.py)
@pytest.mark.parametrize("address", ["0.0.0.0", "::", "192.0.2.7"])
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
