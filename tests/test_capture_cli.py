"""``raidsweep capture`` and ``characterize`` refuse bad input (exit 2, the place and the
problem, nothing written), and a recorded capture becomes class files the loader takes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from recommender.classes import load_class
from tests.support.cli import cli
from tests.support.paths import FIXTURES

CAPTURE = FIXTURES / "capture" / "mixed.jsonl"


def _refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    text = " ".join(result.stderr.split())
    for word in words:
        assert word in text, text
    assert "Traceback" not in result.stderr


def test_capture_refuses_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    result = cli(
        "capture",
        "-d",
        "nosuchdisk0",
        "-d",
        str(tmp_path),
        "-o",
        tmp_path / "no" / "c.jsonl",
        "--duration",
        "ten",
        "--interval",
        "0.01s",
    )
    _refused(
        result,
        "--device: 'nosuchdisk0' is not a block device",
        f"--device: '{tmp_path}' is not a block device",
        "--duration: 'ten' is not a duration",
        "--interval: '0.01s' is not between 0.1 s and 60 s",
        "--output: the folder",
        "does not exist",
    )
    _refused(
        cli("capture", "-d", "nosuchdisk0", "-o", out, "--duration", "1s"),
        "--duration: '1s' is shorter than 2 s",
    )
    assert list(tmp_path.iterdir()) == []
    out.write_text("mine")
    _refused(cli("capture", "-d", "nosuchdisk0", "-o", out), "--output", "exists")
    assert out.read_text() == "mine"


def test_characterize_writes_classes_the_loader_takes(tmp_path: Path) -> None:
    folder = tmp_path / "classes"
    result = cli("characterize", CAPTURE, "-o", folder, "--min-phase", "8s", "--name", "prod")
    assert result.returncode == 0, result.stderr
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["prod_phase1.yaml", "prod_phase2.yaml"]
    first = load_class(files[0])
    assert first.name == "prod_phase1" and len(first.cells) == 2
    text = files[0].read_text()
    assert text.startswith("# Workload class characterised from the capture mixed.jsonl")
    for cell in first.cell_keys:
        assert cell in text.split("\nname:")[0] and cell in result.stdout
    # again into the same folder: refused, the files untouched
    again = cli("characterize", CAPTURE, "-o", folder, "--min-phase", "8s", "--name", "prod")
    _refused(again, "--output", "prod_phase1.yaml exists")
    assert files[0].read_text() == text


def test_characterize_refuses_bad_input(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    _refused(cli("characterize", tmp_path / "none.jsonl", "-o", folder), "file not found")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n{}\n")
    _refused(cli("characterize", bad, "-o", folder), "line 1: not JSON")
    result = cli(
        "characterize",
        CAPTURE,
        "-o",
        folder,
        "--min-share",
        "70%",
        "--headroom",
        "lots",
        "--min-phase",
        "x",
        "--name",
        "a b",
    )
    _refused(
        result,
        "--min-share: '70%' is not a percentage",
        "--headroom: 'lots'",
        "--min-phase: ",
        "--name: 'a b' is not a class name",
    )
    _refused(cli("characterize", CAPTURE, "-o", folder, "-d", "sdz"), "--device", "'sdz'")
    assert not folder.exists()


def test_characterize_says_what_the_capture_noted(tmp_path: Path) -> None:
    """The end record's notes (a device that went away) reach the reader, as text: a note
    that looks like console markup prints as written."""
    import json

    lines = CAPTURE.read_text().splitlines()
    end = json.loads(lines[-1])
    assert "end" in end
    end["end"]["notes"] = ["device sdz went away after 12 s [bold]x[/bold]"]
    noted = tmp_path / "noted.jsonl"
    noted.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    result = cli("characterize", noted, "-o", tmp_path / "c", "--min-phase", "8s")
    assert result.returncode == 0, result.stderr
    flat = " ".join(result.stdout.split())
    assert "the capture noted: device sdz went away after 12 s [bold]x[/bold]" in flat


def test_capture_refuses_a_duration_shorter_than_its_interval(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    _refused(
        cli("capture", "-d", "nosuchdisk0", "-o", out, "--duration", "2s", "--interval", "60s"),
        "--duration: 2s is shorter than --interval 60s",
    )
    assert not out.exists()


def test_a_device_named_twice_is_counted_once(tmp_path: Path) -> None:
    once = cli("characterize", CAPTURE, "-o", tmp_path / "a", "--min-phase", "8s", "-d", "loop0")
    twice = cli(
        "characterize",
        CAPTURE,
        "-o",
        tmp_path / "b",
        "--min-phase",
        "8s",
        "-d",
        "loop0",
        "-d",
        "loop0",
    )
    assert once.returncode == 0 and twice.returncode == 0, once.stderr + twice.stderr
    texts = [sorted(p.read_text() for p in (tmp_path / f).iterdir()) for f in "ab"]
    assert texts[0] == texts[1]


def test_no_share_floor_keeps_every_cell_with_a_weight(tmp_path: Path) -> None:
    """``--min-share 0``: every cell kept, the smallest with a weight above zero (a weight
    that rounded to 0.0 was refused by the class's own check: a traceback)."""
    folder = tmp_path / "all"
    result = cli("characterize", CAPTURE, "-o", folder, "--min-phase", "8s", "--min-share", "0")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    for path in folder.iterdir():
        weights = [c.weight for c in load_class(path).cells]
        assert all(w > 0 for w in weights)
