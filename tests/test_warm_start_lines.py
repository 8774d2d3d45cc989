"""``study.warm_start``: what is wrong with the previous sweep's store or the sweep it names
(found after the spec has loaded) is named with the spec file and the warm start's line, as
every other problem of a spec is; exit status 2, nothing written."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.support.cli import cli, finished_tiny, invoke, refused
from tests.support.specs import tiny_sim_spec
from tests.support.sweeps import copy_store

PREVIOUS = "tiny"


@pytest.fixture(scope="module")
def previous(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny sweep on the simulated array: its store, never changed."""
    return finished_tiny(tmp_path_factory.mktemp("previous"), PREVIOUS)


def _no_store(previous: Path, folder: Path) -> str:
    return "nowhere"


def _a_file(previous: Path, folder: Path) -> str:
    (folder / "a-file").write_text("not a store\n")
    return "a-file"


def _empty(previous: Path, folder: Path) -> str:
    (folder / "store").mkdir()
    return "store"


def _damaged_record(previous: Path, folder: Path) -> str:
    (copy_store(previous, folder) / PREVIOUS / "sweep.json").write_text("{not json")
    return "store"


def _no_runs(previous: Path, folder: Path) -> str:
    store = copy_store(previous, folder)
    for part in ("runs", "configurations"):
        shutil.rmtree(store / PREVIOUS / part)
    return "store"


def _elsewhere(previous: Path, folder: Path) -> str:
    """The previous sweep measured RAID 5 and 10; this space holds RAID 6 only."""
    copy_store(previous, folder)
    return "store"


#: what the previous store is made, the field named, and what is said of it
CASES: dict[str, tuple[Callable[[Path, Path], str], str, str]] = {
    "no store there": (_no_store, "store", "study.warm_start.store: no store at "),
    "a file, not a store": (_a_file, "store", "study.warm_start.store: no store at "),
    "the sweep not in the store": (_empty, "sweep", "study.warm_start.sweep: no sweep 'tiny' in "),
    "the sweep's record unreadable": (
        _damaged_record,
        "entry",
        f"study.warm_start: {{store}}/{PREVIOUS}/sweep.json: damaged (not JSON",
    ),
    "the sweep without runs": (_no_runs, "sweep", "study.warm_start.sweep: sweep 'tiny' in "),
    "none of its configurations in this space": (
        _elsewhere,
        "sweep",
        "study.warm_start.sweep: no configuration of sweep 'tiny' lies in this config space",
    ),
}


def _spec(folder: Path, store: str, space: dict[str, list[str]] | None = None) -> Path:
    """An optimize-mode tiny sweep 'warm' in ``folder`` warm-started from ``store``."""
    path = tiny_sim_spec(folder, "warm")
    spec = yaml.safe_load(path.read_text())
    spec["study"] = {
        "mode": "optimize",
        "budget": 2,
        "warm_start": {"store": store, "sweep": "tiny"},
    }
    spec["config_space"] = space or spec["config_space"]
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def _lines(path: Path) -> dict[str, int]:
    """The lines of the warm start's entry (its first line: the mapping's) and its fields."""
    text = path.read_text().splitlines()
    start = text.index("  warm_start:")
    store = next(i for i, t in enumerate(text) if i > start and t.strip().startswith("store:"))
    sweep = next(i for i, t in enumerate(text) if i > start and t.strip().startswith("sweep:"))
    return {"entry": min(store, sweep) + 1, "store": store + 1, "sweep": sweep + 1}


@pytest.mark.parametrize("case", CASES)
def test_a_warm_start_problem_names_the_spec_and_its_line(
    previous: Path, tmp_path: Path, case: str
) -> None:
    make, field, said = CASES[case]
    store = make(previous, tmp_path)
    space = {"raid_level": ["raid6"], "layout": ["single_rank"]} if make is _elsewhere else None
    path = _spec(tmp_path, store, space)
    code, out = invoke("run", path, "--store", tmp_path / "results")
    assert code == 2, out
    problem = f"line {_lines(path)[field]}: " + said.format(store=tmp_path / "store")
    assert f"{path}: 1 problem(s) {problem}" in out, out
    assert not (tmp_path / "results").exists()  # nothing written


def test_the_installed_command_names_the_line_on_stderr(tmp_path: Path) -> None:
    """As a user runs it (a process of its own), with --check as with a run."""
    path = _spec(tmp_path, "nowhere")
    line = _lines(path)["store"]
    for check in ([], ["--check"]):
        done = cli("run", path, "--store", tmp_path / "results", *check)
        refused(done, str(path), f"line {line}: study.warm_start.store: no store at ")
        assert not (tmp_path / "results").exists()
