"""Fixtures shared by the integration tests: the lab VM (one guest for the whole session)."""

from tests.integration.lab import lab_vm  # noqa: F401 - a fixture, defined once for all modules
