"""The app run through Streamlit's AppTest, on a store, without a browser."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.paths import ROOT

APP = str(ROOT / "app.py")


def open_app(monkeypatch: pytest.MonkeyPatch, root: Path) -> AppTest:
    """The app's landing page on the store at ``root``, run once, without an exception."""
    monkeypatch.setenv("RAIDSWEEP_STORE", str(root))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def open_page(
    monkeypatch: pytest.MonkeyPatch, root: Path, page: str, timeout: float = 90, **query: str
) -> AppTest:
    """``page`` opened on the store at ``root`` by an address with ``query``, run once,
    without an exception."""
    monkeypatch.setenv("RAIDSWEEP_STORE", str(root))
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at
