"""What the command line prints from the user's own text (a target path, a spec's or a
report's file name) is that text, never Rich markup: a path with ``[x]`` in it is printed
with it, and ``[link=…]`` makes no terminal link (OSC 8) nor ``[blink red]`` a colour."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sweeper.cli import app
from tests.support.specs import local_spec, tiny_sim_spec

MARKUP = "[x][link=https:evil.example][blink red]"


def _run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_the_check_plan_names_the_target_as_it_is(tmp_path: Path) -> None:
    folder = tmp_path / f"in {MARKUP}"
    folder.mkdir()
    target = folder / f"{MARKUP}scratch.img"
    spec = local_spec(
        folder,
        "markup",
        {"target": str(target), "file_size": "16m"},
        {"patterns": ["randread"], "block_sizes": ["4k"], "concurrency": ["1x1"]},
    )
    code, out = _run("run", spec, "--check", "--store", tmp_path / "store")
    assert code == 0, out
    flat = " ".join(out.split())
    # the plan says which file it creates and destroys: that one, whole
    assert f"creates {target}" in flat and f"writes to {target}" in flat, out
    assert "\x1b]8;" not in out and "\x1b[5" not in out
    assert not target.exists() and not (tmp_path / "store").exists()  # --check changes nothing


def test_a_report_written_under_a_name_with_brackets_is_named_so(tmp_path: Path) -> None:
    spec = tiny_sim_spec(tmp_path, "tiny")
    code, out = _run("run", spec, "--store", tmp_path / "store")
    assert code == 0, out
    html = tmp_path / "r[red]x.html"
    code, out = _run("report", "tiny", "--store", tmp_path / "store", "--output", html)
    assert code == 0, out
    assert f"report written: {html}" in " ".join(out.split()), out
    assert html.exists() and f"{tmp_path / 'r[red]x-rankings.csv'}" in " ".join(out.split())
