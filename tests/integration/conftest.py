"""Fixtures shared by the integration tests: the lab VM (one guest for the whole session),
PostgreSQL (one server for a module), vcsim (one for each test, unless a module takes one
for its tests) and a lock folder private to a test."""

import pytest

from tests.support.lab import lab_vm  # noqa: F401 - a fixture, defined once for all modules
from tests.support.locks import lock_dir  # noqa: F401 - a fixture, defined once for all modules
from tests.support.postgres import postgres  # noqa: F401 - a fixture, defined once for all modules
from tests.support.vcsim import vcsim  # noqa: F401 - a fixture, defined once for all modules


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that use the lab VM run last, in their own order: the guest boots once for
    them and stops with the session, instead of idling under TCG (taking CPU from every
    other test) from the first lab test to the end of the run."""
    uses_lab = [i for i in items if "lab_vm" in getattr(i, "fixturenames", ())]
    if uses_lab:
        items[:] = [i for i in items if i not in uses_lab] + uses_lab
