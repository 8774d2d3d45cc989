"""The labels every surface spells alike: a rank with its tie, a concurrency."""

from __future__ import annotations

import re
from typing import Any


def rank_label(rank: int, tied: bool) -> str:
    return f"={int(rank)}" if tied else str(int(rank))


def concurrency_label(iodepth: Any, numjobs: Any) -> str:
    return f"qd{int(iodepth)}x{int(numjobs)}"


def concurrency_key(label: str) -> list[int]:
    return [int(x) for x in label[2:].split("x")] if re.fullmatch(r"qd\d+x\d+", label) else [0]
