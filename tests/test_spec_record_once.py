"""A sweep's record is checked once when ``recommend`` and ``report`` open it: the check
that opened it (``open_sweep``) serves what ranks its classes (``sweep_classes``), and a
damaged spec in it is said in one message naming the file and every field as the spec's
models name it (the matrix's problems were cut to the first, with pydantic's "Value
error," left in; classes that are not a list were said to be none)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import recommender.data
from tests.support.cli import finished_tiny, invoke
from tests.support.sweeps import copy_store

SWEEP = "tiny"
Record = dict[str, Any]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny sweep on the simulated array: its store, never changed."""
    return finished_tiny(tmp_path_factory.mktemp("once"), SWEEP)


def _commands(out: Path) -> dict[str, list[str]]:
    return {"recommend": ["recommend", SWEEP], "report": ["report", SWEEP, "-o", f"{out}/r.html"]}


def _bad_matrix(record: Record) -> None:
    record["spec"]["matrix"] |= {"block_sizes": ["8k", "zz"], "runtime": "soon"}


def _classes_not_a_list(record: Record) -> None:
    record["spec"]["classes"] = "redo_log"


#: the damage, and the whole message that names it
DAMAGES: dict[str, tuple[Callable[[Record], None], str]] = {
    "a matrix with two bad fields": (
        _bad_matrix,
        "damaged (its spec's matrix: block_sizes[1]: 'zz' is not a size; runtime: 'soon' is "
        "not a duration (use e.g. 90s, 5m, 12h))",
    ),
    "classes that are not a list": (
        _classes_not_a_list,
        "damaged (spec.classes: Input should be a valid list)",
    ),
}


@pytest.mark.parametrize("command", ["recommend", "report"])
@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_spec_record_is_said_once_and_whole(
    finished: Path, tmp_path: Path, command: str, damage: str
) -> None:
    change, said = DAMAGES[damage]
    store = copy_store(finished, tmp_path)
    path = store / SWEEP / "sweep.json"
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out = invoke(*_commands(out_dir)[command], "--store", store)
    assert code == 2, out
    assert out == f"error: {path}: {said}", out
    assert not any(out_dir.iterdir())  # no report written


@pytest.mark.parametrize("command", ["recommend", "report"])
def test_the_record_is_checked_once(
    finished: Path, tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spec's models take the record once, however many parts of the command rank it."""
    checked: list[Record] = []
    check = recommender.data.record_problems

    def counted(record: Record) -> list[str]:
        checked.append(record)
        return check(record)

    monkeypatch.setattr(recommender.data, "record_problems", counted)
    store = copy_store(finished, tmp_path)
    code, out = invoke(*_commands(tmp_path)[command], "--store", store)
    assert code == 0, out
    assert len(checked) == 1, out
