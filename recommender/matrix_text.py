"""The sweep matrix in the report's disclosure: what it measures beyond the cross product of
patterns, block sizes and concurrency (extra and composite cells, the dimensions of the
writing and random cells, open-loop rates), in the words of the spec."""

from __future__ import annotations

from typing import Any

#: the matrix's further dimensions and cells, as the disclosure names them
MATRIX_MORE = (
    ("extra_cells", "extra cells"),
    ("composite", "composite cells"),
    ("active_range", "active range %"),
    ("sync", "sync"),
    ("random_distribution", "random distribution"),
    ("data_profile", "data profiles"),
    ("rate", "open-loop rates %"),
)


def matrix_more(matrix: dict[str, Any]) -> str:
    """The matrix's dimensions and cells beyond the cross product that the spec sets
    (``extra cells read/1m/qd1x16; sync none, fsync``), each after a "; "; empty if none."""
    parts = [
        f"; {label} {', '.join(_word(v) for v in matrix[name])}"
        for name, label in MATRIX_MORE
        if matrix.get(name)
    ]
    return "".join(parts)


def _word(value: Any) -> str:
    if isinstance(value, list):
        return " + ".join(_word(v) for v in value)
    if isinstance(value, dict):
        return " ".join(f"{k}={_word(v)}" for k, v in value.items())
    return str(value)
