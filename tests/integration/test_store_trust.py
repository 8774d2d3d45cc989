"""The store is untrusted: what is read back from it is checked before it is used.

A crafted ``sweep.json`` must not send a report outside the store; a name on the command
line never becomes a path; a run file swapped for another run's, truncated or garbage is left
out with a warning naming it, and every good run is still counted; damaged records and
symlink loops are named, never a traceback, never "no sweeps" for a sweep that exists.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sweeper.cli import app
from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from tests.support.campaign import FIGURES
from tests.support.cli import cli
from tests.support.paths import APP
from tests.support.specs import class_measuring, described_sweep, one_cell_sim, tiny_sim_spec
from tests.support.sweeps import copy_store

pytestmark = pytest.mark.integration
CASES: list[str] = []


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished sweep 'tiny' on the simulated array: 2 configurations × 2 cells × 2."""
    folder = tmp_path_factory.mktemp("trust")
    path = tiny_sim_spec(folder, "tiny")
    loaded, inventory = load_spec(path)
    outcome = run_sweep(loaded, inventory, ParquetStore(folder / "store"), spec_path=path)
    assert outcome.complete
    return folder / "store"


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    return copy_store(pristine, tmp_path)


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})
    out = " ".join(result.output.split())
    assert "Traceback" not in out, out
    return result.exit_code, out


def _run_files(store: Path) -> list[Path]:
    return sorted((store / "tiny" / "runs").rglob("*.parquet"))


def _figure(case: str) -> None:
    CASES.append(case)
    FIGURES["fault campaign: untrusted store"] = [
        f"{len(CASES)} cases, each named and refused or left out with a warning, tracebacks "
        f"0: {', '.join(CASES)}"
    ]


@pytest.mark.parametrize("name", ["../x/y", "..", "tiny\n", "a/b", "a b", "x" * 65])
def test_a_sweep_name_on_the_command_line_never_becomes_a_path(store: Path, name: str) -> None:
    for command in (
        ["status", name],
        ["recommend", name],
        ["report", name],
        ["curves", name],
        ["disclose", name],
    ):
        code, out = _cli(*command, "--store", str(store))
        assert code == 2, (command, out)
        assert "is not a sweep name" in out, out
    _figure(f"name {name[:12]!r}")


def test_a_crafted_sweep_record_sends_nothing_outside_the_store(
    store: Path, tmp_path: Path
) -> None:
    evil = store / "evil"
    evil.mkdir()
    record = yaml.safe_load((store / "tiny" / "sweep.json").read_text())
    record |= {"sweep_id": "../../outside", "created_at": "2999-01-01T00:00:00"}
    (evil / "sweep.json").write_text(json.dumps(record))
    before = sorted(p for p in tmp_path.rglob("*"))
    code, out = _cli("report", "--store", str(store))  # the latest sweep: the crafted one
    assert code == 0, out
    assert f"{evil / 'sweep.json'}: names sweep '../../outside' but lies in the folder" in out
    assert f"report written: {store / 'tiny' / 'report.html'}" in out
    created = sorted(set(tmp_path.rglob("*")) - set(before))
    assert created and all(p.is_relative_to(store / "tiny") for p in created), created
    code, out = _cli("report", "evil", "--store", str(store))
    assert code == 2 and "names sweep '../../outside'" in out, out
    assert not (tmp_path / "outside").exists() and not (tmp_path.parent / "outside").exists()
    _figure("crafted sweep.json")


@pytest.mark.parametrize(
    "damage", ["truncated", "not a mapping", "symlink loop", "not UTF-8", "no spec"]
)
def test_a_damaged_sweep_record_is_named(store: Path, damage: str) -> None:
    path = store / "tiny" / "sweep.json"
    if damage == "no spec":  # JSON, but not a record raidsweep can read back
        record = json.loads(path.read_text())
        del record["spec"]
        path.write_text(json.dumps(record))
    elif damage == "truncated":
        path.write_text(path.read_text()[:40])
    elif damage == "not a mapping":
        path.write_text("[1, 2]")
    elif damage == "symlink loop":
        path.unlink()
        path.symlink_to(path)
    else:
        path.write_bytes(b"\xff\xfe{")
    code, out = _cli("status", "--store", str(store))
    assert code == 0 and f"warning: {path}" in out, out
    assert "restore it from a copy, or remove the sweep's folder" in out
    for command in ("recommend", "report", "status"):
        code, out = _cli(command, "tiny", "--store", str(store))
        assert code == 2 and str(path) in out, (command, out)
    _figure(f"sweep.json {damage}")


def test_a_record_whose_matrix_this_raidsweep_cannot_read_is_named(store: Path) -> None:
    """A damaged value, or one a newer raidsweep wrote: exit 2 naming the record and the
    field (recommend, report and compare ended in a validation traceback)."""
    path = store / "tiny" / "sweep.json"
    whole = json.loads(path.read_text())
    for damage, said in (
        (lambda r: r["spec"]["matrix"].update(block_sizes=["12q"]), "matrix: block_sizes"),
        (lambda r: r["spec"].pop("matrix"), "its spec's matrix:"),
        (lambda r: r["spec"].pop("classes"), "its spec names no classes"),
    ):
        record = json.loads(json.dumps(whole))
        damage(record)
        path.write_text(json.dumps(record))
        for command in ("recommend", "report", "curves"):
            code, out = _cli(command, "tiny", "--store", str(store))
            assert code == 2, (command, out)
            assert f"{path}: damaged (" in out and said in out, (command, out)
            assert "Traceback" not in out


def test_an_old_record_without_raidsweep_version_still_reports(store: Path, tmp_path: Path) -> None:
    path = store / "tiny" / "sweep.json"
    record = json.loads(path.read_text())
    del record["raidsweep_version"]
    path.write_text(json.dumps(record))
    code, out = _cli("report", "tiny", "--store", str(store), "-o", str(tmp_path / "r.html"))
    assert code == 0, out
    assert "(version not recorded)" in (tmp_path / "r.html").read_text()


def test_a_swapped_run_file_is_left_out_and_named(store: Path) -> None:
    files = _run_files(store)
    good = ParquetStore(store).runs("tiny")
    victim, source = files[0], files[-1]
    shutil.copyfile(source, victim)
    results = ParquetStore(store)
    runs = results.runs("tiny")
    # The copied run once (its own file), the overwritten run gone, everything else kept.
    assert len(runs) == len(good) - 1
    assert runs["run_id"].is_unique
    assert victim.stem not in set(runs["run_id"]) and source.stem in set(runs["run_id"])
    assert len(results.damaged) == 1 and str(victim) in results.damaged[0]
    assert "not the run its place in the store is for" in results.damaged[0]
    code, out = _cli("recommend", "tiny", "--store", str(store))
    assert code == 0 and f"warning: {victim}" in out, out
    code, out = _cli("disclose", victim.stem, "--store", str(store))
    assert code == 2 and f"no run or sweep {victim.stem}" in out, out
    _figure("swapped run file")


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "pages"])
def test_an_unreadable_run_file_is_left_out_and_named(store: Path, damage: str) -> None:
    victim = _run_files(store)[1]
    data = victim.read_bytes()
    half = len(data) // 2
    victim.write_bytes(
        {
            "truncated": data[:half],
            "garbage": b"not parquet" * 40,
            "empty": b"",
            # its footer whole, its data pages not: found only when DuckDB reads them
            "pages": data[:4] + b"\xab" * (half - 4) + data[half:],
        }[damage]
    )
    # as a user meets it: the first read after the damage (which makes the sweep's snapshot
    # again) and the next, each in a process of its own, say it once
    for command in ("recommend", "report"):
        done = cli(command, "tiny", "--store", store, columns=300)
        out = " ".join(done.stderr.split())
        assert done.returncode == 0 and "Traceback" not in out, (command, out)
        assert out.count(f"warning: {victim}") == 1, (command, out)
    results = ParquetStore(store)
    runs = results.runs("tiny")
    assert len(runs) == len(_run_files(store)) - 1
    assert any(str(victim) in d and "not a whole Parquet file" in d for d in results.damaged)
    _figure(f"run file {damage}")


HOSTILE = '=HYPERLINK("http://192.0.2.1") <img src=x onerror=alert(1)> ![x](http://192.0.2.1/x)'


def test_exports_take_user_text_as_text(tmp_path: Path) -> None:
    """A sweep and a class described with a spreadsheet formula, an HTML image and a Markdown
    image: the CSV cells are quoted ('=…), report.md shows them as text, the CSV's numbers
    stay numbers."""
    import pandas as pd

    # (a class name is a name, as a sweep's is: "-cmd" or "=cmd" is refused at spec time,
    # tests/fixtures/bad_input/classes/name_sql.yaml; descriptions are free text)
    store = described_sweep(tmp_path, HOSTILE, class_name="cmd", repetitions=2)
    code, out = _cli(
        "report", "hostile", "--store", str(store.root), "-o", str(tmp_path / "r.html")
    )
    assert code == 0, out
    md = (tmp_path / "r.md").read_text()
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)>" in md
    assert "![x](" not in md and "\\!\\[x\\](http\\://192.0.2.1/x)" in md
    rankings = pd.read_csv(tmp_path / "r-rankings.csv")
    assert set(rankings["class"]) == {"cmd"}
    assert pd.api.types.is_numeric_dtype(rankings["score"])
    raw = "\n".join(p.read_text() for p in tmp_path.glob("r-*.csv"))
    for line in raw.splitlines():
        for cell in line.split(","):
            assert not cell.strip('"').startswith(("=", "+", "@")), line
    assert "<img" not in (tmp_path / "r.html").read_text().split("<body", 1)[1].replace(
        "&lt;img", ""
    )
    _figure("formula, HTML and Markdown in descriptions")


def test_a_partial_sweep_is_marked_provisional_wherever_a_decision_is_shown(
    tmp_path: Path, pristine: Path, monkeypatch
) -> None:
    """Stopped after its first configuration (as Ctrl-C would): recommend, the HTML report
    and report.md say "provisional: 1 of 3 configurations measured"; a finished sweep
    says nothing of the kind."""
    import threading

    from sweeper.sweep import Progress, Sweeper

    class StopAfterFirst(Progress):
        def __init__(self, stop: threading.Event):
            self.stop = stop

        def configuration_done(self, key: str, status: str, array_s: float) -> None:
            self.stop.set()

    spec = one_cell_sim("partial", ["raid5", "raid6", "raid10"], 2)
    spec["classes"] = [class_measuring(tmp_path, spec["matrix"])]
    path = tmp_path / "partial.yaml"
    path.write_text(json.dumps(spec))
    loaded, inventory = load_spec(path)
    store = ParquetStore(tmp_path / "store")
    stop = threading.Event()
    outcome = Sweeper(
        loaded, inventory, store, spec_path=path, progress=StopAfterFirst(stop), stop=stop
    ).run()
    assert outcome.interrupted and outcome.configurations_done == 1
    note = "provisional: 1 of 3 configurations measured"
    code, out = _cli("recommend", "partial", "--store", str(store.root))
    assert code == 0 and note in out and "→ (provisional)" in out, out
    code, out = _cli(
        "report", "partial", "--store", str(store.root), "-o", str(tmp_path / "r.html")
    )
    assert code == 0, out
    assert note in (tmp_path / "r.html").read_text() and note in (tmp_path / "r.md").read_text()
    code, out = _cli("recommend", "tiny", "--store", str(pristine))
    assert code == 0 and "provisional" not in out, out
    # The app's Recommendations page, for the partial sweep and for a finished one: the
    # decision box itself says it is provisional, and why.
    # (the command without its backquotes, which would show as characters in bold)
    why = "(the sweep stopped before its end; raidsweep run SPEC resumes it)"
    for root, provisional in ((store.root, True), (pristine, False)):
        at = _app(monkeypatch, root, "recommendations")
        boxes = [b.value for b in [*at.success, *at.warning] if "rovisional" in b.value]
        assert bool(boxes) is provisional, boxes
        assert all(note in b.lower() and why in b and "`" not in b for b in boxes), boxes
    _figure("partial sweep marked provisional")


@pytest.fixture
def mounted(tmp_path: Path):
    """A tmpfs of its own at tmp_path/mnt, unmounted after (tests run as root)."""
    import subprocess

    folder = tmp_path / "mnt"
    folder.mkdir()
    mounts: list[Path] = []

    def mount(options: str) -> Path:
        subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=True)
        mounts.append(folder)
        return folder

    yield mount
    for m in reversed(mounts):
        subprocess.run(["umount", "-l", str(m)], check=False)


def _spec_of(store: Path, folder: Path) -> Path:
    record = json.loads((store / "tiny" / "sweep.json").read_text())
    spec = record["spec"]
    path = folder / "tiny.yaml"
    path.write_text(json.dumps(spec))
    return path


def test_a_read_only_store_is_named_and_nothing_is_lost(
    pristine: Path, tmp_path: Path, mounted
) -> None:
    import subprocess

    root = mounted("size=64m")
    store = copy_store(pristine, root)
    subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
    spec = _spec_of(pristine, tmp_path)
    code, out = _cli("run", str(spec), "--store", str(store), "-q")
    assert code == 2 and f"the store at {store} cannot be written" in out, out
    assert "Read-only file system" in out and "make it writable" in out
    code, out = _cli("report", "tiny", "--store", str(store))
    assert code == 2 and f"{store}/tiny/report.html: cannot be written" in out, out
    assert "--output" in out
    for command in ("status", "recommend"):  # reading needs no writing
        code, out = _cli(command, "tiny", "--store", str(store))
        assert code == 0, (command, out)
    _figure("read-only store")


def test_a_full_store_is_named_before_anything_runs(tmp_path: Path, mounted) -> None:
    import subprocess

    root = mounted("size=64k")
    filler = root / "filler"
    subprocess.run(
        ["dd", "if=/dev/zero", f"of={filler}", "bs=4k", "count=64"],
        check=False,
        capture_output=True,
    )
    spec = one_cell_sim("full", ["raid5"])
    spec["classes"] = [class_measuring(tmp_path, spec["matrix"])]
    path = tmp_path / "full.yaml"
    path.write_text(json.dumps(spec))
    code, out = _cli("run", str(path), "--store", str(root / "store"), "-q")
    assert code == 2 and "No space left on device" in out and "free space" in out, out
    _figure("full store")


def test_the_app_names_a_damaged_sweep_record(store: Path, monkeypatch) -> None:
    path = store / "tiny" / "sweep.json"
    path.write_text(path.read_text()[:40])
    warnings = [w.value for w in _app(monkeypatch, store).sidebar.warning]
    assert any(str(path) in w and "damaged" in w for w in warnings), warnings
    _figure("damaged sweep.json in the app")


def _app(monkeypatch: pytest.MonkeyPatch, root: Path, page: str | None = None):
    """The app (Streamlit's AppTest) on the store at ``root``, on ``page`` if given."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("RAIDSWEEP_STORE", str(root))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    if page is not None:
        at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at
