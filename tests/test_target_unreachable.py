"""A target path that cannot be looked at — through a file, a loop of links, a name too long
— is a problem named in words wherever a target is checked (a spec's target, the operator's
answer at the prompt, ``raidsweep ready``, the Operator page), never an exception: once the
waiting manual sweep died of NotADirectoryError when the operator typed such a path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from sweeper.platforms.manual import ManualOptions, answer_problems
from sweeper.target import target_problems
from tests.support.paths import RAIDSWEEP


def _paths(tmp_path: Path) -> dict[str, tuple[str, str]]:
    loop = tmp_path / "loopy"
    loop.symlink_to(loop)
    plain = tmp_path / "plain"
    plain.write_text("x")
    return {
        "through a file": (str(plain / "x"), "Not a directory"),
        "a loop of links": (str(loop), "Too many levels of symbolic links"),
        "a name too long": ("/dev/disk/by-id/" + "a" * 5000, "File name too long"),
    }


@pytest.mark.parametrize("case", ["through a file", "a loop of links", "a name too long"])
def test_the_operator_s_answer_names_the_problem(tmp_path: Path, case: str) -> None:
    path, reason = _paths(tmp_path)[case]
    problems = answer_problems(path, ManualOptions(), None)
    assert problems and any("cannot be looked at" in p and reason in p for p in problems), problems


@pytest.mark.parametrize("case", ["through a file", "a loop of links", "a name too long"])
def test_a_spec_s_target_names_the_problem(tmp_path: Path, case: str) -> None:
    path, reason = _paths(tmp_path)[case]
    said = [m for _, m in target_problems(path, allow=[], file_size=16 << 20)]
    assert any("cannot be looked at" in m and reason in m for m in said), said


def test_run_check_of_such_a_target_exits_2(tmp_path: Path) -> None:
    path, reason = _paths(tmp_path)["through a file"]
    spec = {
        "name": "unreachable",
        "platform": "local",
        "inventory": str(Path(__file__).parents[1] / "inventories" / "local" / "hosts.yml"),
        "platform_options": {"target": path, "file_size": "16m"},
        "config_space": {"raid_level": ["raid10"], "layout": ["single_rank"]},
        "matrix": {
            "patterns": ["randread"],
            "block_sizes": ["8k"],
            "concurrency": ["1x16"],
            "engine": "psync",
            "runtime": "1s",
            "ramp": "0s",
            "repetitions": 1,
            "working_set": "16m",
        },
        "classes": ["data_file"],
    }
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    done = subprocess.run(
        [str(RAIDSWEEP), "run", str(tmp_path / "spec.yaml"), "--store", str(tmp_path / "st")],
        env=dict(os.environ, RAIDSWEEP_LOCK_DIR=str(tmp_path / "locks"), COLUMNS="300"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot be looked at" in done.stderr and reason in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "st").exists()
