"""A spec's reference to another sweep by its name (a baseline, a warm start)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from sweeper.vocabulary import NAME_RE


def _sweep_name(v: str) -> str:
    if not NAME_RE.fullmatch(v):
        raise ValueError(f"{v!r} is not a sweep name (letters, digits, '.', '_', '-')")
    return v


#: the name of another sweep in a store
SweepName = Annotated[str, AfterValidator(_sweep_name)]
