"""A report's set of files as the tests of its writing (``recommender.report_files``) write it:
the six names of report ``r``, and the files a writer has left aside in the folder."""

from __future__ import annotations

import os
from pathlib import Path

#: the files of one report ``r``: the page, the Markdown, the four tables
NAMES = [
    "r.html",
    "r.md",
    "r-rankings.csv",
    "r-evidence.csv",
    "r-features.csv",
    "r-decisions.csv",
]


def set_aside(folder: Path) -> list[str]:
    """What writers of ``folder``'s reports have put aside there (journals, files not yet in
    place, files replaced), by name."""
    return sorted(n for n in os.listdir(folder) if n.startswith(".report-"))
