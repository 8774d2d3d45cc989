"""The operator answers a waiting manual sweep from the app, in real Chromium: the page shows
what to build, refuses a target the sweep would refuse (and leaves nothing for it), and an
accepted answer lets the sweep measure and finish."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from sweeper.store import ParquetStore
from tests.support import devices
from tests.support.appserver import chromium, raidsweep_app
from tests.support.appwait import rerun, settled, watch_runs
from tests.support.cli import finish, start
from tests.support.paths import ROOT
from tests.support.specs import class_measuring, quick_fio_matrix, write_spec

pytestmark = pytest.mark.integration

UI_TIMEOUT_MS = 120_000
MATRIX = quick_fio_matrix("randread", runtime="1s", working_set="16m")


@pytest.fixture
def luns(tmp_path: Path) -> Iterator[list[str]]:
    """A LUN of 32 MiB and one too small for the working set (8 MiB)."""
    with ExitStack() as stack:
        yield [
            stack.enter_context(devices.loop_device(tmp_path / f"lun{i}.img", mib))
            for i, mib in enumerate((32, 8))
        ]


def _waiting(room: Path, timeout_s: float = 120) -> dict:
    limit = time.monotonic() + timeout_s
    while time.monotonic() < limit:
        path = room / "waiting.json"
        if path.exists():
            return json.loads(path.read_text())
        time.sleep(0.3)
    raise AssertionError("the sweep never waited for the operator")


def test_the_operator_answers_from_the_app(tmp_path: Path, luns: list[str]) -> None:
    from playwright.sync_api import expect, sync_playwright

    executable = chromium()
    assert executable is not None, "Debian's chromium is not installed: run scripts/test.sh"
    store = tmp_path / "store"
    spec = write_spec(
        tmp_path,
        {
            "name": "by-hand",
            "platform": "manual",
            "inventory": str(ROOT / "inventories/local/hosts.yml"),
            "platform_options": {"allow": luns},
            "config_space": {"raid_level": ["raid10"], "layout": ["single_rank"]},
            "matrix": MATRIX,
            "classes": [class_measuring(tmp_path, MATRIX)],
        },
        "by-hand",
    )
    sweep = start("run", spec, "--store", store, "-q")
    try:
        room = store / "by-hand" / "array" / "operator"
        waiting = _waiting(room)
        assert waiting["config_key"] == "raid10/single_rank/wb-ra"
        with raidsweep_app(store, tmp_path / "app.log") as (url, _), sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=executable, headless=True)
            try:
                page = browser.new_page(viewport={"width": 1440, "height": 1200})
                watch_runs(page)
                page.goto(url)
                settled(page, UI_TIMEOUT_MS)
                nav = page.get_by_test_id("stSidebarNav")
                with rerun(page, UI_TIMEOUT_MS):
                    nav.get_by_role("link", name="Operator").click(timeout=UI_TIMEOUT_MS)
                expect(
                    page.get_by_text("waiting for the operator: build raid10/single_rank/wb-ra")
                ).to_be_visible(timeout=UI_TIMEOUT_MS)
                expect(page.get_by_text("RAID 10 (striped mirrors)")).to_be_visible()
                target = page.get_by_label("The LUN as this host sees it")
                button = page.get_by_role("button", name="Built: measure it")
                target.fill(luns[1])  # too small: refused in the page, nothing left
                with rerun(page, UI_TIMEOUT_MS):
                    button.click()
                expect(page.get_by_text("less than the working set")).to_be_visible(
                    timeout=UI_TIMEOUT_MS
                )
                assert not (room / "answer.json").exists()
                target.fill(luns[0])
                page.get_by_label("What was built, in your words").fill("LUN 3 from the GUI")
                with rerun(page, UI_TIMEOUT_MS):
                    button.click()
                expect(page.get_by_text("Answered: the sweep measures")).to_be_visible(
                    timeout=UI_TIMEOUT_MS
                )
            finally:
                browser.close()
        code, output = finish(sweep)
        assert code == 0, output
    finally:
        if sweep.poll() is None:
            os.killpg(sweep.pid, signal.SIGKILL)
    (row,) = ParquetStore(store).configurations("by-hand").itertuples()
    facts = json.loads(row.facts)
    assert facts["operator"] == {"note": "LUN 3 from the GUI", "via": "app"}
    assert facts["lun"]["realpath"] == luns[0]
