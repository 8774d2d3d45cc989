"""``raidsweep --version`` prints the installed package's version and exits 0."""

from __future__ import annotations

from importlib.metadata import version

from typer.testing import CliRunner

from sweeper.cli import app


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"raidsweep {version('raidsweep')}\n"


def test_the_summary_is_the_apps() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "Commission a storage array" in result.output
    assert "--version" in result.output
