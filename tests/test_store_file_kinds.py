"""A file of the wrong kind, or a damaged record, in a results store is never a hang nor a
traceback: it is named (file and problem) and left out with a warning, or refused with exit
status 2; the store is left as it was, byte for byte; and no control character of a file
reaches the terminal.

The store is a real one (a small sweep on the simulated array, run by the installed command),
damaged the way a stray ``mkfifo``, ``mkdir``, ``ln -s`` or a hand edit damages it; each
command runs as a user runs it, with a time limit (a FIFO opened for reading waits for a
writer for ever; ``/dev/zero`` read whole never ends).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from sweeper.errors import StoreError
from sweeper.store import ParquetStore, RunAddress
from tests.support.cli import cli
from tests.support.specs import tiny_sim_spec
from tests.support.sweeps import copy_store

SWEEP = "tiny"
RUNS = 8  # 2 configurations × 2 cells × 2 repetitions
#: far more than any of these commands takes (1–5 s); a hang fails the test instead
TIMEOUT = 20


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a finished sweep on the simulated array (``store``), run by ``raidsweep
    run`` from its spec (``tiny.yaml``)."""
    folder = tmp_path_factory.mktemp("file-kinds")
    spec = tiny_sim_spec(folder, SWEEP, extra_cells=False)
    done = cli("run", spec, "--store", folder / "store", "-q")
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    return copy_store(pristine / "store", tmp_path)


def contents(store: Path) -> dict[str, object]:
    """Every entry of the store by its place: a regular file as a digest of its bytes, a link
    as where it points, anything else by its kind (a FIFO or a device is never opened)."""
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(store):  # links are not followed
        for name in dirs + files:
            path = Path(folder) / name
            mode = path.lstat().st_mode
            if stat.S_ISREG(mode):
                found[str(path.relative_to(store))] = hashlib.sha256(path.read_bytes()).digest()
            elif stat.S_ISLNK(mode):
                found[str(path.relative_to(store))] = ("link", os.readlink(path))
            else:
                found[str(path.relative_to(store))] = stat.S_IFMT(mode)
    return found


def run(store: Path, *args: str | Path) -> tuple[int, str]:
    """``raidsweep`` with ``args`` on ``store``, within TIMEOUT: its exit status and its
    output on one line; never a traceback, never a control character (the output is no
    terminal: rich colours nothing, so an ESC could only come from a file)."""
    done = cli(*args, "--store", store, columns=400, timeout=TIMEOUT)
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out
    assert "\x1b" not in out and "\x07" not in out, repr(out)
    return done.returncode, " ".join(out.split())


def replace(path: Path, kind: str) -> None:
    """Put a file of ``kind`` in the place of ``path`` (what was there is removed)."""
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "link loop":
        path.symlink_to(path.name)
    elif kind == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "link to nowhere":
        path.symlink_to("gone.json")
    else:
        raise AssertionError(kind)


def row(out: str) -> str:
    """The sweep's row of ``status``'s table."""
    return out.split(f"│ {SWEEP} │", 1)[1].split("└", 1)[0]


# a record of the wrong kind -----------------------------------------------------------------
def test_a_fifo_at_the_sweep_record_is_named_never_waited_on(store: Path) -> None:
    path = store / SWEEP / "sweep.json"
    replace(path, "fifo")
    before = contents(store)
    code, out = run(store, "status")
    assert code == 0 and f"warning: {path}: is not a regular file" in out, out
    code, out = run(store, "status", SWEEP)
    assert code == 2 and f"error: {path}: is not a regular file" in out, out
    assert contents(store) == before


@pytest.mark.parametrize(
    ("name", "kind", "said", "state"),
    [
        ("progress.json", "fifo", "is not a regular file", "interrupted │ ? │ 8/? │"),
        ("progress.json", "link loop", "Too many levels of symbolic links", "interrupted │ ? │"),
        ("progress.json", "link to nowhere", "a link to 'gone.json', which does not", "interr"),
        # another worker's record: the sweep's own still tells its state
        ("progress-w1.json", "/dev/zero", "is not a regular file", "finished │ 2/2 │ 8/8 │"),
    ],
)
def test_a_progress_record_of_another_kind_is_left_out_and_named(
    store: Path, name: str, kind: str, said: str, state: str
) -> None:
    path = store / SWEEP / name
    replace(path, kind)
    before = contents(store)
    code, out = run(store, "status")
    assert code == 0, out
    assert f"warning: {path}: " in out and said in out and "; left out" in out, out
    assert row(out).startswith(f" {state}"), out
    assert contents(store) == before


def test_a_folder_at_the_progress_record_is_named_by_every_command(
    store: Path, pristine: Path, tmp_path: Path
) -> None:
    """Reading commands leave it out with a warning (``report`` blamed its output for it);
    ``run``, which replaces its record, refuses before it changes anything."""
    path = store / SWEEP / "progress.json"
    replace(path, "folder")
    before = contents(store)
    warned = f"warning: {path}: is a directory"
    code, out = run(store, "status")
    assert code == 0 and warned in out, out
    code, out = run(store, "recommend", SWEEP)
    assert code == 0 and "raid" in out, out
    code, out = run(store, "report", SWEEP, "-o", tmp_path / "r.html")
    assert code == 0 and warned in out and "report written" in out, out
    code, out = run(store, "run", pristine / f"{SWEEP}.yaml")
    assert code == 2 and f"error: {path}: is a folder" in out and "remove it" in out, out
    assert contents(store) == before


# a damaged progress record ----------------------------------------------------------------
_EVIDENCE = {"stop": True, "within_pct": 5.0, "confidence": 0.95, "measured": 2, "space": 2}
_CLASS = {"pick": "raid10", "p_beaten": 0.01, "confidence": 0.99, "confident": True, "fitted": 2}


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ([1, 2], "damaged (not a progress record)"),
        ({"state": "{{x}}\x1b[31m"}, "damaged (state: Input should be 'running'"),
        ({"state": "running", "pid": "x"}, "damaged (pid: Input should be a valid integer)"),
        (
            {
                "state": "finished",
                "evidence": _EVIDENCE | {"classes": [_CLASS | {"name": "\x1b]8"}]},
            },
            "damaged (evidence.classes[0].name: holds the control character '\\x1b')",
        ),
    ],
    ids=["list", "state", "pid", "class name"],
)
def test_a_damaged_progress_record_is_named_and_not_trusted(
    store: Path, record: object, said: str
) -> None:
    """The sweep then reads as what its runs tell: started (it has runs), not known to have
    finished, its totals not known; nothing of the record reaches the terminal or --json."""
    path = store / SWEEP / "progress.json"
    path.write_text(json.dumps(record))
    before = contents(store)
    code, out = run(store, "status")
    assert code == 0 and f"warning: {path}: {said}" in out and "; left out" in out, out
    assert row(out).startswith(f" interrupted │ ? │ {RUNS}/? │"), out
    done = cli("status", SWEEP, "--json", "--store", store, timeout=TIMEOUT)
    assert done.returncode == 0 and f"warning: {path}: " in done.stderr, done.stderr
    assert "\x1b" not in done.stdout and "\\u001b" not in done.stdout, done.stdout
    entry = json.loads(done.stdout)["sweeps"][0]
    assert entry["state"] == "interrupted" and entry["totals_known"] is False, entry
    assert contents(store) == before


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"pid": 1}, "state: Field required"),
        ({"state": "running", "pid": -1}, "pid: Input should be greater than or equal to 1"),
        ({"state": "running", "pid": 2**40}, "pid: Input should be less than or equal to"),
        ({"state": "running", "pid": True}, "pid: Input should be a valid integer"),
        ({"state": "finished", "runs_total": "12"}, "runs_total: Input should be a valid integer"),
        ({"state": "finished", "array_s_total": float("nan")}, "array_s_total: Input should be"),
        ({"state": "finished", "configurations_failed": "raid5"}, "configurations_failed: "),
        ({"state": "finished", "evidence": {"stop": True}}, "evidence.within_pct: Field required"),
    ],
)
def test_a_progress_record_of_another_shape_is_left_out(
    tmp_path: Path, record: dict[str, object], said: str
) -> None:
    """Each value of its type, as raidsweep writes it (a pid of -1 would be every process)."""
    store = ParquetStore(tmp_path)
    good = {"state": "finished", "pid": 1, "updated_at": "2", "runs_total": 8}
    store.write_progress(SWEEP, good, worker="a")
    path = tmp_path / SWEEP / "progress-b.json"
    path.write_text(json.dumps(record))
    assert store.read_progress(SWEEP) == good
    [line] = store.damaged
    assert line.startswith(f"{path}: damaged ({said}") and line.endswith("; left out"), line


# one bad entry of a store folder ----------------------------------------------------------
def test_a_link_loop_beside_the_sweeps_is_passed_over_and_named(store: Path) -> None:
    (store / "lp2").symlink_to("lp1")
    (store / "lp1").symlink_to("lp2")
    before = contents(store)
    code, out = run(store, "status")
    assert code == 0 and row(out).startswith(f" finished │ 2/2 │ {RUNS}/{RUNS} │"), out
    for loop in ("lp1", "lp2"):
        assert f"warning: {store / loop}: cannot be read (Too many levels" in out, out
    assert contents(store) == before


def test_a_link_loop_among_the_runs_is_passed_over_and_named(store: Path) -> None:
    runs = store / SWEEP / "runs"
    (store / SWEEP / "snapshot.parquet").unlink()  # the runs are read from their files
    (runs / "lp2").symlink_to("lp1")
    (runs / "lp1").symlink_to("lp2")
    victim = sorted(runs.glob("*/*.parquet"))[0]
    replace(victim, "link loop")  # a run file's place
    before = contents(store)
    query = "SELECT count(*) AS n FROM runs WHERE sweep_id = 'tiny'"
    code, out = run(store, "sql", query, "--format", "csv")
    assert code == 0 and f"n {RUNS - 1}" in out, out
    for bad in (runs / "lp1", runs / "lp2", victim):
        assert f"warning: {bad}: cannot be read (Too many levels" in out, out
    code, out = run(store, "recommend", SWEEP)
    assert code == 0 and f"warning: {runs / 'lp1'}: cannot be read" in out, out
    assert contents(store) == before


@pytest.mark.parametrize("place", ["runs", "runs/one", "configurations", "compacted"])
def test_a_file_where_the_store_keeps_a_folder_is_named(store: Path, place: str) -> None:
    """A plain file in the place of the sweep's runs folder, a configuration's run folder,
    the configurations folder or the compacted parts' folder: what it would hold is left out
    and the file named by the commands that read it, never taken for an empty folder."""
    sweep = store / SWEEP
    (sweep / "snapshot.parquet").unlink()  # the runs are read from their files
    if place == "runs/one":
        path = sorted(p for p in (sweep / "runs").iterdir() if p.is_dir())[0]
    else:
        path = sweep / place
    if path.is_dir():
        shutil.rmtree(path)
    path.write_text("x")
    before = contents(store)
    said = f"warning: {path}: a file where the store keeps a folder; what it holds is left out"
    query = "SELECT count(*) AS n FROM runs WHERE sweep_id = 'tiny'"
    code, out = run(store, "sql", query, "--format", "csv")
    assert code == 0 and said in out, out
    if place != "configurations":
        code, out = run(store, "recommend", SWEEP)
        assert said in out, out
    assert contents(store) == before


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "folder"])
def test_a_parquet_file_of_another_kind_is_left_out_unread(store: Path, kind: str) -> None:
    """A run file's place and the snapshot's (a FIFO there hung every reading command)."""
    victim = sorted((store / SWEEP / "runs").glob("*/*.parquet"))[0]
    replace(victim, kind)
    replace(store / SWEEP / "snapshot.parquet", kind)
    before = contents(store)
    code, out = run(store, "status")
    assert code == 0 and f"warning: {victim}: " in out and "not a Parquet file" in out, out
    assert f"│ {RUNS - 1}/{RUNS} │" in row(out), out
    assert contents(store) == before


@pytest.mark.parametrize("created", [None, 20261129, ["x"]])
def test_sweeps_list_whatever_a_record_says_of_its_creation(store: Path, created) -> None:
    """Sweeps are listed newest first by their records' ``created_at``: a record with none, a
    number or a list there beside the others' times is listed too (the sort had failed)."""
    other = store / "other"
    shutil.copytree(store / SWEEP, other)
    record = json.loads((other / "sweep.json").read_text())
    (other / "sweep.json").write_text(
        json.dumps(record | {"sweep_id": "other", "created_at": created})
    )
    code, out = run(store, "status")
    assert code == 0 and f"│ {SWEEP} │" in out and "│ other │" in out, out


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "link loop", "truncated", "another run"])
def test_a_run_readers_leave_out_is_not_counted_as_stored(store: Path, kind: str) -> None:
    """What readers leave out is not a stored run: a resumed sweep measures it again (the
    store counted any file by its name, so that run was never measured again), and the good
    run takes the place of what was there."""
    files = sorted((store / SWEEP / "runs").glob("*/*.parquet"))
    victim = files[0]
    results = ParquetStore(store)
    good = results.run_detail(victim.stem)
    assert good is not None
    address = RunAddress(SWEEP, good["config_key"], good["cell_key"], good["repetition"])
    assert results.has_run(address)
    if kind == "truncated":
        victim.write_bytes(victim.read_bytes()[:-100])
    elif kind == "another run":
        victim.unlink()
        shutil.copyfile(files[1], victim)
    else:
        replace(victim, kind)
    (store / SWEEP / "snapshot.parquet").unlink()
    results = ParquetStore(store)
    assert not results.has_run(address)
    assert results.put_run(good) is True
    assert victim.is_file() and not victim.is_symlink()
    assert results.has_run(address) and results.put_run(good) is False
    runs = ParquetStore(store).runs(SWEEP)
    assert len(runs) == RUNS and runs["run_id"].is_unique, runs
    code, out = run(store, "status")
    assert code == 0 and f"│ {RUNS}/{RUNS} │" in row(out) and "warning" not in out, out


def test_a_folder_in_a_runs_place_is_named_when_the_run_is_stored(store: Path) -> None:
    victim = sorted((store / SWEEP / "runs").glob("*/*.parquet"))[0]
    results = ParquetStore(store)
    good = results.run_detail(victim.stem)
    replace(victim, "folder")
    with pytest.raises(StoreError, match=f"a folder where run {victim.stem}'s file goes"):
        results.put_run(good)
    assert victim.is_dir() and not any(victim.iterdir())
