"""The strict base of every model read from a user's file (spec, workload class, platform
options)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """Unknown keys refused, values frozen once validated.

    Strict: no booleans or strings taken as numbers (``repetitions: true`` is not 1, and
    ``weight: true`` is no weight); no infinity or NaN in any number (an infinite weight or
    runtime ranks nothing, a NaN makes every score NaN).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
