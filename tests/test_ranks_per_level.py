"""Ranks per RAID level (``ranks: {raid10: [2], raid5: [4]}``): enumeration, size, membership,
the Optuna study's parameters, and specs without the form left exactly as they were."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import optuna
from typer.testing import CliRunner

from sweeper.cli import app
from sweeper.configuration import (
    Configuration,
    enumerate_configurations,
    in_space,
    space_size,
)
from sweeper.spec.models import SweepSpec
from sweeper.study import enqueue, open_sweep_study, suggest_configuration
from tests.support.paths import ROOT

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


STUDY_RANKS = {"raid5": [4], "raid6": [4], "raid10": [2]}


def test_ranks_per_level_give_each_level_its_own_rank_count() -> None:
    """The reference study as it was built: RAID 10 on two ranks, RAID 5 and 6 on four."""
    space = spec_with(STUDY_RANKS).config_space
    keys = [c.key for c in enumerate_configurations(space)]
    assert len(keys) == space_size(space) == 9
    assert "raid10/host_stripe/ranks2/stripe16k/wb-ra" in keys
    assert "raid10/pool_stripe/ranks2/stripe1g/wb-ra" in keys
    assert "raid5/pool_stripe/ranks4/stripe1g/wb-ra" in keys
    assert not any(k.startswith("raid10/") and "ranks4" in k for k in keys)
    assert in_space(Configuration.from_key("raid10/host_stripe/ranks2/stripe16k/wb-ra"), space)
    assert not in_space(Configuration.from_key("raid10/host_stripe/ranks4/stripe16k/wb-ra"), space)
    assert not in_space(Configuration.from_key("raid6/pool_stripe/ranks2/stripe1g/wb-ra"), space)


def test_per_level_and_per_layout_nest() -> None:
    ranks = {"raid10": {"host_stripe": [2], "pool_stripe": [2, 4]}, "raid5": [4, 8], "raid6": [4]}
    space = spec_with(ranks).config_space
    configs = enumerate_configurations(space)
    keys = {c.key for c in configs}
    assert len(configs) == len(keys) == space_size(space) == 3 + 3 + 4 + 2
    assert "raid10/pool_stripe/ranks4/stripe1g/wb-ra" in keys
    assert "raid10/host_stripe/ranks4/stripe16k/wb-ra" not in keys
    assert "raid5/host_stripe/ranks8/stripe16k/wb-ra" in keys
    assert all(in_space(c, space) for c in configs)
    # a bigger space, by multiplication as by enumeration
    wide = space.model_copy(update={"cache_policy": ["wb-ra", "wt-ra"], "snapshots": [False, True]})
    assert space_size(wide) == len(enumerate_configurations(wide)) == 4 * len(configs)


def test_each_level_has_its_own_optuna_parameter() -> None:
    params = asked_params(spec_with(STUDY_RANKS))
    assert params["raid10/host_stripe/ranks2/stripe16k/wb-ra"]["ranks_raid10"] == 2
    assert params["raid5/pool_stripe/ranks4/stripe1g/wb-ra"]["ranks_raid5"] == 4
    assert _multi(params)["raid6/host_stripe/ranks4/stripe16k/wb-ra"] == [
        "ranks_raid6",
        "stripe_kib_host_stripe",
    ]
    assert _multi(params)["raid10/single_rank/wb-ra"] == []
    nested = asked_params(
        spec_with({"raid10": {"host_stripe": [2], "pool_stripe": [2]}, "raid5": [4], "raid6": [4]})
    )
    assert nested["raid10/pool_stripe/ranks2/stripe1g/wb-ra"]["ranks_raid10_pool_stripe"] == 2
    assert "ranks_raid5" in nested["raid5/pool_stripe/ranks4/stripe1g/wb-ra"]


def test_a_trials_parameters_read_back_as_its_configuration() -> None:
    for params, key in [
        (
            {"ranks_raid10": 2, "stripe_kib_host_stripe": 16},
            "raid10/host_stripe/ranks2/stripe16k/wb-ra",
        ),
        (
            {"ranks_raid10_pool_stripe": 2, "stripe_kib": 1024},
            "raid10/pool_stripe/ranks2/stripe1m/wb-ra",
        ),
    ]:
        level, layout = key.split("/")[:2]
        base = {"raid_level": level, "layout": layout, "cache_policy": "wb-ra"}
        assert Configuration.from_params(base | params).key == key


def test_the_tpe_search_asks_each_level_only_for_its_own_ranks(tmp_path: Path) -> None:
    """Optimize mode: conditional parameters, every suggestion a configuration of the space,
    and an enqueued build (level, layout, ranks) keeps its level's rank count."""
    ranks = {"raid10": [2], "raid5": [4, 8], "raid6": [4]}
    data = copy.deepcopy(SPEC) | {"study": {"mode": "optimize", "seed": 7, "budget": 30}}
    data["config_space"]["ranks"] = ranks
    data["config_space"]["cache_policy"] = ["wb-ra", "wt-ra"]
    spec = SweepSpec.model_validate(data)
    space = spec.config_space
    study = open_sweep_study(spec, tmp_path)
    raid10 = Configuration.from_key("raid10/pool_stripe/ranks2/stripe1g/wb-ra")
    study.enqueue_build(raid10, space)
    seen = set()
    for i in range(30):
        trial = study.ask()
        config = suggest_configuration(trial, space)
        assert in_space(config, space), config.key
        if i == 0:
            assert (config.raid_level, config.layout, config.ranks) == ("raid10", "pool_stripe", 2)
        names = {n for n in trial.params if n.startswith("ranks")}
        assert names == ({f"ranks_{config.raid_level}"} if config.ranks else set())
        seen.add(config.key)
        study.tell(trial, [float(config.ranks or 1), float(len(config.key))])
    assert any("/ranks8/" in k for k in seen)  # a level with a choice gets it searched


def test_the_new_form_is_a_different_study_and_the_key_order_does_not_matter() -> None:
    a = spec_with(STUDY_RANKS).fingerprint()
    b = spec_with(dict(reversed(STUDY_RANKS.items()))).fingerprint()
    assert a == b != PINNED_ONE_LIST


def test_the_reference_study_example_is_built_as_the_study_was(tmp_path: Path) -> None:
    """``run --check`` lists its nine configurations in build order: RAID 10's stripes on
    two ranks, RAID 5's and 6's on four."""
    study = ROOT / "examples" / "ds8800-study.yaml"
    result = CliRunner().invoke(
        app, ["run", str(study), "--check", "--store", str(tmp_path / "s")], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "9 configuration(s)" in result.output
    keys = [line.strip() for line in result.output.splitlines() if line.startswith("  raid")]
    multi = {tuple(k.split("/")[:3]) for k in keys if "/ranks" in k}
    assert multi == {
        (level, layout, "ranks2" if level == "raid10" else "ranks4")
        for level in LEVELS
        for layout in ("host_stripe", "pool_stripe")
    }
    # one RAID build's layouts together, as the grid builds them
    levels = [k.split("/")[0] for k in keys]
    assert len(keys) == 9 and all(levels[i] == levels[i - i % 3] for i in range(9))
    assert not (tmp_path / "s").exists()
