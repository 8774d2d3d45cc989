"""A sweep's record (``<store>/<sweep>/sweep.json``) is read as a user's file is: anyone may
edit it. Every field the commands read (its spec's classes, matrix, prices and the rest, the
hardware facts recorded with it, its texts) is checked when the record is opened, and a
damaged one is refused with exit status 2 naming the file and the field, before anything is
written; a class file of the record that no longer loads is named with the record's entry.
An empty sweep name is no name: it is refused, never taken for the latest sweep."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import finished_tiny, invoke
from tests.support.sweeps import copy_store

SWEEP = "tiny"
Record = dict[str, Any]


_run = invoke


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny sweep on the simulated array: its store, never changed."""
    return finished_tiny(tmp_path_factory.mktemp("tampered"), SWEEP)


def _tampered(finished: Path, tmp_path: Path, damage: Callable[[Record], object]) -> Path:
    """A copy of the finished store whose record ``damage`` changed: the copy's root."""
    store = copy_store(finished, tmp_path)
    path = store / SWEEP / "sweep.json"
    record = json.loads(path.read_text())
    damage(record)
    path.write_text(json.dumps(record))
    return store


def _files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time."""
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _set(*keys: str, value: object) -> Callable[[Record], None]:
    def damage(record: Record) -> None:
        *parents, last = keys
        for key in parents:
            record = record[key]
        record[last] = value

    return damage


#: what was changed in the record, and the field the refusal names
DAMAGES = {
    "a class entry that is not text": (_set("spec", "classes", value=[5]), "spec.classes[0]"),
    "hardware facts that are not a mapping": (_set("hardware", value="x"), "hardware"),
    "a RAID group of no drives": (
        _set("hardware", "raid_groups", "raid5", value={"data": 0, "redundancy": 0}),
        "hardware.raid_groups.raid5",
    ),
    "a price that is not a number": (
        _set("spec", "prices", value={"per_drive": "x", "fixed": 1, "currency": "USD"}),
        "spec.prices.per_drive",
    ),
    "a description that is not text": (_set("description", value=5), "description"),
    "a creation time that is not text": (_set("created_at", value=5), "created_at"),
    "acceptance gates that are not a list": (
        _set("spec", "acceptance", value={"gates": "x"}),
        "spec.acceptance.gates",
    ),
    "a key no raidsweep writes": (_set("spec", "newer", value=1), "spec.newer: unknown key"),
}

#: the commands that open a sweep's record, each as it is given the sweep (report: a file of
#: its own, to see that none is written)
COMMANDS = {
    "recommend": ["recommend", SWEEP],
    "report": ["report", SWEEP, "-o", "{tmp}/r.html"],
    "compare": ["compare", SWEEP, SWEEP],
    "accept": ["accept", SWEEP, "--report", "{tmp}/a.html"],
    "curves": ["curves", SWEEP],
    "drift": ["drift", SWEEP],
    "disclose": ["disclose", SWEEP],
    "status": ["status", SWEEP],
}


def _command(name: str, store: Path, tmp: Path) -> list[str]:
    return [a.format(tmp=tmp) for a in COMMANDS[name]] + ["--store", str(store)]


def _refused(command: str, store: Path, tmp_path: Path) -> str:
    """``command`` on ``store``: exit status 2, nothing in the store written or changed and
    no file written where it writes (a report, its Markdown, its CSV); what it said."""
    before = _files(store)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out = _run(*_command(command, store, out_dir))
    assert code == 2, out
    assert _files(store) == before  # nothing written, nothing changed
    assert not any(out_dir.iterdir())  # no report, nor its Markdown or CSV
    return out


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_damaged_record_is_refused_naming_its_file_and_field(
    finished: Path, tmp_path: Path, damage: str, command: str
) -> None:
    change, field = DAMAGES[damage]
    store = _tampered(finished, tmp_path, change)
    out = _refused(command, store, tmp_path)
    assert f"{store / SWEEP / 'sweep.json'}: damaged (" in out, out
    assert field in out, out


def test_an_untouched_record_is_read(finished: Path, tmp_path: Path) -> None:
    store = copy_store(finished, tmp_path)
    for command in ("recommend", "report", "compare", "curves", "disclose"):
        code, out = _run(*_command(command, store, tmp_path))
        assert code == 0, (command, out)


@pytest.mark.parametrize("command", ["recommend", "report", "compare", "accept"])
def test_a_class_file_of_the_record_that_is_gone_is_named_with_its_entry(
    finished: Path, tmp_path: Path, command: str
) -> None:
    """A class file the record names, removed since the sweep: the commands that rank by it
    name the record and its entry (report ended in an InputError traceback)."""
    gone = tmp_path / "gone" / "cls.yaml"
    store = _tampered(finished, tmp_path, _set("spec", "classes", value=[str(gone)]))
    out = _refused(command, store, tmp_path)
    assert f"{store / SWEEP / 'sweep.json'}:" in out, out
    assert f"spec.classes[0]: {gone}: file not found" in out, out


@pytest.mark.parametrize("command", ["curves", "disclose"])
def test_a_record_whose_class_file_is_gone_still_shows_its_runs(
    finished: Path, tmp_path: Path, command: str
) -> None:
    """Not damaged: what does not rank by its classes reads it as before."""
    gone = tmp_path / "gone.yaml"
    store = _tampered(finished, tmp_path, _set("spec", "classes", value=[str(gone)]))
    code, out = _run(command, SWEEP, "--store", store)
    assert code == 0, out


@pytest.mark.parametrize("command", ["recommend", "report"])
def test_a_record_that_names_no_class_is_refused_by_the_rankings(
    finished: Path, tmp_path: Path, command: str
) -> None:
    """``classes: []`` (the app shows such a sweep's runs, with no score): recommend and
    report say so, and how to rank it (they ended in a pandas traceback)."""
    store = _tampered(finished, tmp_path, _set("spec", "classes", value=[]))
    code, out = _run(*_command(command, store, tmp_path))
    assert code == 2, out
    assert f"{store / SWEEP / 'sweep.json'}: damaged (its spec names no classes)" in out, out
    assert "--class" in out
    assert not (tmp_path / "r.html").exists()


EMPTY_NAME = {
    "recommend": ["recommend", ""],
    "report": ["report", ""],
    "curves": ["curves", ""],
    "drift": ["drift", ""],
    "disclose": ["disclose", ""],
    "accept": ["accept", ""],
    "compare A": ["compare", "", SWEEP],
    "compare B": ["compare", SWEEP, ""],
    "status": ["status", ""],
}


@pytest.mark.parametrize("command", EMPTY_NAME)
def test_an_empty_sweep_name_is_no_name(finished: Path, tmp_path: Path, command: str) -> None:
    """'' was taken for "no name given": the latest sweep was acted on, exit 0."""
    store = copy_store(finished, tmp_path)
    before = _files(store)
    code, out = _run(*EMPTY_NAME[command], "--store", store)
    assert code == 2, out
    assert "'' is not a sweep name" in out, out
    assert _files(store) == before  # report wrote no report.html into the sweep's folder


#: the app's pages that show one sweep (Compare sweeps and Operator choose their own)
APP_PAGES = ("overview", "recommendations", "heatmaps", "curves", "compare", "run_details")


@pytest.mark.parametrize(
    "damage", ["a creation time that is not text", "a price that is not a number"]
)
def test_the_app_names_a_damaged_record_and_shows_none_of_it(
    finished: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    """The landing page read ``created_at[:19]`` of an integer, and the ranking pages ended
    in tracebacks; each page now names the record and the field, and shows nothing of it."""
    from streamlit.testing.v1 import AppTest

    from tests.support.apptest import APP

    change, field = DAMAGES[damage]
    store = _tampered(finished, tmp_path, change)
    monkeypatch.setenv("RAIDSWEEP_STORE", str(store))
    at = AppTest.from_file(APP, default_timeout=60).run()
    for page in APP_PAGES:
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, (page, [e.message for e in at.exception])
        said = " ".join(e.value for e in at.error)
        assert "sweep.json" in said and field.split(":")[0] in said, (page, said)
        assert not at.dataframe, page  # nothing of the sweep is shown


def _drop_classes(record: Record) -> None:
    del record["spec"]["classes"]


def test_the_app_and_the_commands_refuse_a_record_without_classes_alike(
    finished: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spec with no ``classes`` key: the models' default classes would stand in for the
    sweep's. The commands refused it while the app ranked the sweep with those defaults; both
    now read one check (``recommender.data.record_damage``)."""
    from streamlit.testing.v1 import AppTest

    from tests.support.apptest import APP

    store = _tampered(finished, tmp_path, _drop_classes)
    assert "its spec names no classes" in _refused("recommend", store, tmp_path)
    monkeypatch.setenv("RAIDSWEEP_STORE", str(store))
    at = AppTest.from_file(APP, default_timeout=60).run()
    for page in ("overview", "recommendations"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, (page, [e.message for e in at.exception])
        said = " ".join(e.value for e in at.error)
        assert "sweep.json" in said and "names no classes" in said, (page, said)
        assert not at.dataframe, page
