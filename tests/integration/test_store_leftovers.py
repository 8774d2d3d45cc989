"""A run lost after its configuration was measured is measured again by the resume, alone.

A finished sweep 'tiny' on the simulated array (RAID 5 and RAID 10 × four cells × two
repetitions, each configuration built by a real Ansible play): one of its run files is then
damaged on disk (truncated, overwritten with garbage, emptied, or a copy of another run's
file), or a compacted part of it. ``raidsweep run`` of the spec again notices it: it names
the file, builds that configuration again and measures that run (a part's: the runs it held
that the store holds nowhere else) and no other, says so, and the sweep reads whole again.
Before, the resume wrote nothing and said nothing, and ``status`` showed the gap for good.

A command reads the sweep's record and its progress record once each, however many times it
asks for them.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import sweeper.store.progress as progress_module
import sweeper.store.sweeps as sweeps_module
from sweeper.cli import app
from sweeper.store import ParquetStore, RunAddress
from sweeper.store.records import config_folder
from tests.support.cli import cli
from tests.support.sweeps import copy_store, stored_configurations, swept_tiny

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]
SWEEP = "tiny"
RUNS = 16  # 2 configurations × 4 cells × 2 repetitions
RAID5 = "raid5/single_rank/wb-ra"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The finished sweep's store, and its spec."""
    return swept_tiny(tmp_path_factory.mktemp("leftovers"), SWEEP, RUNS)


def _run_files(store: Path, config: str = RAID5) -> list[Path]:
    return sorted((store / SWEEP / "runs" / config_folder(SWEEP, config)).glob("*.parquet"))


def _stamps(store: Path) -> dict[Path, tuple[int, int]]:
    """Each run file and part (not the snapshot, which a finished sweep writes anew)."""
    found = [*(store / SWEEP / "runs").rglob("*.parquet"), *(store / SWEEP).glob("compacted/*")]
    return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in found}


def _resume(spec_path: Path, store: Path) -> str:
    done = cli("run", spec_path, "--store", store, columns=400)
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0 and "Traceback" not in out, out
    return out


def _status_runs(store: Path) -> str:
    done = cli("status", SWEEP, "--store", store, columns=300)
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "another run"])
def test_a_damaged_run_of_a_completed_configuration_is_measured_again_alone(
    pristine: tuple[Path, Path], tmp_path: Path, damage: str
) -> None:
    source, spec_path = pristine
    store = copy_store(source, tmp_path)
    files = _run_files(store)
    victim = files[1]
    good = pq.read_table(victim).to_pylist()[0]
    address = RunAddress(SWEEP, good["config_key"], good["cell_key"], good["repetition"])
    data = victim.read_bytes()
    victim.write_bytes(
        {
            "truncated": data[: len(data) // 2],
            "garbage": b"not parquet" * 40,
            "empty": b"",
            "another run": files[0].read_bytes(),
        }[damage]
    )
    others = {p: s for p, s in _stamps(store).items() if p != victim}
    builds = stored_configurations(store, SWEEP)
    assert f"{RUNS - 1}/{RUNS}" in _status_runs(store)  # the gap, before the resume

    out = _resume(spec_path, store)

    assert "1 run(s) written" in out and "0 failed" in out, out
    assert f"warning: {victim}: " in out and "left out" in out, out
    said = (
        f"warning: configuration {RAID5} was completed before its run file(s) {victim} were "
        f"damaged; measured again: {address.cell_key} #{address.repetition}"
    )
    assert said in out, out
    results = ParquetStore(store)
    runs = results.runs(SWEEP)
    assert len(runs) == RUNS and runs["run_id"].is_unique and results.damaged == []
    assert results.has_run(address)
    again = results.run_detail(address.run_id)
    assert again is not None and again["status"] == "ok"
    assert again["finished_at"] > good["finished_at"]  # measured now, not the old figures
    # only that run: every other file as it was; that configuration alone built again
    assert {p: s for p, s in _stamps(store).items() if p in others} == others
    after = stored_configurations(store, SWEEP)
    assert after == builds | {RAID5: builds[RAID5] + 1}, after
    assert f"{RUNS}/{RUNS}" in _status_runs(store)
    # and it is done: the next resume measures and says nothing
    out = _resume(spec_path, store)
    assert "0 run(s) written" in out and "warning" not in out, out


def test_the_runs_of_a_damaged_part_are_measured_again(
    pristine: tuple[Path, Path], tmp_path: Path
) -> None:
    """Every run compacted into parts (as a sweep of 1,500 runs or more keeps them), then
    RAID 5's part damaged: its eight runs, which the store holds nowhere else, are measured
    again; RAID 10's part is left as it is. The damaged part stays (named by every read:
    restore or remove it); the next resume has nothing to measure."""
    source, spec_path = pristine
    store = copy_store(source, tmp_path)
    ParquetStore(store).compact(SWEEP)
    assert _run_files(store) == []
    (part,) = (store / SWEEP / "compacted").glob(f"{config_folder(SWEEP, RAID5)}.*.parquet")
    part.write_bytes(part.read_bytes()[:-200])
    others = {p: s for p, s in _stamps(store).items() if "compacted" in p.parts and p != part}

    out = _resume(spec_path, store)

    assert "8 run(s) written" in out and f"warning: {part}: damaged" in out, out
    assert f"configuration {RAID5} was completed before its run file(s) {part}" in out, out
    assert "measured again: " in out and "and 2 more" in out, out
    # stored, then compacted as a sweep with parts compacts: a new part beside the damaged one
    parts = sorted((store / SWEEP / "compacted").glob(f"{config_folder(SWEEP, RAID5)}.*.parquet"))
    assert len(parts) == 2 and part in parts
    assert {p: s for p, s in _stamps(store).items() if p in others} == others
    results = ParquetStore(store)
    runs = results.runs(SWEEP)
    assert len(runs) == RUNS and runs["run_id"].is_unique
    assert any(str(part) in line for line in results.damaged)
    out = _resume(spec_path, store)
    assert "0 run(s) written" in out and "measured again" not in out, out


def test_a_damaged_file_that_holds_no_lost_run_is_said(
    pristine: tuple[Path, Path], tmp_path: Path
) -> None:
    """A failed attempt's file damaged (the run it was an attempt at is stored good): the
    resume measures nothing but names the file (it said nothing of it)."""
    source, spec_path = pristine
    store = copy_store(source, tmp_path)
    victim = _run_files(store)[0]
    stray = victim.with_name(f"{victim.stem}.failed-20250101T000000000000.parquet")
    stray.write_bytes(b"garbage" * 30)
    out = _resume(spec_path, store)
    assert "0 run(s) written" in out, out
    assert f"warning: {stray}: damaged, not a whole Parquet file" in out, out
    assert "measured again" not in out, out


def test_a_folder_in_a_lost_runs_place_is_named_and_the_sweep_goes_on(
    pristine: tuple[Path, Path], tmp_path: Path
) -> None:
    source, spec_path = pristine
    store = copy_store(source, tmp_path)
    victim = _run_files(store)[2]
    victim.unlink()
    victim.mkdir()
    out = _resume(spec_path, store)
    assert "0 run(s) written" in out, out
    assert f"a folder where run {victim.stem}'s file goes; remove it to store the run" in out
    assert "they are not measured again" in out, out
    victim.rmdir()
    victim.write_bytes(b"garbage" * 30)  # a file again, damaged: measured again
    out = _resume(spec_path, store)
    assert "1 run(s) written" in out and "measured again" in out, out


# records read once per command ----------------------------------------------------------------


def _counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[object]:
    calls: list[object] = []
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args[0] if args else None)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("command", ["recommend", "report", "status", "run"])
def test_a_command_checks_each_record_once(
    pristine: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    source, spec_path = pristine
    store = copy_store(source, tmp_path)
    sweeps = _counted(monkeypatch, sweeps_module, "sweep_record")
    progress = _counted(monkeypatch, progress_module, "checked_progress")
    args = {
        "recommend": ["recommend", SWEEP],
        "report": ["report", SWEEP, "-o", str(tmp_path / "r.html")],
        "status": ["status", SWEEP],
        "run": ["run", str(spec_path)],
    }[command]
    result = CliRunner().invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert len(sweeps) == 1, sweeps
    if command != "run":  # a sweep rewrites its progress record as it runs: read anew
        assert len(progress) == 1, progress
