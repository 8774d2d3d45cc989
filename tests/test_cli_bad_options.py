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
