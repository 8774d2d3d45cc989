"""``raidsweep app``: serve the browser app (Streamlit) for a results store.

The server runs in this process, and the libraries the pages use are imported before it
listens: a tab's first page then waits for no import (Altair alone takes most of a second).
"""

from __future__ import annotations

import importlib
import os
from itertools import chain
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, err

#: the Streamlit entry point, at the top of the project
APP_PY = Path(__file__).resolve().parents[2] / "app.py"
#: what the pages import of the project and its libraries (charts, report, ranking, curves),
#: imported once as the server starts instead of inside the first run of each page
PRELOAD = (
    "altair",
    "pandas",
    "pyarrow.parquet",
    "recommender.charts",
    "recommender.curves",
    "recommender.data",
    "recommender.importance",
    "recommender.predictions",
    "recommender.report",
    "recommender.sweepcompare",
    "recommender.views",
    "sweeper.status",
    "sweeper.store",
)


def run_app(
    store: StoreOpt = DEFAULT_STORE,
    port: Annotated[int, typer.Option(help="Port.", min=1, max=65535)] = 8501,
    address: Annotated[
        str,
        typer.Option(
            help="Address to bind; localhost unless you mean to share it.",
            callback=lambda value: _bindable(value),
        ),
    ] = "127.0.0.1",
) -> None:
    """Serve the browser app (Streamlit) for the store."""
    os.environ["RAIDSWEEP_STORE"] = str(Path(store).resolve())
    if not _loopback(address):
        err.print(
            f"[bold yellow]warning:[/] --address {escape(address)} serves the app beyond this "
            f"machine: it has no login, so anyone who can reach port {port} here reads every "
            "sweep in the store with its disclosure (hosts, devices, inventory facts); bind "
            "127.0.0.1 and use an SSH tunnel unless the network is yours alone",
            highlight=False,
        )
    # No file watcher and no run-on-save: the app's folder holds .venv and the store, and
    # watching them costs a core while a tab is open.
    options = {
        "--server.address": address,
        "--server.port": str(port),
        "--server.headless": "true",
        "--browser.gatherUsageStats": "false",
        "--server.fileWatcherType": "none",
        "--server.runOnSave": "false",
        "--client.toolbarMode": "viewer",
    }
    for name in PRELOAD:
        importlib.import_module(name)
    from streamlit.web import cli as streamlit_cli

    console.print(
        f"raidsweep app: http://{escape(address)}:{port}  (Ctrl-C stops it)", highlight=False
    )
    args = ["run", str(APP_PY), *chain.from_iterable(options.items())]
    streamlit_cli.main(args, prog_name="streamlit")


def _bindable(address: str) -> str:
    """An address this machine has, or a name that resolves to one (exit 2 otherwise, before
    anything starts)."""
    import socket

    from sweeper.untrusted import control_problem

    problem = control_problem(address)
    if problem is None:
        try:
            socket.getaddrinfo(address, None, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            problem = f"{address[:100]!r} is not an address of this machine ({exc})"
    if problem is not None:
        raise typer.BadParameter(problem)
    return address


def _loopback(address: str) -> bool:
    """Whether ``address`` binds this machine's loopback only."""
    import ipaddress

    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything
