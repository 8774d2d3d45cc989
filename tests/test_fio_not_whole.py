"""Runs that are not what their figures would say, each recorded from real fio 3.33
(tests/fixtures/fio/record.sh and RECORDED.md): one stopped early, one whose sync latency fio
mis-timed, and the outputs that only look unusual (an ETA line before the JSON, verify without
a verify pass), which are read as they are."""

from __future__ import annotations

import json

import pytest

from sweeper.fio import FioParseError, parse_fio_output
from tests.test_fio import FIXTURES, fixture_text

CUT = "randread_4k_psync_sigint_after_1s_jsonplus.txt"
OUTLIER = "randwrite_4k_libaio_qd8x1_fdatasync_sync_outlier_jsonplus.json"


def _document(name: str) -> dict:
    text = fixture_text(name)
    return json.loads(text[text.index("{") :])


def test_a_run_stopped_early_is_refused() -> None:
    # 10 s asked, SIGINT after about 1.5 s: fio still writes a whole-looking report.
    (job,) = _document(CUT)["jobs"]
    assert job["read"]["runtime"] < 2000 and job["job options"]["runtime"] == "10"
    with pytest.raises(FioParseError, match=r"'x' measured 1\.\d s of the 10 s .*stopped early"):
        parse_fio_output(fixture_text(CUT))


def test_a_run_given_its_runtime_in_other_units_is_judged_in_seconds() -> None:
    doc = _document(CUT)
    measured_ms = doc["jobs"][0]["read"]["runtime"]
    for runtime in (
        f"{measured_ms}ms",
        f"{measured_ms / 1000:.3f}s",
        f"{measured_ms // 0.95:.0f}ms",
    ):
        doc["jobs"][0]["job options"]["runtime"] = runtime
        assert parse_fio_output(json.dumps(doc)).read is not None, runtime
    for runtime in ("1m", "2h", "90"):
        doc["jobs"][0]["job options"]["runtime"] = runtime
        with pytest.raises(FioParseError, match="stopped early"):
            parse_fio_output(json.dumps(doc))


def test_a_job_stopped_by_its_steady_state_detector_is_whole() -> None:
    doc = _document(CUT)
    doc["jobs"][0]["job options"]["ss"] = "iops:10%"
    assert parse_fio_output(json.dumps(doc)).read is not None


def test_a_sync_latency_longer_than_the_job_is_refused() -> None:
    # One fdatasync timed at 777 s in a job of 2 s: the sync mean would read 122 ms, not 1.2.
    (job,) = _document(OUTLIER)["jobs"]
    assert job["sync"]["lat_ns"]["max"] > 100 * 1e9 and job["elapsed"] <= 2
    with pytest.raises(FioParseError, match=r"fdatasync at 777\.5 s in a job that ran 2 s"):
        parse_fio_output(fixture_text(OUTLIER))


def test_a_sync_latency_within_the_job_is_kept() -> None:
    doc = _document(OUTLIER)
    lat = doc["jobs"][0]["sync"]["lat_ns"]
    lat["max"] = 2.9e9  # under elapsed + 1 s: possible, kept
    lat["bins"] = {k: v for k, v in lat["bins"].items() if int(k) <= 2.9e9}
    sync = parse_fio_output(json.dumps(doc)).sync
    assert sync is not None and sync.count == lat["N"]


def test_the_json_after_an_eta_line_is_found() -> None:
    # read as fio wrote it: a reader with universal newlines would turn the \r into a \n
    text = (FIXTURES / "randread_4k_psync_eta_always_normal_json.txt").read_bytes().decode()
    assert "\r{" in text  # the document starts after the ETA line's carriage return
    result = parse_fio_output(text)
    doc, _ = json.JSONDecoder().raw_decode(text, text.index("\r{") + 1)  # normal text follows
    assert result.read is not None
    assert result.read.total_ios == doc["jobs"][0]["read"]["total_ios"]


@pytest.mark.parametrize(
    "name", ["read_4k_psync_verify_readonly.json", "randwrite_4k_psync_verify_no_read_phase.txt"]
)
def test_verify_without_a_verify_pass_is_read_as_it_is(name: str) -> None:
    # A read-only job checks what it reads; a time-based write never reaches its verify pass.
    result = parse_fio_output(fixture_text(name))
    (job,) = _document(name)["jobs"]
    assert "verify" in job["job options"]
    assert [result.read is not None, result.write is not None] == [
        job["read"]["total_ios"] > 0,
        job["write"]["total_ios"] > 0,
    ]


def test_a_trim_is_refused_in_its_own_words() -> None:
    with pytest.raises(FioParseError) as refused:
        parse_fio_output(fixture_text("randtrim_4k_null.json"))
    assert str(refused.value).startswith("fio reported")
    assert "missing or has a bad field" not in str(refused.value)
