"""Spec messages: a duration out of bounds is said as the spec wrote it (``runtime: 1ms`` was
said as "0s is outside 1s..7d"); a warm start in grid mode and a study database that cannot
be reached are named with their line, as every other problem of a spec is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sweeper.cli import app
from sweeper.errors import SpecError
from sweeper.spec import load_spec
from sweeper.study import storage_problem
from tests.support.specs import problems_of, quick_spec, write_spec

#: a PostgreSQL nobody listens for: port 1 of this host refuses at once
NOWHERE = "postgresql://raidsweep@127.0.0.1:1/raidsweep"


def _spec(tmp_path: Path, matrix: dict[str, Any] | None = None, **study: Any) -> Path:
    spec = quick_spec(name="messages")
    spec["matrix"] |= matrix or {}
    spec["study"] = spec.get("study", {}) | study
    return write_spec(tmp_path, spec, "messages")


@pytest.mark.parametrize(
    ("field", "given", "said"),
    [
        ("runtime", "1ms", "matrix.runtime: '1ms' is outside 1s..7d"),
        ("runtime", "0.5s", "matrix.runtime: '0.5s' is outside 1s..7d"),
        ("runtime", 0.5, "matrix.runtime: 0.5 is outside 1s..7d"),
        ("runtime", "8d", "matrix.runtime: '8d' is outside 1s..7d"),
        ("ramp", "25h", "matrix.ramp: '25h' is longer than a day"),
        ("steady_state", {"round": "1.5s"}, "'1.5s' is not a whole number of seconds"),
    ],
)
def test_a_duration_out_of_bounds_is_said_as_written(
    tmp_path: Path, field: str, given: Any, said: str
) -> None:
    (problem,) = problems_of(_spec(tmp_path, {field: given}))
    assert problem.startswith("line ") and said in problem, problem


def test_durations_within_bounds_still_load(tmp_path: Path) -> None:
    spec, _ = load_spec(_spec(tmp_path, {"runtime": "1s", "ramp": "1d", "steady_state": {}}))
    assert (spec.matrix.runtime, spec.matrix.ramp) == (1.0, 86400.0)


def test_a_warm_start_in_grid_mode_is_named_with_its_line(tmp_path: Path) -> None:
    path = _spec(tmp_path, mode="grid", warm_start={"store": "elsewhere", "sweep": "quick"})
    (problem,) = problems_of(path)
    line = path.read_text().splitlines().index("  warm_start:") + 1
    assert problem in (
        f"line {n}: study.warm_start: a warm start needs mode: optimize (a grid measures all)"
        for n in (line, line + 1)
    ), problem


def test_a_study_database_out_of_reach_is_named_with_its_line(tmp_path: Path) -> None:
    path = _spec(tmp_path, mode="optimize", storage=NOWHERE)
    spec, _ = load_spec(path)  # the spec itself is valid: the database is looked for later
    with pytest.raises(SpecError) as info:
        storage_problem(spec)
    (problem,) = info.value.problems
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "storage:" in t)
    assert problem.startswith(f"line {line}: study.storage: cannot use the study database ")
    assert info.value.source == str(path)
    # a spec made in code (no file) is told the problem, for its caller to name
    bare = spec.model_validate(spec.model_dump(mode="json"))
    assert (storage_problem(bare) or "").startswith("cannot use the study database ")


def test_run_names_the_lines_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "store"
    for folder, study, said in (
        ("storage", {"mode": "optimize", "storage": NOWHERE}, ": study.storage: cannot use"),
        (
            "warm",
            {"mode": "grid", "warm_start": {"store": "x", "sweep": "quick"}},
            ": study.warm_start: a warm start needs mode: optimize",
        ),
    ):
        (tmp_path / folder).mkdir()
        path = _spec(tmp_path / folder, **study)
        result = CliRunner().invoke(app, ["run", str(path), "--store", str(store)])
        out = " ".join(result.output.split())
        assert result.exit_code == 2 and re.search(r"line \d+" + re.escape(said), out), out
        assert "messages.yaml" in out and "Traceback" not in out, out
        assert not store.exists()
