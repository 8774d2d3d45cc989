"""fio's client/server mode output, on a run recorded from real fio (tests/fixtures/fio)."""

from __future__ import annotations

import copy
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from sweeper.fio import FioParseError, FioRunError, parse_fio_output
from sweeper.fio.clients import (
    ALL_CLIENTS,
    FioServerUnreachableError,
    parse_client_output,
    run_fio_clients,
    wait_for_servers,
)
from sweeper.fio.parse import histogram_percentiles
from sweeper.fio.runner import Fio
from tests.support.paths import FIO_FIXTURES as FIXTURES

RECORDED = FIXTURES / "clients_3hosts_randread.json"
HOSTS = [("127.0.0.1", 8765), ("127.0.0.2", 8765), ("127.0.0.3", 8765)]
PCTS = {
    "p50": "50.000000",
    "p95": "95.000000",
    "p99": "99.000000",
    "p999": "99.900000",
    "p9999": "99.990000",
}


def recorded_text() -> str:
    return RECORDED.read_text()


def recorded_doc() -> dict[str, Any]:
    """The fixture's JSON read independently of the parser (after fio's '<vm> ...' lines)."""
    text = recorded_text()
    return json.loads(text[text.index("\n{") + 1 :])


def raw_entry(doc: dict[str, Any], host: str | None = None) -> dict[str, Any]:
    """The entry of one host, or fio's 'All clients' sum with host None."""
    for entry in doc["client_stats"]:
        if host is None and entry["jobname"] == ALL_CLIENTS:
            return entry
        if host is not None and entry["jobname"] != ALL_CLIENTS and entry["hostname"] == host:
            return entry
    raise AssertionError(f"no entry for {host}")


def as_output(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2)


# --- the recorded three-host run -------------------------------------------------------------


def test_recorded_output_starts_with_the_servers_text_lines() -> None:
    # fio's client mode prints each server's text output, prefixed with the name the server
    # reports for itself, before the JSON document whatever --output-format says.
    first = recorded_text().splitlines()[0]
    assert first.startswith("<") and "> randread_4k: (g=0)" in first


def test_every_host_has_its_own_figures() -> None:
    doc = recorded_doc()
    result = parse_client_output(recorded_text(), expected_hosts=HOSTS)
    assert [(h.host, h.port) for h in result.hosts] == HOSTS
    assert result.fio_version == "fio-3.33"
    for entry in result.hosts:
        raw = raw_entry(doc, entry.host)["read"]
        stats = entry.result.read
        assert stats is not None and entry.result.write is None
        assert stats.iops == raw["iops"] > 0
        assert stats.total_ios == raw["total_ios"]
        assert stats.mbps == raw["bw_bytes"] / 1e6
        assert stats.lat_mean_ms == pytest.approx(raw["lat_ns"]["mean"] / 1e6)
        for key, pct in PCTS.items():
            assert getattr(stats, f"lat_{key}_ms") == raw["lat_ns"]["percentile"][pct] / 1e6
        assert entry.result.jobs == 1
        assert entry.result.job_options["rw"] == "randread"
        assert entry.result.job_options["filename"] == "data.bin"
    assert result.host("127.0.0.2", 8765) is result.hosts[1].result
    with pytest.raises(KeyError, match="127.0.0.9:8765"):
        result.host("127.0.0.9", 8765)


def test_each_hosts_fio_cpu_and_their_sum() -> None:
    doc = recorded_doc()
    result = parse_client_output(recorded_text())
    for entry in result.hosts:
        raw = raw_entry(doc, entry.host)
        share = raw["job_runtime"] / raw["read"]["runtime"]  # the jobs of its group
        assert entry.result.usr_cpu_pct == pytest.approx(raw["usr_cpu"] * share)
        assert entry.result.sys_cpu_pct == pytest.approx(raw["sys_cpu"] * share)
    total = sum(h.result.sys_cpu_pct or 0.0 for h in result.hosts)
    assert total > 0 and result.aggregate.sys_cpu_pct == pytest.approx(total)


def test_aggregate_is_fios_all_clients_entry_and_the_sum_of_the_hosts() -> None:
    doc = recorded_doc()
    result = parse_client_output(recorded_text())
    assert result.aggregate_source == "all clients"
    agg = result.aggregate.read
    assert agg is not None and result.aggregate.write is None
    hosts = [h.result.read for h in result.hosts]
    assert agg.iops == raw_entry(doc)["read"]["iops"]
    assert agg.iops == pytest.approx(sum(h.iops for h in hosts if h), abs=1e-5)
    assert agg.total_ios == sum(h.total_ios for h in hosts if h)
    assert agg.mbps == pytest.approx(sum(h.mbps for h in hosts if h), abs=1e-5)
    assert agg.lat_mean_ms == pytest.approx(raw_entry(doc)["read"]["lat_ns"]["mean"] / 1e6)
    assert result.aggregate.jobs == 3


def test_aggregate_percentiles_come_from_the_merged_histograms() -> None:
    # fio's 'All clients' entry has no percentiles; they are computed from the hosts' json+
    # bins the way fio computes its own, so one host's bins give back fio's very figures.
    doc = recorded_doc()
    assert "percentile" not in raw_entry(doc)["read"]["lat_ns"]
    agg = parse_client_output(recorded_text()).aggregate.read
    assert agg is not None
    for key, pct in PCTS.items():
        per_host = [raw_entry(doc, h)["read"]["lat_ns"]["percentile"][pct] / 1e6 for h, _ in HOSTS]
        assert min(per_host) <= getattr(agg, f"lat_{key}_ms") <= max(per_host)
    only = copy.deepcopy(doc)
    only["client_stats"] = [raw_entry(doc, "127.0.0.1")]
    # a single host's figures are its own (from fio's percentiles), and equal the bins' ones
    computed = histogram_percentiles([raw_entry(doc, "127.0.0.1")], "read")
    single = parse_client_output(as_output(only)).aggregate.read
    assert single is not None
    assert {k: getattr(single, f"lat_{k}_ms") for k in PCTS} == computed


def test_without_histograms_the_aggregate_has_no_percentiles() -> None:
    # Several hosts' percentiles cannot be combined: their maximum is only an upper bound,
    # never stored as the aggregate's percentile.
    doc = recorded_doc()
    for entry in doc["client_stats"]:
        for lat in ("lat_ns", "clat_ns", "slat_ns"):
            entry["read"].get(lat, {}).pop("bins", None)
    agg = parse_client_output(as_output(doc)).aggregate.read
    assert agg is not None
    for key in PCTS:
        assert getattr(agg, f"lat_{key}_ms") is None


def test_a_single_client_has_no_all_clients_entry_and_is_its_own_aggregate() -> None:
    doc = recorded_doc()
    doc["client_stats"] = [raw_entry(doc, "127.0.0.3")]
    result = parse_client_output(as_output(doc), expected_hosts=[("127.0.0.3", 8765)])
    assert result.aggregate_source == "single host"
    assert [(h.host, h.port) for h in result.hosts] == [("127.0.0.3", 8765)]
    assert result.aggregate == result.hosts[0].result


def test_several_hosts_without_a_sum_are_summed_here() -> None:
    doc = recorded_doc()
    doc["client_stats"] = [e for e in doc["client_stats"] if e["jobname"] != ALL_CLIENTS]
    result = parse_client_output(as_output(doc))
    assert result.aggregate_source == "hosts"
    summed, fios = result.aggregate.read, parse_client_output(recorded_text()).aggregate.read
    assert summed is not None and fios is not None
    assert summed.total_ios == fios.total_ios
    assert summed.iops == pytest.approx(fios.iops, abs=1e-5)
    assert summed.lat_mean_ms == pytest.approx(fios.lat_mean_ms, rel=1e-9)
    assert summed.lat_p99_ms == fios.lat_p99_ms


# --- errors -----------------------------------------------------------------------------------


def test_a_failed_job_names_its_host() -> None:
    doc = recorded_doc()
    raw_entry(doc, "127.0.0.2")["error"] = 28
    with pytest.raises(
        FioRunError, match=r"'randread_4k' on 127\.0\.0\.2:8765 .* error 28 \(ENOSPC"
    ):
        parse_client_output(as_output(doc))


def test_a_host_that_reported_nothing_is_named() -> None:
    doc = recorded_doc()
    doc["client_stats"] = [e for e in doc["client_stats"] if e.get("hostname") != "127.0.0.2"]
    text = as_output(doc)
    with pytest.raises(FioRunError, match=r"no results from 127\.0\.0\.2:8765"):
        parse_client_output(text, expected_hosts=HOSTS)


def test_truncated_output_is_a_parse_error() -> None:
    text = recorded_text()
    truncated = text[: len(text) // 2]
    with pytest.raises(FioParseError, match="truncated or invalid"):
        parse_client_output(truncated)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("fio: failed to connect to 127.0.0.1:8765\n", "no JSON object"),
        ("{\n}\n", "no 'client_stats'"),
        ('{\n"client_stats": [1]}\n', "non-object entry"),
        ('{\n"client_stats": [{"jobname": "x", "error": 0}]}\n', "no hostname and port"),
    ],
)
def test_garbage_is_a_parse_error(text: str, message: str) -> None:
    with pytest.raises(FioParseError, match=message):
        parse_client_output(text)


def test_stand_alone_output_is_refused() -> None:
    text = (FIXTURES / "randread_4k_psync_qd1x2.json").read_text()
    parse_fio_output(text)  # fine for the stand-alone parser
    with pytest.raises(FioParseError, match="stand-alone run"):
        parse_client_output(text)


def test_an_all_clients_entry_that_disagrees_with_the_hosts_is_refused() -> None:
    doc = recorded_doc()
    raw_entry(doc)["read"]["total_ios"] += 1
    with pytest.raises(FioParseError, match="'All clients' entry counts"):
        parse_client_output(as_output(doc))


def test_a_missing_field_is_a_parse_error() -> None:
    doc = recorded_doc()
    del raw_entry(doc, "127.0.0.1")["read"]["iops"]
    with pytest.raises(FioParseError, match="missing or has a bad field"):
        parse_client_output(as_output(doc))


# --- hosts and servers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hosts", "message"),
    [
        ([], "at least one"),
        ([("127.0.0.1", 8765), ("127.0.0.1", 8765)], "named twice"),
        ([("127.0.0.1,8766", 8765)], "','"),
        ([("-h", 8765)], "non-empty name"),
        ([("127.0.0.1", 0)], "TCP port"),
        ([("127.0.0.1", "8765")], "TCP port"),
    ],
)
def test_bad_hosts_are_refused_before_fio_runs(
    tmp_path: Path, hosts: list[tuple[str, int]], message: str
) -> None:
    fio = Fio("/nonexistent/fio", "fio-3.33")
    with pytest.raises(ValueError, match=message):
        run_fio_clients(fio, hosts, tmp_path / "job.fio", timeout_s=5)


def test_wait_for_servers_returns_once_they_listen_and_names_those_that_do_not() -> None:
    with socket.socket() as listening, socket.socket() as closed:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        # another address (one fio server per address), bound, never listening: refused
        closed.bind(("127.0.0.2", 0))
        up = listening.getsockname()
        down = closed.getsockname()
        wait_for_servers([up], timeout_s=2)
        with pytest.raises(FioServerUnreachableError) as info:
            wait_for_servers([up, down], timeout_s=0.3)
    message = str(info.value)
    assert f"127.0.0.2:{down[1]}" in message and f":{up[1]} " not in message
    assert "refused" in message.lower()
