"""``study.warm_start``: a previous sweep as prior knowledge for an optimize-mode sweep.

The previous sweep (another array of the same family, or the simulated rehearsal of this one)
is read from its own store; its best configurations per class of this sweep's classes are
measured first (``sweeper/sweep/warm.py``), so the search starts where the other one ended.
"""

from __future__ import annotations

from pydantic import Field

from sweeper.models import StrictModel
from sweeper.spec.names import SweepName


class WarmStart(StrictModel):
    #: the store that holds the previous sweep (a folder; relative to the spec's folder)
    store: str = Field(min_length=1, max_length=4096)
    sweep: SweepName
    #: how many of its best configurations per class are measured first
    top: int = Field(default=1, ge=1, le=10)
