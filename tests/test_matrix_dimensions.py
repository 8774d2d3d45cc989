"""The matrix's workload dimensions beyond pattern × block size × concurrency: sync writes,
skewed random access and data profiles; their cell keys, and their validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from recommender.classes import load_class
from sweeper.errors import SpecError
from sweeper.spec import Matrix, load_spec
from sweeper.workload import DataProfile, Distribution, WorkloadCell
from tests.support.cli import cli
from tests.support.specs import problems_of, quick_base, quick_spec, write_spec


def matrix(**fields: Any) -> dict[str, Any]:
    return {
        "patterns": ["write", "read", "randread", "randwrite"],
        "block_sizes": ["4k"],
        "concurrency": ["1x1"],
        "engine": "psync",
        "runtime": "10s",
        "ramp": "0s",
    } | fields


def loaded(tmp_path: Path, **fields: Any) -> list[str]:
    return [c.key for c in Matrix.model_validate(matrix(**fields)).cells()]


def refused(tmp_path: Path, **fields: Any) -> list[str]:
    spec = quick_base()
    spec["matrix"] = matrix(**fields)
    return problems_of(write_spec(tmp_path, spec, "bad"))


@pytest.mark.parametrize(
    "key",
    [
        "write/4k/qd1x1/fdatasync",
        "randwrite/8k/qd1x16/ws10/dsync",
        "randread/8k/qd1x16/zipf1.2",
        "randrw70/8k/qd1x16/pareto0.9",
        "randread/4k/qd4x4/normal20",
        "randwrite/8k/qd1x16/fsync/zipf0.8/cmp50dd20",
        "write/64k/qd1x1/cmp0dd0",
    ],
)
def test_cell_keys_round_trip(key: str) -> None:
    assert WorkloadCell.parse(key).key == key


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("read/4k/qd1x1/fdatasync", "does not write"),
        ("write/4k/qd1x1/zipf1.2", "is sequential"),
        ("randread/4k/qd1x1/cmp50dd0", "does not write"),
        ("randwrite/4k/qd1x1/zipf1.2/fdatasync", "out of order"),
        ("randwrite/4k/qd1x1/fsync/fsync", "out of order or repeated"),
        ("randread/4k/qd1x1/zipf1", "not 1"),
        ("randread/4k/qd1x1/pareto1.5", "between 0 and 1"),
        ("randread/4k/qd1x1/normal100", "between 0 and 100"),
        ("randwrite/4k/qd1x1/cmp101dd0", "0-100"),
        ("randwrite/4k/qd1x1/osync", "is not an active range"),
    ],
)
def test_bad_cell_keys_are_refused(key: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        WorkloadCell.parse(key)


def test_existing_cells_keep_their_keys() -> None:
    for key in ("randwrite/8k/qd1x20", "randread/8k/qd1x16/ws10", "randrw70/4k/qd2x1"):
        cell = WorkloadCell.parse(key)
        assert cell.key == key and cell.sync is None and cell.distribution is None
        assert cell.data is None


#: what the matrix adds to ``matrix()`` and the cell keys it loads into, a row a dimension
DIMENSION_CELLS = [
    pytest.param(
        {"sync": ["none", "fdatasync", "dsync"]},
        [
            "write/4k/qd1x1",
            "write/4k/qd1x1/fdatasync",
            "write/4k/qd1x1/dsync",
            "read/4k/qd1x1",
            "randread/4k/qd1x1",
            "randwrite/4k/qd1x1",
            "randwrite/4k/qd1x1/fdatasync",
            "randwrite/4k/qd1x1/dsync",
        ],
        id="sync multiplies the writing cells only",
    ),
    pytest.param(
        {"random_distribution": ["uniform", "zipf:1.2", "normal:20"]},
        [
            "write/4k/qd1x1",
            "read/4k/qd1x1",
            "randread/4k/qd1x1",
            "randread/4k/qd1x1/zipf1.2",
            "randread/4k/qd1x1/normal20",
            "randwrite/4k/qd1x1",
            "randwrite/4k/qd1x1/zipf1.2",
            "randwrite/4k/qd1x1/normal20",
        ],
        id="distribution multiplies the random cells only",
    ),
    pytest.param(
        {
            "patterns": ["write", "randread"],
            "data_profile": [{"compress_pct": 50, "dedupe_pct": 20}, {"compress_pct": 0}],
        },
        ["write/4k/qd1x1/cmp50dd20", "write/4k/qd1x1/cmp0dd0", "randread/4k/qd1x1"],
        id="data profiles multiply the writing cells",
    ),
    pytest.param(
        {
            "patterns": ["read"],
            "sync": ["dsync"],
            "extra_cells": ["write/16k/qd1x1/fdatasync", "write/8k/qd1x1"],
        },
        ["read/4k/qd1x1", "write/16k/qd1x1/fdatasync", "write/8k/qd1x1/dsync"],
        id="extra cells keep what they name",
    ),
]


@pytest.mark.parametrize(("fields", "expected"), DIMENSION_CELLS)
def test_a_dimension_multiplies_the_cells_it_applies_to(
    tmp_path: Path, fields: dict[str, Any], expected: list[str]
) -> None:
    assert loaded(tmp_path, **fields) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"sync": ["fdatasync", "osync"]}, "matrix.sync[1]: 'osync' is not a sync mode"),
        ({"sync": ["dsync", "dsync"]}, "matrix.sync: [1] repeats the entry 'dsync'"),
        ({"sync": []}, "matrix.sync: List should have at least 1 item"),
        (
            {"random_distribution": ["uniform", "zipf:1"]},
            "matrix.random_distribution[1]: 'zipf:1': zipf's theta must be above 0",
        ),
        ({"random_distribution": ["gauss:3"]}, "matrix.random_distribution[0]: 'gauss:3'"),
        ({"random_distribution": [1.2]}, "matrix.random_distribution[0]: 1.2"),
        (
            {"data_profile": [{"compress_pct": 120}]},
            "matrix.data_profile[0].compress_pct: Input should be less than or equal to 100",
        ),
        (
            {"data_profile": [{"compress_pct": "50"}]},
            "matrix.data_profile[0].compress_pct: Input should be a valid integer",
        ),
        (
            {"data_profile": [{"compress_pct": 50, "dedupe": 10}]},
            "matrix.data_profile[0].dedupe: unknown key",
        ),
        (
            {"data_profile": [{"compress_pct": 50}, {"compress_pct": 50, "dedupe_pct": 0}]},
            "matrix.data_profile: [1] repeats the data profile 'cmp50dd0'",
        ),
    ],
)
def test_bad_dimensions_name_place_and_problem(
    tmp_path: Path, fields: dict[str, Any], expected: str
) -> None:
    problems = refused(tmp_path, **fields)
    assert any(expected in p for p in problems), problems


def test_distribution_message_names_the_rule(tmp_path: Path) -> None:
    (problem,) = refused(tmp_path, random_distribution=["pareto:2"])
    assert "pareto's h must be between 0 and 1" in problem


def test_a_spec_without_the_new_dimensions_keeps_its_fingerprint(tmp_path: Path) -> None:
    """Writing the new keys' defaults out changes nothing, so sweeps resume as they were."""
    plain, _ = load_spec(write_spec(tmp_path, quick_spec(), "plain"))
    spec = quick_spec()
    spec["matrix"] |= {"sync": None, "random_distribution": None, "data_profile": None}
    explicit, _ = load_spec(write_spec(tmp_path, spec, "quick"))
    assert explicit.fingerprint() == plain.fingerprint()
    assert [c.key for c in explicit.matrix.cells()] == [c.key for c in plain.matrix.cells()]


def test_distribution_and_profile_values() -> None:
    assert Distribution.parse("zipf:1.2").fio == "zipf:1.2"
    assert Distribution.parse("normal:20").name_in_key == "normal20"
    assert DataProfile(50, 20).name == "cmp50dd20"


def data_reduction_spec(**matrix_fields: Any) -> dict[str, Any]:
    spec = quick_base()
    spec["platform_options"] = {"profile": "allflash-nvme"}
    spec["config_space"]["data_reduction"] = [False, True]
    spec["matrix"] |= matrix_fields
    return spec


DATA_PROFILE_PROBLEM = "config_space.data_reduction: compares data reduction on and off"


def test_sweeping_data_reduction_without_a_data_profile_is_refused(tmp_path: Path) -> None:
    path = write_spec(tmp_path, data_reduction_spec(), "dr")
    problems = problems_of(path)
    (mine,) = [p for p in problems if DATA_PROFILE_PROBLEM in p]
    assert "matrix.data_profile" in mine
    line = int(mine.split(":")[0].removeprefix("line "))
    lines = path.read_text().splitlines()
    assert "data_reduction" in lines[line - 1] + lines[line - 2]  # the key, or its first value


def test_data_reduction_with_a_data_profile_is_accepted(tmp_path: Path) -> None:
    spec = data_reduction_spec(data_profile=[{"compress_pct": 50, "dedupe_pct": 20}])
    path = write_spec(tmp_path, spec, "dr")
    try:
        load_spec(path)
    except SpecError as exc:  # other checks may refuse it; never for want of a profile
        assert not [p for p in exc.problems if DATA_PROFILE_PROBLEM in p], exc.problems


def test_the_cli_refuses_it_with_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, data_reduction_spec(), "dr")
    proc = cli("run", spec, "--check", "--store", tmp_path / "s", timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert DATA_PROFILE_PROBLEM in proc.stderr
    assert not (tmp_path / "s").exists()


def test_the_shipped_wal_class_is_measured_by_a_sync_matrix(tmp_path: Path) -> None:
    wal = load_class("wal")
    cells = [WorkloadCell.parse(k) for k in wal.cell_keys]
    assert cells and all(c.sync in ("fdatasync", "dsync") for c in cells)
    assert all(c.pattern.rw == "write" and c.concurrency.outstanding("psync") == 1 for c in cells)
    spec = quick_base() | {"classes": ["wal"]}
    spec["matrix"] = matrix(
        patterns=["write"], block_sizes=["4k", "8k", "16k"], sync=["fdatasync", "dsync"]
    )
    loaded_spec, _ = load_spec(write_spec(tmp_path, spec, "wal"))
    assert set(wal.cell_keys) <= {c.key for c in loaded_spec.matrix.cells()}
    # etcd's bound is on the flush itself where the log syncs after the write
    bounded = {(lim.metric, cell) for lim in wal.limits for cell in lim.cells or []}
    for cell in cells:
        metric = "sync_lat_p99" if cell.sync == "fdatasync" else "write_lat_p99"
        assert (metric, cell.key) in bounded, (metric, cell.key)
