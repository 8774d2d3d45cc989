from __future__ import annotations

import pytest

from sweeper.units import format_duration, format_size, parse_duration, parse_latency_ms, parse_size
from sweeper.workload import Concurrency, Pattern, WorkloadCell


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4k", 4096),
        ("4KiB", 4096),
        ("1m", 1048576),
        ("360g", 360 * 1024**3),
        ("512", 512),
        (8192, 8192),
    ],
)
def test_parse_size(text, expected) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["12q", "-4k", "0", "", "k", "1.5", True, None, 0])
def test_parse_size_rejects(text) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


def test_format_size_round_trips() -> None:
    for n in (512, 4096, 65536, 1048576, 3 * 1024**3):
        assert parse_size(format_size(n)) == n


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("90s", 90), ("5m", 300), ("1h30m", 5400), ("12h", 43200), (2.5, 2.5)],
)
def test_parse_duration(text, seconds) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["fast", "5x", "-3", "h", "1h30", True])
def test_parse_duration_rejects(text) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_format_duration() -> None:
    assert format_duration(45) == "45s"
    assert format_duration(200) == "3m20s"
    assert format_duration(3720) == "1h02m"


def test_latency_needs_a_unit() -> None:
    assert parse_latency_ms("20ms") == 20
    assert parse_latency_ms("500us") == 0.5
    with pytest.raises(ValueError, match="unit"):
        parse_latency_ms(20)  # type: ignore[arg-type]


def test_cell_keys_round_trip() -> None:
    cell = WorkloadCell(Pattern.parse("randrw70"), 8192, Concurrency.parse("1x20"))
    assert cell.key == "randrw70/8k/qd1x20"
    assert WorkloadCell.parse(cell.key) == cell
    assert Pattern.parse("randrw").read_pct == 50
    assert Concurrency(8, 4).outstanding("sync") == 4
    assert Concurrency(8, 4).outstanding("libaio") == 32
    with pytest.raises(ValueError):
        Pattern.parse("read70")


@pytest.mark.parametrize(
    "value",
    [float("inf"), float("-inf"), float("nan"), "9" * 400 + "s", "9" * 400, 10**400, "400d", True],
)
def test_parse_duration_refuses_what_is_not_a_finite_duration(value) -> None:
    with pytest.raises(ValueError):
        parse_duration(value)


@pytest.mark.parametrize("value", ["9" * 40 + "k", "99999999999999999999p", 2**64, "4k\nx", "4k$"])
def test_parse_size_refuses_sizes_beyond_8_eib_and_trailing_text(value) -> None:
    with pytest.raises(ValueError):
        parse_size(value)


@pytest.mark.parametrize("value", ["9" * 400 + "ms", "20ms\nx", "nan ms", "inf ms"])
def test_parse_latency_refuses_what_is_not_a_finite_latency(value) -> None:
    with pytest.raises(ValueError):
        parse_latency_ms(value)
