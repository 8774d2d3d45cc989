"""Figures of the fault campaign, printed at the end of the test run (see tests/conftest.py)."""

from __future__ import annotations

#: title -> lines; filled by the campaign tests, printed in pytest's terminal summary
FIGURES: dict[str, list[str]] = {}
