"""Shared fixtures: a real sweep of examples/quick.yaml, run once per test session."""

from __future__ import annotations

import pytest

from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from tests.support.paths import QUICK, TESTS


@pytest.fixture(scope="session")
def quick_store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    """The store after a complete sweep of examples/quick.yaml (real Ansible, simulated array)."""
    root = tmp_path_factory.mktemp("quick-store")
    spec, inventory = load_spec(QUICK)
    store = ParquetStore(root)
    outcome = run_sweep(spec, inventory, store, spec_path=QUICK)
    assert outcome.complete and not outcome.configurations_failed
    return store


#: the folders whose every test uses real external components (fio, Ansible, a browser, a VM)
INTEGRATION = (TESTS / "integration", TESTS / "e2e")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/integration/ and tests/e2e/, and every test that reads the real
    sweep of ``quick_store`` (Ansible plays), is marked ``integration``, so that
    ``pytest -m "not integration"`` runs only the fast tests."""
    for item in items:
        where = item.path
        if any(where.is_relative_to(folder) for folder in INTEGRATION) or (
            "quick_store" in getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.integration)


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 - pytest's hook
    """The fault campaign's figures, so that a reader of the CI log sees them."""
    from tests.support.campaign import FIGURES

    for title, lines in FIGURES.items():
        terminalreporter.section(title)
        for line in lines:
            terminalreporter.write_line(line)
