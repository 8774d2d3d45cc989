"""An empty --store, --store-b or RAIDSWEEP_STORE is refused, never taken for this folder or the default store."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import RAIDSWEEP


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["status", "--store", ""], {}),
        (["status"], {"RAIDSWEEP_STORE": ""}),
        (["compare", "a", "b", "--store-b", ""], {}),
    ],
    ids=["--store", "RAIDSWEEP_STORE", "--store-b"],
)
def test_an_empty_store_is_refused(tmp_path: Path, args: list[str], env: dict[str, str]) -> None:
    """An empty --store would be this folder, an empty RAIDSWEEP_STORE the default store:
    refused with exit 2 naming the option, nothing read or made."""
    result = subprocess.run(
        [str(RAIDSWEEP), *args],
        cwd=tmp_path,
        env=os.environ | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    out = " ".join(result.stderr.replace("│", " ").split())
    assert result.returncode == 2, out
    assert "is empty" in out and "Traceback" not in out
    assert list(tmp_path.iterdir()) == []
