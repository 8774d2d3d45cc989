"""The vocabulary is spelled once: every layer takes its values, columns and name patterns
from sweeper.vocabulary, and every model read from a user's file is a StrictModel."""

from __future__ import annotations

import ast
import dataclasses
import re

import pyarrow as pa
import pytest

from recommender.classes import ClassCell, Limit, WorkloadClass
from sweeper import spec, vocabulary
from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.models import StrictModel
from sweeper.platforms import PLATFORMS
from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA
from sweeper.vocabulary import (
    CACHE_POLICIES,
    CONFIGURATION_COLUMN_TYPES,
    CONFIGURATION_COLUMNS,
    LAYOUTS,
    MULTI_RANK_COLUMNS,
    MULTI_RANK_LAYOUTS,
    OPTIONAL_COLUMNS,
    RAID_LEVELS,
)
from tests.support.paths import ROOT

PATTERNS = {name: value for name, value in vars(vocabulary).items() if name.endswith("_RE")}
ARROW = {str: pa.string(), int: pa.int32(), bool: pa.bool_()}


def test_the_spec_takes_its_values_from_the_vocabulary() -> None:
    assert spec.RAID_LEVELS is RAID_LEVELS
    assert spec.LAYOUTS is LAYOUTS
    assert spec.CACHE_POLICIES is CACHE_POLICIES
    assert spec.MULTI_RANK_LAYOUTS is MULTI_RANK_LAYOUTS
    assert set(MULTI_RANK_LAYOUTS) < set(LAYOUTS)


def test_the_columns_are_the_config_space_and_the_configuration() -> None:
    assert tuple(spec.ConfigSpace.model_fields) == CONFIGURATION_COLUMNS
    # besides the columns, the dimensions a platform declares (in the key, not in columns)
    fields = {f.name for f in dataclasses.fields(Configuration)}
    assert fields == {*CONFIGURATION_COLUMNS, "dimensions"}
    assert set(MULTI_RANK_COLUMNS) | set(OPTIONAL_COLUMNS) < set(CONFIGURATION_COLUMNS)


@pytest.mark.parametrize("schema", [RUN_SCHEMA, CONFIG_SCHEMA], ids=["runs", "configurations"])
def test_the_store_keeps_the_columns_in_order(schema: pa.Schema) -> None:
    first = schema.names.index(CONFIGURATION_COLUMNS[0])
    kept = schema.names[first : first + len(CONFIGURATION_COLUMNS)]
    assert tuple(kept) == CONFIGURATION_COLUMNS
    for name, kind in CONFIGURATION_COLUMN_TYPES.items():
        assert schema.field(name).type == ARROW[kind]


def test_no_other_module_lists_the_columns() -> None:
    """A tuple, list or set of three or more column names is a second spelling."""
    spelled = set()
    for package in ("sweeper", "recommender", "app_pages"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "vocabulary.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Tuple | ast.List | ast.Set):
                    names = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                    if len(names & set(CONFIGURATION_COLUMNS)) >= 3:
                        spelled.add(str(path.relative_to(ROOT)))
    assert not spelled, sorted(spelled)


def test_platforms_support_only_vocabulary_values() -> None:
    vocab = {"raid_level": RAID_LEVELS, "layout": LAYOUTS, "cache_policy": CACHE_POLICIES}
    for platform in PLATFORMS.values():
        for dim, values in platform.supported.items():
            assert dim in CONFIGURATION_COLUMNS
            assert set(values) <= set(vocab.get(dim, (False, True))), (platform.name, dim)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_name_patterns_are_matched_whole(name: str) -> None:
    """No anchors in the patterns: every use is a fullmatch, which a trailing newline fails
    (``$`` would let it through)."""
    pattern: re.Pattern[str] = PATTERNS[name]
    assert not pattern.pattern.startswith("^") and not pattern.pattern.endswith("$")


@pytest.mark.parametrize(
    ("name", "good"),
    [
        ("NAME_RE", "quick"),
        ("CONFIGURATION_KEY_RE", "raid10/pool_stripe/ranks4/stripe1g/wb-ra/snap/dr"),
        ("RUN_ID_RE", "0123456789abcdef01234567"),
        ("INVENTORY_GROUP_RE", "storage"),
        ("INVENTORY_HOST_RE", "fe80::1"),
        ("STABLE_DEVICE_RE", "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"),
        ("LIMIT_METRIC_RE", "write_lat_p99"),
    ],
)
def test_a_name_with_a_trailing_newline_is_refused(name: str, good: str) -> None:
    assert PATTERNS[name].fullmatch(good)
    assert not PATTERNS[name].fullmatch(good + "\n")


def test_the_playbooks_keep_the_same_stable_id_pattern() -> None:
    """The Ansible modules run on the storage host without raidsweep: they keep a copy."""
    copies = [
        node.args[0].value
        for path in (ROOT / "playbooks").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compile"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and str(node.args[0].value).startswith("/dev/disk/by-id/")
    ]
    assert copies
    assert set(copies) == {vocabulary.STABLE_DEVICE_RE.pattern}


def test_every_configuration_key_reads_back() -> None:
    space = spec.ConfigSpace(
        raid_level=list(RAID_LEVELS),
        layout=list(LAYOUTS),
        ranks=[2, 8],
        stripe_kib=[16, 1024, 1024**2],
        cache_policy=list(CACHE_POLICIES),
        snapshots=[False, True],
        data_reduction=[False, True],
    )
    for config in enumerate_configurations(space):
        assert vocabulary.CONFIGURATION_KEY_RE.fullmatch(config.key)
        assert Configuration.from_key(config.key) == config


def test_every_user_model_is_strict() -> None:
    models = [
        spec.SweepSpec,
        spec.ConfigSpace,
        spec.Matrix,
        spec.StudySettings,
        spec.Hardware,
        spec.Prices,
        WorkloadClass,
        ClassCell,
        Limit,
        *(p.options_model for p in PLATFORMS.values() if p.options_model is not None),
    ]
    for model in models:
        assert issubclass(model, StrictModel), model
        # the config space takes further keys: the dimensions a platform declares, refused
        # with place and problem by the platform's checks unless it declares them
        allowed = {"extra": "allow"} if model is spec.ConfigSpace else {}
        assert model.model_config == StrictModel.model_config | allowed, model
