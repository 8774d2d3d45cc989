"""Loopback addresses and ports for the servers the tests start (fio, PostgreSQL, Streamlit)."""

from __future__ import annotations

import socket

#: three loopback addresses, one per load host of the multi-host tests
LOOPBACK_HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")


def free_port(*addresses: str) -> int:
    """A TCP port nothing listens on at any of ``addresses`` (127.0.0.1 when none is named).

    fio's server sets SO_REUSEPORT, so a port another fio server holds would not even fail
    to bind: the port is checked here with plain sockets, which do not share.
    """
    addresses = addresses or ("127.0.0.1",)
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind((addresses[0], 0))
            port = probe.getsockname()[1]
        try:
            for address in addresses:
                with socket.socket() as s:
                    s.bind((address, port))
        except OSError:
            continue
        return int(port)
    raise RuntimeError(f"no free port on {', '.join(addresses)}")


def accepts(host: str, port: int) -> bool:
    """Whether something accepts a TCP connection at ``host``:``port`` (within a second)."""
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False
