"""The CLI's read commands on a real sweep: status, recommend, report; bad names exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from recommender.data import load_rankings
from sweeper.cli import app
from sweeper.store import ParquetStore
from tests.support.paths import QUICK, ROOT

pytestmark = pytest.mark.integration
runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def test_status(quick_store: ParquetStore) -> None:
    result = invoke("status", "--store", str(quick_store.root))
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if "quick" in ln)
    assert "finished" in line and "9/9" in line and "1134/1134" in line


def test_recommend_prints_each_class_in_rank_order(quick_store: ParquetStore) -> None:
    result = invoke("recommend", "quick", "--store", str(quick_store.root))
    assert result.exit_code == 0, result.output
    ranked, _ = load_rankings(quick_store, quick_store.get_sweep("quick"))
    out = result.output
    flat = " ".join(out.split())
    for cls in ranked["class"].unique():
        part = ranked[ranked["class"] == cls]
        positions = [out.index(k, out.index(f"{cls} — ")) for k in part["config_key"]]
        assert positions == sorted(positions), f"{cls} rows out of rank order"
        assert f"→ {cls}: {part['config_key'].iloc[0]}" in flat  # the decision line
    assert "> 20 ms" in out  # a broken limit in full (the wide table says "ok" for the rest)
    from recommender.pareto import pareto_set

    front = pareto_set(ranked)
    names = ", ".join(sorted(ranked["class"].unique()))
    assert len(front) >= 1 and f"Pareto set across {names}" in flat
    tail = out[out.index("Pareto set") :]
    assert all(key in tail for key in front.index)


def test_recommend_with_a_class_of_ones_own(quick_store: ParquetStore, tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "name: my_reads\ncells:\n  - {cell: randread/16k/qd1x16}\n  - {cell: read/1m/qd1x16}\n"
    )
    result = invoke("recommend", "quick", "--store", str(quick_store.root), "--class", str(mine))
    assert result.exit_code == 0, result.output
    assert "my_reads" in result.output and "redo_log" not in result.output
    # A cell the sweep never measured: refused with the class file's line, nothing printed.
    mine.write_text(
        "name: my_reads\ncells:\n  - {cell: randread/16k/qd1x16}\n  - {cell: randread/16k/qd8x16}\n"
    )
    result = invoke("recommend", "quick", "--store", str(quick_store.root), "--class", str(mine))
    assert result.exit_code == 2
    assert "line 4: cells[1].cell: randread/16k/qd8x16 is not a cell this sweep measures" in (
        " ".join(result.output.split())
    )
    assert "rank" not in result.output


def test_report_command_writes_html(quick_store: ParquetStore, tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    result = invoke("report", "quick", "--store", str(quick_store.root), "-o", str(target))
    assert result.exit_code == 0, result.output
    assert target.read_text().startswith("<!doctype html>")


@pytest.mark.parametrize("blocker", ["out-rankings.csv", "out.md"])
def test_a_report_is_written_whole_or_not_at_all(
    quick_store: ParquetStore, tmp_path: Path, blocker: str
) -> None:
    """A folder where one of the report's files goes: nothing is written and that file is
    named (the HTML and the Markdown were left behind, and the HTML was blamed)."""
    (tmp_path / blocker).mkdir()
    result = invoke(
        "report", "quick", "--store", str(quick_store.root), "-o", str(tmp_path / "out.html")
    )
    said = " ".join(result.output.split())
    assert result.exit_code == 2, said
    assert f"{tmp_path / blocker}: cannot be written" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == [blocker]


def test_a_users_markdown_file_beside_the_report_is_not_overwritten(
    quick_store: ParquetStore, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("my notes\n")
    result = invoke(
        "report", "quick", "--store", str(quick_store.root), "-o", str(tmp_path / "notes.html")
    )
    said = " ".join(result.output.split())
    assert result.exit_code == 2, said
    assert f"{notes}: cannot be written (exists and is not a raidsweep report)" in said
    assert notes.read_text() == "my notes\n" and sorted(tmp_path.iterdir()) == [notes]
    # a report of its own is replaced as it is written again
    again = tmp_path / "again.html"
    for _ in range(2):
        assert (
            invoke("report", "quick", "--store", str(quick_store.root), "-o", str(again)).exit_code
            == 0
        )


@pytest.mark.parametrize("command", ["recommend", "report", "status"])
def test_unknown_sweep_exits_2(quick_store: ParquetStore, command: str) -> None:
    result = invoke(command, "no-such-sweep", "--store", str(quick_store.root))
    assert result.exit_code == 2
    assert "no sweep 'no-such-sweep'" in result.output


def test_a_mistyped_sweep_or_store_is_told_what_is_there(
    quick_store: ParquetStore, tmp_path: Path
) -> None:
    typo = invoke("recommend", "qick", "--store", str(quick_store.root))
    assert typo.exit_code == 2 and "its sweeps: quick" in " ".join(typo.output.split())
    nowhere = tmp_path / "no-store"
    missing = " ".join(invoke("recommend", "quick", "--store", str(nowhere)).output.split())
    assert "there is no folder there: is --store (or RAIDSWEEP_STORE)" in missing
    assert not nowhere.exists()


def test_an_unknown_class_name_lists_the_shipped_ones(quick_store: ParquetStore) -> None:
    result = invoke("recommend", "quick", "--store", str(quick_store.root), "--class", "data_fiel")
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "unknown workload class 'data_fiel' (shipped:" in said
    assert "data_file" in said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (  # a limit no run can meet: it would fail every configuration (and divided by 0)
            "limits:\n  - {metric: read_lat_mean, max: 0ms}\n",
            "line 6: limits[0].max: '0ms' would fail every run; give one above 0",
        ),
        (  # printed to the terminal: no escape sequences
            'description: "a\\x1b[2Jb"\n',
            "line 5: description: holds the control character '\\x1b'",
        ),
        (  # one cell twice would weigh it twice, silently
            "  - {cell: randread/16k/qd1x16, weight: 2}\n",
            "line 3: cells: [2] repeats cell 'randread/16k/qd1x16' of [0]",
        ),
    ],
)
def test_a_class_file_that_cannot_rank_is_refused(
    quick_store: ParquetStore, tmp_path: Path, text: str, said: str
) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "name: my_reads\ncells:\n  - {cell: randread/16k/qd1x16}\n  - {cell: read/1m/qd1x16}\n"
        + text
    )
    out = tmp_path / "report"
    for args in (("recommend",), ("report", "-o", str(out / "r.html"))):
        result = invoke(*args, "quick", "--store", str(quick_store.root), "--class", str(mine))
        assert result.exit_code == 2, result.output
        assert said in " ".join(result.output.split()), result.output
        assert "Traceback" not in result.output and "rank" not in result.output
    assert not out.exists()


def _recommend_with(store: ParquetStore, *classes: str):
    return invoke(
        "recommend", "quick", "--store", str(store.root), *(f"--class={c}" for c in classes)
    )


def test_a_class_named_twice_is_refused(quick_store: ParquetStore) -> None:
    result = _recommend_with(quick_store, "redo_log", "data_file", "redo_log")
    assert result.exit_code == 2
    assert "--class: 1 problem(s) 'redo_log' is given twice" in " ".join(result.output.split())


def test_two_classes_of_one_name_are_refused(quick_store: ParquetStore, tmp_path: Path) -> None:
    """A file whose class is named as a shipped one: their rankings would mix under one name."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: redo_log\ncells:\n  - {cell: randread/16k/qd1x16}\n")
    result = _recommend_with(quick_store, "redo_log", str(mine))
    said = " ".join(result.output.split())
    assert result.exit_code == 2, said
    assert "are both class 'redo_log': give each class once" in said


def test_a_class_file_given_relative_is_read_from_the_working_folder(
    quick_store: ParquetStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project ships recommender/classes/data_file.yaml; a user's file of the same
    relative path in the working folder is the one read."""
    own = tmp_path / "recommender" / "classes"
    own.mkdir(parents=True)
    (own / "data_file.yaml").write_text(
        "name: mine_reads\ncells:\n  - {cell: randread/16k/qd1x16}\n"
    )
    monkeypatch.chdir(tmp_path)
    result = invoke(
        "recommend",
        "quick",
        "--store",
        str(quick_store.root),
        "--class",
        "recommender/classes/data_file.yaml",
    )
    assert result.exit_code == 0, result.output
    assert "mine_reads" in result.output and "Data files" not in result.output


def test_check_refuses_a_name_the_store_holds_for_another_spec(
    quick_store: ParquetStore, tmp_path: Path
) -> None:
    # What run would refuse, --check refuses first; the same spec is told what is stored.
    spec = yaml.safe_load(QUICK.read_text())
    spec["inventory"] = str(ROOT / "inventories" / "sim" / "hosts.yml")
    spec["matrix"]["repetitions"] = 2
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(spec))
    before = sorted(p.name for p in quick_store.root.rglob("*"))
    result = invoke("run", str(other), "--store", str(quick_store.root), "--check")
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "already exists" in said and "different spec" in said
    same = invoke("run", str(QUICK), "--store", str(quick_store.root), "--check")
    assert same.exit_code == 0, same.output
    assert "1134 of its runs are stored already" in " ".join(same.output.split())
    assert "0 left to run" in " ".join(same.output.split())
    assert sorted(p.name for p in quick_store.root.rglob("*")) == before


def test_curves_at_80_columns_cut_nothing(quick_store: ParquetStore) -> None:
    # Wider than the terminal, the table gives way to a few lines per curve: every
    # configuration key and figure whole, no ellipsis.
    result = runner.invoke(
        app, ["curves", "quick", "--store", str(quick_store.root)], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and "┃" not in result.output
    keys = set(quick_store.runs("quick")["config_key"])
    assert {line.split()[0] for line in result.output.splitlines() if line[:1].isalnum()} >= keys
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_a_sweep_named_like_a_run_id_is_disclosed(tmp_path: Path) -> None:
    """24 hex digits are a valid sweep name: no run of that id, then the sweep of that name."""
    from tests.support.cli import cli
    from tests.support.specs import quick_base, write_spec

    spec = quick_base() | {"name": "deadbeef" * 3}
    spec["config_space"] |= {"raid_level": ["raid10"], "layout": ["single_rank"]}
    path = write_spec(tmp_path, spec, "hexname")
    store = tmp_path / "s"
    assert cli("run", path, "--store", store, "-q").returncode == 0
    shown = cli("disclose", "deadbeef" * 3, "--store", store)
    assert shown.returncode == 0, shown.stderr
    assert "deadbeefdeadbeefdeadbeef" in shown.stdout
    nothing = cli("disclose", "0" * 24, "--store", store)
    assert nothing.returncode == 2 and f"no run or sweep {'0' * 24}" in nothing.stderr
    sweep_fio = cli("disclose", "deadbeef" * 3, "--store", store, "--fio-output")
    assert sweep_fio.returncode == 2 and "--fio-output: a run's" in sweep_fio.stderr
