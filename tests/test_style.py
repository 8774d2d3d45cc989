"""The formatter lays out every Python file of the project: no file opts out of it."""

from __future__ import annotations

import re

from tests.support.paths import ROOT

FOLDERS = ("sweeper", "recommender", "app_pages", "tests", "benchmarks", "playbooks", "examples")
OPT_OUT = re.compile(r"#\s*fmt:\s*(skip|off)\b")


def test_no_file_opts_out_of_the_formatter() -> None:
    files = [ROOT / "app.py", *(p for f in FOLDERS for p in sorted((ROOT / f).rglob("*.py")))]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if OPT_OUT.search(line) and path != ROOT / "tests" / "test_style.py"
    ]
    assert len(files) > 300 and not found, found
