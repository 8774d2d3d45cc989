"""The mapping between a configuration and a trial's parameters, both ways."""

from __future__ import annotations

from typing import Any

import optuna

from sweeper.configuration import Configuration
from sweeper.spec import ConfigSpace
from sweeper.vocabulary import MULTI_RANK_COLUMNS, MULTI_RANK_LAYOUTS


def suggest_configuration(trial: optuna.Trial, space: ConfigSpace) -> Configuration:
    """Define-by-run: ``ranks`` and ``stripe_kib`` exist only for multi-rank layouts (and
    ranks given per RAID level only for their level); the declared dimensions the space lists
    are parameters of their own names."""
    raid = trial.suggest_categorical("raid_level", list(space.raid_level))
    layout = trial.suggest_categorical("layout", list(space.layout))
    ranks = stripe = None
    if layout in MULTI_RANK_LAYOUTS:
        # Per-layout and per-level value lists get their own parameter names: one Optuna
        # parameter keeps one set of choices.
        ranks = trial.suggest_categorical(
            space.parameter("ranks", raid, layout), space.values("ranks", layout, raid)
        )
        stripe = trial.suggest_categorical(
            space.parameter("stripe_kib", raid, layout), space.values("stripe_kib", layout)
        )
    cache = trial.suggest_categorical("cache_policy", list(space.cache_policy))
    snap = dr = False
    if _optional_dimension(space, "snapshots"):
        snap = trial.suggest_categorical("snapshots", list(space.snapshots))
    if _optional_dimension(space, "data_reduction"):
        dr = trial.suggest_categorical("data_reduction", list(space.data_reduction))
    # the dimensions the platform declares, each an Optuna parameter of its own name
    declared = {n: trial.suggest_categorical(n, values) for n, values in space.dimensions.items()}
    return Configuration(raid, layout, cache, ranks, stripe, snap, dr, declared)


def _optional_dimension(space: ConfigSpace, dim: str) -> bool:
    """Whether the study asks for an on/off dimension (it does unless the space has it off)."""
    values = getattr(space, dim)
    return len(values) > 1 or bool(values[0])


def build_params(config: Configuration, space: ConfigSpace) -> dict[str, Any]:
    """The parameters of ``config``'s RAID build (level, layout, rank count): fixed in a trial,
    the sampler chooses only what changes without a format (stripe, cache, features)."""
    params: dict[str, Any] = {"raid_level": config.raid_level, "layout": config.layout}
    if config.layout in MULTI_RANK_LAYOUTS:
        params[space.parameter("ranks", config.raid_level, config.layout)] = config.ranks
    return params


def trial_params(config: Configuration, space: ConfigSpace) -> dict[str, Any]:
    """The configuration as the trial parameters ``suggest_configuration`` asks for."""
    params = config.params()
    for dim in ("snapshots", "data_reduction"):
        # params() leaves an off feature out; the study asks for it, so it must be fixed too,
        # or the sampler would choose it for the enqueued trial.
        if _optional_dimension(space, dim):
            params[dim] = getattr(config, dim)
    if config.layout in MULTI_RANK_LAYOUTS:
        for dim in MULTI_RANK_COLUMNS:
            params[space.parameter(dim, config.raid_level, config.layout)] = params.pop(dim)
    return params
