"""The browser app as a user starts it (``raidsweep app``), a real Chromium tab on it, and
what the server costs while the tab sits open: for the idle test and benchmarks/app_speed.py."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.support.appwait import rerun, settled, watch_runs
from tests.support.net import free_port
from tests.support.paths import ROOT
from tests.support.processes import stop

#: the console script the package installs beside the interpreter
RAIDSWEEP = Path(sys.executable).parent / "raidsweep"
START_TIMEOUT_S = 90  # cold start imports pandas, Altair, Optuna, SciPy: seconds on 2 cores
#: words of the log lines a file watcher writes (watchdog's inotify overflow, Streamlit's own)
WATCHER_WORDS = ("inotify", "watchdog", "watcher", "file change", "filesystem events")


class AppError(RuntimeError):
    """The app did not start or did not answer; the message carries its log."""


def chromium() -> str | None:
    """Debian's chromium (never a browser download), or None when it is not installed."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process ``pid`` has used so far, from /proc."""
    # The command name in field 2 may hold spaces and parentheses: split after its last ")".
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cores(pid: int, seconds: float) -> float:
    """The share of one core ``pid`` used over the next ``seconds`` of wall time."""
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)  # the measurement itself: nothing happens while the tab is idle
    return (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)


def watcher_lines(log: Path) -> list[str]:
    """The lines of a server log that come from a file watcher."""
    text = log.read_text(errors="replace")
    return [line for line in text.splitlines() if any(w in line.lower() for w in WATCHER_WORDS)]


def wait_healthy(proc: subprocess.Popen, url: str, log: Path) -> None:
    """Until Streamlit's health endpoint answers; AppError with the server's log if it died
    or did not answer in time."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AppError(f"raidsweep app exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)  # polling a server that is still importing; nothing to wait on instead
    raise AppError(f"raidsweep app did not answer within {START_TIMEOUT_S} s:\n{log.read_text()}")


@contextlib.contextmanager
def raidsweep_app(store_root: Path, log: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """``raidsweep app`` on ``store_root`` at a free loopback port, its output in ``log``
    (Streamlit at debug level, so that a watcher's lines show); its URL and process."""
    port = free_port()
    env = dict(os.environ, STREAMLIT_LOGGER_LEVEL="debug")
    cmd = [str(RAIDSWEEP), "app", "--store", str(store_root), "--port", str(port)]
    with log.open("wb") as out:
        # raidsweep app runs Streamlit in its own process: that process is the server itself.
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, url, log)
        yield url, proc
    finally:
        stop(proc, 15)


@contextlib.contextmanager
def app_tab(store_root: Path, log: Path, timeout_ms: float, **page_options: Any) -> Iterator[Any]:
    """A headless Chromium tab open on ``raidsweep app`` (see ``raidsweep_app``) over
    ``store_root``, made with ``page_options`` (viewport, downloads); its own waits and
    expect()'s (which do not follow the page's default) last up to ``timeout_ms``. The browser
    closed and the server stopped after."""
    from playwright.sync_api import expect, sync_playwright

    executable = chromium()
    if executable is None:
        raise AppError("Debian's chromium is not installed: run scripts/test.sh")
    expect.set_options(timeout=timeout_ms)
    with raidsweep_app(store_root, log) as (url, _), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True)
        try:
            tab = browser.new_page(**page_options)
            tab.set_default_timeout(timeout_ms)
            watch_runs(tab)
            tab.goto(url)
            settled(tab)
            yield tab
        finally:
            browser.close()


@contextlib.contextmanager
def streamlit_run(store_root: Path, log: Path) -> Iterator[str]:
    """``streamlit run app.py`` on ``store_root`` at a free loopback port (the plain way, from
    the project folder, without raidsweep's launcher); its URL, the server stopped after."""
    port = free_port()
    env = dict(os.environ, RAIDSWEEP_STORE=str(store_root))
    env["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] = "false"
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.fileWatcherType",
        "none",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, url, log)
        yield url
    finally:
        stop(proc, 15)


def open_recommendations(page: Any, url: str, timeout_ms: float) -> float:
    """Open the app in ``page`` (watched: ``tests.support.appwait.watch_runs``), go to
    Recommendations and wait until its decision is shown and the script has finished; the
    seconds from the click to that."""
    from playwright.sync_api import expect

    page.goto(url)
    settled(page, timeout_ms)
    link = page.get_by_test_id("stSidebarNav").get_by_role("link", name="Recommendations")
    t0 = time.monotonic()
    with rerun(page, timeout_ms):
        link.click(timeout=timeout_ms)
    expect(page.get_by_test_id("stAlertContentSuccess").first).to_be_visible(timeout=timeout_ms)
    return time.monotonic() - t0


def go_to(page: Any, name: str) -> None:
    """Follow the sidebar's link to page ``name`` and wait until its run has finished and
    nothing of the page before is left (``tests.support.appwait.rerun``)."""
    with rerun(page):
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()


def choose(page: Any, label: str, option: str) -> None:
    """Pick ``option`` in the select box ``label`` and wait until the rerun it asks for has
    finished (``tests.support.appwait.rerun``); nothing when it is picked already (picking
    it again asks for no run)."""
    box = page.get_by_role("combobox", name=label, exact=True)
    if box.input_value() == option:
        return
    box.click()
    with rerun(page):
        page.get_by_role("option", name=option, exact=True).click()
