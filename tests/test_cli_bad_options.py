"""Options no command can use are refused before anything starts: exit 2 naming the option,
no traceback, no server and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sweeper.cli import app


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["app", "--port", "70000"], "--port"),
        (["app", "--port", "0"], "--port"),
        (["app", "--address", "{{ x }}"], "is not an address of this machine"),
        (["app", "--address", "no-such-host.invalid"], "is not an address of this machine"),
        (["sql", "select 1", "--timeout", "inf"], "at most 604,800 (a week)"),
        (["sql", "select 1", "--timeout", "1e10"], "at most 604,800 (a week)"),
        (["sql", "select 1", "--timeout", "0"], "above 0"),
    ],
)
def test_an_option_no_command_can_use_is_refused(
    tmp_path: Path, args: list[str], said: str
) -> None:
    store = tmp_path / "store"
    result = CliRunner().invoke(app, [*args, "--store", str(store)])
    out = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2, out
    assert said in out and "Traceback" not in out
    assert not store.exists()


@pytest.mark.parametrize(
    "args", [["report", "-o", "r.html/"], ["accept", "--report", "r.html/", "--spec", "s.yaml"]]
)
def test_an_output_file_named_as_a_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    """``r.html/`` names a folder: the report would have been written as ``r.html`` here."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [*args, "--store", str(tmp_path / "store")])
    out = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2, out
    assert "'r.html/' ends with '/', so it names a folder" in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["down", "status"])
def test_a_lab_folder_that_is_a_file_is_refused(tmp_path: Path, command: str) -> None:
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    result = CliRunner().invoke(app, ["lab", command, "--dir", str(afile)])
    out = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2, out
    assert "is not a folder" in out
    assert afile.read_text() == "mine\n"


@pytest.mark.parametrize(
    ("command", "code"), [(["status"], 0), (["recommend"], 2), (["curves"], 2)]
)
def test_an_entry_of_the_store_that_cannot_be_read_is_named_and_passed_over(
    tmp_path: Path, command: list[str], code: int
) -> None:
    """An entry of the store folder that cannot be looked at (here a link to itself; as well
    a link into a folder the user may not read) is named in a warning and passed over: the
    rest of the store is read (here nothing else: no sweeps), no traceback."""
    import subprocess

    from tests.support.paths import RAIDSWEEP

    store = tmp_path / "store"
    store.mkdir()
    (store / "loop").symlink_to(store / "loop")
    result = subprocess.run(
        [str(RAIDSWEEP), *command, "--store", str(store)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == code, result.stderr
    said = f"warning: {store / 'loop'}: cannot be read (Too many levels of symbolic links)"
    assert said in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--memory", "1000T"], "--memory: 1,048,576,000 MiB is more than this machine can give"),
        (["--disks", "24", "--disk-size", "100T"], "--disk-size: 24 disk(s) of 104,857,600 MiB"),
    ],
)
def test_a_lab_larger_than_this_machine_is_refused_before_anything(
    tmp_path: Path, args: list[str], said: str
) -> None:
    """The lab's memory must be available now, and its sparse data disks must fit where they
    are kept once written: refused before any image is built or file made, naming the option."""
    folder = tmp_path / "lab"
    result = CliRunner().invoke(app, ["lab", "up", *args, "--dir", str(folder)])
    out = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2, out
    assert said in out and "Traceback" not in out
    assert not folder.exists()
