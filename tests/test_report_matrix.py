"""The report's disclosure names the whole matrix: the cells and dimensions a spec sets
beyond the cross product of patterns, block sizes and concurrency, in the spec's words."""

from __future__ import annotations

from recommender.matrix_text import matrix_more
from sweeper.spec import Matrix


def test_every_dimension_and_extra_cell_is_named() -> None:
    matrix = Matrix(
        patterns=["randrw70"],
        block_sizes=["8k"],
        concurrency=["1x16"],
        extra_cells=["write/4k/qd1x1/dsync", "read/1m/qd1x16"],
        composite=[["randrw70/8k/qd1x16", "write/64k/qd1x1"]],
        active_range=[10, 100],
        sync=["none", "fsync"],
        random_distribution=["uniform", "zipf:1.2"],
        data_profile=[{"compress_pct": 50, "dedupe_pct": 20}],
        rate=[50, 90],
    ).model_dump(mode="json")
    assert matrix_more(matrix).split("; ") == [
        "",
        "extra cells write/4k/qd1x1/dsync, read/1m/qd1x16",
        "composite cells randrw70/8k/qd1x16 + write/64k/qd1x1",
        "active range % 10, 100",
        "sync none, fsync",
        "random distribution uniform, zipf:1.2",
        "data profiles compress_pct=50 dedupe_pct=20",
        "open-loop rates % 50, 90",
    ]


def test_a_plain_matrix_adds_nothing() -> None:
    matrix = Matrix(patterns=["read"], block_sizes=["4k"]).model_dump(mode="json")
    assert matrix_more(matrix) == ""
