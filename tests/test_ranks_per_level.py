"""Ranks per RAID level (``ranks: {raid10: [2], raid5: [4]}``): enumeration, size, membership,
the Optuna study's parameters, and specs without the form left exactly as they were."""

from __future__ import annotations

import copy
from typing import Any

import optuna

from sweeper.configuration import enumerate_configurations
from sweeper.spec.models import SweepSpec
from sweeper.study import enqueue, suggest_configuration

SPEC: dict[str, Any] = {
    "name": "pinned",
    "platform": "sim",
    "platform_options": {"profile": "ds8800-like"},
    "config_space": {
        "raid_level": ["raid5", "raid6", "raid10"],
        "layout": ["single_rank", "host_stripe", "pool_stripe"],
        "ranks": [4],
        "stripe_kib": {"host_stripe": [16], "pool_stripe": [1048576]},
        "cache_policy": ["wb-ra"],
    },
    "matrix": {
        "patterns": ["randread", "randwrite"],
        "block_sizes": ["8k"],
        "concurrency": ["1x20"],
        "engine": "sync",
        "runtime": "300s",
        "ramp": "6s",
        "repetitions": 3,
        "working_set": "360g",
    },
    "classes": ["redo_log", "data_file"],
    "study": {"mode": "grid", "seed": 2010},
}


def spec_with(ranks: Any) -> SweepSpec:
    data = copy.deepcopy(SPEC)
    data["config_space"]["ranks"] = ranks
    return SweepSpec.model_validate(data)


def asked_params(spec: SweepSpec) -> dict[str, dict[str, Any]]:
    """Every configuration of the grid, enqueued and asked back: its trial's parameters."""
    space = spec.config_space
    configs = enumerate_configurations(space)
    study = optuna.create_study(directions=["maximize"] * len(spec.classes))
    enqueue(study, configs, space)
    out = {}
    for _ in configs:
        trial = study.ask()
        key = suggest_configuration(trial, space).key
        out[key] = dict(trial.params)
        study.tell(trial, [1.0] * len(spec.classes))
    return out


def _multi(params: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The parameters beyond level, layout and cache policy, by configuration key."""
    common = {"raid_level", "layout", "cache_policy"}
    return {k: sorted(set(p) - common) for k, p in params.items()}


# Fingerprints, keys and Optuna parameter names of these two spaces as they were before ranks
# could be given per RAID level: stored sweeps and studies of such specs must keep them.
PINNED_ONE_LIST = "d0a985cc401a0d25"
PINNED_PER_LAYOUT = "39023c99caf2c10e"
LEVELS = ("raid5", "raid6", "raid10")


def test_a_spec_without_ranks_per_level_keeps_its_fingerprint_keys_and_parameters() -> None:
    spec = spec_with([4])
    assert spec.fingerprint() == PINNED_ONE_LIST
    params = asked_params(spec)
    expected: dict[str, list[str]] = {}
    for level in LEVELS:
        expected[f"{level}/single_rank/wb-ra"] = []
        expected[f"{level}/host_stripe/ranks4/stripe16k/wb-ra"] = [
            "ranks",
            "stripe_kib_host_stripe",
        ]
        expected[f"{level}/pool_stripe/ranks4/stripe1g/wb-ra"] = [
            "ranks",
            "stripe_kib_pool_stripe",
        ]
    assert list(params) == list(expected)  # the grid's order too
    assert _multi(params) == expected
    assert params["raid10/host_stripe/ranks4/stripe16k/wb-ra"]["ranks"] == 4


def test_a_spec_with_ranks_per_layout_keeps_its_fingerprint_keys_and_parameters() -> None:
    spec = spec_with({"host_stripe": [2, 4], "pool_stripe": [4, 8]})
    assert spec.fingerprint() == PINNED_PER_LAYOUT
    params = asked_params(spec)
    expected: dict[str, list[str]] = {}
    for level in LEVELS:
        expected[f"{level}/single_rank/wb-ra"] = []
        for n in (2, 4):
            expected[f"{level}/host_stripe/ranks{n}/stripe16k/wb-ra"] = [
                "ranks_host_stripe",
                "stripe_kib_host_stripe",
            ]
        for n in (4, 8):
            expected[f"{level}/pool_stripe/ranks{n}/stripe1g/wb-ra"] = [
                "ranks_pool_stripe",
                "stripe_kib_pool_stripe",
            ]
    assert list(params) == list(expected)
    assert _multi(params) == expected
